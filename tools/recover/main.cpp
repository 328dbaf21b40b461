// waitscope-recover: makes an analyzable trace of a run whose ranks died before MPI_Finalize.
#include "recover_experiment.h"

#include <cstdio>
#include <string>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    std::string directory;
    waitscope::cli::CommandLine commandLine("recover");
    commandLine
        .description("Turns what the ranks of a failed run left (ranks/<rank>.records, the "
                     "events encoded during the run in .records.evt up to its .records.encoded "
                     "mark, .defs, .status) into traces.otf2: every rank's events up to where the "
                     "others can still be matched with them (messages, collectives). Writes "
                     "recovery.txt with what was lost; `waitscope analyze` runs it by itself "
                     "after a failed run.")
        .positional("DIR", "the experiment directory of the failed run", directory);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    auto report = waitscope::measure::recoverExperiment(directory);
    if (!report) {
        std::fprintf(stderr, "waitscope recover: error: %s\n", report.error().message().c_str());
        return 1;
    }
    if (!report->recovered) {
        std::printf("waitscope recover: %s holds a complete trace; nothing to recover\n",
                    directory.c_str());
        return 0;
    }
    std::uint64_t events = 0;
    for (std::uint64_t n : report->keptEvents)
        events += n;
    std::printf("waitscope recover: wrote %s/traces.otf2: %zu ranks, %llu events\n",
                directory.c_str(), report->keptEvents.size(),
                static_cast<unsigned long long>(events));
    for (const std::string& note : report->notes)
        std::printf("waitscope recover: %s\n", note.c_str());
    return 0;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope recover", [&] { return runCommand(argc, argv); });
}
