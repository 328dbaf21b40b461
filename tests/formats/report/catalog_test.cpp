// The metric catalog built from share/metrics covers the documented metric tree.
#include <catch2/catch.hpp>
#include <set>
#include <waitscope/report/metric_catalog.h>

using namespace waitscope::report;

TEST_CASE("the catalog describes every metric of the documented tree", "[report][catalog]") {
    const auto& catalog = metricCatalog();
    REQUIRE(catalog.size() >= 97);
    std::set<std::string> names;
    for (const MetricInfo& info : catalog) {
        INFO(info.uniqueName);
        CHECK(names.insert(info.uniqueName).second);
        CHECK(!info.displayName.empty());
        CHECK(!info.description.empty());
        CHECK(!info.unit.empty());
        // Parents come before their children (pre-order).
        if (!info.parent.empty())
            CHECK(names.count(info.parent) == 1);
    }
    for (const char* name : {"time",
                             "execution",
                             "comp",
                             "mpi",
                             "mpi_latesender",
                             "mpi_latesender_wo",
                             "mpi_lswo_same",
                             "mpi_latereceiver",
                             "mpi_barrier_wait",
                             "mpi_wait_nxn",
                             "visits",
                             "syncs_coll",
                             "comms_cxch",
                             "bytes_cin",
                             "mpi_clswo_count",
                             "delay_n2n_longterm",
                             "mpi_wait_propagating_lr",
                             "mpi_wait_indirect_latereceiver",
                             "critical_path_imbalance",
                             "inter_partition_imbalance",
                             "imbalance_below_singularity",
                             "overhead"}) {
        INFO(name);
        CHECK(findMetricInfo(name) != nullptr);
    }
    const MetricInfo* late = findMetricInfo("mpi_latesender");
    REQUIRE(late);
    CHECK(late->displayName == "Late Sender");
    CHECK(late->parent == "mpi_point2point");
    CHECK(late->unit == "sec");
    CHECK(findMetricInfo("visits")->dataType == DataType::Int64);
    CHECK(findMetricInfo("no_such_metric") == nullptr);
}
