// CommandLine: the one argument parser of every Waitscope command: options with and without
// values, numbers checked against their range, positionals, `--`, and a generated `--help`.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <waitscope/base/result.h>

namespace waitscope::cli {

/// A command's arguments, declared once: the declarations read them and write `--help`.
///
///     cli::CommandLine line("score");
///     line.flag("-q, --quiet", "no progress on stderr", quiet);
///     line.count("-r", "N", "list N regions (default 15)", listed, 0, 999999999);
///     line.positional("DIR", "profile.cubex or experiment directory", path);
///     if (auto exit = line.parse(argc, argv))
///         return *exit;
///
/// Options are matched by their exact spelling (no bundling of short options); a value follows
/// as the next argument (`-e DIR`, `--output-dir DIR`, taken even when it starts with '-') or,
/// for a `--` option, after '=' (`--output-dir=DIR`). `--` ends the options. `-h` and `--help`
/// print the usage. Errors name the option or argument; on the terminal they read
/// `waitscope <command>: error: <message>` and the command exits with 2.
class CommandLine {
public:
    /// `command` is the name after `waitscope` ("analyze"); empty for the driver itself.
    explicit CommandLine(std::string command);

    /// A form of the command for the usage, after "waitscope <command> ". Without one, the
    /// usage shows "[options]" and the positionals.
    CommandLine& usage(std::string form);
    /// A paragraph printed between the usage and the options (what the command does).
    CommandLine& description(std::string text);
    /// A paragraph printed after the options.
    CommandLine& note(std::string text);

    /// An option without a value; `names` lists its spellings, "-v, --verbose".
    CommandLine& flag(const std::string& names, std::string help, bool& target, bool value = true);
    CommandLine& flag(const std::string& names, std::string help, std::function<void()> action);

    /// An option with a value, the last one given winning.
    CommandLine& option(const std::string& names, std::string valueName, std::string help,
                        std::string& target);
    /// A repeatable option: every value given, in order.
    CommandLine& option(const std::string& names, std::string valueName, std::string help,
                        std::vector<std::string>& target);
    /// An option whose value `action` checks; its error names the option and the value.
    CommandLine& option(const std::string& names, std::string valueName, std::string help,
                        std::function<Status(const std::string&)> action);
    /// An option whose value may be left out: it is the next argument only when that is not an
    /// option and `accepts` it (`--name=VALUE` always gives one). `action` gets the value or
    /// nothing.
    CommandLine& optionalValue(const std::string& names, std::string valueName, std::string help,
                               std::function<bool(const std::string&)> accepts,
                               std::function<void(std::optional<std::string>)> action);

    /// A whole number from `min` to `max` (digits only: "-5", "3x" and "" are refused).
    CommandLine& count(const std::string& names, std::string valueName, std::string help,
                       std::size_t& target, std::size_t min, std::size_t max);
    /// A number in the range from `min` to `max`; `exclusive` leaves both ends out. `what`
    /// names it in the error ("a time in seconds").
    CommandLine& number(const std::string& names, std::string valueName, std::string help,
                        std::function<void(double)> action, double min, double max,
                        bool exclusive = false, const std::string& what = "a number");

    /// An option of a library the command hands its arguments on to (Qt's `-platform NAME`):
    /// accepted with its value (none when `valueName` is empty) and left alone. The help lists
    /// it by its first spelling.
    CommandLine& passedOn(const std::vector<std::string>& names, std::string valueName,
                          std::string help);

    /// The next positional argument; a missing required one is an error naming `valueName`.
    CommandLine& positional(std::string valueName, std::string help, std::string& target,
                            bool required = true);
    /// Every further positional argument, given to `action` (which may refuse one).
    CommandLine& positionals(std::string valueName, std::string help,
                             std::function<Status(const std::string&)> action);
    CommandLine& positionals(std::string valueName, std::string help,
                             std::vector<std::string>& target);
    /// A command line passed through (a launcher's or a compiler's): the first argument that
    /// is not an option ends ours, and it and everything after it land in `target` unread.
    CommandLine& passThrough(std::string valueName, std::string help,
                             std::vector<std::string>& target);
    /// The arguments after `--`, handed on as they are (e.g. to the explorer); `action` runs
    /// when `--` is given, with the arguments after it.
    CommandLine& afterSeparator(std::string valueName, std::string help,
                                std::function<void(std::vector<std::string>)> action);

    /// Reads `args` (without the program name). Prints nothing: fails with the message, and
    /// on `-h`/`--help` stops reading and sets helpRequested().
    Status read(const std::vector<std::string>& args);
    /// Reads argv; prints the usage on --help (exit status 0) or the error (status 2) and
    /// returns the status to exit with, nothing when the command goes on.
    std::optional<int> parse(int argc, char** argv);

    bool helpRequested() const { return m_help; }
    /// "waitscope analyze", or "waitscope" for the driver.
    std::string program() const;
    /// The usage: forms, description, one line per option, notes.
    std::string helpText() const;
    /// Prints "waitscope <command>: error: <message>" and how to get the usage to stderr and
    /// returns 2, the exit status of a usage error.
    int usageError(const std::string& message) const;

private:
    enum class Kind { Flag, Value, OptionalValue, PassedOn };
    struct Option {
        std::vector<std::string> names;
        Kind kind = Kind::Flag;
        std::string valueName;
        std::string help;
        std::function<void()> flag;
        std::function<Status(const std::string&)> value;
        std::function<bool(const std::string&)> accepts;
        std::function<void(std::optional<std::string>)> optional;
    };
    struct Positional {
        std::string valueName;
        std::string help;
        bool required = true;
        bool repeated = false;
        std::function<Status(const std::string&)> action;
    };

    CommandLine& add(const std::string& names, Option option);
    const Option* find(const std::string& name) const;
    Status readPositional(const std::string& arg, std::size_t& next);

    std::string m_command;
    std::vector<std::string> m_forms;
    std::vector<std::string> m_descriptions;
    std::vector<std::string> m_notes;
    std::vector<Option> m_options;
    std::vector<Positional> m_positionals;
    std::vector<std::string>* m_passThrough = nullptr;
    std::string m_passThroughName;
    std::string m_passThroughHelp;
    std::function<void(std::vector<std::string>)> m_afterSeparator;
    std::string m_separatorName;
    std::string m_separatorHelp;
    bool m_help = false;
};

} // namespace waitscope::cli
