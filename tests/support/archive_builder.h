// Small OTF2 archives written by tests: the global definitions of an MPI run built up in code
// (ranks with their master threads, further threads, regions, MPI_COMM_WORLD), each location's
// events through trace::Otf2EventWriter, and the archive finished in one call.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/otf2_writer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace waitscope::testing {

/// The location id of further thread `k` (1, 2, ...) of `rank`: k << 32 | rank, as Waitscope's
/// measurement and Score-P number them.
inline uint64_t threadLocationId(uint32_t rank, uint32_t k) {
    return (static_cast<uint64_t>(k) << 32) | rank;
}

/// An OTF2 archive of an MPI run written for a test. Build the definitions first (region(),
/// thread(), definitions()), then open() the archive, write each location's events() and
/// finish(). The first failure is kept (later steps then do nothing) and returned by finish(),
/// as an Error naming the directory. Movable before open().
class ArchiveBuilder {
public:
    /// The definitions of `ranks` ranks on one node ("machine" / "node"): per rank the location
    /// group "MPI Rank r" with its master thread (location r, "Master thread"); group 0 lists the
    /// ranks' locations, group 1 is the communicator group of MPI_COMM_WORLD (communicator 0).
    /// The clock runs at `ticksPerSecond` from 0 over `length` ticks.
    ArchiveBuilder(uint32_t ranks, uint64_t ticksPerSecond, uint64_t length);
    /// An archive of the given global definitions (a test that spells out every one).
    explicit ArchiveBuilder(trace::Definitions definitions)
        : m_definitions(std::move(definitions)) {}

    /// Adds a region named `name` (its canonical name too) and returns its id (ids count up
    /// from 0 in the order of the calls).
    uint32_t region(const std::string& name, trace::RegionRole role, trace::Paradigm paradigm,
                    const std::string& file = {}, uint32_t beginLine = 0, uint32_t endLine = 0);
    /// Adds further thread `k` of `rank` (location threadLocationId(rank, k), a CPU thread in the
    /// rank's group) named `name`, "thread k" when empty; returns its location id.
    uint64_t thread(uint32_t rank, uint32_t k, const std::string& name = {});
    /// Adds MPI_COMM_SELF (a CommSelf group and the communicator); returns its id.
    uint32_t commSelf();
    /// The global definitions so far, to add what the helpers above do not.
    trace::Definitions& definitions() { return m_definitions; }
    const trace::Definitions& definitions() const { return m_definitions; }

    /// Creates the archive in `dir`, replacing an archive there (traces.otf2, traces.def and
    /// traces/; other files stay). Fails (kept for finish()) naming the directory.
    void open(const std::string& dir);
    /// Writes the events of `location` with `write`, then closes them; a defined location
    /// announces the number written. Fails (kept for finish()) when libotf2 cannot open or close
    /// the event file.
    void events(uint64_t location, const std::function<void(trace::Otf2EventWriter&)>& write);
    /// Writes the (empty) local definitions of every defined location, the global
    /// definitions, then `more` (definitions the Definitions type does not hold, such as a
    /// sampling timer or an RMA window), and closes the archive. Returns the first failure of
    /// any step, also when libotf2 refused a single event.
    Status finish(const std::function<Status(trace::Otf2Writer&)>& more = {});

private:
    trace::Definitions m_definitions;
    std::unique_ptr<trace::Otf2Writer> m_writer; ///< from open(), so that a builder can move
    std::string m_dir;
    Status m_failure; ///< the first failure
};

/// A blocking send on communicator `comm` as Score-P records it: Enter `region` at `enter`, the
/// MpiSend of `bytes` to `receiver` with `tag` at `enter` too, Leave at `leave`.
void sendCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
              uint32_t receiver, uint32_t tag, uint64_t bytes = 8, uint32_t comm = 0);
/// A blocking receive: Enter `region` at `enter`, the MpiRecv of `bytes` from `sender` with
/// `tag` at `leave` (when the message arrived), Leave at `leave`.
void receiveCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
                 uint32_t sender, uint32_t tag, uint64_t bytes = 8, uint32_t comm = 0);
/// A barrier on `comm`: Enter `region` and MpiCollectiveBegin at `enter`, MpiCollectiveEnd
/// and Leave at `leave`.
void barrierCall(trace::Otf2EventWriter& w, uint32_t region, uint64_t enter, uint64_t leave,
                 uint32_t comm = 0);

} // namespace waitscope::testing
