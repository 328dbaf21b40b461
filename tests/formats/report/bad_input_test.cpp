// Bad input: every kind of damage gives an error naming the file, the member and the problem.
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

std::string index(const std::vector<std::uint32_t>& rows) {
    std::string out = "CUBEX.INDEX";
    std::uint32_t one = 1, n = static_cast<std::uint32_t>(rows.size());
    out.append(reinterpret_cast<const char*>(&one), 4);
    out.append("\0\0\1", 3);
    out.append(reinterpret_cast<const char*>(&n), 4);
    for (std::uint32_t r : rows)
        out.append(reinterpret_cast<const char*>(&r), 4);
    return out;
}

std::string data(const std::vector<double>& values) {
    std::string out = "CUBEX.DATA";
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * 8);
    return out;
}

// An anchor with one region, two cnodes (root, child), one process with two threads.
std::string anchor(const std::string& metrics, const std::string& program = "") {
    std::string p = program.empty()
                        ? R"(<region id="0" mod="m" begin="1" end="2"><name>main</name></region>
      <region id="1" mod="m" begin="3" end="4"><name>f</name></region>
      <cnode id="0" calleeId="0"><cnode id="1" calleeId="1"/></cnode>)"
                        : program;
    return R"(<?xml version="1.0" encoding="UTF-8"?><cube version="4.4"><metrics>)" + metrics +
           "</metrics><program>" + p + R"(</program><system>
      <systemtreenode Id="0"><name>m</name><class>machine</class>
      <locationgroup Id="0"><name>r0</name><rank>0</rank><type>process</type>
      <location Id="0"><name>t0</name><rank>0</rank><type>thread</type></location>
      <location Id="1"><name>t1</name><rank>1</rank><type>thread</type></location>
      </locationgroup></systemtreenode></system></cube>)";
}

const char* kOneMetric = R"(<metric id="0" type="EXCLUSIVE"><disp_name>T</disp_name>
    <uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom></metric>)";

std::string readError(const std::string& bytes) {
    auto r = readCubexFromMemory(bytes, "bad.cubex");
    if (r)
        return "(opened)";
    return r.error().message();
}

// Opens, then loads every metric and returns the first load error.
std::string loadError(const std::string& bytes) {
    auto r = readCubexFromMemory(bytes, "bad.cubex");
    if (!r)
        return "(did not open) " + r.error().message();
    for (MetricId m = 0; m < r->metrics().size(); ++m)
        if (auto v = r->total(m); !v)
            return v.error().message();
    return "(loaded)";
}

} // namespace

TEST_CASE("a well-formed hand-made archive opens", "[report][badinput]") {
    std::string bytes = tarOf({{"0.index", index({0, 1})},
                               {"0.data", data({1, 2, 3, 4})},
                               {"anchor.xml", anchor(kOneMetric)}});
    auto r = readCubexFromMemory(bytes, "good.cubex");
    REQUIRE(r);
    CHECK(*r->total(0) == 10.0);
    auto incl = r->value(0, 0, 0, CallTreeMode::Inclusive, SystemMode::Inclusive);
    CHECK(*incl == 10.0);
}

TEST_CASE("truncated archive", "[report][badinput]") {
    auto bytes = writeCubexToMemory(makeSampleReport());
    REQUIRE(bytes);
    CHECK(readError(bytes->substr(0, 1700)) ==
          "bad.cubex: member '0.data' needs 178 bytes but only 164 remain (truncated archive)");
    CHECK(readError(bytes->substr(0, 2000)) ==
          "bad.cubex: truncated archive: no end-of-archive blocks after member '0.data'");
    CHECK(readError(bytes->substr(0, bytes->size() - 1024)) ==
          "bad.cubex: truncated archive: no end-of-archive blocks after member 'anchor.xml'");
    CHECK(readError(bytes->substr(0, 1100)) ==
          "bad.cubex: truncated archive: partial tar header at offset 1024");
    CHECK(readError(bytes->substr(0, 700)).find("bad.cubex: ") == 0);
    CHECK(readError("") == "bad.cubex: not a CUBE4 report (.cubex): empty file");
    CHECK(readError("hello\n") ==
          "bad.cubex: not a CUBE4 report (.cubex): 6 bytes, shorter than one tar header");
}

TEST_CASE("missing anchor.xml", "[report][badinput]") {
    std::string bytes = tarOf({{"0.index", index({0})}, {"0.data", data({1, 2})}});
    CHECK(readError(bytes) == "bad.cubex: not a CUBE4 report (.cubex): no member 'anchor.xml'");
}

TEST_CASE("a file that is not a tar archive is not a CUBE4 report", "[report][badinput]") {
    std::string junk(1536, 'x');
    CHECK(readError(junk) == "bad.cubex: not a CUBE4 report (.cubex)");
    std::string two = tarOf({{"0.index", index({0})}, {"anchor.xml", anchor(kOneMetric)}});
    std::memset(two.data() + 1024 + 257, 'x', 5); // the second header loses its magic
    CHECK(readError(two) ==
          "bad.cubex: tar header at offset 1024: not a ustar header (archive corrupt)");
    std::string bytes = tarOf({{"anchor.xml", anchor(kOneMetric)}});
    bytes[10] ^= 1; // damage the name: checksum no longer matches
    CHECK(readError(bytes) ==
          "bad.cubex: tar header at offset 0: checksum mismatch (archive corrupt)");
}

TEST_CASE("malformed XML", "[report][badinput]") {
    std::string bytes = tarOf({{"anchor.xml", "<cube><metrics><metric id=\"0\"></cube>"}});
    CHECK(readError(bytes) ==
          "bad.cubex: anchor.xml: malformed XML at offset 32: Start-end tags mismatch");
    bytes = tarOf({{"anchor.xml", "<notcube/>"}});
    CHECK(readError(bytes) == "bad.cubex: anchor.xml: no <cube> root element");
}

TEST_CASE("data file shorter than its index says", "[report][badinput]") {
    std::string bytes = tarOf({{"0.index", index({0, 1})},
                               {"0.data", data({1, 2, 3})},
                               {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: 0.data: data is shorter than its index "
                              "says: 24 bytes of rows, 32 expected");
    bytes = tarOf({{"0.index", index({0, 1}).substr(0, 24)},
                   {"0.data", data({1, 2, 3, 4})},
                   {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) ==
          "metric 'time': bad.cubex: 0.index: index is shorter than its row count 2 says");
    bytes = tarOf({{"0.index", index({1, 0})},
                   {"0.data", data({1, 2, 3, 4})},
                   {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: 0.index: rows not in ascending order");
    bytes = tarOf(
        {{"0.index", "CUBEX.INDEX"}, {"0.data", data({})}, {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: 0.index: not a CUBEX.INDEX header");
    bytes = tarOf({{"0.index", index({0})}, {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: member '0.data' missing");
}

TEST_CASE("a damaged metric fails alone", "[report][badinput]") {
    std::string two = std::string(kOneMetric) + R"(<metric id="1" type="EXCLUSIVE">
        <uniq_name>visits</uniq_name><dtype>UINT64</dtype></metric>)";
    std::string bytes = tarOf({{"0.index", index({0})},
                               {"0.data", data({1.5, 2})},
                               {"1.index", index({0, 1})},
                               {"1.data", "CUBEX.DATA"},
                               {"anchor.xml", anchor(two)}});
    auto r = readCubexFromMemory(bytes, "bad.cubex");
    REQUIRE(r);
    CHECK(*r->total(0) == 3.5);
    auto v = r->total(1);
    REQUIRE(!v);
    CHECK(v.error().message() == "metric 'visits': bad.cubex: 1.data: data is shorter than its "
                                 "index says: 0 bytes of rows, 32 expected");
}

TEST_CASE("unknown data type", "[report][badinput]") {
    std::string m =
        R"(<metric id="0" type="EXCLUSIVE"><uniq_name>q</uniq_name><dtype>QUATERNION</dtype></metric>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(m)}})) ==
          "bad.cubex: anchor.xml: metric 0 'q': unknown data type 'QUATERNION'");
    // Types CUBE knows but Waitscope does not model: the metric is unavailable, the report opens.
    m = R"(<metric id="0" type="EXCLUSIVE"><uniq_name>h</uniq_name><dtype>HISTOGRAM</dtype></metric>)";
    auto r = readCubexFromMemory(tarOf({{"anchor.xml", anchor(m)}}), "bad.cubex");
    REQUIRE(r);
    CHECK(!r->metrics()[0].available);
    CHECK(r->metrics()[0].unavailableReason == "data type HISTOGRAM is not supported");
    m = R"(<metric id="0" type="SOMETIMES"><uniq_name>q</uniq_name><dtype>DOUBLE</dtype></metric>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(m)}})) ==
          "bad.cubex: anchor.xml: metric 0 'q': unknown metric type 'SOMETIMES'");
}

TEST_CASE("narrow integer types are widened", "[report][badinput]") {
    std::string m =
        R"(<metric id="0" type="EXCLUSIVE"><uniq_name>n</uniq_name><dtype>INT32</dtype></metric>)";
    std::string d = "CUBEX.DATA";
    for (std::int32_t v : {-5, 7, 100000, -1})
        d.append(reinterpret_cast<const char*>(&v), 4);
    auto r = readCubexFromMemory(
        tarOf({{"0.index", index({0, 1})}, {"0.data", d}, {"anchor.xml", anchor(m)}}), "n.cubex");
    REQUIRE(r);
    CHECK(r->metrics()[0].dataType == DataType::Int64);
    CHECK(*r->total(0) == 100001.0);
}

TEST_CASE("byte-swapped files are read", "[report][badinput]") {
    std::string idx = "CUBEX.INDEX";
    idx += std::string("\0\0\0\1", 4) + std::string("\0\0\1", 3) + std::string("\0\0\0\2", 4) +
           std::string("\0\0\0\0", 4) + std::string("\0\0\0\1", 4);
    std::string d = "CUBEX.DATA";
    for (double v : {1.0, 2.0, 3.0, 4.0}) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, 8);
        bits = __builtin_bswap64(bits);
        d.append(reinterpret_cast<const char*>(&bits), 8);
    }
    auto r = readCubexFromMemory(
        tarOf({{"0.index", idx}, {"0.data", d}, {"anchor.xml", anchor(kOneMetric)}}), "be.cubex");
    REQUIRE(r);
    CHECK(*r->total(0) == 10.0);
    auto child = r->value(0, 1, 0, CallTreeMode::Exclusive, SystemMode::Inclusive);
    CHECK(*child == 7.0);
}

TEST_CASE("duplicate ids", "[report][badinput]") {
    std::string m =
        std::string(kOneMetric) +
        R"(<metric id="0" type="EXCLUSIVE"><uniq_name>b</uniq_name><dtype>DOUBLE</dtype></metric>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(m)}})) ==
          "bad.cubex: anchor.xml: metric 0 'b': duplicate metric id 0");
    std::string program =
        R"(<region id="0"><name>a</name></region><region id="0"><name>b</name></region>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(kOneMetric, program)}})) ==
          "bad.cubex: anchor.xml: duplicate region id 0");
    program =
        R"(<region id="0"><name>a</name></region><cnode id="0" calleeId="0"><cnode id="0" calleeId="0"/></cnode>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(kOneMetric, program)}})) ==
          "bad.cubex: anchor.xml: duplicate cnode id 0");
    std::string dupName =
        std::string(kOneMetric) +
        R"(<metric id="1" type="EXCLUSIVE"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype></metric>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(dupName)}})) ==
          "bad.cubex: anchor.xml: metric 1 'time': duplicate unique name");
}

TEST_CASE("id out of range", "[report][badinput]") {
    std::string program = R"(<region id="0"><name>a</name></region><cnode id="0" calleeId="7"/>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(kOneMetric, program)}})) ==
          "bad.cubex: anchor.xml: cnode 0: calleeId 7 out of range (1 regions)");
    program = R"(<region id="3"><name>a</name></region>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(kOneMetric, program)}})) ==
          "bad.cubex: anchor.xml: region id 3 out of range (1 regions)");
    std::string m =
        R"(<metric id="5" type="EXCLUSIVE"><uniq_name>x</uniq_name><dtype>DOUBLE</dtype></metric>)";
    CHECK(readError(tarOf({{"anchor.xml", anchor(m)}})) ==
          "bad.cubex: anchor.xml: metric id 5 out of range (1 metrics)");
    std::string bytes = tarOf({{"0.index", index({0, 9})},
                               {"0.data", data({1, 2, 3, 4})},
                               {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: 0.index: row 9 out of range (2 cnodes)");
}

TEST_CASE("a file that does not exist", "[report][badinput]") {
    auto r = readCubex("/nonexistent/dir/x.cubex");
    REQUIRE(!r);
    CHECK(r.error().message() ==
          "/nonexistent/dir/x.cubex: cannot open: No such file or directory");
}

TEST_CASE("dense index files are read", "[report][reader]") {
    std::string idx = "CUBEX.INDEX";
    std::uint32_t one = 1;
    idx.append(reinterpret_cast<const char*>(&one), 4);
    idx.append("\0\0\3", 3);
    std::string bytes = tarOf(
        {{"0.index", idx}, {"0.data", data({1, 2, 3, 4})}, {"anchor.xml", anchor(kOneMetric)}});
    auto r = readCubexFromMemory(bytes, "dense.cubex");
    REQUIRE(r);
    CHECK(*r->total(0) == 10.0);
    CHECK(*r->value(0, 1, 0, CallTreeMode::Exclusive, SystemMode::Inclusive) == 7.0);
    // Dense data must hold every row.
    bytes = tarOf({{"0.index", idx}, {"0.data", data({1, 2})}, {"anchor.xml", anchor(kOneMetric)}});
    CHECK(loadError(bytes) == "metric 'time': bad.cubex: 0.data: data is shorter than its index "
                              "says: 16 bytes of rows, 32 expected");
}

TEST_CASE("hand-made corpus files agree across byte order and compression", "[report][reader]") {
    for (const char* name : {"handmade_le.cubex", "handmade_be.cubex", "handmade_zlib.cubex"}) {
        INFO(name);
        auto r = readCubex(std::string(WAITSCOPE_REPORT_CORPUS_DIR) + "/" + name);
        REQUIRE(r);
        CHECK(*r->total(*r->findMetric("time")) == 22.0);
        CHECK(*r->total(*r->findMetric("mpi")) == 14.0);
        CHECK(*r->total(*r->findMetric("visits")) == 14.0);
        CHECK(*r->total(*r->findMetric("time_no_mpi")) == 8.0);
        MetricId ghost = *r->findMetric("ghosty");
        CHECK(r->metrics()[ghost].ghost);
        CHECK(*r->total(ghost) == 0.0);
        CHECK(*r->value(ghost, 0, *r->findProcess(0), CallTreeMode::Exclusive,
                        SystemMode::Inclusive) == -7.0);
        // time is INCLUSIVE: exclusive at the root is own minus the two children.
        CHECK(*r->value(*r->findMetric("time"), 0, 0, CallTreeMode::Exclusive,
                        SystemMode::Inclusive) == 22.0 - 7.0 - 11.0);
        CHECK(r->topologies().size() == 1);
        CHECK(r->callNodes()[1].line == 4);
    }
}

TEST_CASE("a report without one of its trees is refused, not read as zeros", "[report][badinput]") {
    std::string full = anchor(kOneMetric);
    auto without = [&](const std::string& open, const std::string& close) {
        std::string xml = full;
        std::size_t begin = xml.find(open);
        std::size_t end = xml.find(close, begin) + close.size();
        xml.erase(begin, end - begin);
        return tarOf({{"0.index", index({0})}, {"0.data", data({1, 2})}, {"anchor.xml", xml}});
    };
    CHECK(readError(without("<system>", "</system>")) ==
          "bad.cubex: anchor.xml: no <system> element");
    CHECK(readError(without("<program>", "</program>")) ==
          "bad.cubex: anchor.xml: no <program> element");
    CHECK(readError(without("<metrics>", "</metrics>")) ==
          "bad.cubex: anchor.xml: no <metrics> element");
    CHECK(readError(without("<metric id", "</metric>")) == "bad.cubex: anchor.xml: no metrics");
    CHECK(readError(without("<cnode", "</cnode>")) ==
          "bad.cubex: anchor.xml: no call paths (<cnode>)");
    CHECK(readError(without("<locationgroup", "</locationgroup>")) ==
          "bad.cubex: anchor.xml: no locations");
}

TEST_CASE("an archive holding only anchor.xml is refused", "[report][badinput]") {
    CHECK(readError(tarOf({{"anchor.xml", anchor(kOneMetric)}})) ==
          "bad.cubex: holds no metric data (no member besides anchor.xml)");
    // A metric without members among others that have them reads as zeros (Score-P's way).
    const char* two = R"(<metric id="0" type="EXCLUSIVE"><uniq_name>time</uniq_name>
        <dtype>DOUBLE</dtype></metric><metric id="1" type="EXCLUSIVE">
        <uniq_name>visits</uniq_name><dtype>UINT64</dtype></metric>)";
    auto r = readCubexFromMemory(
        tarOf({{"0.index", index({0})}, {"0.data", data({1, 2})}, {"anchor.xml", anchor(two)}}),
        "sparse.cubex");
    REQUIRE(r);
    CHECK(*r->total(0) == 3.0);
    CHECK(*r->total(1) == 0.0);
}
