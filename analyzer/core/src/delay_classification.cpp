// Classification of point-to-point wait states by the root-cause pass: propagating or
// terminal, direct or indirect (see delay_analysis.cpp for the shares).
#include "delay_ledger.h"

#include <algorithm>

namespace waitscope::analysis::delay {

void classifyWaitStates(const SeverityRows& rows, size_t nodes, Ledger& ledger) {
    std::vector<double> propagatingLs(nodes, 0.0), propagatingLr(nodes, 0.0);
    // In the order of their first cost, as the ledger kept them.
    const SpilledArray<Ledger::Propagating>& retired = ledger.retired();
    for (size_t i = 0; i < retired.size(); ++i) {
        const Ledger::Propagating p = retired[i];
        (p.lateReceiver != 0 ? propagatingLr : propagatingLs)[p.node] += p.share;
    }
    // A node's waiting time splits into propagating and terminal, and into indirect and direct.
    struct Split {
        Metric wait, propagating, terminal, indirect, direct;
        const std::vector<double>& propagatingTime;
        const std::vector<double>& indirectTime;
    };
    const Split splits[] = {
        {Metric::MpiLateSender, Metric::MpiWaitPropagatingLs, Metric::MpiWaitTerminalLs,
         Metric::MpiWaitIndirectLateSender, Metric::MpiWaitDirectLateSender, propagatingLs,
         ledger.indirect(kLateSender)},
        {Metric::MpiLateReceiver, Metric::MpiWaitPropagatingLr, Metric::MpiWaitTerminalLr,
         Metric::MpiWaitIndirectLateReceiver, Metric::MpiWaitDirectLateReceiver, propagatingLr,
         ledger.indirect(kLateReceiver)}};
    for (NodeId n = 0; n < nodes; ++n) {
        for (const Split& split : splits) {
            const double wait = rows.get(split.wait, n);
            if (wait > 0.0) {
                const double propagating = std::min(split.propagatingTime[n], wait);
                const double indirect = std::min(split.indirectTime[n], wait);
                ledger.addUp(split.propagating, n, propagating);
                ledger.addUp(split.terminal, n, wait - propagating);
                ledger.addUp(split.indirect, n, indirect);
                ledger.addUp(split.direct, n, wait - indirect);
            }
        }
    }
}

} // namespace waitscope::analysis::delay
