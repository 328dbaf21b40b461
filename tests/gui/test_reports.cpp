// Test helpers: the reference reports, a report written by Waitscope, and model walking.
#include "test_reports.h"

#include <QDir>
#include <catch2/catch.hpp>
#include <waitscope/gui/value_tree_model.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

namespace waitscope::gui::test {

using namespace waitscope::report;

std::string referenceReport(const std::string& program, const std::string& kind) {
    return std::string(WAITSCOPE_REFERENCE_DIR) + "/" + program + "/" + kind + ".cubex";
}

std::vector<std::string> allReferenceReports() {
    std::vector<std::string> paths;
    QDir root(QStringLiteral(WAITSCOPE_REFERENCE_DIR));
    for (const QString& program : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        for (const QString& file :
             QDir(root.filePath(program)).entryList({QStringLiteral("*.cubex")}, QDir::Files))
            paths.push_back(root.filePath(program + QLatin1Char('/') + file).toStdString());
    return paths;
}

std::shared_ptr<const Report> openReport(const std::string& path) {
    Result<Report> report = readCubex(path);
    INFO(path << ": " << (report ? std::string() : report.error().message()));
    REQUIRE(report.ok());
    return std::make_shared<const Report>(std::move(*report));
}

namespace {
// Two MPI ranks of one thread each on one node of one machine: their locations in rank order.
std::vector<LocationId> addTwoRanks(Report& report) {
    SystemNodeId machine = *report.addMachine("cluster");
    SystemNodeId node = *report.addNode(machine, "node0");
    std::vector<LocationId> locations;
    for (int r = 0; r < 2; ++r) {
        SystemNodeId process = *report.addProcess(node, "MPI Rank " + std::to_string(r), r);
        SystemNodeId thread = *report.addThread(process, "Master thread", 0);
        locations.push_back(report.systemNodes()[thread].location);
    }
    return locations;
}
} // namespace

std::shared_ptr<const Report> writtenReport() {
    Report report;
    MetricId time = *report.addMetric("time");
    MetricId mpi = *report.addMetric("mpi", time);
    MetricId late = *report.addMetric("mpi_latesender", mpi);
    RegionId mainRegion = *report.addRegion(
        {.name = "main", .file = "prog.c", .beginLine = 3, .endLine = 40, .paradigm = "user"});
    RegionId compute = *report.addRegion({.name = "compute", .paradigm = "user"});
    RegionId recv = *report.addRegion({.name = "MPI_Recv", .file = "MPI", .paradigm = "mpi"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    CallNodeId work = *report.addCallNode(compute, root, 10);
    CallNodeId call = *report.addCallNode(recv, root, 12);
    const std::vector<LocationId> locations = addTwoRanks(report);
    // Rank 0 computes 3 s and waits 1 s (late sender); rank 1 computes 1 s and receives 0.5 s.
    REQUIRE(report.setSeverity(time, root, locations[0], 0.5));
    REQUIRE(report.setSeverity(time, work, locations[0], 3.0));
    REQUIRE(report.setSeverity(time, call, locations[0], 1.0));
    REQUIRE(report.setSeverity(mpi, call, locations[0], 1.0));
    REQUIRE(report.setSeverity(late, call, locations[0], 1.0));
    REQUIRE(report.setSeverity(time, root, locations[1], 0.5));
    REQUIRE(report.setSeverity(time, work, locations[1], 1.0));
    REQUIRE(report.setSeverity(time, call, locations[1], 0.5));
    REQUIRE(report.setSeverity(mpi, call, locations[1], 0.5));
    report.setAttribute("waitscope.overhead.seconds", "0.01");
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/written.cubex";
    Status written = writeCubex(report, path);
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
    return openReport(path);
}

std::string writeAfterReport() {
    Report report;
    MetricId time = *report.addMetric("time");
    MetricId mpi = *report.addMetric("mpi", time);
    MetricId late = *report.addMetric("mpi_latesender", mpi);
    MetricId lateReceiver = *report.addMetric("mpi_latereceiver", mpi);
    RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
    RegionId compute = *report.addRegion({.name = "compute", .paradigm = "user"});
    RegionId wait = *report.addRegion({.name = "MPI_Waitall", .paradigm = "mpi"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    CallNodeId work = *report.addCallNode(compute, root, 10);
    CallNodeId call = *report.addCallNode(wait, root, 14);
    const std::vector<LocationId> locations = addTwoRanks(report);
    REQUIRE(report.setSeverity(time, root, locations[0], 0.5));
    REQUIRE(report.setSeverity(time, work, locations[0], 2.0));
    REQUIRE(report.setSeverity(time, call, locations[0], 0.25));
    REQUIRE(report.setSeverity(mpi, call, locations[0], 0.25));
    REQUIRE(report.setSeverity(late, call, locations[0], 0.25));
    REQUIRE(report.setSeverity(time, root, locations[1], 0.5));
    REQUIRE(report.setSeverity(time, work, locations[1], 1.0));
    REQUIRE(report.setSeverity(time, call, locations[1], 0.5));
    REQUIRE(report.setSeverity(mpi, call, locations[1], 0.5));
    REQUIRE(report.setSeverity(lateReceiver, call, locations[1], 0.125));
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/after.cubex";
    REQUIRE(writeCubex(report, path).ok());
    return path;
}

std::string writeBeforeReport() {
    (void)writtenReport();
    return std::string(WAITSCOPE_TEST_TMP_DIR) + "/written.cubex";
}

Report reportWithoutMetrics() {
    Report report;
    RegionId mainRegion = *report.addRegion({.name = "main"});
    RegionId recv = *report.addRegion({.name = "MPI_Recv"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    (void)*report.addCallNode(recv, root);
    (void)addTwoRanks(report);
    return report;
}

std::string writeReportWithoutMetrics() {
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/no_metrics.cubex";
    Status written = writeCubex(reportWithoutMetrics(), path);
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
    return path;
}

std::shared_ptr<const Report> threadedReport() {
    Report report;
    MetricId time = *report.addMetric("time");
    RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
    RegionId worker = *report.addRegion({.name = "worker_fn", .paradigm = "user"});
    RegionId compute = *report.addRegion({.name = "compute", .paradigm = "sampling"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    CallNodeId workerRoot = *report.addCallNode(worker, std::nullopt);
    CallNodeId work = *report.addCallNode(compute, workerRoot);
    SystemNodeId machine = *report.addMachine("cluster");
    SystemNodeId node = *report.addNode(machine, "node0");
    // Locations first: severities fix the rows' width.
    const std::vector<std::vector<double>> threadSeconds = {{2.0, 0.5}, {0.25}};
    std::vector<std::pair<SystemNodeId, std::vector<SystemNodeId>>> ranks;
    for (int r = 0; r < 2; ++r) {
        SystemNodeId process = *report.addProcess(node, "MPI Rank " + std::to_string(r), r);
        ranks.emplace_back(*report.addThread(process, "Master thread", 0),
                           std::vector<SystemNodeId>{});
        for (size_t k = 0; k < threadSeconds[r].size(); ++k) {
            ranks.back().second.push_back(*report.addThread(
                process, "thread " + std::to_string(k + 1), static_cast<std::int64_t>(k + 1)));
        }
    }
    for (size_t r = 0; r < ranks.size(); ++r) {
        REQUIRE(report.setSeverity(time, root, report.systemNodes()[ranks[r].first].location, 1.0));
        for (size_t k = 0; k < ranks[r].second.size(); ++k) {
            REQUIRE(report.setSeverity(time, work,
                                       report.systemNodes()[ranks[r].second[k]].location,
                                       threadSeconds[r][k]));
        }
    }
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/threaded.cubex";
    Status written = writeCubex(report, path);
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
    return openReport(path);
}

std::unique_ptr<QAbstractItemModelTester> attachTester(QAbstractItemModel* model) {
    return std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::Fatal);
}

int touchAll(const QAbstractItemModel& model, const QModelIndex& parent) {
    int count = 0;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        for (int column = 0; column < model.columnCount(parent); ++column) {
            QModelIndex index = model.index(row, column, parent);
            REQUIRE(index.isValid());
            REQUIRE(model.parent(index) == parent);
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole),
                             int(ValueTreeModel::ValueRole), int(ValueTreeModel::FractionRole),
                             int(ValueTreeModel::NameRole), int(ValueTreeModel::ValueTextRole)})
                (void)model.data(index, role);
            double fraction = model.data(index, ValueTreeModel::FractionRole).toDouble();
            REQUIRE(fraction >= -1.0);
            REQUIRE(fraction <= 1.0);
            ++count;
        }
        count += touchAll(model, model.index(row, 0, parent));
    }
    return count;
}

QModelIndex findByName(const QAbstractItemModel& model, const QString& name,
                       const QModelIndex& parent) {
    for (int row = 0; row < model.rowCount(parent); ++row) {
        QModelIndex index = model.index(row, 0, parent);
        QVariant named = model.data(index, ValueTreeModel::NameRole);
        if ((named.isValid() ? named : model.data(index)).toString() == name)
            return index;
        if (QModelIndex found = findByName(model, name, index); found.isValid())
            return found;
    }
    return {};
}

} // namespace waitscope::gui::test
