// A call tree whose nodes are (parent, region) pairs in creation order.
#pragma once

#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace waitscope::analysis {

/// Index of a call tree node.
using NodeId = uint32_t;
inline constexpr NodeId kNoNode = 0xFFFFFFFFu;

/// Call paths as a tree of regions; a node's parent always precedes it.
class CallTree {
public:
    struct Node {
        NodeId parent = kNoNode;
        uint32_t region = 0;
    };

    /// The child of `parent` (kNoNode for a root) for `region`, created on first use.
    NodeId child(NodeId parent, uint32_t region);
    /// The existing child, or kNoNode.
    NodeId find(NodeId parent, uint32_t region) const;

    size_t size() const { return m_nodes.size(); }
    const Node& node(NodeId id) const { return m_nodes[id]; }
    /// Slash-separated region names from the root, e.g. "prog/main/MPI_Recv".
    std::string path(NodeId id, const trace::Definitions& definitions) const;

private:
    static uint64_t key(NodeId parent, uint32_t region) {
        return (static_cast<uint64_t>(parent) << 32) | region;
    }
    std::vector<Node> m_nodes;
    std::unordered_map<uint64_t, NodeId> m_index;
};

/// Adds the call paths of `other` that `tree` lacks, in `other`'s order, after `tree`'s own;
/// returns where each node of `other` is in `tree`. Unifying trees one after the other gives
/// the same ids however the sequence is grouped (the unified tree of ranks 0..3 is that of
/// 0..1 unified with that of 2..3), so ranks' trees can be unified in a reduction tree.
std::vector<NodeId> unifyCallTree(CallTree& tree, const CallTree& other);

} // namespace waitscope::analysis
