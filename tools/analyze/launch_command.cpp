// Parsing launcher command lines: which options take a value, where the program starts.
#include "launch_command.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>

namespace waitscope::analysis {
namespace {

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// OpenMPI options that take one value (two for --mca). Unknown options are taken as flags.
const std::set<std::string> kOpenMpiWithValue = {
    "-x",
    "-H",
    "--host",
    "-host",
    "--hostfile",
    "-hostfile",
    "--machinefile",
    "-machinefile",
    "--map-by",
    "-map-by",
    "--bind-to",
    "-bind-to",
    "--rank-by",
    "-rank-by",
    "-wdir",
    "--wdir",
    "-wd",
    "--npernode",
    "-npernode",
    "-N",
    "--prefix",
    "--output-filename",
    "--report-bindings-file",
    "-cpus-per-proc",
    "--cpus-per-proc",
    "--cpus-per-rank",
    "-c",
    "--preload-files",
    "--path",
    "--app",
    "--default-hostfile",
    "--tune",
    "--am",
    "--ppr",
    "--timeout",
    "-s",
    "--stdin",
};
const std::set<std::string> kOpenMpiWithTwoValues = {"--mca", "-mca", "--gmca", "-gmca"};

/// srun options that take a value when not written as --name=value.
const std::set<std::string> kSlurmWithValue = {
    "-N",
    "--nodes",
    "-p",
    "--partition",
    "-t",
    "--time",
    "-A",
    "--account",
    "-J",
    "--job-name",
    "-c",
    "--cpus-per-task",
    "-w",
    "--nodelist",
    "-o",
    "--output",
    "-e",
    "--error",
    "--mem",
    "--mem-per-cpu",
    "-q",
    "--qos",
    "--export",
    "-m",
    "--distribution",
    "--ntasks-per-node",
    "--cpu-bind",
    "-C",
    "--constraint",
    "-D",
    "--chdir",
    "--mpi",
    "--gres",
    "--reservation",
    "-x",
    "--exclude",
    "-i",
    "--input",
    "-K",
    "--kill-on-bad-exit",
};

bool parseCount(const std::string& text, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v <= 0 || v > 1000000) {
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

} // namespace

Result<LaunchCommand> parseLaunchCommand(const std::vector<std::string>& args,
                                         ProgramRequired programRequired) {
    if (args.empty()) {
        return Error("no launcher given (expected e.g. `mpirun -np 4 ./app`)");
    }
    LaunchCommand command;
    command.launcher = args[0];
    const std::string name = baseName(args[0]);
    if (name == "mpirun" || name == "mpiexec" || name == "orterun") {
        command.kind = LauncherKind::OpenMpi;
    } else if (name == "srun") {
        command.kind = LauncherKind::Slurm;
    } else {
        return Error("launcher '" + args[0] +
                     "' is not supported (use mpirun, mpiexec or srun, followed by the program)");
    }
    size_t i = 1;
    const auto valueAfter = [&](const std::string& option) -> Result<std::string> {
        if (i + 1 >= args.size()) {
            return Error(name + ": option " + option + " needs a value");
        }
        return args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.empty() || arg[0] != '-') {
            break;
        }
        if (arg == "--") {
            ++i;
            break;
        }
        const size_t eq = arg.find('=');
        const std::string key = arg.substr(0, eq);
        const bool inlineValue = eq != std::string::npos;
        const bool isCount = command.kind == LauncherKind::OpenMpi
                                 ? (key == "-np" || key == "-n" || key == "--np" || key == "--n")
                                 : (key == "-n" || key == "--ntasks");
        if (isCount) {
            std::string value;
            if (inlineValue) {
                value = arg.substr(eq + 1);
            } else {
                auto v = valueAfter(arg);
                if (!v) {
                    return v.error();
                }
                value = *v;
            }
            if (!parseCount(value, command.ranks)) {
                return Error(name + ": rank count '" + value + "' of " + key +
                             " is not a positive number");
            }
            continue;
        }
        if (command.kind == LauncherKind::Slurm && arg.size() > 2 && arg[1] != '-' &&
            arg[1] == 'n') {
            // srun -n4
            if (!parseCount(arg.substr(2), command.ranks)) {
                return Error(name + ": cannot read the rank count from '" + arg + "'");
            }
            continue;
        }
        command.launcherOptions.push_back(arg);
        if (inlineValue) {
            continue;
        }
        const auto& withValue =
            command.kind == LauncherKind::OpenMpi ? kOpenMpiWithValue : kSlurmWithValue;
        int values = withValue.count(arg) != 0 ? 1 : 0;
        if (command.kind == LauncherKind::OpenMpi && kOpenMpiWithTwoValues.count(arg) != 0) {
            values = 2;
        }
        for (int v = 0; v < values; ++v) {
            auto value = valueAfter(arg);
            if (!value) {
                return value.error();
            }
            command.launcherOptions.push_back(*value);
        }
    }
    if (i >= args.size()) {
        if (programRequired == ProgramRequired::No) {
            return command;
        }
        return Error(name + ": no program to run after the launcher options");
    }
    command.program = args[i];
    command.programArguments.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    return command;
}

std::vector<std::string> LaunchCommand::rankCountOptions() const {
    if (ranks <= 0) {
        return {};
    }
    return {kind == LauncherKind::Slurm ? "-n" : "-np", std::to_string(ranks)};
}

std::vector<std::string>
LaunchCommand::commandLine(const std::vector<std::string>& extraOptions,
                           const std::string& programPath,
                           const std::vector<std::string>& arguments) const {
    std::vector<std::string> out{launcher};
    out.insert(out.end(), extraOptions.begin(), extraOptions.end());
    const std::vector<std::string> count = rankCountOptions();
    out.insert(out.end(), count.begin(), count.end());
    out.insert(out.end(), launcherOptions.begin(), launcherOptions.end());
    out.push_back(programPath);
    out.insert(out.end(), arguments.begin(), arguments.end());
    return out;
}

std::vector<std::string> LaunchCommand::exportOptions(
    const std::vector<std::pair<std::string, std::string>>& variables) const {
    if (variables.empty()) {
        return {};
    }
    if (kind == LauncherKind::Slurm) {
        // srun takes one --export list; ALL keeps the rest of the environment.
        std::string list = "--export=ALL";
        for (const auto& [name, value] : variables) {
            list += "," + name + "=" + value;
        }
        return {list};
    }
    std::vector<std::string> out;
    for (const auto& [name, value] : variables) {
        out.push_back("-x");
        out.push_back(name + "=" + value);
    }
    return out;
}

std::string shellJoin(const std::vector<std::string>& args) {
    std::string out;
    for (const std::string& arg : args) {
        if (!out.empty()) {
            out += ' ';
        }
        const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) ||
                   std::string_view("-_./=,:+@%").find(c) != std::string_view::npos;
        });
        if (plain) {
            out += arg;
        } else {
            out += '\'';
            for (char c : arg) {
                out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            }
            out += '\'';
        }
    }
    return out;
}

std::vector<std::string> shellSplit(const std::string& line) {
    std::vector<std::string> out;
    std::string word;
    bool inWord = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord) {
                out.push_back(word);
                word.clear();
                inWord = false;
            }
        } else if (c == '\'') {
            inWord = true;
            const size_t end = line.find('\'', i + 1);
            word += line.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
            i = end == std::string::npos ? line.size() : end;
        } else if (c == '"') {
            inWord = true;
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '\\' && i + 1 < line.size()) {
                    ++i;
                }
                word += line[i];
            }
        } else if (c == '\\' && i + 1 < line.size()) {
            inWord = true;
            word += line[++i];
        } else {
            inWord = true;
            word += c;
        }
    }
    if (inWord) {
        out.push_back(word);
    }
    return out;
}

} // namespace waitscope::analysis
