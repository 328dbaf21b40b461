// A distributed grid whose methods the instrumentation tests expect demangled in the trace.
#pragma once

namespace halo {

class Grid {
public:
    explicit Grid(int rank, int size) : m_rank(rank), m_size(size) {}
    double relax(int sweeps);
    void exchange();

private:
    int m_rank;
    int m_size;
    double m_left = 0;
    double m_right = 1;
};

} // namespace halo
