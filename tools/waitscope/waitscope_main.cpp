// waitscope: the user's one command. `waitscope <command> ...` runs the program
// `waitscope-<command>` installed beside it, so each part ships its own command.
#include <climits>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>
#include <waitscope/base/executable_path.h>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>

namespace {

struct Command {
    const char* name;
    const char* summary;
};

// Commands in the order users meet them; one that is not installed is not listed.
constexpr Command kCommands[] = {
    {"config", "list the measurement's WAITSCOPE_* settings and check the current ones"},
    {"analyze", "measure an MPI run and analyze its wait states"},
    {"replay", "analyze an experiment's traces (an MPI program: run it with mpirun)"},
    {"recover", "make a trace of a run that failed from what its ranks left"},
    {"report", "print a CUBE4 report: metric tree, top call paths, ranks"},
    {"compare", "compare repeated runs before and after a change: what is beyond the noise"},
    {"export", "write an experiment for other tools: Hatchet (Python), Perfetto UI"},
    {"examine", "open a report or experiment: explorer, or the summary as text"},
    {"instrument", "compile and link a program with the measurement"},
    {"score", "estimate trace size from a profile and suggest a filter"},
};

std::string programFor(const std::string& command) {
    return waitscope::executableDirectory() + "/waitscope-" + command;
}

/// The installed commands, one line each, for the usage.
std::string commandList() {
    std::string out = "commands:\n";
    char line[160];
    for (const Command& c : kCommands)
        if (access(programFor(c.name).c_str(), X_OK) == 0) {
            std::snprintf(line, sizeof line, "  %-11s %s\n", c.name, c.summary);
            out += line;
        }
    return out + "\n'waitscope help <command>' or 'waitscope <command> --help' describes a "
                 "command.";
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    bool version = false;
    std::vector<std::string> command;
    waitscope::cli::CommandLine commandLine("");
    commandLine.usage("<command> [arguments]")
        .flag("--version", "print the version and exit", version)
        .passThrough("<command> [arguments]",
                     "runs waitscope-<command>, installed beside waitscope, with the arguments",
                     command)
        .note(commandList());
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (version) {
        std::printf("waitscope %s\n", WAITSCOPE_VERSION);
        return 0;
    }
    if (command.empty()) {
        std::fputs(commandLine.helpText().c_str(), stderr);
        return 2;
    }
    if (command[0] == "help") {
        // `waitscope help <command>` is `waitscope <command> --help`.
        if (command.size() == 1) {
            std::fputs(commandLine.helpText().c_str(), stdout);
            return 0;
        }
        command = {command[1], "--help"};
    }
    const std::string program = programFor(command[0]);
    if (access(program.c_str(), X_OK) != 0)
        return commandLine.usageError("unknown command '" + command[0] + "'");
    std::vector<char*> args;
    args.push_back(const_cast<char*>(program.c_str()));
    for (std::size_t i = 1; i < command.size(); ++i)
        args.push_back(command[i].data());
    args.push_back(nullptr);
    execv(program.c_str(), args.data());
    std::fprintf(stderr, "waitscope: error: cannot run '%s'\n", program.c_str());
    return 127;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope", [&] { return runCommand(argc, argv); });
}
