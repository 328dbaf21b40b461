# Writes a C++ source holding the text of each metric description file (cmake -P script).
# Inputs: INPUTS (list of files), OUTPUT (the .cpp to write).
set(body "// Generated from share/metrics by embed_metric_files.cmake; do not edit.\n")
string(APPEND body "#include <string_view>\n#include <vector>\n\n")
string(APPEND body "namespace waitscope::report::detail {\n\n")
string(APPEND body "const std::vector<std::string_view>& embeddedMetricFiles() {\n")
string(APPEND body "    static const std::vector<std::string_view> files = {\n")
foreach(input IN LISTS INPUTS)
  file(READ "${input}" text)
  string(APPEND body "        R\"wsmetric(${text})wsmetric\",\n")
endforeach()
string(APPEND body "    };\n    return files;\n}\n\n} // namespace waitscope::report::detail\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
