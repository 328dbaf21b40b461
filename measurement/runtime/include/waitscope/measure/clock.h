// The event clock: the invariant time-stamp counter where it is usable, else CLOCK_MONOTONIC.
#pragma once

#include "waitscope/measure/config.h"

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace waitscope::measure {

/// CLOCK_MONOTONIC and the TSC read back to back: one end of the TSC's calibration.
struct ClockAnchor {
    std::uint64_t ns = 0;  ///< CLOCK_MONOTONIC, ns; 0 when not taken
    std::uint64_t tsc = 0; ///< the TSC just after it (0 without one)
};

/// Reads the clock chosen at init. Safe in any context, signal handlers included.
class Clock {
public:
    /// Chooses the clock. Call once at init; it reads at once, but the TSC's rate is known only
    /// after calibrate().
    void init(ClockKind requested, const ClockAnchor* anchor = nullptr);

    /// With the TSC, measures its rate against CLOCK_MONOTONIC over at least 20 ms since
    /// init's `anchor` (readings of both clocks taken earlier, when the library was loaded),
    /// else since init: the time the process spent since (loading, the program up to MPI_Init,
    /// MPI_Init itself) counts, and only the rest of the 20 ms is spent waiting. Call before
    /// the rate is used; later calls do nothing.
    void calibrate();

    /// The reading of this clock at `anchor`.
    std::uint64_t ticksAt(const ClockAnchor& anchor) const noexcept {
        return m_useTsc ? anchor.tsc : anchor.ns;
    }

    /// Both clocks read back to back, as a start for the calibration. Any context.
    static ClockAnchor anchorNow() noexcept;

    /// Ticks now; monotonic per process.
    std::uint64_t now() const noexcept {
#if defined(__x86_64__) || defined(__i386__)
        if (m_useTsc)
            return __rdtsc();
#endif
        return monotonicNs();
    }

    std::uint64_t ticksPerSecond() const {
        return m_ticksPerSecond;
    }
    /// Adopts another process's calibration, so every rank converts ticks alike.
    void setRate(std::uint64_t ticksPerSecond) {
        if (m_useTsc && ticksPerSecond > 0)
            m_ticksPerSecond = ticksPerSecond;
    }
    bool usesTsc() const {
        return m_useTsc;
    }
    const char* name() const {
        return m_useTsc ? "tsc" : "monotonic";
    }

    static std::uint64_t monotonicNs() noexcept {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
               static_cast<std::uint64_t>(ts.tv_nsec);
    }

private:
    bool m_useTsc = false;
    bool m_calibrated = true; ///< false from init with the TSC until calibrate
    ClockAnchor m_first;      ///< the calibration's start
    std::uint64_t m_ticksPerSecond = 1000000000ull;
};

/// True when the CPU reports an invariant (constant-rate, non-stop) time-stamp counter.
bool hasInvariantTsc();

/// The clock offset to apply from a probe's best round: `offset` when it exceeds its own
/// uncertainty `deviation` (half the round trip), else 0, since it cannot be told from none.
inline std::int64_t significantOffset(std::int64_t offset, double deviation) {
    const double magnitude =
        offset < 0 ? -static_cast<double>(offset) : static_cast<double>(offset);
    return magnitude > deviation ? offset : 0;
}

} // namespace waitscope::measure
