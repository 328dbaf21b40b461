// Derived (CubePL) metrics: sums and differences are evaluated, anything else is listed as
// not evaluated without failing the report.
#include "test_support.h"

#include <catch2/catch.hpp>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

Report withDerived(const std::string& expression) {
    Report r = makeSampleReport();
    Metric d;
    d.uniqueName = "derived_under_test";
    d.kind = MetricKind::PostDerived;
    d.expression = expression;
    REQUIRE(r.addMetric(d));
    return r;
}

} // namespace

TEST_CASE("linear CubePL expressions are evaluated", "[report][derived]") {
    struct Case {
        const char* expression;
        double timeFactor;
        double mpiFactor;
    };
    for (Case c : {Case{"metric::time() - metric::mpi()", 1, -1},
                   Case{"metric::time(i) + metric::mpi(e)", 1, 1},
                   Case{"2 * (metric::time() - metric::mpi()) * 0.5", 1, -1},
                   Case{"-metric::mpi() + metric::fixed::time()", 1, -1},
                   Case{"{ return metric::time() - 3 * metric::mpi(); }", 1, -3}}) {
        INFO(c.expression);
        auto bytes = writeCubexToMemory(withDerived(c.expression));
        REQUIRE(bytes);
        auto r = readCubexFromMemory(*bytes, "derived.cubex");
        REQUIRE(r);
        MetricId d = *r->findMetric("derived_under_test");
        CHECK(r->metrics()[d].available);
        auto v = r->total(d);
        REQUIRE(v);
        double expected = c.timeFactor * *r->total(*r->findMetric("time")) +
                          c.mpiFactor * *r->total(*r->findMetric("mpi"));
        CHECK(*v == Approx(expected).epsilon(1e-12));
    }
}

TEST_CASE("other CubePL expressions are listed as not evaluated", "[report][derived]") {
    for (const char* expression : {"metric::time() * metric::mpi()", "${x} + metric::time()",
                                   "metric::nonexistent()", "if (metric::time() > 0) { return 1; }",
                                   "metric::time() / 2 + 1", "((((metric::time()"}) {
        INFO(expression);
        auto bytes = writeCubexToMemory(withDerived(expression));
        REQUIRE(bytes);
        auto r = readCubexFromMemory(*bytes, "derived.cubex");
        REQUIRE(r); // the report still opens
        MetricId d = *r->findMetric("derived_under_test");
        CHECK(!r->metrics()[d].available);
        CHECK(r->metrics()[d].unavailableReason.rfind("CubePL expression not evaluated", 0) == 0);
        auto v = r->total(d);
        REQUIRE(!v);
        CHECK(v.error().message().find("derived_under_test' is not available") !=
              std::string::npos);
        // Every other metric still works.
        CHECK(r->total(*r->findMetric("time")));
    }
}

TEST_CASE("a derived metric without expression sums its children", "[report][derived]") {
    Report r = makeSampleReport();
    Metric group;
    group.uniqueName = "group";
    group.kind = MetricKind::PostDerived;
    MetricId g = *r.addMetric(group);
    Metric a;
    a.uniqueName = "part_a";
    a.parent = g;
    MetricId pa = *r.addMetric(a);
    Metric b;
    b.uniqueName = "part_b";
    b.parent = g;
    MetricId pb = *r.addMetric(b);
    REQUIRE(r.setSeverity(pa, 0, 0, 1.5));
    REQUIRE(r.setSeverity(pb, 1, 2, 2.25));
    CHECK(*r.total(g) == 3.75);
    CHECK(*r.total(g, MetricMode::Exclusive) == 0.0);
    auto bytes = writeCubexToMemory(r);
    REQUIRE(bytes);
    CHECK(bytes->find("<cubepl>metric::part_a() + metric::part_b()</cubepl>") != std::string::npos);
    auto back = readCubexFromMemory(*bytes, "group.cubex");
    REQUIRE(back);
    CHECK(*back->total(*back->findMetric("group")) == 3.75);
}
