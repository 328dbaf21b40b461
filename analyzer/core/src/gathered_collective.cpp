// The reductions of one gathered collective, computed once for all its members.
#include "waitscope/analysis/gathered_collective.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

GatheredCollective::GatheredCollective(std::vector<double> values, size_t width)
    : m_values(std::move(values)), m_width(std::max<size_t>(width, 1)),
      m_members(m_values.size() / m_width), m_maxEnter(-kInf), m_secondEnter(-kInf),
      m_minExit(kInf), m_latest(static_cast<uint32_t>(m_members)) {
    for (size_t m = 0; m < m_members; ++m) {
        const double enter = enterOf(m);
        if (m_latest == m_members || enter > m_maxEnter) {
            m_secondEnter = m_latest == m_members ? -kInf : m_maxEnter;
            m_maxEnter = enter;
            m_latest = static_cast<uint32_t>(m);
            m_entersAtMax = 1;
        } else {
            m_secondEnter = std::max(m_secondEnter, enter);
            m_entersAtMax += enter == m_maxEnter ? 1 : 0;
        }
        if (m_width > 1) {
            m_minExit = std::min(m_minExit, exitOf(m));
        }
    }
}

double GatheredCollective::maxEnterBelow(uint32_t member) const {
    std::call_once(m_prefixOnce, [this] {
        m_prefixMax.resize(m_members);
        double latest = -kInf;
        for (size_t m = 0; m < m_members; ++m) {
            m_prefixMax[m] = latest;
            latest = std::max(latest, enterOf(m));
        }
    });
    return member < m_members ? m_prefixMax[member] : m_maxEnter;
}

GatheredCollective::BeforeRoot GatheredCollective::beforeRoot(uint32_t root) const {
    std::call_once(m_rootOnce, [this, root] {
        m_root = root;
        m_beforeRoot = computeBeforeRoot(root);
    });
    return root == m_root ? m_beforeRoot : computeBeforeRoot(root);
}

GatheredCollective::BeforeRoot GatheredCollective::computeBeforeRoot(uint32_t root) const {
    BeforeRoot result{0, kInf};
    if (root >= m_members) {
        return result;
    }
    const double rootEnter = enterOf(root);
    for (size_t m = 0; m < m_members; ++m) {
        if (m != root && enterOf(m) < rootEnter) {
            ++result.count;
            if (m_width > 1) {
                result.earliestExit = std::min(result.earliestExit, exitOf(m));
            }
        }
    }
    return result;
}

} // namespace waitscope::analysis
