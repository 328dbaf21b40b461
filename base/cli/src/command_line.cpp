// Reading a command's arguments against its declarations, and writing its usage from them.
#include "waitscope/cli/command_line.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace waitscope::cli {
namespace {

/// "-v, --verbose" -> {"-v", "--verbose"}.
std::vector<std::string> splitNames(const std::string& names) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < names.size()) {
        std::size_t end = names.find(',', start);
        if (end == std::string::npos)
            end = names.size();
        std::string name = names.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty())
            out.push_back(name);
        start = end + 1;
    }
    return out;
}

std::string numberText(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

/// Appends `text` to `out`, broken into lines of at most `width` characters, continuation lines
/// indented by `indent`.
void appendWrapped(std::string& out, const std::string& text, std::size_t column,
                   std::size_t indent, std::size_t width) {
    std::size_t position = column;
    std::size_t start = 0;
    bool first = true;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!first && position + 1 + word.size() > width) {
            out += '\n' + std::string(indent, ' ');
            position = indent;
        } else if (!first) {
            out += ' ';
            ++position;
        }
        out += word;
        position += word.size();
        first = false;
        start = end + 1;
    }
}

/// "option '-e' needs a value: -e DIR".
Error missingValue(const std::string& name, const std::string& valueName) {
    std::string message = "option '";
    message += name;
    message += "' needs a value: ";
    message += name;
    message += ' ';
    message += valueName;
    return Error(message);
}

constexpr std::size_t kWidth = 80;
constexpr std::size_t kHelpColumn = 26;

} // namespace

CommandLine::CommandLine(std::string command) : m_command(std::move(command)) {}

std::string CommandLine::program() const {
    return m_command.empty() ? "waitscope" : "waitscope " + m_command;
}

CommandLine& CommandLine::usage(std::string form) {
    m_forms.push_back(std::move(form));
    return *this;
}

CommandLine& CommandLine::description(std::string text) {
    m_descriptions.push_back(std::move(text));
    return *this;
}

CommandLine& CommandLine::note(std::string text) {
    m_notes.push_back(std::move(text));
    return *this;
}

CommandLine& CommandLine::add(const std::string& names, Option option) {
    option.names = splitNames(names);
    m_options.push_back(std::move(option));
    return *this;
}

CommandLine& CommandLine::flag(const std::string& names, std::string help, bool& target,
                               bool value) {
    return flag(names, std::move(help), [&target, value] { target = value; });
}

CommandLine& CommandLine::flag(const std::string& names, std::string help,
                               std::function<void()> action) {
    Option option;
    option.kind = Kind::Flag;
    option.help = std::move(help);
    option.flag = std::move(action);
    return add(names, std::move(option));
}

CommandLine& CommandLine::option(const std::string& names, std::string valueName, std::string help,
                                 std::string& target) {
    return option(names, std::move(valueName), std::move(help), [&target](const std::string& v) {
        target = v;
        return Status::success();
    });
}

CommandLine& CommandLine::option(const std::string& names, std::string valueName, std::string help,
                                 std::vector<std::string>& target) {
    return option(names, std::move(valueName), std::move(help), [&target](const std::string& v) {
        target.push_back(v);
        return Status::success();
    });
}

CommandLine& CommandLine::option(const std::string& names, std::string valueName, std::string help,
                                 std::function<Status(const std::string&)> action) {
    Option option;
    option.kind = Kind::Value;
    option.valueName = std::move(valueName);
    option.help = std::move(help);
    option.value = std::move(action);
    return add(names, std::move(option));
}

CommandLine& CommandLine::optionalValue(const std::string& names, std::string valueName,
                                        std::string help,
                                        std::function<bool(const std::string&)> accepts,
                                        std::function<void(std::optional<std::string>)> action) {
    Option option;
    option.kind = Kind::OptionalValue;
    option.valueName = std::move(valueName);
    option.help = std::move(help);
    option.accepts = std::move(accepts);
    option.optional = std::move(action);
    return add(names, std::move(option));
}

CommandLine& CommandLine::count(const std::string& names, std::string valueName, std::string help,
                                std::size_t& target, std::size_t min, std::size_t max) {
    const std::string first = splitNames(names).front();
    return option(names, std::move(valueName), std::move(help),
                  [&target, min, max, first](const std::string& text) -> Status {
                      // Digits only: strtoul would wrap "-5" around to a huge count.
                      const bool digits = !text.empty() && text.size() <= 18 &&
                                          text.find_first_not_of("0123456789") == std::string::npos;
                      const unsigned long long value = digits ? std::stoull(text) : 0;
                      if (!digits || value < min || value > max) {
                          const std::string range =
                              max == std::numeric_limits<std::size_t>::max()
                                  ? "of " + std::to_string(min) + " or more"
                                  : "from " + std::to_string(min) + " to " + std::to_string(max);
                          return Error(first + " '" + text + "': expected a whole number " + range);
                      }
                      target = static_cast<std::size_t>(value);
                      return Status::success();
                  });
}

CommandLine& CommandLine::number(const std::string& names, std::string valueName, std::string help,
                                 std::function<void(double)> action, double min, double max,
                                 bool exclusive, const std::string& what) {
    const std::string first = splitNames(names).front();
    return option(
        names, std::move(valueName), std::move(help),
        [action = std::move(action), min, max, exclusive, what, first](const std::string& text) {
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            const bool read =
                !text.empty() && end != nullptr && *end == '\0' && std::isfinite(value);
            const bool inRange =
                exclusive ? value > min && value < max : value >= min && value <= max;
            if (!read || !inRange) {
                std::string range;
                if (std::isinf(max))
                    range = exclusive ? "above " + numberText(min)
                                      : "of " + numberText(min) + " or more";
                else
                    range = exclusive ? "between " + numberText(min) + " and " + numberText(max)
                                      : "from " + numberText(min) + " to " + numberText(max);
                return Status(Error(first + " '" + text + "': expected " + what + " " + range));
            }
            action(value);
            return Status::success();
        });
}

CommandLine& CommandLine::passedOn(const std::vector<std::string>& names, std::string valueName,
                                   std::string help) {
    Option option;
    option.kind = Kind::PassedOn;
    option.names = names;
    option.valueName = std::move(valueName);
    option.help = std::move(help);
    m_options.push_back(std::move(option));
    return *this;
}

CommandLine& CommandLine::positional(std::string valueName, std::string help, std::string& target,
                                     bool required) {
    m_positionals.push_back(
        {std::move(valueName), std::move(help), required, false, [&target](const std::string& v) {
             target = v;
             return Status::success();
         }});
    return *this;
}

CommandLine& CommandLine::positionals(std::string valueName, std::string help,
                                      std::function<Status(const std::string&)> action) {
    m_positionals.push_back(
        {std::move(valueName), std::move(help), false, true, std::move(action)});
    return *this;
}

CommandLine& CommandLine::positionals(std::string valueName, std::string help,
                                      std::vector<std::string>& target) {
    return positionals(std::move(valueName), std::move(help), [&target](const std::string& v) {
        target.push_back(v);
        return Status::success();
    });
}

CommandLine& CommandLine::passThrough(std::string valueName, std::string help,
                                      std::vector<std::string>& target) {
    m_passThrough = &target;
    m_passThroughName = std::move(valueName);
    m_passThroughHelp = std::move(help);
    return *this;
}

CommandLine& CommandLine::afterSeparator(std::string valueName, std::string help,
                                         std::function<void(std::vector<std::string>)> action) {
    m_afterSeparator = std::move(action);
    m_separatorName = std::move(valueName);
    m_separatorHelp = std::move(help);
    return *this;
}

const CommandLine::Option* CommandLine::find(const std::string& name) const {
    for (const Option& option : m_options)
        if (std::find(option.names.begin(), option.names.end(), name) != option.names.end())
            return &option;
    return nullptr;
}

Status CommandLine::readPositional(const std::string& arg, std::size_t& next) {
    if (next >= m_positionals.size())
        return Error("unexpected argument '" + arg + "'");
    Positional& positional = m_positionals[next];
    if (!positional.repeated)
        ++next;
    return positional.action(arg);
}

Status CommandLine::read(const std::vector<std::string>& args) {
    m_help = false;
    std::size_t nextPositional = 0;
    std::size_t i = 0;
    bool separated = false;
    for (; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--") {
            separated = true;
            ++i;
            break;
        }
        if (arg.size() < 2 || arg[0] != '-') {
            if (m_passThrough)
                break; // the command passed through begins here
            if (Status status = readPositional(arg, nextPositional); !status)
                return status;
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            m_help = true;
            return Status::success();
        }
        const std::size_t equals = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
        const std::string name = arg.substr(0, equals);
        const Option* option = find(name);
        if (option == nullptr)
            return Error("unknown option '" + name + "'");
        std::optional<std::string> inlineValue;
        if (equals != std::string::npos)
            inlineValue = arg.substr(equals + 1);
        switch (option->kind) {
        case Kind::Flag:
            if (inlineValue)
                return Error("option '" + name + "' takes no value");
            option->flag();
            break;
        case Kind::Value: {
            if (!inlineValue && i + 1 >= args.size())
                return missingValue(name, option->valueName);
            const std::string value = inlineValue ? *inlineValue : args[++i];
            if (Status status = option->value(value); !status)
                return status;
            break;
        }
        case Kind::OptionalValue:
            if (!inlineValue && i + 1 < args.size() && args[i + 1].rfind('-', 0) != 0 &&
                option->accepts(args[i + 1]))
                inlineValue = args[++i];
            option->optional(inlineValue);
            break;
        case Kind::PassedOn:
            if (inlineValue || option->valueName.empty())
                break;
            if (i + 1 >= args.size())
                return missingValue(name, option->valueName);
            ++i;
            break;
        }
    }
    // Whatever is left: the command passed through, the arguments for another program after
    // `--`, or positionals.
    std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    if (m_passThrough) {
        *m_passThrough = std::move(rest);
    } else if (separated && m_afterSeparator) {
        m_afterSeparator(std::move(rest));
    } else {
        for (const std::string& arg : rest)
            if (Status status = readPositional(arg, nextPositional); !status)
                return status;
    }
    for (std::size_t k = nextPositional; k < m_positionals.size(); ++k)
        if (m_positionals[k].required)
            return Error("missing " + m_positionals[k].valueName);
    return Status::success();
}

std::optional<int> CommandLine::parse(int argc, char** argv) {
    std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    if (Status status = read(args); !status)
        return usageError(status.error().message());
    if (m_help) {
        std::fputs(helpText().c_str(), stdout);
        return 0;
    }
    return std::nullopt;
}

int CommandLine::usageError(const std::string& message) const {
    std::string forms;
    const std::string text = helpText();
    // The forms of the usage, down to the first empty line.
    forms = text.substr(0, text.find("\n\n") + 1);
    std::fprintf(stderr, "%s: error: %s\n%s'%s --help' describes the options\n", program().c_str(),
                 message.c_str(), forms.c_str(), program().c_str());
    return 2;
}

std::string CommandLine::helpText() const {
    std::string out;
    std::vector<std::string> forms = m_forms;
    if (forms.empty()) {
        std::string form = "[options]";
        for (const Positional& positional : m_positionals)
            form += " " + std::string(positional.required ? "" : "[") + positional.valueName +
                    (positional.repeated ? "..." : "") + (positional.required ? "" : "]");
        if (m_passThrough)
            form += " " + m_passThroughName;
        if (m_afterSeparator)
            form += " [-- " + m_separatorName + "]";
        forms.push_back(form);
    }
    for (std::size_t k = 0; k < forms.size(); ++k)
        out += (k == 0 ? "usage: " : "       ") + program() + " " + forms[k] + "\n";
    const auto paragraph = [&out](const std::string& text) {
        out += "\n";
        // A paragraph with its own line breaks (a table) is printed as it is.
        if (text.find('\n') != std::string::npos)
            out += text;
        else
            appendWrapped(out, text, 0, 0, kWidth);
        if (out.back() != '\n')
            out += "\n";
    };
    for (const std::string& text : m_descriptions)
        paragraph(text);
    const auto entry = [&out](const std::string& left, const std::string& help) {
        out += "  " + left;
        std::size_t column = 2 + left.size();
        if (column + 2 > kHelpColumn) {
            out += "  ";
            column += 2;
        } else {
            out += std::string(kHelpColumn - column, ' ');
            column = kHelpColumn;
        }
        appendWrapped(out, help, column, kHelpColumn, kWidth);
        out += "\n";
    };
    bool anyArgument = m_passThrough != nullptr || m_afterSeparator != nullptr;
    for (const Positional& positional : m_positionals)
        anyArgument = anyArgument || !positional.help.empty();
    if (anyArgument) {
        out += "\narguments:\n";
        for (const Positional& positional : m_positionals)
            if (!positional.help.empty())
                entry(positional.valueName + (positional.repeated ? "..." : ""), positional.help);
        if (m_passThrough)
            entry(m_passThroughName, m_passThroughHelp);
        if (m_afterSeparator)
            entry("-- " + m_separatorName, m_separatorHelp);
    }
    out += "\noptions:\n";
    for (const Option& option : m_options) {
        std::string left;
        for (const std::string& name : option.names) {
            left += (left.empty() ? "" : ", ") + name;
            if (option.kind == Kind::PassedOn)
                break; // its other spellings are the library's business
        }
        if ((option.kind == Kind::Value || option.kind == Kind::PassedOn) &&
            !option.valueName.empty())
            left += " " + option.valueName;
        else if (option.kind == Kind::OptionalValue)
            left += " [" + option.valueName + "]";
        entry(left, option.help);
    }
    entry("-h, --help", "print this help and exit");
    for (const std::string& text : m_notes)
        paragraph(text);
    return out;
}

} // namespace waitscope::cli
