// waitscope-instrument ("waitscope instrument"): compiles and links a program with the
// measurement, as a prefix to the usual compiler command.
#include "compiler_command.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <waitscope/base/executable_path.h>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>

using namespace waitscope::measure;
using waitscope::Result;

namespace {

bool exists(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0;
}

std::string absolute(const std::string& path) {
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    InstrumentOptions options;
    std::vector<std::string> command;
    waitscope::cli::CommandLine commandLine("instrument");
    commandLine.usage("[options] <compiler> <arguments>")
        .description("Compiles and links with the measurement: MPI calls, and function entry and "
                     "exit through compiler instrumentation; <compiler> is mpicc, mpicxx, mpif90, "
                     "mpifort, gcc, g++, gfortran, clang or clang++ (also as a CMake launcher or "
                     "make's CC/FC).")
        .flag("--mpi", "an MPI program (the default)", options.mpi)
        .flag("--nompi",
              "a serial program, whose measurement ends at exit (experiment waitscope_<exe>_1)",
              options.mpi, false)
        .flag("--compiler", "instrument functions (the default)", options.compiler)
        .flag("--nocompiler", "do not instrument functions", options.compiler, false)
        .flag("--user", "enable the WAITSCOPE_REGION_* annotations", options.user)
        .option("--filter", "FILE",
                "leave out functions the filter file excludes by exact name already when "
                "compiling (GCC matches these names as substrings); at run time set "
                "WAITSCOPE_FILTER=FILE for all of its rules",
                options.filter)
        .flag("--dry-run", "print the command, do not run it", options.dryRun)
        .flag("-v, --verbose", "print the command, then run it", options.verbose)
        .passThrough("<compiler> <arguments>",
                     "the compiler command, passed on with the "
                     "measurement's flags added",
                     command);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (command.empty())
        return commandLine.usageError("no compiler given");
    // Installed: <prefix>/bin and <prefix>/{lib,include}; in the build tree the header comes
    // from the source folder.
    std::string prefix = waitscope::executableDirectory() + "/..";
    options.libraryDir = absolute(prefix + "/lib");
    options.includeDir = exists(prefix + "/include/waitscope/user.h")
                             ? absolute(prefix + "/include")
                             : WAITSCOPE_SOURCE_INCLUDE_DIR;
    if (!options.filter.empty()) {
        if (!exists(options.filter)) {
            std::fprintf(stderr, "waitscope instrument: error: cannot read filter file '%s'\n",
                         options.filter.c_str());
            return 2;
        }
        options.filter = absolute(options.filter);
    }
    Result<CompilerCommand> instrumented = instrumentCommand(options, command);
    if (!instrumented.ok()) {
        std::fprintf(stderr, "waitscope instrument: error: %s\n",
                     instrumented.error().message().c_str());
        return 2;
    }
    const std::vector<std::string>& final = instrumented->arguments;
    if (options.verbose || options.dryRun) {
        std::string line;
        for (const std::string& a : final)
            line += (line.empty() ? "" : " ") + shellQuote(a);
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
        if (options.dryRun)
            return 0;
    }
    std::vector<char*> cargs;
    cargs.reserve(final.size() + 1);
    for (const std::string& a : final)
        cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execvp(cargs[0], cargs.data());
    std::fprintf(stderr, "waitscope instrument: error: cannot run '%s': %s\n", cargs[0],
                 std::strerror(errno));
    return 127;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope instrument",
                                       [&] { return runCommand(argc, argv); });
}
