// TimelinePanel: the timeline below the explorer, its wait states picked by the explorer's
// selection, with buttons to step through them.
#pragma once

#include "timeline_view.h"

#include <QWidget>

class QLabel;

namespace waitscope::gui {

class SelectionState;

/// A tool row (previous, next and worst instance, what is picked) above a TimelineView. Linked
/// to an explorer's SelectionState, the selected metric and call path pick the instances shown
/// in full colour (filterOf: with the metrics and call paths below them).
class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(std::shared_ptr<const timeline::TimelineStore> store,
                           QWidget* parent = nullptr);

    /// Follows `selection` from now on (and picks by its current state); nullptr unlinks.
    void link(SelectionState* selection);
    TimelineView* view() const { return m_view; }
    /// The status line's text.
    QString status() const;

private:
    void pickBySelection();

    TimelineView* m_view = nullptr;
    QLabel* m_status = nullptr;
    SelectionState* m_selection = nullptr;
    QMetaObject::Connection m_metricLink;
    QMetaObject::Connection m_callLink;
};

} // namespace waitscope::gui
