// Names of CUBE data types and metric kinds.
#include <waitscope/report/metric.h>

namespace waitscope::report {

bool isDerived(MetricKind kind) {
    return kind == MetricKind::PostDerived || kind == MetricKind::PrederivedInclusive ||
           kind == MetricKind::PrederivedExclusive;
}

std::string_view toString(DataType type) {
    switch (type) {
    case DataType::Double:
        return "DOUBLE";
    case DataType::Int64:
        return "INT64";
    case DataType::Uint64:
        return "UINT64";
    case DataType::MinDouble:
        return "MINDOUBLE";
    case DataType::MaxDouble:
        return "MAXDOUBLE";
    }
    return "DOUBLE";
}

std::string_view toString(MetricKind kind) {
    switch (kind) {
    case MetricKind::Exclusive:
        return "EXCLUSIVE";
    case MetricKind::Inclusive:
        return "INCLUSIVE";
    case MetricKind::Simple:
        return "SIMPLE";
    case MetricKind::PostDerived:
        return "POSTDERIVED";
    case MetricKind::PrederivedInclusive:
        return "PREDERIVED_INCLUSIVE";
    case MetricKind::PrederivedExclusive:
        return "PREDERIVED_EXCLUSIVE";
    }
    return "EXCLUSIVE";
}

std::optional<DataType> parseDataType(std::string_view text) {
    if (text == "DOUBLE" || text == "FLOAT")
        return DataType::Double;
    if (text == "INT64" || text == "INTEGER")
        return DataType::Int64;
    if (text == "UINT64")
        return DataType::Uint64;
    if (text == "MINDOUBLE")
        return DataType::MinDouble;
    if (text == "MAXDOUBLE")
        return DataType::MaxDouble;
    return std::nullopt;
}

std::optional<MetricKind> parseMetricKind(std::string_view text) {
    if (text == "EXCLUSIVE")
        return MetricKind::Exclusive;
    if (text == "INCLUSIVE")
        return MetricKind::Inclusive;
    if (text == "SIMPLE")
        return MetricKind::Simple;
    if (text == "POSTDERIVED")
        return MetricKind::PostDerived;
    if (text == "PREDERIVED_INCLUSIVE")
        return MetricKind::PrederivedInclusive;
    if (text == "PREDERIVED_EXCLUSIVE")
        return MetricKind::PrederivedExclusive;
    return std::nullopt;
}

} // namespace waitscope::report
