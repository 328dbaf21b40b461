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
    m_calibrated = true;
    m_ticksPerSecond = 1000000000ull;
#if defined(__x86_64__) || defined(__i386__)
    bool wantTsc =
        requested == ClockKind::Tsc || (requested == ClockKind::Auto && hasInvariantTsc());
    if (!wantTsc)
        return;
    // The rate is measured later (calibrate), over the time the process spends until then: an
    // instrumented program starts the measurement at its first function, a few milliseconds
    // after loading, where waiting out the 20 ms was a fixed cost of each rank.
    m_first = anchorNow();
    if (anchor && anchor->ns != 0 && anchor->ns <= m_first.ns && anchor->tsc != 0 &&
        anchor->tsc < m_first.tsc)
        m_first = *anchor;
    m_useTsc = true;
    m_calibrated = false;
#else
    (void)requested;
    (void)anchor;
#endif
}

void Clock::calibrate() {
    if (m_calibrated)
        return;
    m_calibrated = true;
    ClockAnchor last = anchorNow();
    // An invariant TSC never stands still; one that did (forced on a CPU without it) is given
    // a second before the rate stays at its default.
    while (last.ns - m_first.ns < 20000000ull ||
           (last.tsc <= m_first.tsc && last.ns - m_first.ns < 1000000000ull))
        last = anchorNow();
    if (last.tsc <= m_first.tsc)
        return;
    long double rate = static_cast<long double>(last.tsc - m_first.tsc) * 1e9L /
                       static_cast<long double>(last.ns - m_first.ns);
    if (rate >= 1)
        m_ticksPerSecond = static_cast<std::uint64_t>(rate);
}

} // namespace waitscope::measure
