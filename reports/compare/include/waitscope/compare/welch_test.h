// Welch's t-test: whether two samples (repeated runs before and after a change) differ by more
// than their run-to-run noise, with the t distribution computed here.
#pragma once

#include <span>

namespace waitscope::compare {

/// The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1.
double regularizedIncompleteBeta(double a, double b, double x);

/// The cumulative distribution function of Student's t distribution with `df` > 0 degrees of
/// freedom (df need not be an integer) at `t`.
double studentTCdf(double t, double df);

/// Result of a two-sided Welch test of mean(after) − mean(before).
struct WelchResult {
    double meanBefore = 0;
    double meanAfter = 0;
    double sdBefore = 0; ///< sample standard deviation (n − 1)
    double sdAfter = 0;
    double t = 0;  ///< (meanAfter − meanBefore) / standard error
    double df = 0; ///< Welch–Satterthwaite degrees of freedom
    /// Two-sided p-value: the chance of a difference at least this large without a real change.
    /// 1 when the test cannot be made (fewer than 2 runs on a side) or nothing changed; 0 when
    /// both sides are free of noise and differ.
    double p = 1;
    bool tested = false; ///< false with fewer than 2 runs on a side
};

/// Welch's unequal-variance t-test of `after` against `before`.
WelchResult welchTest(std::span<const double> before, std::span<const double> after);

} // namespace waitscope::compare
