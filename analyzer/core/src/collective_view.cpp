// Reductions over the members' call times of one collective.
#include "pattern_sink.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {

double CollectiveView::maxEnter() const {
    double result = -std::numeric_limits<double>::infinity();
    for (size_t m = 0; m < members(); ++m) {
        result = std::max(result, enterOf(m));
    }
    return result;
}

double CollectiveView::minExit() const {
    double result = std::numeric_limits<double>::infinity();
    for (size_t m = 0; m < members(); ++m) {
        result = std::min(result, exitOf(m));
    }
    return result;
}

} // namespace waitscope::analysis
