// fuzz_cubex: a mutation fuzzer for the CUBE4 report reader, run on demand (and briefly in
// ctest). It takes the reference reports, the hand-made corpus and a few generated reports,
// damages one member at a time (anchor.xml: bit flips, truncation, deleted or repeated tags,
// changed numbers, extra nesting; index/data members: bit flips, truncation, changed counts)
// or the archive itself, reads the result in-process and touches every value. It stops at the
// first crash (save the input with --save-dir), hang (an input taking longer than
// --timeout-ms) or damaged input that is read without complaint where the damage is certain
// to matter (a truncated anchor.xml, index or data member, a truncated archive).
//
//     fuzz_cubex [--seconds N] [--seed S] [--timeout-ms T] [--save-dir DIR] [SEED.cubex...]
//     fuzz_cubex --replay FILE.cubex
//
// For the full run use the asan preset: cmake --preset asan && cmake --build build/asan
// --target fuzz_cubex && build/asan/tests/formats/report/fuzz_cubex --seconds 600.
#include "test_support.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <pugixml.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;

namespace {

// The archives are read and written by test_support's own ustar reader/writer.
using Member = test::TarMember;
using test::tarOf;
using test::untar;

// ---- Seeds ---------------------------------------------------------------------------------

struct Seed {
    std::string name;
    std::vector<Member> members;
    std::set<std::string> usedMembers; // index/data members of stored metrics (from anchor.xml)
};

// The member names the reader will load: "<id>.index/.data" or "ghost_<id>..." of every metric
// that is stored (not derived) and of a type the reader supports.
std::set<std::string> usedMembersOf(const std::string& anchorXml) {
    std::set<std::string> used;
    pugi::xml_document doc;
    if (!doc.load_buffer(anchorXml.data(), anchorXml.size()))
        return used;
    std::vector<pugi::xml_node> stack;
    for (pugi::xml_node m : doc.child("cube").child("metrics").children("metric"))
        stack.push_back(m);
    while (!stack.empty()) {
        pugi::xml_node m = stack.back();
        stack.pop_back();
        for (pugi::xml_node c : m.children("metric"))
            stack.push_back(c);
        std::string type = m.attribute("type").as_string();
        if (type == "POSTDERIVED" || type == "PREDERIVED_INCLUSIVE" ||
            type == "PREDERIVED_EXCLUSIVE")
            continue;
        std::string dtype = m.child("dtype").text().as_string();
        if (dtype == "RATE" || dtype == "COMPLEX" || dtype == "TAU_ATOMIC" ||
            dtype == "HISTOGRAM" || dtype == "SCALE_FUNC" || dtype == "NDOUBLES")
            continue;
        std::string base =
            std::string(std::string_view(m.attribute("viztype").as_string()) == "GHOST" ? "ghost_"
                                                                                        : "") +
            m.attribute("id").as_string();
        used.insert(base + ".index");
        used.insert(base + ".data");
    }
    return used;
}

Seed makeSeed(std::string name, const std::string& bytes) {
    Seed seed;
    seed.name = std::move(name);
    seed.members = untar(bytes);
    for (const Member& m : seed.members)
        if (m.name == "anchor.xml")
            seed.usedMembers = usedMembersOf(m.bytes);
    return seed;
}

// Small generated reports: a DAG of derived metrics, a deep call tree, min/max and integer
// types, several roots.
std::vector<std::pair<std::string, std::string>> generatedSeeds() {
    std::vector<std::pair<std::string, std::string>> out;
    if (auto sample = writeCubexToMemory(waitscope::report::test::makeSampleReport()))
        out.emplace_back("generated:sample", *sample);
    Report r;
    RegionId f = *r.addRegion({.name = "f"});
    RegionId g = *r.addRegion({.name = "g", .file = "g.c", .beginLine = 1, .endLine = 9});
    std::optional<CallNodeId> parent;
    for (int i = 0; i < 40; ++i) {
        CallNodeId c = *r.addCallNode(i % 3 ? f : g, parent, i);
        if (i % 5 == 0)
            (void)r.addCallNode(g, c, -1);
        parent = c;
    }
    (void)r.addCallNode(g, std::nullopt);
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId node = *r.addNode(machine, "n");
    for (int p = 0; p < 3; ++p) {
        SystemNodeId process = *r.addProcess(node, "MPI Rank " + std::to_string(p), p);
        (void)r.addThread(process, "t0", 0);
        (void)r.addThread(process, "t1", 1);
    }
    MetricId time = *r.addMetric("time", std::nullopt, DataType::Double, MetricKind::Inclusive);
    MetricId visits = *r.addMetric("visits", std::nullopt, DataType::Uint64);
    MetricId low = *r.addMetric("low", std::nullopt, DataType::MinDouble);
    MetricId high = *r.addMetric("high", std::nullopt, DataType::MaxDouble);
    MetricId signedCount = *r.addMetric("signed", std::nullopt, DataType::Int64);
    for (int i = 0; i < 8; ++i) {
        Metric d;
        d.uniqueName = "d" + std::to_string(i);
        d.kind = MetricKind::PostDerived;
        d.expression = i < 6 ? "metric::d" + std::to_string(i + 1) + "() + metric::d" +
                                   std::to_string(i + 2) + "()"
                             : "metric::time() - 2 * metric::visits()";
        (void)r.addMetric(d);
    }
    for (CallNodeId c = 0; c < r.callNodes().size(); c += 3)
        for (LocationId l = 0; l < r.locations().size(); ++l) {
            (void)r.setSeverity(time, c, l, 1.0 + c + l);
            (void)r.setSeverityUint64(visits, c, l, c * 7 + l);
            (void)r.setSeverity(low, c, l, -1.0 * l);
            (void)r.setSeverity(high, c, l, 2.0 * c);
            (void)r.setSeverityInt64(signedCount, c, l, -3 + int(l));
        }
    if (auto bytes = writeCubexToMemory(r))
        out.emplace_back("generated:dag_deep", *bytes);
    return out;
}

// ---- Mutations -----------------------------------------------------------------------------

struct Mutant {
    std::string bytes;
    std::string description;
    bool mustFail = false; // the damage is certain to matter: reading must report it
};

const char* kInterestingNumbers[] = {"-1",          "0",          "1",
                                     "2",           "-5",         "255",
                                     "65535",       "2147483647", "2147483648",
                                     "4294967295",  "4294967296", "9223372036854775807",
                                     "-2147483648", "1e308",      "99999999999999999999"};

std::string mutateXml(std::string xml, std::mt19937_64& rng, std::string& what) {
    if (xml.empty())
        return xml;
    std::size_t pos = rng() % xml.size();
    switch (rng() % 8) {
    case 0: // bit flip
        xml[pos] = static_cast<char>(xml[pos] ^ (1 << (rng() % 8)));
        what = "anchor.xml: bit flip at " + std::to_string(pos);
        break;
    case 1: { // delete one tag (start or end)
        std::size_t open = xml.find('<', pos);
        std::size_t close = open == std::string::npos ? open : xml.find('>', open);
        if (close != std::string::npos) {
            what = "anchor.xml: deleted tag " +
                   xml.substr(open, std::min<std::size_t>(40, close - open + 1));
            xml.erase(open, close - open + 1);
        }
        break;
    }
    case 2: { // delete a whole element (start tag to its end tag, same name)
        std::size_t open = xml.find('<', pos);
        if (open == std::string::npos || open + 1 >= xml.size() || xml[open + 1] == '/')
            break;
        std::size_t nameEnd = xml.find_first_of(" >/", open + 1);
        if (nameEnd == std::string::npos)
            break;
        std::string name = xml.substr(open + 1, nameEnd - open - 1);
        std::size_t end = xml.find("</" + name + ">", open);
        std::size_t selfClose = xml.find("/>", open);
        std::size_t stop = end != std::string::npos         ? end + name.size() + 3
                           : selfClose != std::string::npos ? selfClose + 2
                                                            : std::string::npos;
        if (stop != std::string::npos) {
            what = "anchor.xml: deleted element <" + name + "> at " + std::to_string(open);
            xml.erase(open, stop - open);
        }
        break;
    }
    case 3: { // change a number
        std::size_t digit = xml.find_first_of("0123456789", pos);
        if (digit == std::string::npos)
            break;
        std::size_t end = xml.find_first_not_of("0123456789", digit);
        if (end == std::string::npos)
            end = xml.size();
        std::string value = kInterestingNumbers[rng() % std::size(kInterestingNumbers)];
        what = "anchor.xml: number " + xml.substr(digit, end - digit) + " -> " + value;
        xml.replace(digit, end - digit, value);
        break;
    }
    case 4: { // nest: repeat an element inside itself, many levels deep
        std::size_t open = xml.find("<cnode", pos);
        if (open == std::string::npos)
            open = xml.find("<metric ", pos);
        if (open == std::string::npos)
            break;
        std::size_t close = xml.find('>', open);
        if (close == std::string::npos)
            break;
        std::string tag = xml.substr(open, close - open + 1);
        if (tag.size() >= 2 && tag[tag.size() - 2] == '/')
            tag.erase(tag.size() - 2, 1);
        std::string name = tag.substr(1, tag.find_first_of(" >", 1) - 1);
        int levels = 1 + static_cast<int>(rng() % 2000);
        std::string opens, closes;
        for (int i = 0; i < levels; ++i) {
            opens += tag;
            closes += "</" + name + ">";
        }
        what = "anchor.xml: nested <" + name + "> " + std::to_string(levels) + " levels";
        xml.insert(close + 1, opens + closes);
        break;
    }
    case 5: { // duplicate a chunk (repeated ids, repeated members of the tree)
        std::size_t length = 1 + rng() % 400;
        std::string chunk = xml.substr(pos, length);
        std::size_t at = rng() % xml.size();
        what = "anchor.xml: copied " + std::to_string(chunk.size()) + " bytes to " +
               std::to_string(at);
        xml.insert(at, chunk);
        break;
    }
    case 6: { // replace an attribute value or text with junk
        std::size_t quote = xml.find('"', pos);
        std::size_t endQuote = quote == std::string::npos ? quote : xml.find('"', quote + 1);
        if (endQuote == std::string::npos)
            break;
        static const char* junk[] = {
            "", "x", "-", "DOUBLE", "INCLUSIVE", "POSTDERIVED", "GHOST", "&amp;", "metric::time()"};
        std::string value = junk[rng() % std::size(junk)];
        what = "anchor.xml: attribute value -> '" + value + "'";
        xml.replace(quote + 1, endQuote - quote - 1, value);
        break;
    }
    default: { // splice a derived expression in
        std::size_t at = xml.find("</uniq_name>", pos);
        if (at == std::string::npos)
            break;
        static const char* expressions[] = {"metric::time()+metric::time()",
                                            "((((((((((metric::time()))))))))))",
                                            "metric::nonexistent()",
                                            "-----metric::time()",
                                            "metric::visits() * 1e308 * 1e308",
                                            "{ return metric::time(); }"};
        std::string cubepl =
            std::string("<cubepl>") + expressions[rng() % std::size(expressions)] + "</cubepl>";
        what = "anchor.xml: inserted " + cubepl;
        xml.insert(at + 12, cubepl);
        break;
    }
    }
    return xml;
}

std::string mutateBinary(std::string bytes, std::mt19937_64& rng, const std::string& name,
                         std::string& what) {
    if (bytes.empty())
        return bytes;
    std::size_t pos = rng() % bytes.size();
    switch (rng() % 4) {
    case 0:
        bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8)));
        what = name + ": bit flip at " + std::to_string(pos);
        break;
    case 1: { // a header field (marker, format, row count, first rows) gets an extreme value
        std::size_t at = std::min<std::size_t>(bytes.size() - 1, 11 + rng() % 20);
        static const std::uint32_t values[] = {0, 1, 0x01000000u, 0x7fffffffu, 0xffffffffu, 3};
        std::uint32_t v = values[rng() % std::size(values)];
        for (std::size_t k = 0; k < 4 && at + k < bytes.size(); ++k)
            bytes[at + k] = static_cast<char>(v >> (8 * k));
        what = name + ": value " + std::to_string(v) + " at " + std::to_string(at);
        break;
    }
    case 2:
        bytes[pos] = static_cast<char>(rng());
        what = name + ": random byte at " + std::to_string(pos);
        break;
    default: {
        std::size_t length = 1 + rng() % 64;
        bytes.erase(pos, length);
        what = name + ": deleted bytes at " + std::to_string(pos);
        break;
    }
    }
    return bytes;
}

Mutant mutate(const Seed& seed, std::mt19937_64& rng) {
    Mutant out;
    std::vector<Member> members = seed.members;
    unsigned choice = rng() % 20;
    if (choice < 2) { // truncate the archive itself
        std::string whole = tarOf(members);
        std::size_t keep = rng() % whole.size();
        bool onlyZeros = whole.find_first_not_of('\0', keep) == std::string::npos;
        out.bytes = whole.substr(0, keep);
        out.description = "archive truncated to " + std::to_string(keep) + " bytes";
        out.mustFail = !onlyZeros;
        return out;
    }
    if (choice < 4) { // damage the raw archive (tar headers included)
        std::string whole = tarOf(members);
        std::string what;
        out.bytes = mutateBinary(whole, rng, "archive", what);
        out.description = what;
        return out;
    }
    std::size_t anchor = 0;
    while (anchor < members.size() && members[anchor].name != "anchor.xml")
        ++anchor;
    if (choice == 12 && anchor < members.size()) { // a part every report needs is gone
        std::string& xml = members[anchor].bytes;
        static const char* parts[] = {"system", "program", "metrics"};
        switch (rng() % 5) {
        case 0:
        case 1:
        case 2: {
            std::string name = parts[rng() % 3];
            std::size_t begin = xml.find("<" + name + ">");
            std::size_t end = xml.find("</" + name + ">");
            if (begin == std::string::npos || end == std::string::npos)
                return mutate(seed, rng);
            xml.erase(begin, end + name.size() + 3 - begin);
            out.description = "anchor.xml: <" + name + "> deleted";
            break;
        }
        case 3: { // every cnode
            std::size_t begin = xml.find("<cnode");
            std::size_t end = xml.find("</program>");
            if (begin == std::string::npos || end == std::string::npos || end < begin)
                return mutate(seed, rng);
            xml.erase(begin, end - begin);
            out.description = "anchor.xml: all <cnode> deleted";
            break;
        }
        default: { // every data member
            std::vector<Member> kept;
            for (Member& m : members)
                if (m.name == "anchor.xml")
                    kept.push_back(std::move(m));
            members = std::move(kept);
            out.description = "all members but anchor.xml deleted";
            break;
        }
        }
        out.mustFail = true;
    } else if (choice < 13 && anchor < members.size()) {
        int rounds = 1 + static_cast<int>(rng() % 3);
        for (int i = 0; i < rounds; ++i) {
            std::string what;
            members[anchor].bytes = mutateXml(members[anchor].bytes, rng, what);
            out.description += (out.description.empty() ? "" : "; ") + what;
        }
    } else if (choice < 15 && anchor < members.size()) { // truncated anchor.xml
        std::string& xml = members[anchor].bytes;
        std::size_t keep = rng() % xml.size();
        out.mustFail = xml.find_first_not_of(" \t\r\n", keep) != std::string::npos;
        xml.resize(keep);
        out.description = "anchor.xml truncated to " + std::to_string(keep) + " bytes";
    } else if (choice < 17) { // truncated index or data member of a stored metric
        std::vector<std::size_t> used;
        for (std::size_t i = 0; i < members.size(); ++i)
            if (seed.usedMembers.count(members[i].name) && !members[i].bytes.empty())
                used.push_back(i);
        if (used.empty())
            return mutate(seed, rng);
        Member& m = members[used[rng() % used.size()]];
        std::size_t keep = rng() % m.bytes.size();
        m.bytes.resize(keep);
        out.description = m.name + " truncated to " + std::to_string(keep) + " bytes";
        out.mustFail = true;
    } else { // damage inside an index or data member
        std::size_t i = rng() % members.size();
        std::string what;
        members[i].bytes = mutateBinary(members[i].bytes, rng, members[i].name, what);
        out.description = what;
    }
    out.bytes = tarOf(members);
    return out;
}

// ---- Running one input ---------------------------------------------------------------------

// Reads and touches everything a viewer could ask for; returns the first error, or "" if the
// report opened and every metric evaluated.
std::string exercise(const std::string& bytes) {
    auto report = readCubexFromMemory(bytes, "mutant.cubex");
    if (!report)
        return report.error().message();
    std::string firstError;
    // A metric listed as not available (an expression not evaluated, an unsupported type) is
    // shown as such, not an error of the file.
    auto note = [&](const waitscope::Error& e) {
        if (firstError.empty() && e.message().find("' is not available: ") == std::string::npos)
            firstError = e.message();
    };
    const Report& r = *report;
    for (MetricId m = 0; m < r.metrics().size(); ++m) {
        if (auto v = r.total(m); !v)
            note(v.error());
        (void)r.total(m, MetricMode::Exclusive);
        (void)r.callNodeValues(m, CallTreeMode::Inclusive);
        (void)r.callNodeValues(m, CallTreeMode::Exclusive, MetricMode::Exclusive);
        for (CallNodeId c = 0; c < r.callNodes().size() && c < 32; ++c) {
            (void)r.locationValues(m, c, CallTreeMode::Inclusive, MetricMode::Exclusive);
            for (SystemNodeId s = 0; s < r.systemNodes().size() && s < 8; ++s)
                (void)r.value(m, c, s, CallTreeMode::Exclusive, SystemMode::Inclusive);
        }
    }
    for (CallNodeId c = 0; c < r.callNodes().size() && c < 64; ++c)
        (void)r.findCallPath(r.callPath(c));
    (void)r.findProcess(0);
    if (auto again = writeCubexToMemory(r)) {
        auto back = readCubexFromMemory(*again, "rewritten.cubex");
        if (!back)
            return "REWRITE: the report as written does not open: " + back.error().message();
    }
    return firstError;
}

// Crash and hang reports: the current input is written where --save-dir says.
std::string g_saveDir;
std::atomic<const std::string*> g_current{nullptr};
std::atomic<std::uint64_t> g_startedNs{0};
std::atomic<std::uint64_t> g_inputNumber{0};

void saveCurrent(const char* kind) {
    const std::string* input = g_current.load();
    if (!input || g_saveDir.empty())
        return;
    char path[4096];
    std::snprintf(path, sizeof path, "%s/%s-%llu.cubex", g_saveDir.c_str(), kind,
                  static_cast<unsigned long long>(g_inputNumber.load()));
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    ssize_t written = ::write(fd, input->data(), input->size());
    (void)written;
    ::close(fd);
    const char message[] = "fuzz_cubex: input saved for replay\n";
    written = ::write(2, message, sizeof message - 1);
    (void)written;
}

void onFatalSignal(int signal) {
    saveCurrent("crash");
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

// The sanitizer runtime's own name (when linked):
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming)
extern "C" void __sanitizer_set_death_callback(void (*)()) __attribute__((weak));

std::uint64_t nowNs() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
}

int usage() {
    std::cerr << "usage: fuzz_cubex [--seconds N] [--seed S] [--timeout-ms T] [--save-dir DIR] "
                 "[SEED.cubex...]\n       fuzz_cubex --replay FILE.cubex\n";
    return 2;
}

} // namespace

// The fuzzer itself; main() only guards it.
static int runFuzzer(int argc, char** argv) {
    double seconds = 10;
    std::uint64_t seedValue = 1;
    std::uint64_t timeoutMs = 5000;
    std::vector<std::string> files;
    std::string replay;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--seconds")
            seconds = std::atof(next().c_str());
        else if (arg == "--seed")
            seedValue = std::strtoull(next().c_str(), nullptr, 10);
        else if (arg == "--timeout-ms")
            timeoutMs = std::strtoull(next().c_str(), nullptr, 10);
        else if (arg == "--save-dir")
            g_saveDir = next();
        else if (arg == "--replay")
            replay = next();
        else if (!arg.empty() && arg[0] == '-')
            return usage();
        else
            files.push_back(arg);
    }
    if (!replay.empty()) {
        std::string error = exercise(waitscope::report::test::readFile(replay));
        std::cout << (error.empty() ? "read without error" : "error: " + error) << '\n';
        return 0;
    }
    if (!g_saveDir.empty())
        std::filesystem::create_directories(g_saveDir);
    std::signal(SIGSEGV, onFatalSignal);
    std::signal(SIGBUS, onFatalSignal);
    std::signal(SIGFPE, onFatalSignal);
    std::signal(SIGABRT, onFatalSignal);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback([] { saveCurrent("crash"); });

    std::vector<Seed> seeds;
    if (files.empty()) {
        for (const std::string& program : waitscope::report::test::referencePrograms())
            for (const char* kind : {"trace", "scout", "profile"})
                files.push_back(waitscope::report::test::referenceDir() + "/" + program + "/" +
                                kind + ".cubex");
        for (const auto& entry : std::filesystem::directory_iterator(WAITSCOPE_REPORT_CORPUS_DIR))
            files.push_back(entry.path().string());
    }
    for (const std::string& file : files) {
        std::string bytes = waitscope::report::test::readFile(file);
        if (bytes.empty()) {
            std::cerr << "fuzz_cubex: error: " << file << ": cannot read\n";
            return 1;
        }
        seeds.push_back(makeSeed(file, bytes));
    }
    for (auto& [name, bytes] : generatedSeeds())
        seeds.push_back(makeSeed(name, bytes));
    for (const Seed& seed : seeds) {
        std::string error = exercise(tarOf(seed.members));
        if (!error.empty()) {
            std::cerr << "fuzz_cubex: error: seed " << seed.name << " does not read: " << error
                      << '\n';
            return 1;
        }
    }

    // The watchdog: an input running longer than the bound is a hang.
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
        while (!done.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            std::uint64_t started = g_startedNs.load();
            if (started != 0 && nowNs() - started > timeoutMs * 1000000ull) {
                std::fprintf(stderr, "fuzz_cubex: HANG: input %llu took longer than %llu ms\n",
                             static_cast<unsigned long long>(g_inputNumber.load()),
                             static_cast<unsigned long long>(timeoutMs));
                saveCurrent("hang");
                std::_Exit(3);
            }
        }
    });

    std::mt19937_64 rng(seedValue);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::uint64_t inputs = 0, rejected = 0, accepted = 0;
    std::map<std::string, std::uint64_t> perSeed;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        const Seed& seed = seeds[rng() % seeds.size()];
        Mutant mutant = mutate(seed, rng);
        g_inputNumber = inputs;
        g_current = &mutant.bytes;
        g_startedNs = nowNs();
        std::string error = exercise(mutant.bytes);
        g_startedNs = 0;
        ++inputs;
        ++perSeed[seed.name];
        if (error.empty()) {
            ++accepted;
            if (mutant.mustFail) {
                std::fprintf(stderr,
                             "fuzz_cubex: SILENT ACCEPTANCE: input %llu from %s (%s) read "
                             "without error\n",
                             static_cast<unsigned long long>(inputs - 1), seed.name.c_str(),
                             mutant.description.c_str());
                saveCurrent("accepted");
                status = 4;
                break;
            }
        } else if (error.rfind("REWRITE: ", 0) == 0) {
            std::fprintf(stderr, "fuzz_cubex: %s (input %llu: %s)\n", error.c_str(),
                         static_cast<unsigned long long>(inputs - 1), mutant.description.c_str());
            saveCurrent("rewrite");
            status = 6;
            break;
        } else {
            ++rejected;
            if (error.rfind("mutant.cubex", 0) != 0 && error.rfind("metric '", 0) != 0 &&
                error.find("mutant.cubex") == std::string::npos) {
                std::fprintf(stderr,
                             "fuzz_cubex: BAD MESSAGE: input %llu (%s): '%s' does not name the "
                             "file\n",
                             static_cast<unsigned long long>(inputs - 1),
                             mutant.description.c_str(), error.c_str());
                saveCurrent("message");
                status = 5;
                break;
            }
        }
        g_current = nullptr;
    }
    done = true;
    watchdog.join();
    std::printf("fuzz_cubex: %llu inputs from %zu seeds in %.0f s (seed %llu): %llu rejected "
                "with an error, %llu read (or with damage only in values), %s\n",
                static_cast<unsigned long long>(inputs), seeds.size(), seconds,
                static_cast<unsigned long long>(seedValue),
                static_cast<unsigned long long>(rejected),
                static_cast<unsigned long long>(accepted),
                status == 0 ? "no crash, hang or silent acceptance" : "stopped at a finding");
    return status;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("fuzz_cubex", [&] { return runFuzzer(argc, argv); });
}
