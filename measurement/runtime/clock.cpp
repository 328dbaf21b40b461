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

void Clock::init(ClockKind requested) {
    m_useTsc = false;
    m_ticksPerSecond = 1000000000ull;
#if defined(__x86_64__) || defined(__i386__)
    bool wantTsc =
        requested == ClockKind::Tsc || (requested == ClockKind::Auto && hasInvariantTsc());
    if (!wantTsc)
        return;
    // Calibrate against CLOCK_MONOTONIC over ~20 ms; both readings bracket each other closely.
    std::uint64_t ns0 = monotonicNs();
    std::uint64_t t0 = __rdtsc();
    std::uint64_t ns1 = ns0;
    while (ns1 - ns0 < 20000000ull)
        ns1 = monotonicNs();
    std::uint64_t t1 = __rdtsc();
    if (t1 <= t0)
        return;
    long double rate =
        static_cast<long double>(t1 - t0) * 1e9L / static_cast<long double>(ns1 - ns0);
    m_ticksPerSecond = static_cast<std::uint64_t>(rate);
    m_useTsc = m_ticksPerSecond > 0;
#else
    (void)requested;
#endif
}

} // namespace waitscope::measure
