// A mutation fuzzer of trace loading and the serial replay: damages copies of seed archives
// (flips and overwrites bytes, truncates and deletes files, swaps and copies per-rank local
// definitions) and runs reading plus the in-process analysis on each in a child process with a
// time bound. A finding is a crash (a signal, a sanitizer report), a hang (the time bound), a
// result with NaN or infinite values, or the silent acceptance of a damaged input:
//   - truncated or deleted files analyzed without an error to another result than the seed's;
//   - local definitions swapped or copied between ranks with other mapping tables, analyzed
//     to other visits or message counts than the seed's (the clock offsets they carry may move
//     the times, and one rank's offsets cannot be told from another's);
// changed bytes are judged only by crashes, hangs and non-finite values (a changed timestamp
// is a valid trace). Damages together are judged by the weakest. Each finding is kept as a
// directory with the damaged archive and what happened.
//
// usage: waitscope_trace_mutation_fuzz [--seconds S] [--inputs N] [--timeout S] [--rng N]
//                                      [--work DIR] [--findings DIR] SEED_ARCHIVE...
// Exits 0 when nothing was found, 1 with findings, 2 on bad usage or a seed that fails.
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <otf2/otf2.h>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace waitscope;

constexpr int kAnalyzed = 0;
constexpr int kRefused = 3;

struct Options {
    double seconds = 60.0;
    uint64_t inputs = ~uint64_t{0};
    double timeout = 20.0;
    uint64_t rng = 1;
    fs::path work = "trace_fuzz_work";
    fs::path findings = "trace_fuzz_findings";
    std::vector<fs::path> seeds;
};

std::string readText(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeText(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
}

// The child: reads and analyzes the archive at `dir` (with `timeCorrect`), writes the result's
// canonical text or the error to `out` and exits kAnalyzed or kRefused.
[[noreturn]] void analyzeChild(const fs::path& dir, bool timeCorrect, const fs::path& out) {
    analysis::ReplayOptions options;
    if (timeCorrect) {
        options.correction.emplace();
    }
    std::string text;
    int code = kRefused;
    auto anchor = trace::findAnchorFile(dir.string());
    auto definitions =
        anchor ? trace::readDefinitions(*anchor) : Result<trace::Definitions>(anchor.error());
    if (!definitions) {
        text = "error: " + definitions.error().message();
    } else {
        auto result = analysis::analyzeArchiveInProcess(dir.string(), options);
        if (result) {
            text = analysis::canonicalText(*result, *definitions);
            code = kAnalyzed;
        } else {
            text = "error: " + result.error().message();
        }
    }
    writeText(out, text);
    std::fflush(nullptr);
    _exit(code);
}

struct Outcome {
    enum Kind { Analyzed, Refused, Crashed, Hung } kind = Crashed;
    std::string text;   ///< the result's canonical text or the error
    std::string detail; ///< for crashes: the exit status
};

// Runs analyzeChild() in a child process bounded by `timeout` seconds; its stderr goes to
// `stderrFile`.
Outcome runBounded(const fs::path& dir, bool timeCorrect, double timeout, const fs::path& work,
                   const fs::path& stderrFile) {
    const fs::path out = work / "result.txt";
    fs::remove(out);
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        const int err = open(stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0) {
            dup2(err, 2);
            close(err);
        }
        analyzeChild(dir, timeCorrect, out);
    }
    Outcome outcome;
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) {
            break;
        }
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            timeout) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            outcome.kind = Outcome::Hung;
            return outcome;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    outcome.text = readText(out);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kAnalyzed) {
        outcome.kind = Outcome::Analyzed;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == kRefused) {
        outcome.kind = Outcome::Refused;
    } else {
        outcome.detail = WIFSIGNALED(status)
                             ? "killed by signal " + std::to_string(WTERMSIG(status))
                             : "exit status " + std::to_string(WEXITSTATUS(status));
    }
    return outcome;
}

// The mapping tables of the local definitions of `location` in the archive at `dir`, as text
// ("" when they cannot be read): two definition files with the same tables differ at most in
// their clock offsets, which no reader can tell from a rank's own.
std::string mappingTablesOf(const fs::path& dir, uint64_t location) {
    std::string tables;
    OTF2_Reader* reader = OTF2_Reader_Open((dir / "traces.otf2").c_str());
    if (reader == nullptr) {
        return tables;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    OTF2_Reader_SelectLocation(reader, location);
    if (OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS) {
        OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader, location);
        if (defs != nullptr) {
            OTF2_DefReaderCallbacks* callbacks = OTF2_DefReaderCallbacks_New();
            OTF2_DefReaderCallbacks_SetMappingTableCallback(
                callbacks, [](void* user, OTF2_MappingType type, const OTF2_IdMap* map) {
                    auto* text = static_cast<std::string*>(user);
                    *text += "table " + std::to_string(type) + ":";
                    OTF2_IdMap_Traverse(
                        map,
                        [](uint64_t local, uint64_t global, void* data) {
                            *static_cast<std::string*>(data) +=
                                " " + std::to_string(local) + ">" + std::to_string(global);
                        },
                        text);
                    *text += "\n";
                    return OTF2_CALLBACK_SUCCESS;
                });
            OTF2_Reader_RegisterDefCallbacks(reader, defs, callbacks, &tables);
            OTF2_DefReaderCallbacks_Delete(callbacks);
            uint64_t read = 0;
            OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &read);
            OTF2_Reader_CloseDefReader(reader, defs);
        }
        OTF2_Reader_CloseDefFiles(reader);
    }
    OTF2_Reader_Close(reader);
    return tables;
}

// mappingTablesOf() in a child process: libotf2 keeps state between uses in one process
// (after reading local definitions, a later read of truncated global definitions in a forked
// child was seen to loop), and every analysis must start as in a fresh process.
std::string mappingTablesInChild(const fs::path& dir, uint64_t location) {
    const fs::path out = dir.parent_path() / "tables.txt";
    fs::remove(out);
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        writeText(out, mappingTablesOf(dir, location));
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return readText(out);
}

uint64_t locationOf(const fs::path& defFile) {
    return std::strtoull(defFile.stem().c_str(), nullptr, 10);
}

// The files of an archive that loading reads: the anchor, the global definitions and every
// per-location file.
std::vector<fs::path> archiveFiles(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const char* name : {"traces.otf2", "traces.def"}) {
        if (fs::is_regular_file(dir / name)) {
            files.push_back(dir / name);
        }
    }
    if (fs::is_directory(dir / "traces")) {
        for (const auto& entry : fs::directory_iterator(dir / "traces")) {
            if (entry.is_regular_file()) {
                files.push_back(entry.path());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// How a damaged input that is analyzed must compare with its seed's result, weakest first.
enum class Judged {
    Bytes,       ///< changed bytes: any result (a changed timestamp is a valid trace)
    Definitions, ///< swapped or copied local definitions: the same visits and counts
    Files,       ///< truncated or deleted files: the same result
};

// Applies one random damage to the archive at `dir`; returns its description, and lowers
// `judged` to what the damage allows.
std::string mutate(const fs::path& dir, std::mt19937_64& rng, Judged& judged) {
    const std::vector<fs::path> files = archiveFiles(dir);
    if (files.empty()) {
        return "nothing to damage";
    }
    const auto pick = [&rng](size_t n) {
        return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    };
    std::vector<fs::path> defs;
    for (const fs::path& file : files) {
        if (file.parent_path().filename() == "traces" && file.extension() == ".def") {
            defs.push_back(file);
        }
    }
    const fs::path file = files[pick(files.size())];
    std::string bytes = readText(file);
    const std::string name = file.lexically_relative(dir).string();
    switch (pick(8)) {
    case 0: { // truncate
        const size_t length = bytes.empty() ? 0 : pick(bytes.size());
        writeText(file, bytes.substr(0, length));
        judged = std::min(judged, Judged::Files);
        return "truncate " + name + " to " + std::to_string(length) + " of " +
               std::to_string(bytes.size()) + " bytes";
    }
    case 1: // delete
        fs::remove(file);
        judged = std::min(judged, Judged::Files);
        return "delete " + name;
    case 2:
    case 3: { // swap or copy two per-rank definition files
        if (defs.size() < 2) {
            break;
        }
        const fs::path a = defs[pick(defs.size())];
        fs::path b = defs[pick(defs.size())];
        if (a == b) {
            b = defs[(std::find(defs.begin(), defs.end(), a) - defs.begin() + 1) % defs.size()];
        }
        const std::string textA = readText(a);
        const std::string textB = readText(b);
        // Files with the same mapping tables differ only in clock offsets, which a rank's own
        // cannot be told from; otherwise the mapping must not go unnoticed, but the clock
        // offsets still move the values (read before the files change).
        judged = std::min(judged, mappingTablesInChild(dir, locationOf(a)) !=
                                          mappingTablesInChild(dir, locationOf(b))
                                      ? Judged::Definitions
                                      : Judged::Bytes);
        writeText(a, textB);
        if (pick(2) == 0) {
            writeText(b, textA);
            return "swap " + a.lexically_relative(dir).string() + " and " +
                   b.lexically_relative(dir).string();
        }
        return "copy " + b.lexically_relative(dir).string() + " over " +
               a.lexically_relative(dir).string();
    }
    default:
        break;
    }
    if (bytes.empty()) {
        return "nothing to change in the empty " + name;
    }
    // Byte damage: flips, extreme values, or a run of random bytes.
    std::string what;
    const size_t changes = 1 + pick(8);
    for (size_t k = 0; k < changes; ++k) {
        const size_t at = pick(bytes.size());
        switch (pick(3)) {
        case 0:
            bytes[at] = static_cast<char>(bytes[at] ^ (1u << pick(8)));
            break;
        case 1:
            bytes[at] = static_cast<char>(pick(2) == 0 ? 0x00 : 0xFF);
            break;
        default:
            bytes[at] = static_cast<char>(pick(256));
            break;
        }
        what += (what.empty() ? "" : ",") + std::to_string(at);
    }
    writeText(file, bytes);
    judged = Judged::Bytes;
    return "change bytes " + what + " of " + name;
}

// The lines of a canonical text that timestamps cannot change: visits, and the counts of
// messages, bytes and synchronizations, per call path and rank.
std::vector<std::string> countsOf(const std::string& text) {
    std::vector<std::string> counts;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const std::string metric = line.substr(0, line.find('\t'));
        if (metric == "visits" || metric.rfind("comms", 0) == 0 || metric.rfind("bytes", 0) == 0 ||
            metric.rfind("syncs", 0) == 0) {
            counts.push_back(line);
        }
    }
    std::sort(counts.begin(), counts.end());
    return counts;
}

bool hasNonFinite(const std::string& text) {
    for (const char* word : {"nan", "inf"}) {
        for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
            // A value, not part of a name: preceded by a tab, sign or line start.
            if (at == 0 || text[at - 1] == '\t' || text[at - 1] == '-' || text[at - 1] == '\n') {
                return true;
            }
        }
    }
    return false;
}

bool parse(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--seconds" && hasValue) {
            options.seconds = std::atof(argv[++i]);
        } else if (arg == "--inputs" && hasValue) {
            options.inputs = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--timeout" && hasValue) {
            options.timeout = std::atof(argv[++i]);
        } else if (arg == "--rng" && hasValue) {
            options.rng = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--work" && hasValue) {
            options.work = argv[++i];
        } else if (arg == "--findings" && hasValue) {
            options.findings = argv[++i];
        } else if (!arg.empty() && arg[0] != '-') {
            options.seeds.emplace_back(arg);
        } else {
            return false;
        }
    }
    return !options.seeds.empty();
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) {
        std::fprintf(stderr,
                     "usage: %s [--seconds S] [--inputs N] [--timeout S] [--rng N] "
                     "[--work DIR] [--findings DIR] SEED_ARCHIVE...\n",
                     argv[0]);
        return 2;
    }
    fs::remove_all(options.work);
    fs::create_directories(options.work);
    const fs::path stderrFile = options.work / "stderr.txt";
    // The seeds' own results, with and without the clock correction.
    std::vector<std::string> expected[2];
    for (const fs::path& seed : options.seeds) {
        const fs::path dir = fs::is_directory(seed) ? seed : seed.parent_path();
        for (int correct = 0; correct < 2; ++correct) {
            const Outcome outcome =
                runBounded(dir, correct == 1, options.timeout * 4, options.work, stderrFile);
            if (outcome.kind != Outcome::Analyzed) {
                std::fprintf(stderr, "error: seed %s does not analyze: %s%s\n", seed.c_str(),
                             outcome.text.c_str(), outcome.detail.c_str());
                return 2;
            }
            expected[correct].push_back(outcome.text);
        }
    }
    std::mt19937_64 rng(options.rng);
    const auto start = std::chrono::steady_clock::now();
    uint64_t inputs = 0, refused = 0, analyzed = 0, findings = 0;
    const fs::path input = options.work / "input";
    while (inputs < options.inputs &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               options.seconds) {
        const size_t s = std::uniform_int_distribution<size_t>(0, options.seeds.size() - 1)(rng);
        const fs::path seed =
            fs::is_directory(options.seeds[s]) ? options.seeds[s] : options.seeds[s].parent_path();
        fs::remove_all(input);
        fs::create_directories(input);
        for (const fs::path& file : archiveFiles(seed)) {
            const fs::path to = input / file.lexically_relative(seed);
            fs::create_directories(to.parent_path());
            fs::copy_file(file, to);
        }
        // The damages together are judged by the weakest: changed bytes, then definitions.
        Judged judged = Judged::Files;
        std::string what;
        const int damages = 1 + static_cast<int>(rng() % 3);
        for (int d = 0; d < damages; ++d) {
            what += (what.empty() ? "" : "; ") + mutate(input, rng, judged);
        }
        const bool correct = rng() % 2 == 1;
        const Outcome outcome =
            runBounded(input, correct, options.timeout, options.work, stderrFile);
        ++inputs;
        std::string finding;
        switch (outcome.kind) {
        case Outcome::Refused:
            ++refused;
            break;
        case Outcome::Analyzed:
            ++analyzed;
            if (hasNonFinite(outcome.text)) {
                finding = "non-finite values in the result";
            } else if (judged == Judged::Files && outcome.text != expected[correct][s]) {
                finding = "damaged input accepted silently (result differs from the seed's)";
            } else if (judged == Judged::Definitions &&
                       countsOf(outcome.text) != countsOf(expected[correct][s])) {
                finding = "swapped definitions accepted silently (other visits or message "
                          "counts than the seed's)";
            }
            break;
        case Outcome::Crashed:
            finding = "crash (" + outcome.detail + ")";
            break;
        case Outcome::Hung:
            finding = "hang (over " + std::to_string(options.timeout) + " s)";
            break;
        }
        if (finding.empty()) {
            continue;
        }
        ++findings;
        const fs::path kept = options.findings / ("finding_" + std::to_string(findings));
        fs::remove_all(kept);
        fs::create_directories(kept);
        fs::copy(input, kept / "trace", fs::copy_options::recursive);
        writeText(kept / "what.txt", "seed: " + seed.string() + "\ndamage: " + what +
                                         "\ntime correction: " + (correct ? "yes" : "no") +
                                         "\nfinding: " + finding + "\n");
        fs::copy_file(stderrFile, kept / "stderr.txt", fs::copy_options::overwrite_existing);
        writeText(kept / "result.txt", outcome.text);
        std::fprintf(stderr, "finding %llu: %s\n  seed %s, damage: %s%s\n  kept in %s\n",
                     static_cast<unsigned long long>(findings), finding.c_str(), seed.c_str(),
                     what.c_str(), correct ? " (time correction)" : "", kept.c_str());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("trace mutation fuzz: %llu inputs from %zu seeds in %.1f s (rng %llu): %llu "
                "refused, %llu analyzed, %llu findings\n",
                static_cast<unsigned long long>(inputs), options.seeds.size(), seconds,
                static_cast<unsigned long long>(options.rng),
                static_cast<unsigned long long>(refused), static_cast<unsigned long long>(analyzed),
                static_cast<unsigned long long>(findings));
    return findings == 0 ? 0 : 1;
}
