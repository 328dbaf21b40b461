// The POSIX threads metrics of a thread from its pthread regions: the mutex and condition calls'
// time on Scalasca's pthread metrics, the lock and condition waits as contention.
#include "tiny_trace.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/thread_profile.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;

namespace {

uint32_t regionOf(const trace::Definitions& defs, const std::string& name) {
    for (uint32_t r = 0; r < defs.regions.size(); ++r) {
        if (defs.regions[r].name == name) {
            return r;
        }
    }
    return trace::kUndefined;
}

const trace::Location kThread{(uint64_t{1} << 32), "thread 1", 0, 0};

} // namespace

TEST_CASE("pthread calls are Scalasca's POSIX threads time, lock and condition waits contention",
          "[pthread]") {
    // Rank 1's stream stands for a thread of rank 0 (times in milliseconds).
    testing::TinyTrace t(2);
    t.rank(0).enter(0, "main").leave(100, "main");
    t.rank(1)
        .enter(0, "worker")
        .enter(10, "pthread_mutex_lock")
        .leave(60, "pthread_mutex_lock")
        .enter(60, "pthread_mutex_unlock")
        .leave(61, "pthread_mutex_unlock")
        .enter(61, "pthread_cond_wait")
        .leave(90, "pthread_cond_wait")
        .enter(90, "pthread_cond_signal")
        .leave(91, "pthread_cond_signal")
        .enter(91, "pthread_join")
        .leave(95, "pthread_join")
        .leave(100, "worker");
    for (trace::Region& r : t.defs.regions) {
        if (r.name.rfind("pthread_", 0) == 0) {
            r.paradigm = trace::Paradigm::Pthread;
            r.role = r.name == "pthread_join" ? trace::RegionRole::ThreadWait
                                              : trace::RegionRole::Wrapper;
        }
    }
    CHECK(classifyRegion(t.defs.regions[regionOf(t.defs, "worker")]) == RegionClass::Computation);
    CallTree tree;
    Diagnostics diagnostics;
    const ThreadResult thread =
        profileThread(t.defs, kThread, t.streams()[1], tree, diagnostics, kNoNode, nullptr);
    const SeverityRows& s = thread.severities;
    const NodeId worker = tree.child(kNoNode, regionOf(t.defs, "worker"));
    const auto node = [&](const char* name) { return tree.child(worker, regionOf(t.defs, name)); };
    const auto ms = [](double v) { return Approx(v / 1000.0); };

    CHECK(s.get(Metric::PthreadLockContentionMutexLock, node("pthread_mutex_lock")) == ms(50));
    CHECK(s.get(Metric::PthreadLockApi, node("pthread_mutex_lock")) == ms(50));
    CHECK(s.get(Metric::PthreadLockApi, node("pthread_mutex_unlock")) == ms(1));
    CHECK(s.get(Metric::PthreadLockContentionMutexLock, node("pthread_mutex_unlock")) == 0.0);
    CHECK(s.get(Metric::PthreadLockContentionConditional, node("pthread_cond_wait")) == ms(29));
    CHECK(s.get(Metric::PthreadConditional, node("pthread_cond_signal")) == ms(1));
    CHECK(s.get(Metric::PthreadLockContentionConditional, node("pthread_cond_signal")) == 0.0);
    CHECK(s.get(Metric::PthreadManagement, node("pthread_join")) == ms(4));
    CHECK(s.get(Metric::PthreadSynchronization, node("pthread_join")) == 0.0);
    for (const char* name : {"pthread_mutex_lock", "pthread_mutex_unlock", "pthread_cond_wait",
                             "pthread_cond_signal", "pthread_join"}) {
        CHECK(s.get(Metric::Comp, node(name)) == 0.0);
        CHECK(s.get(Metric::PthreadTime, node(name)) == s.get(Metric::Time, node(name)));
        CHECK(s.get(Metric::Visits, node(name)) == 1);
    }
    CHECK(s.get(Metric::Comp, worker) == ms(15));
}
