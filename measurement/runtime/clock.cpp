// Chooses and calibrates the event clock.
#include "waitscope/measure/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace waitscope::measure {

bool hasInvariantTsc() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007)
        return false;
    __cpuid(0x80000007, eax, ebx, ecx, edx);
    return (edx & (1u << 8)) != 0;
#else
    return false;
#endif
}

ClockAnchor Clock::anchorNow() noexcept {
    ClockAnchor best;
#if defined(__x86_64__) || defined(__i386__)
    // The TSC read between two CLOCK_MONOTONIC readings, taken at their middle; of a few tries
    // the closest bracket, so that a preemption between the readings does not skew the rate.
    std::uint64_t bestWidth = ~std::uint64_t{0};
    for (int attempt = 0; attempt < 4; ++attempt) {
        const std::uint64_t before = monotonicNs();
        const std::uint64_t tsc = __rdtsc();
        const std::uint64_t after = monotonicNs();
        if (after - before < bestWidth) {
            bestWidth = after - before;
            best.ns = before + (after - before) / 2;
            best.tsc = tsc;
        }
        if (bestWidth < 2000)
            break;
    }
#else
    best.ns = monotonicNs();
#endif
    return best;
}

void Clock::init(ClockKind requested, const ClockAnchor* anchor) {
    m_useTsc = false;
    m_ticksPerSecond = 1000000000ull;
#if defined(__x86_64__) || defined(__i386__)
    bool wantTsc =
        requested == ClockKind::Tsc || (requested == ClockKind::Auto && hasInvariantTsc());
    if (!wantTsc)
        return;
    // Calibrate against CLOCK_MONOTONIC over at least 20 ms, from the anchor (taken when the
    // library was loaded) when there is one: the time the process spent since (loading,
    // MPI_Init) makes most or all of the interval, where spinning 20 ms on every rank was a
    // fixed cost of each run.
    ClockAnchor first = anchorNow();
    if (anchor && anchor->ns != 0 && anchor->ns <= first.ns && anchor->tsc != 0 &&
        anchor->tsc < first.tsc)
        first = *anchor;
    while (monotonicNs() - first.ns < 20000000ull) {
    }
    const ClockAnchor last = anchorNow();
    if (last.tsc <= first.tsc || last.ns <= first.ns)
        return;
    long double rate = static_cast<long double>(last.tsc - first.tsc) * 1e9L /
                       static_cast<long double>(last.ns - first.ns);
    m_ticksPerSecond = static_cast<std::uint64_t>(rate);
    m_useTsc = m_ticksPerSecond > 0;
#else
    (void)requested;
    (void)anchor;
#endif
}

} // namespace waitscope::measure
