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
    std::string launcher; ///< as given, e.g. "mpirun"
    /// everything between launcher and program except the rank count
    std::vector<std::string> launcherOptions;
    std::string program; ///< as given; empty when parsed with ProgramRequired::No and none given
    std::vector<std::string> programArguments;
    int ranks = 0; ///< the rank count given, 0 when the launcher decides it

    /// The rank count option for `ranks` (`-np N`, `-n N` for srun); none for 0.
    std::vector<std::string> rankCountOptions() const;
    /// The launcher, `extraOptions`, the rank count option, the other launcher options, then
    /// `program` and `arguments`.
    std::vector<std::string> commandLine(const std::vector<std::string>& extraOptions,
                                         const std::string& program,
                                         const std::vector<std::string>& arguments) const;
    /// The launcher options that export each `name=value` to every rank.
    std::vector<std::string>
    exportOptions(const std::vector<std::pair<std::string, std::string>>& variables) const;
};

/// Whether a launcher command line must name the program to run.
enum class ProgramRequired { Yes, No };

/// Parses `args` (launcher first). A missing rank count (-np, -n, --np, --ntasks) leaves
/// `ranks` 0: the launcher decides it. Fails, naming the launcher, when the launcher is not
/// mpirun, mpiexec, orterun or srun, when a rank count is not a positive number, or when no
/// program follows the options (unless `program` is ProgramRequired::No).
Result<LaunchCommand> parseLaunchCommand(const std::vector<std::string>& args,
                                         ProgramRequired program = ProgramRequired::Yes);

/// Joins a command line for display, quoting arguments with spaces or shell characters.
std::string shellJoin(const std::vector<std::string>& args);

/// Splits a command line written by shellJoin() (or typed for a POSIX shell: single and double
/// quotes, backslashes) back into its arguments.
std::vector<std::string> shellSplit(const std::string& line);

} // namespace waitscope::analysis
