// ReportView: the three coupled panes of one report with the information panels below them.
#include "report_view.h"

#include "colour_legend.h"
#include "value_delegate.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <cmath>
#include <functional>
#include <waitscope/report/call_path_search.h>

namespace waitscope::gui {

using namespace waitscope::report;

namespace {

// A pane: a bold title above its view.
QWidget* titled(const QString& title, QWidget* content) {
    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title));
    label->setContentsMargins(4, 2, 0, 0);
    layout->addWidget(label);
    layout->addWidget(content);
    return pane;
}

// The region's source file: as recorded, next to the report, or by name next to the report
// (reports made elsewhere record paths of the machine they ran on).
QString findSource(const QString& reportPath, const std::string& file) {
    if (file.empty() || file == "MPI")
        return {};
    QString recorded = QString::fromStdString(file);
    QDir reportDir = QFileInfo(reportPath).absoluteDir();
    for (const QString& candidate : {recorded, reportDir.filePath(recorded),
                                     reportDir.filePath(QFileInfo(recorded).fileName())})
        if (QFileInfo(candidate).isFile())
            return candidate;
    return {};
}

} // namespace

ReportView::ReportView(std::unique_ptr<ReportSession> session, QWidget* parent)
    : QWidget(parent), m_session(std::move(session)) {
    ReportSession& s = *m_session;

    // Tool row.
    m_modeBox = new QComboBox;
    // A difference is shown as it is or against the baseline, as Cube's external percent.
    m_modeBox->addItem(s.isDifference() ? tr("Difference (report − baseline)") : tr("Absolute"),
                       QVariant::fromValue(int(ValueMode::Absolute)));
    if (s.isDifference())
        m_modeBox->addItem(tr("Percent of baseline"),
                           QVariant::fromValue(int(ValueMode::PercentOfBaseline)));
    m_modeBox->addItem(tr("Percent of root"), QVariant::fromValue(int(ValueMode::PercentOfRoot)));
    m_modeBox->addItem(tr("Percent of selection"),
                       QVariant::fromValue(int(ValueMode::PercentOfSelection)));
    m_modeBox->addItem(tr("Peer percent (system tree)"),
                       QVariant::fromValue(int(ValueMode::PeerPercent)));
    m_modeBox->setToolTip(
        s.isDifference()
            ? tr("How the three trees show their values. Difference: report − baseline in the "
                 "metric's unit; percent of baseline: that difference against the same node's "
                 "value in the baseline (\"new\" where the baseline has none). Each row's "
                 "tooltip has both, and the values of both runs.")
            : tr("How the three trees show their values"));
    connect(m_modeBox, &QComboBox::currentIndexChanged, this, [this](int row) {
        m_session->selection()->setValueMode(
            static_cast<ValueMode>(m_modeBox->itemData(row).toInt()));
    });
    m_searchEdit = new QLineEdit;
    m_searchEdit->setPlaceholderText(tr("Search call tree (Ctrl+F)"));
    m_searchEdit->setClearButtonEnabled(true);
    auto* find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, m_searchEdit, [this] {
        m_searchEdit->setFocus();
        m_searchEdit->selectAll();
    });
    addAction(find);
    m_searchEdit->setMinimumWidth(220);
    connect(m_searchEdit, &QLineEdit::returnPressed, this,
            [this] { search(m_searchEdit->text()); });
    connect(m_searchEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (text.isEmpty())
            search(text);
    });
    auto* hottest = new QPushButton(tr("Expand hottest path"));
    hottest->setToolTip(tr("Follow the largest inclusive value from the root of the call tree"));
    connect(hottest, &QPushButton::clicked, this, &ReportView::expandHottestPath);
    m_sortBox = new QCheckBox(tr("Sort by value"));
    connect(m_sortBox, &QCheckBox::toggled, this, &ReportView::setSortByValue);
    m_flatBox = new QCheckBox(tr("Flat profile"));
    m_flatBox->setToolTip(tr("One row per region instead of the call tree"));
    connect(m_flatBox, &QCheckBox::toggled, this, &ReportView::showFlatProfile);

    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(4, 4, 4, 0);
    tools->addWidget(new QLabel(tr("Values:")));
    tools->addWidget(m_modeBox);
    tools->addSpacing(12);
    tools->addWidget(m_searchEdit);
    tools->addWidget(hottest);
    tools->addSpacing(12);
    tools->addWidget(m_sortBox);
    tools->addWidget(m_flatBox);
    tools->addStretch(1);
    auto* legend = new ColourLegend;
    tools->addWidget(legend);
    if (s.isDifference()) {
        legend->setDifference(true);
        legend->setCaption(tr("report − baseline"));
    }
    connect(s.selection(), &SelectionState::valueModeChanged, legend, [this, legend] {
        if (m_session->isDifference())
            return;
        switch (m_session->selection()->valueMode()) {
        case ValueMode::PercentOfSelection:
            legend->setCaption(tr("share of selection"));
            break;
        case ValueMode::PeerPercent:
            legend->setCaption(tr("share of largest peer"));
            break;
        case ValueMode::Absolute:
        case ValueMode::PercentOfRoot:
        case ValueMode::PercentOfBaseline: // difference mode only
            legend->setCaption(tr("share of root"));
            break;
        }
    });

    // The three panes. Values of another metric over a big call tree are computed off the
    // GUI thread.
    s.callTree()->setAsynchronous(true);
    connect(s.callTree(), &CallTreeModel::computingChanged, this, [this](bool computing) {
        emit message(computing ? tr("computing the call-tree values of the selected metric ...")
                               : QString());
    });
    m_metricView = makeTree(s.metricTree());
    m_callView = makeTree(s.callTree());
    m_systemView = makeTree(s.systemTree());
    auto* flatProxy = new QSortFilterProxyModel(this);
    flatProxy->setSourceModel(s.flatProfile());
    flatProxy->setSortRole(FlatProfileModel::ValueRole);
    m_flatView = new QTableView;
    m_flatView->setModel(flatProxy);
    m_flatView->setItemDelegate(new ValueDelegate(m_flatView));
    m_flatView->setSortingEnabled(true);
    m_flatView->sortByColumn(FlatProfileModel::ExclusiveColumn, Qt::DescendingOrder);
    m_flatView->verticalHeader()->hide();
    m_flatView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_flatView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_flatView->setShowGrid(false);
    m_flatView->horizontalHeader()->setStretchLastSection(true);
    m_flatView->setColumnWidth(
        FlatProfileModel::ExclusiveColumn,
        fontMetrics().horizontalAdvance(QStringLiteral("Exclusive 888.8 ms")));
    m_flatView->setColumnWidth(
        FlatProfileModel::InclusiveColumn,
        fontMetrics().horizontalAdvance(QStringLiteral("Inclusive 888.8 ms")));
    m_callStack = new QStackedWidget;
    m_callStack->addWidget(m_callView);
    m_callStack->addWidget(m_flatView);

    auto* panes = new QSplitter(Qt::Horizontal);
    panes->addWidget(titled(tr("Metric tree"), m_metricView));
    panes->addWidget(titled(tr("Call tree"), m_callStack));
    QWidget* systemPane = m_systemView;
    if (s.isDifference() && !s.ranksAligned()) {
        // Per-rank values of runs with different rank counts do not align: say so where the
        // ranks would be.
        systemPane = new QWidget;
        auto* systemLayout = new QVBoxLayout(systemPane);
        systemLayout->setContentsMargins(0, 0, 0, 0);
        systemLayout->setSpacing(2);
        // The algebra's note names the rank counts, the report's first.
        QString counts;
        const QRegularExpression ranks(QStringLiteral("ranks: (\\d+), (\\d+)"));
        for (const QString& note : s.notes())
            if (QRegularExpressionMatch match = ranks.match(note); match.hasMatch())
                counts =
                    tr(" (report %1 ranks, baseline %2)").arg(match.captured(1), match.captured(2));
        m_systemNote = new QLabel(
            tr("The runs have different ranks%1: per-rank values do not align, so each call "
               "path is compared over the whole program (all ranks summed).")
                .arg(counts));
        m_systemNote->setWordWrap(true);
        m_systemNote->setToolTip(s.notes().join(QLatin1Char('\n')));
        m_systemNote->setStyleSheet(QStringLiteral(
            "QLabel { background: #fff4c2; color: #5c4400; padding: 4px; border: 1px solid "
            "#e6d38a; }"));
        systemLayout->addWidget(m_systemNote);
        systemLayout->addWidget(m_systemView, 1);
    }
    panes->addWidget(titled(tr("System tree"), systemPane));
    if (s.systemTree()->showsComparedColumns()) {
        // The system tree's compared columns need room beside its names.
        panes->setStretchFactor(0, 3);
        panes->setStretchFactor(1, 4);
        panes->setStretchFactor(2, 4);
        panes->setSizes({300, 400, 400});
    } else {
        panes->setStretchFactor(0, 4);
        panes->setStretchFactor(1, 5);
        panes->setStretchFactor(2, 3);
    }
    panes->setChildrenCollapsible(false);

    // Information tabs.
    m_metricInfo = new QTextBrowser;
    m_metricInfo->setOpenExternalLinks(true);
    auto* callInfo = new QWidget;
    auto* callLayout = new QVBoxLayout(callInfo);
    callLayout->setContentsMargins(4, 4, 4, 4);
    m_regionInfo = new QLabel;
    m_regionInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_regionInfo->setWordWrap(true);
    m_source = new QPlainTextEdit;
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    m_source->setFont(mono);
    callLayout->addWidget(m_regionInfo);
    callLayout->addWidget(m_source, 1);
    m_attributes = new QTableWidget(0, 2);
    m_attributes->setHorizontalHeaderLabels({tr("Attribute"), tr("Value")});
    m_attributes->horizontalHeader()->setStretchLastSection(true);
    m_attributes->verticalHeader()->hide();
    m_attributes->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_attributes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tabs = new QTabWidget;
    m_tabs->addTab(m_metricInfo, tr("Metric"));
    m_tabs->addTab(callInfo, tr("Call path and source"));
    m_tabs->addTab(m_attributes, tr("Report attributes"));
    // A hidden editor cannot center a line: do it again when the source tab is shown.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int tab) {
        if (m_tabs->widget(tab)->isAncestorOf(m_source))
            m_source->centerCursor();
    });

    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(panes);
    vertical->addWidget(m_tabs);
    vertical->setSizes({620, 210});
    vertical->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(tools);
    layout->addWidget(vertical, 1);

    connect(m_metricView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ReportView::onMetricCurrent);
    connect(m_callView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ReportView::onCallPathCurrent);
    connect(m_systemView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ReportView::onSystemCurrent);
    connect(m_flatView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& index) {
                auto region = index.data(FlatProfileModel::RegionIdRole).toUInt();
                const auto& nodes = m_session->report().callNodes();
                for (CallNodeId c = 0; c < nodes.size(); ++c)
                    if (nodes[c].region == region) {
                        reveal(m_callView, m_session->callTree(), c, true);
                        break;
                    }
            });
    connect(s.selection(), &SelectionState::metricChanged, this, &ReportView::updateMetricInfo);
    connect(s.selection(), &SelectionState::callPathChanged, this, &ReportView::updateCallPathInfo);

    // Start like Cube: the first metric, call path and system node selected.
    m_metricView->setCurrentIndex(s.metricTree()->indexOfNode(s.selection()->metric()));
    m_callView->setCurrentIndex(s.callTree()->indexOfNode(s.selection()->callPath()));
    m_systemView->setCurrentIndex(s.systemTree()->indexOfNode(s.selection()->systemNode()));
    updateMetricInfo();
    updateCallPathInfo();
    fillAttributes();
    // Open where the time goes, and show the ranks.
    expandHottestPath();
    expandToProcesses();
}

ReportView::~ReportView() {
    // Views go before the models they show.
    delete m_metricView;
    delete m_callStack;
    delete m_systemView;
}

QTreeView* ReportView::makeTree(ValueTreeModel* model) {
    auto* view = new QTreeView;
    view->setModel(model);
    view->setItemDelegate(new ValueDelegate(view));
    view->setHeaderHidden(true);
    view->setUniformRowHeights(true); // lets big trees scroll without measuring every row
    view->setAnimated(false);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setIndentation(fontMetrics().height());
    if (model->showsComparedColumns()) {
        // The tree column stretches; the baseline, report and change columns keep their width.
        view->setHeaderHidden(false);
        QHeaderView* header = view->header();
        header->setStretchLastSection(false);
        header->setSectionResizeMode(ValueTreeModel::TreeColumn, QHeaderView::Stretch);
        const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("888.8 ms")) + 16;
        for (int column :
             {int(ValueTreeModel::BaselineColumn), int(ValueTreeModel::ReportColumn)}) {
            header->setSectionResizeMode(column, QHeaderView::Interactive);
            view->setColumnWidth(column, valueWidth);
        }
        header->setSectionResizeMode(ValueTreeModel::ChangeColumn, QHeaderView::Interactive);
        view->setColumnWidth(ValueTreeModel::ChangeColumn,
                             fontMetrics().horizontalAdvance(tr("vs baseline")) + 16);
    } else {
        // One column filling the pane: long names are elided, the tooltip has them in full.
        view->header()->setStretchLastSection(true);
    }
    connect(view, &QTreeView::expanded, model,
            [model](const QModelIndex& index) { model->setExpanded(index, true); });
    connect(view, &QTreeView::collapsed, model,
            [model](const QModelIndex& index) { model->setExpanded(index, false); });
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& position) {
        QMenu* menu = contextMenu(view, view->indexAt(position));
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(view->viewport()->mapToGlobal(position));
    });
    return view;
}

QTreeView* ReportView::treeView(const QString& name) const {
    if (name == QLatin1String("metric"))
        return m_metricView;
    if (name == QLatin1String("call"))
        return m_callView;
    if (name == QLatin1String("system"))
        return m_systemView;
    return nullptr;
}

QMenu* ReportView::contextMenu(QTreeView* view, const QModelIndex& index) {
    auto* model = static_cast<ValueTreeModel*>(view->model());
    std::uint32_t node = model->nodeOf(index);
    const bool isCallTree = model == m_session->callTree();
    auto* menu = new QMenu(this);
    if (node != ValueTreeModel::kNoNode) {
        view->setCurrentIndex(index);
        QString name = index.data(ValueTreeModel::NameRole).toString();
        if (isCallTree) {
            QString path = QString::fromStdString(m_session->report().callPath(node));
            menu->addAction(tr("Copy call path"), this,
                            [path] { QGuiApplication::clipboard()->setText(path); });
        } else {
            menu->addAction(tr("Copy name"), this,
                            [name] { QGuiApplication::clipboard()->setText(name); });
        }
        QString value = index.data(ValueTreeModel::ValueTextRole).toString();
        menu->addAction(tr("Copy value (%1)").arg(value), this,
                        [value] { QGuiApplication::clipboard()->setText(value); });
        menu->addSeparator();
        QPersistentModelIndex at(index);
        menu->addAction(tr("Expand all below"), this, [view, at] {
            int depth = 0; // of `at`, to stay within kMaxExpandedDepth expanded levels
            for (QModelIndex up = at.parent(); up.isValid(); up = up.parent())
                ++depth;
            if (depth < static_cast<int>(kMaxExpandedDepth))
                view->expandRecursively(at, static_cast<int>(kMaxExpandedDepth) - depth - 1);
        });
        menu->addAction(tr("Collapse all below"), this, [view, model, at] {
            // Innermost first, so that each node tells the model its own collapse.
            std::function<void(const QModelIndex&)> collapse = [&](const QModelIndex& parent) {
                for (int row = 0; row < model->rowCount(parent); ++row)
                    if (QModelIndex child = model->index(row, 0, parent); view->isExpanded(child))
                        collapse(child);
                view->collapse(parent);
            };
            collapse(at);
        });
    }
    menu->addAction(tr("Expand all"), view, [view, model] {
        for (int row = 0; row < model->rowCount(); ++row)
            view->expandRecursively(model->index(row, 0), static_cast<int>(kMaxExpandedDepth) - 1);
    });
    menu->addAction(tr("Collapse all"), view, &QTreeView::collapseAll);
    if (isCallTree) {
        menu->addAction(tr("Expand hottest path"), this, &ReportView::expandHottestPath);
        if (node != ValueTreeModel::kNoNode)
            menu->addAction(tr("Show source"), this, [this] { showTab(QStringLiteral("source")); });
    } else if (model == m_session->metricTree()) {
        if (node != ValueTreeModel::kNoNode)
            menu->addAction(tr("Show description"), this,
                            [this] { showTab(QStringLiteral("metric")); });
    } else {
        menu->addAction(tr("Expand to the processes"), this, &ReportView::expandToProcesses);
    }
    return menu;
}

void ReportView::onMetricCurrent(const QModelIndex& index) {
    auto* model = m_session->metricTree();
    std::uint32_t node = model->nodeOf(index);
    if (node == ValueTreeModel::kNoNode)
        return;
    m_session->selection()->setMetric(node, model->isExpanded(node) ? MetricMode::Exclusive
                                                                    : MetricMode::Inclusive);
    updateMetricInfo();
}

void ReportView::onCallPathCurrent(const QModelIndex& index) {
    auto* model = m_session->callTree();
    std::uint32_t node = model->nodeOf(index);
    if (node == ValueTreeModel::kNoNode)
        return;
    m_session->selection()->setCallPath(node, model->isExpanded(node) ? CallTreeMode::Exclusive
                                                                      : CallTreeMode::Inclusive);
}

void ReportView::onSystemCurrent(const QModelIndex& index) {
    std::uint32_t node = m_session->systemTree()->nodeOf(index);
    if (node != ValueTreeModel::kNoNode)
        m_session->selection()->setSystemNode(node);
}

void ReportView::updateMetricInfo() {
    if (m_session->report().metrics().empty()) {
        m_metricInfo->setHtml(tr("This report defines no metrics: its call tree and system tree "
                                 "are shown without values."));
        return;
    }
    m_metricInfo->setHtml(m_session->metricTree()->description(m_session->selection()->metric()));
    QString error = m_session->callTree()->lastError();
    if (!error.isEmpty())
        emit message(tr("error: %1").arg(error));
}

void ReportView::updateCallPathInfo() {
    const Report& report = m_session->report();
    CallNodeId cnode = m_session->selection()->callPath();
    if (cnode >= report.callNodes().size())
        return;
    const Region& region = report.regions()[report.callNodes()[cnode].region];
    QString text = QStringLiteral("<b>%1</b><br>%2")
                       .arg(QString::fromStdString(report.callPath(cnode)).toHtmlEscaped(),
                            m_session->callTree()->location(cnode).toHtmlEscaped());
    QString sourcePath = findSource(m_session->path(), region.file);
    if (sourcePath.isEmpty()) {
        m_source->setPlainText(
            region.file.empty() || region.file == "MPI"
                ? tr("(no source file recorded for this region)")
                : tr("(source file %1 not found)").arg(QString::fromStdString(region.file)));
        m_regionInfo->setText(text);
        return;
    }
    m_regionInfo->setText(text + QStringLiteral("<br>") + tr("source: %1").arg(sourcePath));
    QFile file(sourcePath);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return;
    // Line numbers in the text itself keep the view a plain, fast QPlainTextEdit.
    QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    QString numbered;
    for (int i = 0; i < lines.size(); ++i)
        numbered += QStringLiteral("%1  %2\n").arg(i + 1, 5).arg(lines[i]);
    m_source->setPlainText(numbered);
    if (region.beginLine < 1)
        return;
    QList<QTextEdit::ExtraSelection> marks;
    int last = std::max(region.beginLine, region.endLine);
    for (int line = region.beginLine; line <= last && line <= lines.size(); ++line) {
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(m_source->document()->findBlockByNumber(line - 1));
        mark.format.setBackground(QColor(0xff, 0xf4, 0xc2));
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks.append(mark);
    }
    m_source->setExtraSelections(marks);
    QTextCursor cursor(m_source->document()->findBlockByNumber(region.beginLine - 1));
    m_source->setTextCursor(cursor);
    m_source->centerCursor();
}

void ReportView::fillAttributes() {
    const Report& report = m_session->report();
    std::vector<std::pair<QString, QString>> rows;
    for (const auto& [key, value] : report.attributes())
        rows.emplace_back(QString::fromStdString(key), QString::fromStdString(value));
    for (const std::string& mirror : report.mirrors())
        rows.emplace_back(tr("mirror"), QString::fromStdString(mirror));
    // The measurement's own overhead first: it says how much to trust the rest.
    std::stable_partition(rows.begin(), rows.end(), [](const auto& row) {
        return row.first.contains(QStringLiteral("overhead"), Qt::CaseInsensitive);
    });
    m_attributes->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        auto* key = new QTableWidgetItem(rows[i].first);
        if (rows[i].first.contains(QStringLiteral("overhead"), Qt::CaseInsensitive)) {
            QFont bold = key->font();
            bold.setBold(true);
            key->setFont(bold);
        }
        m_attributes->setItem(i, 0, key);
        m_attributes->setItem(i, 1, new QTableWidgetItem(rows[i].second));
    }
    m_attributes->resizeColumnToContents(0);
}

void ReportView::reveal(QTreeView* view, ValueTreeModel* model, std::uint32_t node, bool select) {
    QModelIndex index = model->indexOfNode(node);
    if (!index.isValid())
        return;
    std::vector<QModelIndex> ancestors; // parent first
    for (QModelIndex up = index.parent(); up.isValid(); up = up.parent())
        ancestors.push_back(up);
    if (ancestors.size() > kMaxExpandedDepth) {
        std::size_t cut = ancestors.size() - kMaxExpandedDepth;
        emit message(tr("%1 is %2 levels deep; the tree shows %3 levels, down to its ancestor %4")
                         .arg(index.data(ValueTreeModel::NameRole).toString())
                         .arg(ancestors.size())
                         .arg(kMaxExpandedDepth)
                         .arg(ancestors[cut - 1].data(ValueTreeModel::NameRole).toString()));
        index = ancestors[cut - 1];
        ancestors.erase(ancestors.begin(), ancestors.begin() + static_cast<std::ptrdiff_t>(cut));
    }
    for (const QModelIndex& up : ancestors)
        view->expand(up);
    if (select)
        view->setCurrentIndex(index);
    view->scrollTo(index);
}

bool ReportView::selectMetric(const QString& name) {
    const auto& metrics = m_session->report().metrics();
    for (MetricId m = 0; m < metrics.size(); ++m)
        if (QString::fromStdString(metrics[m].uniqueName) == name ||
            QString::fromStdString(metrics[m].displayName) == name) {
            reveal(m_metricView, m_session->metricTree(), m, true);
            return true;
        }
    return false;
}

QString ReportView::selectCallPath(const QString& path) {
    const Report& report = m_session->report();
    CallTreeModel* model = m_session->callTree();
    const std::string wanted = path.toStdString();
    std::vector<CallNodeId> matches;
    bool isNumber = false;
    uint id = path.toUInt(&isNumber);
    if (auto exact = report.findCallPath(wanted))
        matches.push_back(*exact);
    else if (isNumber && id < report.callNodes().size())
        matches.push_back(id);
    else
        matches = findCallPathsBySuffix(report, wanted);
    if (matches.empty()) {
        QString message = tr("no call path '%1' in this report").arg(path);
        std::vector<CallNodeId> close = suggestCallPaths(report, wanted, 3);
        for (std::size_t i = 0; i < close.size(); ++i)
            message += (i == 0                  ? QStringLiteral("; did you mean '")
                        : i + 1 == close.size() ? QStringLiteral("' or '")
                                                : QStringLiteral("', '")) +
                       QString::fromStdString(report.callPath(close[i]));
        return close.empty() ? message : message + QStringLiteral("'?");
    }
    // Several paths end so: the one with the largest value of the selected metric.
    CallNodeId best = matches.front();
    for (CallNodeId c : matches)
        if (std::fabs(model->inclusiveValue(c)) > std::fabs(model->inclusiveValue(best)))
            best = c;
    reveal(m_callView, model, best, true);
    if (matches.size() > 1)
        emit message(tr("%1 call paths end in %2; showing the one with the largest value, %3")
                         .arg(matches.size())
                         .arg(path, QString::fromStdString(report.callPath(best))));
    return {};
}

bool ReportView::selectRank(qint64 rank) {
    std::optional<SystemNodeId> process = m_session->report().findProcess(rank);
    if (!process)
        return false;
    reveal(m_systemView, m_session->systemTree(), *process, true);
    // A hybrid process: show its threads too.
    if (m_session->report().systemNodes()[*process].children.size() > 1)
        m_systemView->expand(m_session->systemTree()->indexOfNode(*process));
    return true;
}

void ReportView::setValueMode(ValueMode mode) {
    m_modeBox->setCurrentIndex(m_modeBox->findData(QVariant::fromValue(int(mode))));
}

int ReportView::search(const QString& text) {
    if (m_searchEdit->text() != text)
        m_searchEdit->setText(text);
    auto* model = m_session->callTree();
    std::vector<std::uint32_t> matches = model->setSearchText(text);
    // Reveal a bounded number of matches: expanding thousands of paths helps nobody.
    constexpr std::size_t kRevealed = 200;
    for (std::size_t i = 0; i < matches.size() && i < kRevealed; ++i)
        reveal(m_callView, model, matches[i], false);
    if (!matches.empty())
        reveal(m_callView, model, matches.front(), false); // scrollTo alone expands every level
    if (!text.isEmpty())
        emit message(matches.empty() ? tr("no call path matches \"%1\"").arg(text)
                                     : tr("%n call path(s) match \"%1\"", nullptr,
                                          static_cast<int>(matches.size()))
                                           .arg(text));
    return static_cast<int>(matches.size());
}

void ReportView::expandHottestPath() {
    auto* model = m_session->callTree();
    std::vector<std::uint32_t> path = model->hottestPath();
    if (path.empty())
        return;
    // The end is expanded too: it shows what it keeps for itself above its callees. A path cut
    // at the deepest level shown ends collapsed, with the time of all below it.
    bool cut = path.size() > kMaxExpandedDepth;
    if (cut) {
        emit message(tr("the hottest path is %1 levels deep; the tree shows its first %2")
                         .arg(path.size())
                         .arg(kMaxExpandedDepth));
        path.resize(kMaxExpandedDepth);
    }
    for (std::size_t i = 0; i + (cut ? 1 : 0) < path.size(); ++i)
        m_callView->expand(model->indexOfNode(path[i]));
    reveal(m_callView, model, path.back(), true);
}

void ReportView::expandToProcesses() {
    const auto& nodes = m_session->report().systemNodes();
    SystemTreeModel* model = m_session->systemTree();
    for (SystemNodeId s = 0; s < nodes.size(); ++s)
        if (nodes[s].kind == SystemKind::Machine || nodes[s].kind == SystemKind::Node)
            m_systemView->expand(model->indexOfNode(s));
}

void ReportView::showFlatProfile(bool flat) {
    if (m_flatBox->isChecked() != flat)
        m_flatBox->setChecked(flat);
    m_callStack->setCurrentIndex(flat ? 1 : 0);
}

void ReportView::setSortByValue(bool byValue) {
    if (m_sortBox->isChecked() != byValue)
        m_sortBox->setChecked(byValue);
    m_session->metricTree()->setSortByValue(byValue);
    m_session->callTree()->setSortByValue(byValue);
    m_session->systemTree()->setSortByValue(byValue);
}

bool ReportView::showTab(const QString& name) {
    static const char* const kTabs[] = {"metric", "source", "attributes"};
    for (int i = 0; i < 3; ++i)
        if (name == QLatin1String(kTabs[i])) {
            m_tabs->setCurrentIndex(i);
            return true;
        }
    return false;
}

QString ReportView::summary() const {
    const Report& report = m_session->report();
    qsizetype ranks = 0;
    for (const SystemNode& node : report.systemNodes())
        ranks += node.kind == SystemKind::Process ? 1 : 0;
    if (m_session->isDifference())
        return tr("difference: %1 − baseline %2 · %3 · %4 metrics · %5 call paths")
            .arg(QDir::toNativeSeparators(m_session->path()),
                 QDir::toNativeSeparators(m_session->baselinePath()))
            .arg(m_session->ranksAligned() ? tr("%1 ranks").arg(ranks)
                                           : tr("whole program (ranks do not align)"))
            .arg(report.metrics().size())
            .arg(report.callNodes().size());
    return tr("%1 ranks, %2 locations · %3 metrics · %4 call paths · %5")
        .arg(ranks)
        .arg(report.locations().size())
        .arg(report.metrics().size())
        .arg(report.callNodes().size())
        .arg(QDir::toNativeSeparators(m_session->path()));
}

QString ReportView::visibleRows() const {
    QString text;
    auto list = [&text](const QString& title, QTreeView* view, const QAbstractItemModel* model) {
        text += title + QStringLiteral(":\n");
        QModelIndex current = view->currentIndex();
        std::function<void(const QModelIndex&, int)> walk = [&](const QModelIndex& parent,
                                                                int depth) {
            for (int row = 0; row < model->rowCount(parent); ++row) {
                QModelIndex index = model->index(row, 0, parent);
                text += (index == current ? QStringLiteral("> ") : QStringLiteral("  ")) +
                        QString(2 * depth, QLatin1Char(' ')) +
                        index.data(Qt::DisplayRole).toString();
                // The compared columns of a difference, after a bar.
                for (int column = 1; column < model->columnCount(parent); ++column)
                    text += (column == 1 ? QStringLiteral("  |  ") : QStringLiteral("  ")) +
                            model->headerData(column, Qt::Horizontal).toString().toLower() +
                            QLatin1Char(' ') +
                            model->index(row, column, parent).data(Qt::DisplayRole).toString();
                text += QLatin1Char('\n');
                if (view->isExpanded(index))
                    walk(index, depth + 1);
            }
        };
        walk({}, 0);
    };
    list(tr("metric tree"), m_metricView, m_session->metricTree());
    list(tr("call tree"), m_callView, m_session->callTree());
    list(tr("system tree"), m_systemView, m_session->systemTree());
    return text;
}

} // namespace waitscope::gui
