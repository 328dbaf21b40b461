// Call tree construction and path naming.
#include "waitscope/analysis/call_tree.h"

namespace waitscope::analysis {

NodeId CallTree::child(NodeId parent, uint32_t region) {
    const auto [it, inserted] =
        m_index.try_emplace(key(parent, region), static_cast<NodeId>(m_nodes.size()));
    if (inserted) {
        m_nodes.push_back(Node{parent, region});
    }
    return it->second;
}

NodeId CallTree::find(NodeId parent, uint32_t region) const {
    const auto it = m_index.find(key(parent, region));
    return it == m_index.end() ? kNoNode : it->second;
}

std::vector<NodeId> unifyCallTree(CallTree& tree, const CallTree& other) {
    std::vector<NodeId> where(other.size());
    for (NodeId n = 0; n < other.size(); ++n) {
        const CallTree::Node& node = other.node(n);
        where[n] = tree.child(node.parent == kNoNode ? kNoNode : where[node.parent], node.region);
    }
    return where;
}

std::string CallTree::path(NodeId id, const trace::Definitions& definitions) const {
    std::string result;
    for (NodeId n = id; n != kNoNode; n = m_nodes[n].parent) {
        const std::string name = definitions.regionName(m_nodes[n].region);
        result = result.empty() ? name : name + "/" + result;
    }
    return result;
}

} // namespace waitscope::analysis
