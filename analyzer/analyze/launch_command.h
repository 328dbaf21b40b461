// LaunchCommand: an mpirun/mpiexec/srun command line split into launcher, rank count and program.
#pragma once

#include <string>
#include <utility>
#include <vector>
#include <waitscope/base/result.h>

namespace waitscope::analysis {

/// The kind of launcher, which decides how environment variables reach the ranks.
enum class LauncherKind {
    OpenMpi, ///< mpirun / mpiexec / orterun: `-x NAME[=VALUE]`
    Slurm,   ///< srun: `--export=ALL,NAME=VALUE`
};

/// A parsed launcher command line.
struct LaunchCommand {
    LauncherKind kind = LauncherKind::OpenMpi;
    std::string launcher;                     ///< as given, e.g. "mpirun"
    std::vector<std::string> launcherOptions; ///< everything between launcher and program
    std::string program;                      ///< as given
    std::vector<std::string> programArguments;
    int ranks = 0;

    /// The launcher with its options (and `extraOptions` right after the launcher name), then
    /// `program` and `arguments`.
    std::vector<std::string> commandLine(const std::vector<std::string>& extraOptions,
                                         const std::string& program,
                                         const std::vector<std::string>& arguments) const;
    /// The launcher options that export each `name=value` to every rank.
    std::vector<std::string>
    exportOptions(const std::vector<std::pair<std::string, std::string>>& variables) const;
};

/// Parses `args` (launcher first). Fails, naming the launcher, when the launcher is not
/// mpirun, mpiexec, orterun or srun, when no rank count (-np, -n, --np, --ntasks) is given, or
/// when no program follows the options.
Result<LaunchCommand> parseLaunchCommand(const std::vector<std::string>& args);

/// Joins a command line for display, quoting arguments with spaces or shell characters.
std::string shellJoin(const std::vector<std::string>& args);

} // namespace waitscope::analysis
