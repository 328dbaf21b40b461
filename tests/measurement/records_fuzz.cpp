// Fuzzes the readers recovery trusts: a rank's records file, its definitions file and the OTF2
// events its spill writer kept (read back by readEncodedEvents, which must neither crash nor hang
// on any input: OTF2 bytes have no redundancy to refuse every damage by). Starts
// from valid inputs built here and damages them at random (bit flips, cuts, inserted and
// removed bytes, copied words); every input must be read without a crash or a hang, and one
// read as clean must round-trip: its events encode back to events that read the same, so no
// damaged record was silently taken. Usage: measurement_records_fuzz SECONDS [SEED]; prints
// the inputs tried, how many were refused, and exits 1 at the first violation.
#include "comm_definitions.h"
#include "encoded_events.h"
#include "records_file.h"
#include "trace_writer.h"
#include "waitscope/measure/rank_definitions_file.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>

using namespace waitscope::measure;

namespace {

Definitions seedDefinitions() {
    Definitions defs;
    for (int i = 0; i < 6; ++i)
        defs.addRegion({"region" + std::to_string(i), "", i % 2 ? "a.c" : "", 1, 2,
                        RegionRole::Function, Paradigm::User});
    defs.addComm(testing::describedComm(kWorldKey));
    defs.addComm(testing::describedComm(makeCommKey(0, 1), kWorldKey, {0, 1}));
    std::uint32_t c = defs.callingContext(0, kNoContext);
    defs.callingContext(3, c);
    return defs;
}

std::string seedRecords() {
    std::vector<RecordEvent> events;
    std::uint64_t t = 1ull << 40;
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(EventKind::Count); ++k) {
        if (k == static_cast<std::uint32_t>(EventKind::TimeBase))
            continue;
        RecordEvent e;
        e.time = (t += 1000 * k);
        e.kind = k;
        const bool noOperand = k == static_cast<std::uint32_t>(EventKind::ProgramBegin) ||
                               k == static_cast<std::uint32_t>(EventKind::MpiCollectiveBegin);
        e.a = noOperand ? 0 : k % 2;
        e.x[0] = packPair(k % 2, 7);
        e.x[1] = 100;
        e.x[2] = k;
        e.x[3] = 3;
        events.push_back(e);
    }
    events.push_back(events[0]); // back in time: a time base
    return encodeRecords(events);
}

std::string definitionsBytes(const Definitions& defs) {
    char name[] = "/tmp/waitscope_fuzz_XXXXXX";
    int fd = mkstemp(name);
    unlink(name);
    RankIdentity id{0, 2, 1000000000ull, "host", "/bin/app"};
    writeRankDefinitions(fd, id, defs);
    std::string bytes(static_cast<std::size_t>(lseek(fd, 0, SEEK_END)), '\0');
    pread(fd, bytes.data(), bytes.size(), 0);
    close(fd);
    return bytes;
}

std::string mutate(std::string s, std::mt19937_64& random) {
    const int steps = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < steps; ++i) {
        const std::size_t at = s.empty() ? 0 : random() % s.size();
        switch (random() % 6) {
        case 0:
            if (!s.empty())
                s[at] = static_cast<char>(s[at] ^ (1 << (random() % 8)));
            break;
        case 1:
            s.resize(at);
            break;
        case 2:
            s.insert(at, 1 + random() % 9, static_cast<char>(random()));
            break;
        case 3:
            if (!s.empty())
                s.erase(at, 1 + random() % 9);
            break;
        case 4: // a whole word replaced by another from the input
            if (s.size() >= 16) {
                const std::size_t from = (random() % (s.size() / 8)) * 8;
                const std::size_t to = (random() % (s.size() / 8)) * 8;
                s.replace(to, 8, s.substr(from, 8));
            }
            break;
        default:
            if (!s.empty())
                s[at] = static_cast<char>(random());
        }
    }
    return s;
}

/// The seed records as the spill writer keeps them: OTF2 events, the event file's bytes;
/// `chunkBytes` its chunk size.
std::string seedEvents(const std::string& records, std::uint64_t& chunkBytes) {
    const std::string path = "/tmp/waitscope_fuzz_" + std::to_string(getpid()) + ".evt";
    std::vector<std::uint64_t> words(records.size() / 8);
    std::memcpy(words.data(), records.data(), words.size() * 8);
    const std::vector<std::uint32_t> parents = {kNoContext, 0}; // seedDefinitions' tree
    TraceWriter writer;
    std::uint64_t fileBytes = 0;
    if (!writer.encodeDuringRun(path, 0, words.data(), words.data() + words.size(), &parents) ||
        !writer.writeRunEvents(fileBytes, chunkBytes))
        return {};
    std::ifstream in(path, std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    unlink(path.c_str());
    return bytes;
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
    const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
    std::mt19937_64 random(seed);
    const Definitions defs = seedDefinitions();
    const std::string records = seedRecords();
    const std::string definitions = definitionsBytes(defs);
    std::uint64_t chunkBytes = 0;
    const std::string events = seedEvents(records, chunkBytes);
    const RecordsRead seedRead = readEncodedEvents(events, chunkBytes, defs);
    if (!readRecords(records, defs).damage.empty() || !parseRankDefinitions(definitions, "seed") ||
        events.empty() || !seedRead.damage.empty() ||
        // every event but the last, back in time (OTF2 refuses it, as libotf2 does)
        seedRead.events.size() + 1 != readRecords(records, defs).events.size()) {
        std::fprintf(stderr, "records_fuzz: the seed inputs do not read back\n");
        return 1;
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    unsigned long long tried = 0, refusedRecords = 0, refusedDefinitions = 0, refusedEvents = 0;
    while (std::chrono::steady_clock::now() < end) {
        for (int batch = 0; batch < 256; ++batch, ++tried) {
            const std::string input = mutate(records, random);
            RecordsRead read = readRecords(input, defs);
            if (!read.damage.empty()) {
                ++refusedRecords;
            } else {
                // Taken as clean: it must say the same again once re-encoded, every byte used.
                RecordsRead again = readRecords(encodeRecords(read.events), defs);
                bool same = again.damage.empty() && again.events.size() == read.events.size();
                for (std::size_t i = 0; same && i < read.events.size(); ++i)
                    same = again.events[i].time == read.events[i].time &&
                           again.events[i].kind == read.events[i].kind &&
                           again.events[i].a == read.events[i].a;
                if (!same || input.size() % 8 != 0) {
                    std::fprintf(stderr,
                                 "records_fuzz: seed %llu, input %llu: accepted but "
                                 "does not round-trip\n",
                                 static_cast<unsigned long long>(seed), tried);
                    return 1;
                }
            }
            if (!parseRankDefinitions(mutate(definitions, random), "fuzz"))
                ++refusedDefinitions;
            if (!readEncodedEvents(mutate(events, random), chunkBytes, defs).damage.empty())
                ++refusedEvents;
        }
    }
    std::printf("records_fuzz: %llu records, definitions and event file inputs each in %.0f s "
                "(seed %llu): %llu, %llu and %llu refused as damaged, no crash, no silent "
                "acceptance of records\n",
                tried, seconds, static_cast<unsigned long long>(seed), refusedRecords,
                refusedDefinitions, refusedEvents);
    return 0;
}
