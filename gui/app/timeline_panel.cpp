// The linked timeline: the explorer's selection picks its wait-state instances.
#include "timeline_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <waitscope/gui/selection_state.h>

namespace waitscope::gui {

TimelinePanel::TimelinePanel(std::shared_ptr<const timeline::TimelineStore> store, QWidget* parent)
    : QWidget(parent) {
    m_view = new TimelineView(std::move(store));
    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(6, 2, 6, 2);
    const auto button = [&](const QString& text, const QString& tip, auto step) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        connect(b, &QPushButton::clicked, m_view, step);
        tools->addWidget(b);
    };
    button(tr("< Previous"), tr("the previous picked wait-state instance (P)"),
           &TimelineView::showPrevious);
    button(tr("Next >"), tr("the next picked wait-state instance (N)"), &TimelineView::showNext);
    button(tr("Worst"), tr("the most severe picked wait-state instance (W)"),
           &TimelineView::showWorst);
    m_status = new QLabel(m_view->pickedText());
    tools->addWidget(m_status, 1);
    connect(m_view, &TimelineView::pickedChanged, m_status, &QLabel::setText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(tools);
    layout->addWidget(m_view, 1);
}

void TimelinePanel::link(SelectionState* selection) {
    disconnect(m_metricLink);
    disconnect(m_callLink);
    m_selection = selection;
    if (!selection) {
        m_view->pick({});
        return;
    }
    m_metricLink =
        connect(selection, &SelectionState::metricChanged, this, &TimelinePanel::pickBySelection);
    m_callLink =
        connect(selection, &SelectionState::callPathChanged, this, &TimelinePanel::pickBySelection);
    connect(selection, &QObject::destroyed, this, [this] { link(nullptr); });
    pickBySelection();
}

QString TimelinePanel::status() const {
    return m_status->text();
}

void TimelinePanel::pickBySelection() {
    if (!m_selection)
        return;
    m_view->pick(
        timeline::filterOf(m_selection->report(), m_selection->metric(), m_selection->callPath()));
}

} // namespace waitscope::gui
