// Helpers shared by the report tests: reference data paths, a sample report, a small JSON reader.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>
#include <waitscope/report/report.h>

namespace waitscope::report::test {

/// tests/data/reference, as configured by CMake.
std::string referenceDir();
/// The reference programs (folder names under referenceDir()).
const std::vector<std::string>& referencePrograms();
/// The whole file as bytes; empty if it cannot be read.
std::string readFile(const std::string& path);
/// Writes bytes to a file in the test's binary directory and returns its path.
std::string writeTempFile(const std::string& name, const std::string& bytes);

/// A member of a hand-made tar archive.
struct TarMember {
    std::string name;
    std::string bytes;
};
/// A minimal ustar archive of `members` (regular files; independent of the library's writer).
std::string tarOf(const std::vector<TarMember>& members);
/// The regular files of a ustar archive in order, up to the end or the first damage.
std::vector<TarMember> untar(const std::string& archive);

/// A report exercising every feature the writer supports: nested and ghost metrics, all data
/// types and stored kinds, a derived metric, two call-tree roots, two machines, threads,
/// a topology, attributes and mirrors.
Report makeSampleReport();

/// A parsed JSON value (objects, numbers, strings, booleans, null; arrays as objects keyed
/// by index).
struct Json {
    enum class Type { Null, Number, String, Object, Bool } type = Type::Null;
    double number = 0;
    std::string text;
    std::map<std::string, Json> members;
    const Json& operator[](const std::string& key) const;
};
/// Parses `text`; throws std::runtime_error on malformed input (tests only).
Json parseJson(const std::string& text);

} // namespace waitscope::report::test
