// Test helpers: the reference reports, a report written by Waitscope, and model walking.
#pragma once

#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <memory>
#include <string>
#include <vector>
#include <waitscope/gui/selection_state.h>
#include <waitscope/report/report.h>

namespace waitscope::gui::test {

/// Path of a reference report, e.g. referenceReport("late_sender", "trace").
std::string referenceReport(const std::string& program, const std::string& kind);
/// Every .cubex file in the reference folder.
std::vector<std::string> allReferenceReports();
/// Opens a report and fails the test if it cannot.
std::shared_ptr<const report::Report> openReport(const std::string& path);
/// A small report built in memory, written with writeCubex and read back (one of ours):
/// time > mpi > mpi_latesender over main / {compute, MPI_Recv} on 2 ranks.
std::shared_ptr<const report::Report> writtenReport();
/// Like writtenReport(), a hybrid run as waitscope-replay writes it: rank 0 with its master
/// thread and two sampled threads ("thread 1", "thread 2"), rank 1 with its master thread and
/// one; time on main (master threads, 1 s each) and worker_fn/compute (threads: rank 0's 2 s and
/// 0.5 s, rank 1's 0.25 s). Written to threaded.cubex in the test directory.
std::shared_ptr<const report::Report> threadedReport();
/// writtenReport()'s file (written.cubex), the baseline of writeAfterReport().
std::string writeBeforeReport();
/// The "after" of writtenReport(): MPI_Recv replaced by MPI_Waitall, rank 0's computation 1 s
/// shorter and its Late Sender 0.75 s shorter, and a new metric mpi_latereceiver. Written to
/// after.cubex in the test directory; returns its path.
std::string writeAfterReport();
/// A call tree main/MPI_Recv on 2 ranks and no metrics: what a report without <metrics> reads
/// as.
report::Report reportWithoutMetrics();
/// Writes reportWithoutMetrics() to no_metrics.cubex in the test directory; returns its path.
std::string writeReportWithoutMetrics();
/// Attaches a fatal QAbstractItemModelTester to `model` for the lifetime of the result.
std::unique_ptr<QAbstractItemModelTester> attachTester(QAbstractItemModel* model);
/// Calls data() for every role of interest on every index of the model (all levels).
int touchAll(const QAbstractItemModel& model, const QModelIndex& parent = {});
/// The index whose NameRole (or DisplayRole) equals `name` among the descendants of `parent`.
QModelIndex findByName(const QAbstractItemModel& model, const QString& name,
                       const QModelIndex& parent = {});

} // namespace waitscope::gui::test
