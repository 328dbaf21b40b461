// CallTreeModel: the call-tree pane (the selected metric over call paths).
#pragma once

#include <waitscope/gui/selection_state.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

/// The call tree of the selection's report, with the values of the selected metric (inclusive
/// or exclusive along the metric tree, as selected) summed over all locations. A collapsed call
/// path shows its inclusive value, an expanded one its exclusive value. Expanding or collapsing
/// the selected call path switches the selection's CallTreeMode, which the system tree follows.
class CallTreeModel : public ValueTreeModel {
    Q_OBJECT
public:
    explicit CallTreeModel(SelectionState* selection, QObject* parent = nullptr);

    /// Region of a call path ("name", file and lines) as a short text for the panel.
    QString location(report::CallNodeId cnode) const;

protected:
    QString nodeName(std::uint32_t node) const override;
    std::string unitOf(std::uint32_t node) const override;
    double reference(std::uint32_t node, ValueMode mode) const override;
    QString title() const override { return tr("Call tree"); }

private:
    void recompute();

    SelectionState* m_selection;
    std::vector<QString> m_regionNames;
};

} // namespace waitscope::gui
