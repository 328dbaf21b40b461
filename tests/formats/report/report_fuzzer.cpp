// libFuzzer entry point: reads arbitrary bytes as a .cubex archive and queries every value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto report =
        readCubexFromMemory(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    if (!report)
        return 0;
    for (MetricId m = 0; m < report->metrics().size(); ++m) {
        (void)report->total(m);
        (void)report->callNodeValues(m, CallTreeMode::Exclusive, MetricMode::Exclusive);
        for (CallNodeId c = 0; c < report->callNodes().size() && c < 32; ++c)
            for (SystemNodeId s = 0; s < report->systemNodes().size() && s < 8; ++s)
                (void)report->value(m, c, s, CallTreeMode::Inclusive, SystemMode::Inclusive);
    }
    (void)writeCubexToMemory(*report);
    return 0;
}
