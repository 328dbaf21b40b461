// colourFor: the explorer's colour scale (cool blue for a small share, hot red for a large one).
#pragma once

#include <QColor>

namespace waitscope::gui {

/// The colour of a share in [0, 1] of the reference value; a negative share means "no value"
/// and gives a neutral grey. Five stops from blue over pale yellow to red, so that hot spots
/// stand out and the middle stays readable with dark text.
QColor colourFor(double fraction);

/// The colour of a difference as a share in [-1, 1] of the largest difference: white at zero,
/// deepening to blue for a decrease (an improvement: less time, less waiting) and to red for an
/// increase (a regression).
QColor differenceColourFor(double signedFraction);

} // namespace waitscope::gui
