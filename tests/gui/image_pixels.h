// Counting the pixels of a colour in a rendered image, for the tests that look at what the
// explorer drew.
#pragma once

#include <QColor>
#include <QImage>
#include <cstdlib>

namespace waitscope::gui::test {

/// How many pixels of `image` lie within `distance` of `colour` (the sum of the red, green and
/// blue channels' differences; 0: exactly the colour, whatever the alpha).
inline int pixelsOf(const QImage& image, QColor colour, int distance = 0) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            count += std::abs(pixel.red() - colour.red()) +
                         std::abs(pixel.green() - colour.green()) +
                         std::abs(pixel.blue() - colour.blue()) <=
                     distance;
        }
    }
    return count;
}

} // namespace waitscope::gui::test
