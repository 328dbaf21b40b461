// colourFor: the explorer's colour scale.
#include "colour_scale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace waitscope::gui {

QColor colourFor(double fraction) {
    if (fraction < 0.0)
        return QColor(0xc8, 0xc8, 0xc8);
    // A diverging blue-yellow-red ramp (in the style of ColorBrewer's RdYlBu).
    static constexpr std::array<std::array<int, 3>, 5> kStops = {{
        {0x45, 0x75, 0xb4},
        {0x91, 0xbf, 0xdb},
        {0xff, 0xea, 0x8a},
        {0xfc, 0x8d, 0x59},
        {0xd7, 0x30, 0x27},
    }};
    double position = std::clamp(fraction, 0.0, 1.0) * (kStops.size() - 1);
    auto low = static_cast<std::size_t>(position);
    std::size_t high = std::min(low + 1, kStops.size() - 1);
    double t = position - static_cast<double>(low);
    auto mix = [&](int channel) {
        return static_cast<int>(kStops[low][channel] * (1.0 - t) + kStops[high][channel] * t + 0.5);
    };
    return QColor(mix(0), mix(1), mix(2));
}

QColor differenceColourFor(double signedFraction) {
    // Two hues of ColorBrewer's RdBu, each from white at zero to full at a share of 1.
    static constexpr std::array<int, 3> kImprovement = {0x21, 0x66, 0xac};
    static constexpr std::array<int, 3> kRegression = {0xb2, 0x18, 0x2b};
    double t = std::clamp(std::abs(signedFraction), 0.0, 1.0);
    const auto& hue = signedFraction < 0.0 ? kImprovement : kRegression;
    auto mix = [&](int channel) {
        return static_cast<int>(255 * (1.0 - t) + hue[channel] * t + 0.5);
    };
    return QColor(mix(0), mix(1), mix(2));
}

} // namespace waitscope::gui
