// CommandLine: what it reads from arguments, the exact messages it refuses them with, and the
// usage it writes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include <waitscope/cli/command_line.h>

using waitscope::Error;
using waitscope::Status;
using waitscope::cli::CommandLine;

namespace {

/// The error message of reading `args`, empty when they were read.
std::string errorOf(CommandLine& line, const std::vector<std::string>& args) {
    Status status = line.read(args);
    return status ? std::string() : status.error().message();
}

} // namespace

TEST_CASE("flags and options with values are read in both spellings") {
    bool quiet = false;
    bool mpi = true;
    std::string directory;
    std::string filter;
    CommandLine line("test");
    line.flag("-q, --quiet", "quiet", quiet)
        .flag("--nompi", "no MPI", mpi, false)
        .option("-e", "DIR", "directory", directory)
        .option("--filter", "FILE", "filter", filter);
    REQUIRE(errorOf(line, {"--quiet", "-e", "out", "--filter=rules.txt", "--nompi"}).empty());
    CHECK(quiet);
    CHECK_FALSE(mpi);
    CHECK(directory == "out");
    CHECK(filter == "rules.txt");
    CHECK_FALSE(line.helpRequested());
}

TEST_CASE("a value is the next argument even when it starts with a dash") {
    std::string value;
    CommandLine line("test");
    line.option("--pattern", "TEXT", "pattern", value);
    REQUIRE(errorOf(line, {"--pattern", "-x"}).empty());
    CHECK(value == "-x");
    REQUIRE(errorOf(line, {"--pattern="}).empty());
    CHECK(value.empty());
}

TEST_CASE("a repeatable option keeps every value in order, the last single value wins") {
    std::vector<std::string> hosts;
    std::string output;
    CommandLine line("test");
    line.option("-H, --host", "HOST", "host", hosts).option("-o", "FILE", "output", output);
    REQUIRE(errorOf(line, {"-H", "a", "--host=b", "-o", "x", "-H", "c", "-o", "y"}).empty());
    CHECK(hosts == std::vector<std::string>{"a", "b", "c"});
    CHECK(output == "y");
}

TEST_CASE("unknown options, missing values and values given to flags are refused by name") {
    bool flag = false;
    std::string value;
    CommandLine line("test");
    line.flag("--flag", "a flag", flag).option("--value", "V", "a value", value);
    CHECK(errorOf(line, {"--fast"}) == "unknown option '--fast'");
    CHECK(errorOf(line, {"--fast=3"}) == "unknown option '--fast'");
    CHECK(errorOf(line, {"-fq"}) == "unknown option '-fq'");
    CHECK(errorOf(line, {"--value"}) == "option '--value' needs a value: --value V");
    CHECK(errorOf(line, {"--flag=yes"}) == "option '--flag' takes no value");
}

TEST_CASE("counts take digits only, within their range, and the error names option and value") {
    std::size_t count = 7;
    CommandLine line("test");
    line.count("-r", "N", "regions", count, 0, 999);
    REQUIRE(errorOf(line, {"-r", "12"}).empty());
    CHECK(count == 12);
    REQUIRE(errorOf(line, {"-r=0"}).empty() == false); // '=' belongs to `--` options only
    for (const char* bad : {"-5", "3x", "", "1000", "99999999999999999999"})
        CHECK(errorOf(line, {"-r", bad}) ==
              std::string("-r '") + bad + "': expected a whole number from 0 to 999");
    CHECK(count == 12);
    std::size_t unbounded = 0;
    CommandLine open("test");
    open.count("-n", "N", "changes", unbounded, 1, std::numeric_limits<std::size_t>::max());
    CHECK(errorOf(open, {"-n", "0"}) == "-n '0': expected a whole number of 1 or more");
}

TEST_CASE("numbers are checked against their range, inclusive or exclusive") {
    double level = 0.05;
    double latency = -1;
    CommandLine line("test");
    line.number(
            "--level", "P", "level", [&](double v) { level = v; }, 0, 1, true)
        .number(
            "--min-latency", "SEC", "latency", [&](double v) { latency = v; }, 0,
            std::numeric_limits<double>::infinity(), false, "a time in seconds");
    REQUIRE(errorOf(line, {"--level", "0.01", "--min-latency", "0"}).empty());
    CHECK(level == 0.01);
    CHECK(latency == 0);
    CHECK(errorOf(line, {"--level", "1"}) == "--level '1': expected a number between 0 and 1");
    CHECK(errorOf(line, {"--level", "nan"}) == "--level 'nan': expected a number between 0 and 1");
    CHECK(errorOf(line, {"--min-latency", "soon"}) ==
          "--min-latency 'soon': expected a time in seconds of 0 or more");
    CHECK(errorOf(line, {"--min-latency=-1e-6"}) ==
          "--min-latency '-1e-6': expected a time in seconds of 0 or more");
}

TEST_CASE("positionals fill in order; extra ones and missing required ones are refused") {
    std::string input;
    std::string output;
    CommandLine line("test");
    line.positional("INPUT", "input", input).positional("OUTPUT", "output", output, false);
    REQUIRE(errorOf(line, {"a"}).empty());
    CHECK(input == "a");
    REQUIRE(errorOf(line, {"a", "b"}).empty());
    CHECK(output == "b");
    CHECK(errorOf(line, {"a", "b", "c"}) == "unexpected argument 'c'");
    CommandLine required("test");
    required.positional("INPUT", "input", input);
    CHECK(errorOf(required, {}) == "missing INPUT");
}

TEST_CASE("-- ends the options: what follows is positional, or handed on") {
    std::vector<std::string> files;
    bool flag = false;
    CommandLine line("test");
    line.flag("--flag", "flag", flag).positionals("FILE", "files", files);
    REQUIRE(errorOf(line, {"a", "--", "--flag", "-"}).empty());
    CHECK_FALSE(flag);
    CHECK(files == std::vector<std::string>{"a", "--flag", "-"});

    std::string report;
    std::vector<std::string> handedOn;
    bool separated = false;
    CommandLine explorer("test");
    explorer.flag("--flag", "flag", flag)
        .positional("REPORT", "report", report)
        .afterSeparator("OPTIONS", "for the explorer", [&](std::vector<std::string> rest) {
            separated = true;
            handedOn = std::move(rest);
        });
    REQUIRE(errorOf(explorer, {"r.cubex", "--", "--metric", "time", "x"}).empty());
    CHECK(report == "r.cubex");
    CHECK(separated);
    CHECK(handedOn == std::vector<std::string>{"--metric", "time", "x"});
}

TEST_CASE("a passed-through command line is never read for our options") {
    bool quiet = false;
    std::string directory;
    std::vector<std::string> command;
    CommandLine line("analyze");
    line.flag("-q", "quiet", quiet)
        .option("-e", "DIR", "directory", directory)
        .passThrough("LAUNCHER...", "launcher, program and arguments", command);
    REQUIRE(
        errorOf(line, {"-q", "mpirun", "-np", "4", "-e", "x", "./app", "-q", "--help"}).empty());
    CHECK(quiet);
    CHECK(directory.empty());
    CHECK(command ==
          std::vector<std::string>{"mpirun", "-np", "4", "-e", "x", "./app", "-q", "--help"});
    CHECK_FALSE(line.helpRequested());
    // `--` ends ours: the command may then begin with a dash.
    REQUIRE(errorOf(line, {"--", "-weird", "x"}).empty());
    CHECK(command == std::vector<std::string>{"-weird", "x"});
    REQUIRE(errorOf(line, {"-q"}).empty());
    CHECK(command.empty());
}

TEST_CASE("an optional value is taken only when the next argument is accepted") {
    std::optional<std::string> file;
    bool given = false;
    std::string profile;
    CommandLine line("score");
    line.optionalValue(
            "-g", "FILE", "write a filter",
            [](const std::string& next) { return next.find(".cubex") == std::string::npos; },
            [&](std::optional<std::string> value) {
                given = true;
                file = std::move(value);
            })
        .positional("PROFILE", "profile", profile);
    REQUIRE(errorOf(line, {"-g", "p.cubex"}).empty());
    CHECK((given && !file && profile == "p.cubex"));
    REQUIRE(errorOf(line, {"-g", "my.filter", "p.cubex"}).empty());
    CHECK(file == "my.filter");
    REQUIRE(errorOf(line, {"-g", "-x"}).empty() == false); // -x is an option, not the file
}

TEST_CASE("options of a library handed on are accepted with their values") {
    std::string report;
    CommandLine line("gui");
    line.passedOn({"-platform", "--platform"}, "NAME", "Qt's platform plugin")
        .passedOn({"-reverse"}, "", "right to left")
        .positional("REPORT", "report", report);
    REQUIRE(errorOf(line, {"-platform", "offscreen", "-reverse", "r.cubex"}).empty());
    CHECK(report == "r.cubex");
    REQUIRE(errorOf(line, {"--platform=offscreen", "s.cubex"}).empty());
    CHECK(report == "s.cubex");
    CHECK(errorOf(line, {"-platform"}) == "option '-platform' needs a value: -platform NAME");
    CHECK(line.helpText().find("  -platform NAME          Qt's platform plugin\n") !=
          std::string::npos);
}

TEST_CASE("-h and --help stop reading; the usage has one line per option") {
    bool quiet = false;
    std::string directory;
    std::size_t count = 0;
    std::string path;
    CommandLine line("score");
    line.description("Estimates the size of a trace.")
        .flag("-q, --quiet", "no progress on stderr", quiet)
        .option("-e", "DIR", "experiment directory", directory)
        .count("-r", "N", "list N regions", count, 0, 99)
        .positional("PROFILE", "profile.cubex or experiment directory", path)
        .note("A note.");
    REQUIRE(errorOf(line, {"--help", "--no-such-option"}).empty());
    CHECK(line.helpRequested());
    REQUIRE(errorOf(line, {"x", "-h"}).empty());
    CHECK(line.helpRequested());
    CHECK(line.helpText() == "usage: waitscope score [options] PROFILE\n"
                             "\n"
                             "Estimates the size of a trace.\n"
                             "\n"
                             "arguments:\n"
                             "  PROFILE                 profile.cubex or experiment directory\n"
                             "\n"
                             "options:\n"
                             "  -q, --quiet             no progress on stderr\n"
                             "  -e DIR                  experiment directory\n"
                             "  -r N                    list N regions\n"
                             "  -h, --help              print this help and exit\n"
                             "\n"
                             "A note.\n");
}

TEST_CASE("long help wraps under its column, long names push it to the right") {
    bool flag = false;
    CommandLine line("");
    line.usage("<command> [arguments]")
        .flag("--a-very-long-option-name-indeed", "short", flag)
        .flag("-x", std::string(60, 'a') + " " + std::string(30, 'b'), flag);
    const std::string text = line.helpText();
    CHECK(text.rfind("usage: waitscope <command> [arguments]\n", 0) == 0);
    CHECK(text.find("  --a-very-long-option-name-indeed  short\n") != std::string::npos);
    CHECK(text.find("  -x                      " + std::string(60, 'a') + "\n" +
                    std::string(26, ' ') + std::string(30, 'b') + "\n") != std::string::npos);
}
