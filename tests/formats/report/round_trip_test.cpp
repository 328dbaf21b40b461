// Round trip: a report built here is written, read back equal in every value, and written
// again byte for byte identical.
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

// Location of `report` identified by (process rank, thread rank): ids may be renumbered.
std::map<std::pair<std::int64_t, std::int64_t>, SystemNodeId>
locationsByRank(const Report& report) {
    std::map<std::pair<std::int64_t, std::int64_t>, SystemNodeId> out;
    for (SystemNodeId s = 0; s < report.systemNodes().size(); ++s) {
        const SystemNode& node = report.systemNodes()[s];
        if (node.kind == SystemKind::Location)
            out[{report.systemNodes()[*node.parent].rank, node.rank}] = s;
    }
    return out;
}

void requireSameValues(const Report& a, const Report& b) {
    REQUIRE(a.metrics().size() == b.metrics().size());
    REQUIRE(a.callNodes().size() == b.callNodes().size());
    REQUIRE(a.locations().size() == b.locations().size());
    REQUIRE(a.regions().size() == b.regions().size());
    auto locA = locationsByRank(a);
    auto locB = locationsByRank(b);
    REQUIRE(locA.size() == locB.size());
    for (MetricId ma = 0; ma < a.metrics().size(); ++ma) {
        const Metric& metric = a.metrics()[ma];
        INFO(metric.uniqueName);
        auto found = b.findMetric(metric.uniqueName);
        REQUIRE(found);
        MetricId mb = *found;
        const Metric& other = b.metrics()[mb];
        CHECK(other.displayName == metric.displayName);
        CHECK(other.unit == metric.unit);
        CHECK(other.description == metric.description);
        CHECK(other.url == metric.url);
        CHECK(other.dataType == metric.dataType);
        CHECK(other.kind == metric.kind);
        CHECK(other.ghost == metric.ghost);
        CHECK(other.children.size() == metric.children.size());
        CHECK(other.parent.has_value() == metric.parent.has_value());
        for (CallNodeId ca = 0; ca < a.callNodes().size(); ++ca) {
            std::string path = a.callPath(ca);
            INFO(path);
            auto cb = b.findCallPath(path);
            REQUIRE(cb);
            CHECK(b.callNodes()[*cb].line == a.callNodes()[ca].line);
            for (const auto& [key, sa] : locA) {
                SystemNodeId sb = locB.at(key);
                if (!isDerived(metric.kind)) {
                    auto bitsA = a.storedBits(ma, ca, a.systemNodes()[sa].location);
                    auto bitsB = b.storedBits(mb, *cb, b.systemNodes()[sb].location);
                    REQUIRE(bitsA);
                    REQUIRE(bitsB);
                    CHECK(*bitsA == *bitsB);
                }
                for (auto callMode : {CallTreeMode::Inclusive, CallTreeMode::Exclusive})
                    for (auto metricMode : {MetricMode::Inclusive, MetricMode::Exclusive}) {
                        auto va = a.value(ma, ca, sa, callMode, SystemMode::Inclusive, metricMode);
                        auto vb = b.value(mb, *cb, sb, callMode, SystemMode::Inclusive, metricMode);
                        REQUIRE(va);
                        REQUIRE(vb);
                        CHECK(*va == *vb);
                    }
            }
        }
        auto ta = a.total(ma);
        auto tb = b.total(mb);
        REQUIRE(ta);
        REQUIRE(tb);
        CHECK(std::fabs(*ta - *tb) <= 1e-12 * std::fabs(*ta));
    }
}

} // namespace

TEST_CASE("a report round-trips through memory with equal values and identical bytes",
          "[report][roundtrip]") {
    Report original = makeSampleReport();
    auto first = writeCubexToMemory(original);
    REQUIRE(first);
    auto back = readCubexFromMemory(*first, "sample.cubex");
    REQUIRE(back);
    requireSameValues(original, *back);
    auto second = writeCubexToMemory(*back);
    REQUIRE(second);
    CHECK(*second == *first);

    // Structure beyond values.
    CHECK(back->attribute("Creator") == std::optional<std::string>("Waitscope tests"));
    CHECK(back->attribute("note") ==
          std::optional<std::string>("quotes \" and <angles> & ampersands"));
    CHECK(back->mirrors() == original.mirrors());
    REQUIRE(back->topologies().size() == 1);
    CHECK(back->topologies()[0].dimensions.size() == 2);
    CHECK(back->topologies()[0].dimensions[1].periodic);
    CHECK(back->topologies()[0].coordinates.size() == 3);
    CHECK(back->regions()[0].beginLine == 3);
    CHECK(back->regions()[0].file == "prog.c");
    CHECK(back->rootCallNodes().size() == 2);
    CHECK(back->rootSystemNodes().size() == 2);
    // A process with several locations (a hybrid run) keeps them in order, master first.
    const SystemNode& rank0 = back->systemNodes()[*back->findProcess(0)];
    REQUIRE(rank0.children.size() == 2);
    CHECK(back->systemNodes()[rank0.children[0]].name == "Master thread");
    CHECK(back->systemNodes()[rank0.children[0]].rank == 0);
    CHECK(back->systemNodes()[rank0.children[1]].name == "Thread 1");
    CHECK(back->systemNodes()[rank0.children[1]].type == "thread");
    CHECK(back->systemNodes()[rank0.children[1]].rank == 1);

    // A read report can be extended, except by locations (its rows have a fixed width).
    auto thread = back->addThread(*back->findProcess(0), "late thread", 9);
    REQUIRE(!thread);
    CHECK(thread.error().message() ==
          "thread 'late thread': locations cannot be added after severities are set or read");
    MetricId visits = *back->findMetric("visits");
    REQUIRE(back->addSeverityUint64(visits, 0, 0, 5));
    CHECK(*back->total(visits) == *original.total(*original.findMetric("visits")) + 5);
    MetricId mpi = *back->findMetric("mpi");
    auto wrongSize = back->setSeverityRow(mpi, 0, std::vector<double>{1.0});
    REQUIRE(!wrongSize);
    CHECK(wrongSize.error().message() == "severity row: 1 values for 3 locations");
    REQUIRE(back->setSeverityRow(mpi, 0, std::vector<double>{1.0, 2.0, 4.0}));
    CHECK(*back->value(mpi, 0, *back->findProcess(0), CallTreeMode::Exclusive,
                       SystemMode::Inclusive) == 1.0 + 2.0); // file order: rank 0's threads first
}

TEST_CASE("a report round-trips through a file", "[report][roundtrip]") {
    Report original = makeSampleReport();
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/roundtrip.cubex";
    REQUIRE(writeCubex(original, path));
    auto back = readCubex(path);
    REQUIRE(back);
    requireSameValues(original, *back);
    std::string path2 = std::string(WAITSCOPE_TEST_TMP_DIR) + "/roundtrip2.cubex";
    REQUIRE(writeCubex(*back, path2));
    CHECK(readFile(path) == readFile(path2));
}

TEST_CASE("reference reports are rewritten with equal values and stable bytes",
          "[report][roundtrip][reference]") {
    for (const char* file : {"trace.cubex", "scout.cubex", "profile.cubex"}) {
        INFO(file);
        auto original = readCubex(referenceDir() + "/late_sender/" + file);
        REQUIRE(original);
        auto first = writeCubexToMemory(*original);
        REQUIRE(first);
        auto back = readCubexFromMemory(*first, "rewritten.cubex");
        REQUIRE(back);
        for (MetricId m = 0; m < original->metrics().size(); ++m) {
            INFO(original->metrics()[m].uniqueName);
            auto id = back->findMetric(original->metrics()[m].uniqueName);
            REQUIRE(id);
            auto a = original->callNodeValues(m, CallTreeMode::Exclusive);
            auto b = back->callNodeValues(*id, CallTreeMode::Exclusive);
            REQUIRE(a);
            REQUIRE(b);
            for (CallNodeId c = 0; c < a->size(); ++c) {
                // Call nodes of the references are already in pre-order: same ids.
                CHECK((*a)[c] == (*b)[c]);
            }
        }
        auto second = writeCubexToMemory(*back);
        REQUIRE(second);
        CHECK(*second == *first);
    }
}

TEST_CASE("the written archive follows the container rules", "[report][writer]") {
    auto bytes = writeCubexToMemory(makeSampleReport());
    REQUIRE(bytes);
    REQUIRE(bytes->size() % 512 == 0);
    // ustar magic in the first header; anchor.xml is the last member; two zero blocks end it.
    CHECK(bytes->compare(257, 5, "ustar") == 0);
    CHECK(bytes->substr(bytes->size() - 1024) == std::string(1024, '\0'));
    auto anchor = bytes->rfind(std::string("anchor.xml") + std::string(90, '\0'));
    REQUIRE(anchor != std::string::npos);
    CHECK(bytes->find(".data", anchor) == std::string::npos);
    CHECK(bytes->find("ghost_") != std::string::npos);
    // Index header: magic, endianness 1, version 0, sparse format.
    auto index = bytes->find("CUBEX.INDEX");
    REQUIRE(index != std::string::npos);
    CHECK(bytes->compare(index + 11, 7, std::string("\1\0\0\0\0\0\1", 7)) == 0);
}

TEST_CASE("builder rejects bad ids with clear messages", "[report][builder]") {
    Report r;
    auto time = r.addMetric("time");
    REQUIRE(time);
    auto again = r.addMetric("time");
    REQUIRE(!again);
    CHECK(again.error().message() == "metric 'time' added twice");
    auto orphan = r.addMetric("comp", MetricId{7});
    REQUIRE(!orphan);
    CHECK(orphan.error().message() == "metric 'comp': parent id 7 out of range");
    auto cnode = r.addCallNode(3, std::nullopt);
    REQUIRE(!cnode);
    CHECK(cnode.error().message() == "call node: region id 3 out of range");
    auto s = r.setSeverity(*time, 0, 0, 1.0);
    REQUIRE(!s);
    CHECK(s.error().message() == "severity: call node id 0 out of range");
    auto rowStatus = r.setSeverityRow(*time, 0, std::vector<double>{1.0});
    REQUIRE(!rowStatus);
    CHECK(rowStatus.error().message() == "severity: call node id 0 out of range");
    // Known names get the shipped descriptions.
    CHECK(r.metrics()[*time].displayName == "Time");
    CHECK(r.metrics()[*time].unit == "sec");
    CHECK(!r.metrics()[*time].description.empty());
}
