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

using namespace waitscope::measure;
using waitscope::Result;

namespace {

void usage(FILE* out) {
    std::fprintf(
        out,
        "usage: waitscope instrument [options] <compiler> <arguments>\n"
        "  compiles and links with the measurement: MPI calls, and function entry and\n"
        "  exit through compiler instrumentation; <compiler> is mpicc, mpicxx, mpif90,\n"
        "  mpifort, gcc, g++, gfortran, clang or clang++ (also as a CMake launcher or\n"
        "  make's CC/FC)\n"
        "options:\n"
        "  --mpi | --nompi             an MPI program (default) or a serial one, whose\n"
        "                              measurement ends at exit (experiment waitscope_<exe>_1)\n"
        "  --compiler | --nocompiler   instrument functions (default) or not\n"
        "  --user                      enable the WAITSCOPE_REGION_* annotations\n"
        "  --filter FILE               leave out functions the filter file excludes by\n"
        "                              exact name already when compiling (GCC matches\n"
        "                              these names as substrings); at run time set\n"
        "                              WAITSCOPE_FILTER=FILE for all of its rules\n"
        "  --dry-run                   print the command, do not run it\n"
        "  -v, --verbose               print the command, then run it\n");
}

bool exists(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0;
}

std::string absolute(const std::string& path) {
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        usage(args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    auto parsed = parseInstrumentArguments(args);
    if (!parsed.ok()) {
        std::fprintf(stderr, "waitscope instrument: error: %s\n", parsed.error().message().c_str());
        return 2;
    }
    InstrumentOptions options = parsed->first;
    std::vector<std::string> command = parsed->second;
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
    for (const std::string& a : final)
        cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execvp(cargs[0], cargs.data());
    std::fprintf(stderr, "waitscope instrument: error: cannot run '%s': %s\n", cargs[0],
                 std::strerror(errno));
    return 127;
}
