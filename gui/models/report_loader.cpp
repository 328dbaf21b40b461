// loadReport: finds the report in a file or experiment directory and opens it.
#include <waitscope/gui/report_loader.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace waitscope::gui {

Result<QString> resolveReportPath(const QString& fileOrDirectory) {
    Result<std::string> path = report::locateExperimentReport(fileOrDirectory.toStdString());
    if (!path)
        return path.error();
    return QString::fromStdString(*path);
}

Result<std::shared_ptr<const report::Report>> loadReport(const QString& fileOrDirectory,
                                                         const report::ReadProgress& progress) {
    Result<QString> path = resolveReportPath(fileOrDirectory);
    if (!path)
        return path.error();
    // The reader's stages take the first 90 %; loading the first metric's values the rest.
    report::ReadProgress scaled;
    if (progress)
        scaled = [&progress](std::string_view stage, double fraction) {
            progress(stage, 0.9 * fraction);
        };
    Result<report::Report> report = report::readCubex(path->toStdString(), scaled);
    if (!report)
        return report.error();
    if (progress)
        progress("loading values", 0.9);
    auto shared = std::make_shared<const report::Report>(std::move(*report));
    if (auto roots = shared->rootMetrics(); !roots.empty())
        if (Status loaded = shared->load(roots.front()); !loaded)
            return loaded.error();
    return shared;
}

} // namespace waitscope::gui
