// CallTreeModel: the call-tree pane (the selected metric over call paths).
#pragma once

#include <QFutureWatcher>
#include <memory>
#include <optional>
#include <waitscope/gui/selection_state.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

/// The call tree of the selection's report, with the values of the selected metric (inclusive
/// or exclusive along the metric tree, as selected) summed over all locations. A collapsed call
/// path shows its inclusive value, an expanded one its exclusive value. Expanding or collapsing
/// the selected call path switches the selection's CallTreeMode, which the system tree follows.
///
/// Values of one metric over all call paths can take a while on big reports (every row of the
/// metric is read). With setAsynchronous(true) they are computed on Qt's global thread pool
/// and applied when ready (the last request wins); the old values stay until then.
class CallTreeModel : public ValueTreeModel {
    Q_OBJECT
public:
    explicit CallTreeModel(SelectionState* selection, QObject* parent = nullptr);
    ~CallTreeModel() override;

    /// Computes values after a metric change on a worker thread (true) or at once (false, the
    /// default, which tests rely on).
    void setAsynchronous(bool asynchronous) { m_asynchronous = asynchronous; }
    /// True while values for the selected metric are being computed in the background.
    bool isComputing() const { return m_computing; }

    /// Region of a call path ("name", file and lines) as a short text for the panel.
    QString location(report::CallNodeId cnode) const;

signals:
    /// Background computation started (true) or its values were applied (false).
    void computingChanged(bool computing);

protected:
    QString nodeName(std::uint32_t node) const override;
    std::string unitOf(std::uint32_t node) const override;
    double reference(std::uint32_t node, ValueMode mode) const override;
    QString title() const override { return tr("Call tree"); }

private:
    /// Values of one metric over all call paths, computed from the report alone (and, in a
    /// difference, from the two compared reports).
    struct Computed {
        std::vector<double> inclusive;
        std::vector<double> exclusive;
        double selection = 0.0;
        std::string unit;
        QString error;
        quint64 generation = 0;
        std::optional<NodeValues> baseline;
        std::optional<NodeValues> after;
    };
    /// The reports whose values a computation reads: the shown one, and the compared ones in
    /// a difference (else null).
    struct Sources {
        std::shared_ptr<const report::Report> report;
        std::shared_ptr<const report::Report> baseline;
        std::shared_ptr<const report::Report> after;
    };
    static Computed compute(const Sources& sources, report::MetricId metric,
                            report::MetricMode mode, quint64 generation);
    void recompute();
    void apply(Computed computed);

    SelectionState* m_selection;
    std::vector<QString> m_regionNames;
    std::string m_unit;
    bool m_asynchronous = false;
    bool m_computing = false;
    quint64 m_generation = 0;
    /// A child of the model, so that it follows moveToThread() to the GUI thread.
    QFutureWatcher<Computed> m_watcher;
};

} // namespace waitscope::gui
