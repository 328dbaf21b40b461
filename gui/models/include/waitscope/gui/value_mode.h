// ValueMode: how the three trees turn values into the numbers they show.
#pragma once

namespace waitscope::gui {

/// The value modes of the explorer, as Cube users know them.
enum class ValueMode {
    /// The value itself, in the metric's unit (scaled: s / ms / us, B / KiB / MiB).
    Absolute,
    /// Percent of the root of the item's own tree (metric tree: its root metric's total; call
    /// tree: the selected metric over the whole program; system tree: the selected call path
    /// over all processes).
    PercentOfRoot,
    /// Percent of the selection in the pane to the left, as shown there (call tree: the
    /// selected metric; system tree: the selected call path). With one selection per pane this
    /// equals PercentOfRoot in those trees, as in Cube. In the metric tree: the selected
    /// metric's parts relate to it, other metrics to their root.
    PercentOfSelection,
    /// System tree only: percent of the largest value among the peers of the same level
    /// (machines, nodes, processes or threads); the other trees show percent of the root.
    PeerPercent,
    /// Difference mode only: a node's difference as percent of the same node's value in the
    /// baseline ("−75 %"); a node whose baseline value is zero reads "new" (no percentage).
    /// The other modes and the flat profile show differences as in Absolute.
    PercentOfBaseline,
};

} // namespace waitscope::gui
