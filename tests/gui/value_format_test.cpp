// Tests of value formatting: scaled units and percentages.
#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/gui/value_format.h>

using namespace waitscope::gui;

TEST_CASE("times scale to s, ms, us", "[format]") {
    CHECK(formatValue(5.610027, "sec") == QStringLiteral("5.61 s"));
    CHECK(formatValue(123.4, "sec") == QStringLiteral("123 s"));
    CHECK(formatValue(0.0124, "sec") == QStringLiteral("12.4 ms"));
    CHECK(formatValue(0.000117, "sec") == QStringLiteral("117 us"));
    CHECK(formatValue(0.0, "sec") == QStringLiteral("0 s"));
    CHECK(formatValue(-0.5, "sec") == QStringLiteral("-500 ms"));
    CHECK(formatValue(0.999808, "sec") == QStringLiteral("1.00 s"));
    CHECK(formatValue(0.0099999, "sec") == QStringLiteral("10.0 ms"));
    CHECK(formatValue(1e-15, "sec") == QStringLiteral("0 s"));
}

TEST_CASE("bytes scale to KiB, MiB", "[format]") {
    CHECK(formatValue(512, "bytes") == QStringLiteral("512 B"));
    CHECK(formatValue(1536, "bytes") == QStringLiteral("1.50 KiB"));
    CHECK(formatValue(3.0 * 1024 * 1024, "bytes") == QStringLiteral("3.00 MiB"));
}

TEST_CASE("counts stay exact, percentages get three digits", "[format]") {
    CHECK(formatValue(42, "occ") == QStringLiteral("42"));
    CHECK(formatValue(2.5e6, "occ") == QStringLiteral("2.50 M"));
    CHECK(formatValue(std::nan(""), "sec") == QStringLiteral("n/a"));
    CHECK(formatPercent(36.111) == QStringLiteral("36.1 %"));
    CHECK(formatPercent(100.0) == QStringLiteral("100 %"));
    CHECK(formatPercent(0.0) == QStringLiteral("0 %"));
}
