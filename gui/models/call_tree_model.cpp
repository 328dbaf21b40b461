// CallTreeModel: the call-tree pane.
#include <QPromise>
#include <QThreadPool>
#include <cmath>
#include <waitscope/gui/call_tree_model.h>

namespace waitscope::gui {

using namespace waitscope::report;

CallTreeModel::CallTreeModel(SelectionState* selection, QObject* parent)
    : ValueTreeModel(parent), m_selection(selection), m_watcher(this) {
    const Report& report = selection->report();
    m_regionNames.reserve(report.regions().size());
    for (const Region& region : report.regions())
        m_regionNames.push_back(QString::fromStdString(region.name));
    const auto& nodes = report.callNodes();
    std::vector<std::uint32_t> parents(nodes.size(), kNoNode);
    for (std::size_t c = 0; c < nodes.size(); ++c)
        if (nodes[c].parent)
            parents[c] = *nodes[c].parent;
    setForest(parents);
    recompute();
    setValueMode(selection->valueMode());

    connect(selection, &SelectionState::metricChanged, this, &CallTreeModel::recompute);
    connect(&m_watcher, &QFutureWatcher<Computed>::finished, this, [this] {
        if (m_watcher.future().resultCount() > 0)
            apply(m_watcher.result());
    });
    connect(selection, &SelectionState::valueModeChanged, this,
            [this] { setValueMode(m_selection->valueMode()); });
    connect(this, &ValueTreeModel::expansionChanged, this, [this](quint32 node, bool expanded) {
        if (node == m_selection->callPath())
            m_selection->setCallPath(node,
                                     expanded ? CallTreeMode::Exclusive : CallTreeMode::Inclusive);
    });
}

CallTreeModel::~CallTreeModel() {
    // A pending computation holds its own reference to the report; its result is dropped.
    m_watcher.disconnect(this);
}

CallTreeModel::Computed CallTreeModel::compute(const Sources& sources, MetricId metric,
                                               MetricMode mode, quint64 generation) {
    const Report& report = *sources.report;
    Computed out;
    out.generation = generation;
    if (metric < report.metrics().size()) {
        out.unit = report.metrics()[metric].unit;
        auto in = report.callNodeValues(metric, CallTreeMode::Inclusive, mode);
        auto ex = report.callNodeValues(metric, CallTreeMode::Exclusive, mode);
        if (in && ex) {
            out.inclusive = std::move(*in);
            out.exclusive = std::move(*ex);
        } else {
            out.error = QString::fromStdString(in ? ex.error().message() : in.error().message());
        }
        auto total = report.total(metric, mode);
        out.selection = total ? *total : std::nan("");
    }
    if (out.inclusive.empty()) {
        out.inclusive.assign(report.callNodes().size(), std::nan(""));
        out.exclusive.assign(report.callNodes().size(), std::nan(""));
    }
    // The compared reports share the difference's ids; a failed query leaves NaN.
    auto valuesIn = [metric, mode](const Report& compared) {
        NodeValues values;
        if (metric < compared.metrics().size()) {
            auto in = compared.callNodeValues(metric, CallTreeMode::Inclusive, mode);
            auto ex = compared.callNodeValues(metric, CallTreeMode::Exclusive, mode);
            if (in && ex) {
                values.inclusive = std::move(*in);
                values.exclusive = std::move(*ex);
            }
        }
        return values;
    };
    if (sources.baseline && sources.after) {
        out.baseline = valuesIn(*sources.baseline);
        out.after = valuesIn(*sources.after);
    }
    return out;
}

void CallTreeModel::recompute() {
    quint64 generation = ++m_generation;
    MetricId metric = m_selection->metric();
    MetricMode mode = m_selection->metricMode();
    Sources sources{m_selection->sharedReport(), m_selection->baselineReport(),
                    m_selection->afterReport()};
    if (!m_asynchronous) {
        apply(compute(sources, metric, mode, generation));
        return;
    }
    auto promise = std::make_shared<QPromise<Computed>>();
    m_watcher.setFuture(promise->future());
    QThreadPool::globalInstance()->start([promise, sources, metric, mode, generation] {
        promise->start();
        promise->addResult(compute(sources, metric, mode, generation));
        promise->finish();
    });
    if (!m_computing) {
        m_computing = true;
        emit computingChanged(true);
    }
}

void CallTreeModel::apply(Computed computed) {
    if (computed.generation != m_generation)
        return; // a later request is under way
    setLastError(computed.error);
    double root = 0.0;
    for (CallNodeId c : m_selection->report().rootCallNodes())
        root += computed.inclusive[c];
    m_unit = std::move(computed.unit);
    setReferences(root, computed.selection);
    if (computed.baseline && computed.after)
        setComparedValues(std::move(*computed.baseline), std::move(*computed.after));
    setValues(std::move(computed.inclusive), std::move(computed.exclusive));
    if (m_computing) {
        m_computing = false;
        emit computingChanged(false);
    }
}

QString CallTreeModel::nodeName(std::uint32_t node) const {
    return m_regionNames[m_selection->report().callNodes()[node].region];
}

std::string CallTreeModel::unitOf(std::uint32_t) const {
    return m_unit; // of the metric whose values are shown, which may still be the previous one
}

double CallTreeModel::reference(std::uint32_t node, ValueMode mode) const {
    if (mode == ValueMode::PeerPercent)
        mode = ValueMode::PercentOfRoot;
    return ValueTreeModel::reference(node, mode);
}

QString CallTreeModel::location(CallNodeId cnode) const {
    const Report& report = m_selection->report();
    if (cnode >= report.callNodes().size())
        return {};
    const CallNode& node = report.callNodes()[cnode];
    const Region& region = report.regions()[node.region];
    QString text = QString::fromStdString(region.name);
    if (!region.file.empty())
        text += tr(" in %1").arg(QString::fromStdString(region.file));
    if (region.beginLine >= 0)
        text += tr(", lines %1-%2").arg(region.beginLine).arg(region.endLine);
    if (node.line >= 0)
        text += tr(", called at line %1").arg(node.line);
    if (!region.paradigm.empty())
        text += tr(" (%1)").arg(QString::fromStdString(region.paradigm));
    return text;
}

} // namespace waitscope::gui
