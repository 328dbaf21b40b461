// SystemTreeModel: the system pane (the selected metric and call path over machines, nodes,
// processes and threads).
#pragma once

#include <waitscope/gui/selection_state.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

/// The system tree of the selection's report with the values of the selected metric at the
/// selected call path (each in its selected inclusive/exclusive view). Only threads
/// (locations) hold values; the levels above aggregate them (sum, or minimum/maximum for
/// MINDOUBLE/MAXDOUBLE metrics), so an expanded machine, node or process shows 0, as in Cube.
/// PeerPercent compares a node with the largest value of its level.
class SystemTreeModel : public ValueTreeModel {
    Q_OBJECT
public:
    explicit SystemTreeModel(SelectionState* selection, QObject* parent = nullptr);

protected:
    QString nodeName(std::uint32_t node) const override;
    std::string unitOf(std::uint32_t node) const override;
    double reference(std::uint32_t node, ValueMode mode) const override;
    QString title() const override { return tr("System tree"); }

private:
    void recompute();

    SelectionState* m_selection;
    double m_peerMax[4] = {0.0, 0.0, 0.0, 0.0}; // by SystemKind
};

} // namespace waitscope::gui
