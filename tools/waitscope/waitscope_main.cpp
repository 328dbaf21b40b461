// waitscope: the user's one command. `waitscope <command> ...` runs the program
// `waitscope-<command>` installed beside it, so each part ships its own command.
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>
#include <waitscope/base/executable_path.h>

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
    {"export", "write a report's call tree and metrics for Python (Hatchet, Thicket)"},
    {"examine", "open a report or experiment: explorer, or the summary as text"},
    {"instrument", "compile and link a program with the measurement"},
    {"score", "estimate trace size from a profile and suggest a filter"},
    {"export", "write an experiment for other tools: Perfetto UI / chrome://tracing"},
};

std::string programFor(const std::string& command) {
    return waitscope::executableDirectory() + "/waitscope-" + command;
}

void usage(FILE* out) {
    std::fprintf(out, "usage: waitscope <command> [arguments]\n\ncommands:\n");
    for (const Command& c : kCommands)
        if (access(programFor(c.name).c_str(), X_OK) == 0)
            std::fprintf(out, "  %-11s %s\n", c.name, c.summary);
    std::fprintf(out, "\n'waitscope <command> --help' describes a command.\n");
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0 ||
        std::strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::printf("waitscope %s\n", WAITSCOPE_VERSION);
        return 0;
    }
    std::string program = programFor(argv[1]);
    if (access(program.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "waitscope: error: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        return 2;
    }
    std::vector<char*> args;
    args.push_back(const_cast<char*>(program.c_str()));
    for (int i = 2; i < argc; ++i)
        args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(program.c_str(), args.data());
    std::fprintf(stderr, "waitscope: error: cannot run '%s'\n", program.c_str());
    return 127;
}
