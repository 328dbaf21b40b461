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

namespace {

// A report whose derived metrics form a DAG: d_i = d_(i+1) + d_(i+2), the last two stored.
// Evaluated without reuse, d_0 costs about 1.6^count operand evaluations.
Report fibonacciReport(int count) {
    Report r;
    RegionId f = *r.addRegion({.name = "main"});
    CallNodeId root = *r.addCallNode(f, std::nullopt);
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId process = *r.addProcess(machine, "r0", 0);
    REQUIRE(r.addThread(process, "t0", 0));
    REQUIRE(r.addThread(process, "t1", 1));
    auto name = [](int i) { return "d" + std::to_string(i); };
    for (int i = 0; i < count; ++i) {
        Metric m;
        m.uniqueName = name(i);
        if (i < count - 2) {
            m.kind = MetricKind::PostDerived;
            m.expression = "metric::" + name(i + 1) + "() + metric::" + name(i + 2) + "()";
        }
        REQUIRE(r.addMetric(m));
    }
    REQUIRE(r.setSeverity(*r.findMetric(name(count - 1)), root, 0, 1.0));
    REQUIRE(r.setSeverity(*r.findMetric(name(count - 2)), root, 1, 1.0));
    return r;
}

} // namespace

TEST_CASE("derived metrics sharing operands are evaluated once each", "[report][derived]") {
    // 80 levels: without reuse this would not finish; the value is a Fibonacci number.
    Report r = fibonacciReport(80);
    auto bytes = writeCubexToMemory(r);
    REQUIRE(bytes);
    auto back = readCubexFromMemory(*bytes, "dag.cubex");
    REQUIRE(back);
    double a = 1, b = 1; // d79 and d78
    for (int i = 77; i >= 0; --i) {
        double next = a + b;
        a = b;
        b = next;
    }
    MetricId d0 = *back->findMetric("d0");
    CHECK(*back->total(d0) == b);
    auto perNode = back->callNodeValues(d0, CallTreeMode::Inclusive);
    REQUIRE(perNode);
    CHECK((*perNode)[0] == b);
    auto perLocation = back->locationValues(d0, 0, CallTreeMode::Exclusive);
    REQUIRE(perLocation);
    CHECK((*perLocation)[0] + (*perLocation)[1] == b);
    CHECK(*back->total(d0, MetricMode::Exclusive) == b); // d0 has no child metrics
}

TEST_CASE("derived definitions nested deeper than the bound fail instead of overflowing",
          "[report][derived]") {
    Report r = fibonacciReport(400);
    auto v = r.total(*r.findMetric("d0"));
    REQUIRE(!v);
    CHECK(v.error().message().find("derived definitions nest too deeply") != std::string::npos);
    // A metric near the stored end is within the bound.
    CHECK(*r.total(*r.findMetric("d390")) == 55.0);
}

TEST_CASE("a cyclic derived definition fails", "[report][derived]") {
    Report r = makeSampleReport();
    Metric a;
    a.uniqueName = "cycle_a";
    a.kind = MetricKind::PostDerived;
    a.expression = "metric::cycle_b() + metric::time()";
    Metric b = a;
    b.uniqueName = "cycle_b";
    b.expression = "metric::cycle_a()";
    MetricId id = *r.addMetric(a);
    REQUIRE(r.addMetric(b));
    auto v = r.total(id);
    REQUIRE(!v);
    CHECK(v.error().message().find("nest too deeply (or are cyclic)") != std::string::npos);
}

TEST_CASE("an overlong CubePL expression is listed as not evaluated", "[report][derived]") {
    std::string expression = "metric::time()";
    while (expression.size() <= 65536)
        expression += " + metric::time()";
    auto bytes = writeCubexToMemory(withDerived(expression));
    REQUIRE(bytes);
    auto r = readCubexFromMemory(*bytes, "long.cubex");
    REQUIRE(r);
    const Metric& d = r->metrics()[*r->findMetric("derived_under_test")];
    CHECK(!d.available);
    CHECK(d.unavailableReason.find("expression longer than 65536 characters") != std::string::npos);
}

TEST_CASE("repeated operands of an expression are merged into one term", "[report][derived]") {
    auto bytes = writeCubexToMemory(withDerived("metric::time() + metric::time() - metric::mpi()"
                                                " + 2 * metric::mpi()"));
    REQUIRE(bytes);
    auto r = readCubexFromMemory(*bytes, "merged.cubex");
    REQUIRE(r);
    double expected = 2 * *r->total(*r->findMetric("time")) + *r->total(*r->findMetric("mpi"));
    CHECK(*r->total(*r->findMetric("derived_under_test")) == Approx(expected).epsilon(1e-12));
}
