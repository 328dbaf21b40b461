// Command running and otf2-print parsing for the measurement tests.
#include "trace_text.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace waitscope::test {

CommandResult runCommand(const std::string& command) {
    CommandResult result;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe)
        return result;
    std::array<char, 4096> chunk;
    size_t n;
    while ((n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0)
        result.output.append(chunk.data(), n);
    int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

std::string mpirunCommand(int ranks, const std::vector<std::string>& environment,
                          const std::string& program, const std::string& arguments, bool preload) {
    std::string cmd = std::string(WAITSCOPE_TEST_MPIRUN) + " -np " + std::to_string(ranks) +
                      " --oversubscribe --bind-to none";
    for (const std::string& e : environment)
        cmd += " -x '" + e + "'";
    if (preload)
        cmd += std::string(" -x LD_PRELOAD=") + WAITSCOPE_TEST_LIBRARY;
    return cmd + " " + program + (arguments.empty() ? "" : " " + arguments);
}

std::string freshDirectory(const std::string& name) {
    std::filesystem::path dir = std::filesystem::path(WAITSCOPE_TEST_WORKDIR) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

std::string TraceEvent::attribute(const std::string& key) const {
    size_t at = attributes.find(key + ": ");
    if (at == std::string::npos)
        return {};
    at += key.size() + 2;
    if (at < attributes.size() && attributes[at] == '"') {
        size_t end = attributes.find('"', at + 1);
        return attributes.substr(at + 1, end - at - 1);
    }
    size_t end = attributes.find_first_of(",(", at);
    std::string value = attributes.substr(at, end == std::string::npos ? end : end - at);
    while (!value.empty() && value.back() == ' ')
        value.pop_back();
    return value;
}

std::vector<TraceEvent> readEvents(const std::string& anchor) {
    std::vector<TraceEvent> events;
    CommandResult r = runCommand(std::string(WAITSCOPE_TEST_OTF2_PRINT) + " '" + anchor + "'");
    if (r.exitCode != 0)
        return events;
    std::istringstream in(r.output);
    std::string line;
    bool body = false;
    while (std::getline(in, line)) {
        if (line.rfind("-----", 0) == 0) {
            body = true;
            continue;
        }
        if (!body || line.empty() || line[0] == ' ')
            continue;
        std::istringstream fields(line);
        TraceEvent e;
        if (!(fields >> e.name >> e.location >> e.time))
            continue;
        std::getline(fields, e.attributes);
        events.push_back(std::move(e));
    }
    return events;
}

std::vector<std::string> readDefinitions(const std::string& anchor, const std::string& kind) {
    std::vector<std::string> lines;
    CommandResult r = runCommand(std::string(WAITSCOPE_TEST_OTF2_PRINT) + " -G '" + anchor + "'");
    std::istringstream in(r.output);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(kind + " ", 0) == 0)
            lines.push_back(line);
    return lines;
}

int countEvents(const std::vector<TraceEvent>& events, const std::string& name, int location,
                const std::string& region) {
    int n = 0;
    for (const TraceEvent& e : events)
        if (e.name == name && (location < 0 || e.location == location) &&
            (region.empty() || e.attribute("Region") == region))
            ++n;
    return n;
}

std::map<std::string, std::string> readKeyValues(const std::string& path) {
    std::map<std::string, std::string> values;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        size_t eq = line.find('=');
        if (!line.empty() && line[0] != '#' && eq != std::string::npos)
            values[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return values;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace waitscope::test
