// Value formatting: numbers with scaled units and percentages.
#include <QRegularExpression>
#include <cmath>
#include <waitscope/gui/value_format.h>

namespace waitscope::gui {

namespace {

// Decimals that give three significant digits for magnitudes below 1000.
int decimalsFor(double magnitude) {
    return magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2;
}

// Three significant digits, no exponent notation.
QString significant(double value) {
    return QString::number(value, 'f', decimalsFor(std::fabs(value)));
}

// True if `magnitude` shows as 1000 or more once rounded: then the next unit up reads better.
bool roundsToThousand(double magnitude) {
    return magnitude >= 999.5;
}

// Puts the sign of `value` before `magnitude`, unless the magnitude reads as zero.
QString withSign(double value, QString magnitude) {
    if (magnitude.startsWith(QLatin1Char('0')) &&
        !magnitude.contains(QRegularExpression(QStringLiteral("[1-9]"))))
        return magnitude;
    return (value < 0 ? QString(QChar(0x2212)) : QStringLiteral("+")) + magnitude;
}

} // namespace

QString formatValue(double value, std::string_view unit) {
    if (std::isnan(value))
        return QStringLiteral("n/a");
    double magnitude = std::fabs(value);
    if (unit == "sec" || unit == "s") {
        // Below a nanosecond is rounding noise of sums and differences (e.g. an exclusive value
        // computed as a parent minus its children).
        if (magnitude < 0.5e-9)
            return QStringLiteral("0 s");
        if (magnitude >= 1.0 || roundsToThousand(magnitude * 1e3))
            return significant(value) + QStringLiteral(" s");
        if (magnitude >= 1e-3 || roundsToThousand(magnitude * 1e6))
            return significant(value * 1e3) + QStringLiteral(" ms");
        if (magnitude >= 1e-6 || roundsToThousand(magnitude * 1e9))
            return significant(value * 1e6) + QStringLiteral(" us");
        return significant(value * 1e9) + QStringLiteral(" ns");
    }
    if (unit == "bytes" || unit == "B") {
        static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        int step = 0;
        while ((magnitude >= 1024.0 || (step > 0 && roundsToThousand(magnitude))) && step < 4) {
            magnitude /= 1024.0;
            value /= 1024.0;
            ++step;
        }
        if (step == 0)
            return QString::number(value, 'f', 0) + QStringLiteral(" B");
        return significant(value) + QLatin1Char(' ') + QLatin1String(kUnits[step]);
    }
    // Counts and other units: integers stay exact, large numbers get a k / M suffix.
    if (value == std::floor(value) && magnitude < 1e6)
        return QString::number(static_cast<long long>(value));
    if (magnitude >= 1e9)
        return significant(value / 1e9) + QStringLiteral(" G");
    if (magnitude >= 1e6)
        return significant(value / 1e6) + QStringLiteral(" M");
    return significant(value);
}

QString formatPercent(double percent) {
    if (std::isnan(percent))
        return QStringLiteral("n/a");
    if (std::fabs(percent) < 0.005)
        return QStringLiteral("0 %");
    return significant(percent) + QStringLiteral(" %");
}

QString formatSignedValue(double value, std::string_view unit) {
    if (std::isnan(value))
        return QStringLiteral("n/a");
    return withSign(value, formatValue(std::fabs(value), unit));
}

QString formatSignedPercent(double percent) {
    if (std::isnan(percent))
        return QStringLiteral("n/a");
    return withSign(percent, formatPercent(std::fabs(percent)));
}

} // namespace waitscope::gui
