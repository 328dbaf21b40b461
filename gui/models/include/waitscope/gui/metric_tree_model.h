// MetricTreeModel: the metric pane (metrics with their totals over the whole run).
#pragma once

#include <waitscope/gui/selection_state.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

/// The metric tree of the selection's report. A collapsed metric shows its total including its
/// child metrics, an expanded one its own part. Expanding or collapsing the selected metric
/// switches the selection between MetricMode::Inclusive and Exclusive, which the call tree
/// follows. Metrics that cannot be evaluated show "n/a"; GHOST metrics are not shown.
/// PercentOfSelection relates the selected metric and its descendants to the selected metric; other
/// metrics show percent of their root. Sorting by value keeps the roots (different units) in report
/// order.
class MetricTreeModel : public ValueTreeModel {
    Q_OBJECT
public:
    explicit MetricTreeModel(SelectionState* selection, QObject* parent = nullptr);

    /// Text for the description panel: display and unique name, unit, kind, expression and the
    /// description (Waitscope's, from share/metrics, for Scalasca's metrics; else the report's).
    QString description(report::MetricId metric) const;

protected:
    QString nodeName(std::uint32_t node) const override;
    std::string unitOf(std::uint32_t node) const override;
    double reference(std::uint32_t node, ValueMode mode) const override;
    QString title() const override { return tr("Metric tree"); }
    bool sortsRoots() const override { return false; }

private:
    SelectionState* m_selection;
    std::vector<std::uint32_t> m_rootOf; // root metric of each metric
    // Pre-order span of each metric: the descendants of m are those numbered in
    // [m_first[m], m_end[m]).
    std::vector<std::uint32_t> m_first;
    std::vector<std::uint32_t> m_end;
};

} // namespace waitscope::gui
