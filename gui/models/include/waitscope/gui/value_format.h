// Value formatting: numbers with scaled units (s / ms / us, B / KiB / MiB) and percentages.
#pragma once

#include <QString>
#include <string_view>

namespace waitscope::gui {

/// Formats `value` of a metric in `unit` ("sec", "bytes", "occ", ...) with three significant
/// digits and a scaled unit: "2.03 s", "12.4 ms", "350 us", "1.50 KiB", "42". NaN reads "n/a".
QString formatValue(double value, std::string_view unit);

/// Formats a percentage with three significant digits, e.g. "36.1 %"; NaN reads "n/a".
QString formatPercent(double percent);

/// A difference: formatValue of its magnitude with a sign, "+12.4 ms" or "−840 ms" (a true
/// minus sign); a value that formats as zero has no sign ("0 s"). NaN reads "n/a".
QString formatSignedValue(double value, std::string_view unit);

/// A percentage of a difference with a sign, e.g. "+36.1 %" or "−0.84 %"; zero has none.
QString formatSignedPercent(double percent);

} // namespace waitscope::gui
