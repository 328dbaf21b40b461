// Welch's t-test with Student's t distribution from the regularized incomplete beta function,
// evaluated by its continued fraction (modified Lentz method).
#include <cmath>
#include <limits>
#include <waitscope/compare/welch_test.h>

namespace waitscope::compare {
namespace {

/// The continued fraction of I_x(a, b), converging for x < (a + 1) / (a + b + 2).
double betaContinuedFraction(double a, double b, double x) {
    constexpr double tiny = 1e-300;
    constexpr double epsilon = 1e-15;
    auto guard = [](double v) { return std::fabs(v) < tiny ? tiny : v; };
    double c = 1.0;
    double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    double fraction = d;
    for (int m = 1; m <= 1000; ++m) {
        const double twoM = 2.0 * m;
        // Even step: d_{2m} = m (b − m) x / ((a + 2m − 1)(a + 2m)).
        double term = m * (b - m) * x / ((a + twoM - 1.0) * (a + twoM));
        d = 1.0 / guard(1.0 + term * d);
        c = guard(1.0 + term / c);
        fraction *= d * c;
        // Odd step: d_{2m+1} = −(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
        term = -(a + m) * (a + b + m) * x / ((a + twoM) * (a + twoM + 1.0));
        d = 1.0 / guard(1.0 + term * d);
        c = guard(1.0 + term / c);
        const double step = d * c;
        fraction *= step;
        if (std::fabs(step - 1.0) < epsilon)
            break;
    }
    return fraction;
}

} // namespace

double regularizedIncompleteBeta(double a, double b, double x) {
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return std::exp(logFront) * betaContinuedFraction(a, b, x) / a;
    return 1.0 - std::exp(logFront) * betaContinuedFraction(b, a, 1.0 - x) / b;
}

double studentTCdf(double t, double df) {
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    // P(|T| > |t|) = I_{df / (df + t²)}(df / 2, 1 / 2).
    const double tail = 0.5 * regularizedIncompleteBeta(df / 2.0, 0.5, df / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

WelchResult welchTest(std::span<const double> before, std::span<const double> after) {
    WelchResult result;
    auto meanAndVariance = [](std::span<const double> v, double& mean, double& variance) {
        mean = 0;
        for (double x : v)
            mean += x;
        mean = v.empty() ? 0.0 : mean / static_cast<double>(v.size());
        variance = 0;
        for (double x : v)
            variance += (x - mean) * (x - mean);
        variance = v.size() > 1 ? variance / static_cast<double>(v.size() - 1) : 0.0;
    };
    double varBefore = 0;
    double varAfter = 0;
    meanAndVariance(before, result.meanBefore, varBefore);
    meanAndVariance(after, result.meanAfter, varAfter);
    result.sdBefore = std::sqrt(varBefore);
    result.sdAfter = std::sqrt(varAfter);
    if (before.size() < 2 || after.size() < 2)
        return result;
    result.tested = true;
    const double diff = result.meanAfter - result.meanBefore;
    const double nb = static_cast<double>(before.size());
    const double na = static_cast<double>(after.size());
    const double errBefore = varBefore / nb;
    const double errAfter = varAfter / na;
    const double errorSquared = errBefore + errAfter;
    // Differences below the rounding of the values are no change.
    const double scale = std::max(std::fabs(result.meanBefore), std::fabs(result.meanAfter));
    if (errorSquared <= 0.0 || errorSquared <= 1e-28 * scale * scale) {
        const bool changed = std::fabs(diff) > 1e-12 * scale;
        result.t = changed ? std::copysign(std::numeric_limits<double>::infinity(), diff) : 0.0;
        result.df = nb + na - 2.0;
        result.p = changed ? 0.0 : 1.0;
        return result;
    }
    result.t = diff / std::sqrt(errorSquared);
    result.df = errorSquared * errorSquared /
                (errBefore * errBefore / (nb - 1.0) + errAfter * errAfter / (na - 1.0));
    result.p = 2.0 * studentTCdf(-std::fabs(result.t), result.df);
    return result;
}

} // namespace waitscope::compare
