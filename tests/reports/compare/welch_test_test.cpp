// Welch's t-test: the t distribution against table values, the test on a hand-worked example,
// and on synthetic runs with a known shift (found) and with none (false positives near the
// chosen level).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>
#include <waitscope/compare/welch_test.h>

using namespace waitscope::compare;

TEST_CASE("regularized incomplete beta equals its closed forms") {
    for (double x : {0.1, 0.37, 0.5, 0.9}) {
        CHECK(regularizedIncompleteBeta(1, 1, x) == Approx(x).epsilon(1e-12));
        CHECK(regularizedIncompleteBeta(3, 1, x) == Approx(std::pow(x, 3)).epsilon(1e-12));
        CHECK(regularizedIncompleteBeta(1, 2, x) == Approx(1 - std::pow(1 - x, 2)).epsilon(1e-12));
    }
    CHECK(regularizedIncompleteBeta(7.5, 7.5, 0.5) == Approx(0.5).epsilon(1e-12));
    CHECK(regularizedIncompleteBeta(2, 3, 0) == 0);
    CHECK(regularizedIncompleteBeta(2, 3, 1) == 1);
}

TEST_CASE("Student's t distribution matches table quantiles and closed forms") {
    // Quantiles t_{q, df} from statistical tables (to 9 digits): CDF(t) = q.
    CHECK(studentTCdf(12.70620474, 1) == Approx(0.975).epsilon(1e-8));
    CHECK(studentTCdf(2.776445105, 4) == Approx(0.975).epsilon(1e-8));
    CHECK(studentTCdf(2.015048373, 5) == Approx(0.95).epsilon(1e-8));
    CHECK(studentTCdf(2.228138852, 10) == Approx(0.975).epsilon(1e-8));
    CHECK(studentTCdf(2.749995654, 30) == Approx(0.995).epsilon(1e-8));
    CHECK(studentTCdf(1.959963985, 1e7) == Approx(0.975).epsilon(1e-6)); // the normal limit
    CHECK(studentTCdf(-2.228138852, 10) == Approx(0.025).epsilon(1e-7));
    CHECK(studentTCdf(0, 3.3) == Approx(0.5).epsilon(1e-14));
    for (double t : {-5.0, -0.3, 0.8, 3.0}) {
        // df = 1 is the Cauchy distribution, df = 2 has a closed form too.
        CHECK(studentTCdf(t, 1) == Approx(0.5 + std::atan(t) / M_PI).epsilon(1e-12));
        CHECK(studentTCdf(t, 2) == Approx(0.5 + t / (2 * std::sqrt(2 + t * t))).epsilon(1e-12));
    }
}

TEST_CASE("Welch's test on a hand-worked example") {
    // Means 3 and 5, variances 2.5 each, n = 5: standard error 1, t = 2, df = 8,
    // two-sided p = 2 (1 − F(2; 8)) = 0.0805.
    const std::vector<double> before = {1, 2, 3, 4, 5};
    const std::vector<double> after = {3, 4, 5, 6, 7};
    const WelchResult r = welchTest(before, after);
    CHECK(r.tested);
    CHECK(r.meanBefore == Approx(3));
    CHECK(r.meanAfter == Approx(5));
    CHECK(r.sdBefore == Approx(std::sqrt(2.5)));
    CHECK(r.t == Approx(2.0));
    CHECK(r.df == Approx(8.0));
    CHECK(r.p == Approx(0.0805).margin(1e-4));
    // No noise on either side: any difference is real, none is none.
    const std::vector<double> flat = {2, 2, 2};
    const std::vector<double> flatter = {3, 3, 3};
    CHECK(welchTest(flat, flatter).p == 0);
    CHECK(welchTest(flat, flat).p == 1);
    // One run on a side: no test.
    const std::vector<double> one = {4};
    CHECK_FALSE(welchTest(one, after).tested);
    CHECK(welchTest(one, after).p == 1);
}

TEST_CASE("Welch's test finds a known shift and keeps false positives near the level") {
    std::mt19937_64 random(20261125);
    std::normal_distribution<double> noise(10.0, 0.5);
    auto runs = [&](double shift) {
        std::vector<double> v(5);
        for (double& x : v)
            x = noise(random) + shift;
        return v;
    };
    // A shift of 3 standard deviations over 5 runs each is found almost always.
    int found = 0;
    for (int trial = 0; trial < 200; ++trial)
        found += welchTest(runs(0), runs(1.5)).p < 0.05;
    CHECK(found >= 190);
    // No shift: about 5 % of the trials look significant at level 0.05 (Welch's test is
    // slightly conservative; 4000 trials have a standard error of 0.35 %).
    int falsePositives = 0;
    const int trials = 4000;
    for (int trial = 0; trial < trials; ++trial)
        falsePositives += welchTest(runs(0), runs(0)).p < 0.05;
    const double rate = static_cast<double>(falsePositives) / trials;
    CHECK(rate > 0.035);
    CHECK(rate < 0.06);
}
