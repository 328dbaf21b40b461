// The joining half of the POSIX threads' order records (thread_order.cpp), for the
// pthread_join wrapper.
#pragma once

#include <pthread.h>

namespace waitscope::measure {

/// After pthread_join returned `thread` (any thread, not signal context): records ThreadWait
/// with the joined thread's sequence number on the calling thread's location when `record`
/// (the join itself is recorded) and the thread's begin was recorded, and forgets the thread
/// (the C library reuses its pthread_t).
void threadJoined(pthread_t thread, bool record) noexcept;

} // namespace waitscope::measure
