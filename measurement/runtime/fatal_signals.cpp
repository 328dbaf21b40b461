// Fatal signals: saving what the rank recorded before the signal ends it.
#include "fatal_signals.h"

#include "runtime_state.h"
#include "spill_file.h"
#include "spill_writer.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {

std::atomic<int> g_inSignal{0};
struct sigaction g_previous[32];
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

void fatalSignal(int sig, siginfo_t* info, void* context) {
    if (g_inSignal.exchange(1) == 0 && g_state && g_state->measured && !g_state->finalized) {
        g_hot.recordMask = 0;
        int fd = ::open(g_state->statusPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            char text[64] = "incomplete: signal ";
            int len = static_cast<int>(std::strlen(text));
            char digits[16];
            int d = 0;
            for (int v = sig; v > 0 && d < 15; v /= 10)
                digits[d++] = static_cast<char>('0' + v % 10);
            while (d > 0 && len < 62)
                text[len++] = digits[--d];
            text[len++] = '\n';
            writeAll(fd, text, static_cast<size_t>(len));
            ::close(fd);
        }
        // The definitions the records refer to, for `waitscope recover`: first, since they are
        // small and without them no record can be used (mpirun follows its SIGTERM with a
        // SIGKILL, and a rank may not get to finish a large write in between).
        saveDefinitions(*g_state);
        // The records still in memory join the spilled ones: the spill file then holds the
        // rank's whole run in Waitscope's record layout (see event_buffer.h).
        // Chunks handed to the spill writer and perhaps not written yet go to their places first
        // (chunks are written at their offsets: the file's order does not depend on who wrote).
        int spill = g_state->spillFailed ? -1 : g_state->spillFd;
        std::uint64_t offset = g_state->spilledBytes;
        if (spill >= 0)
            g_state->spillWriter.writePendingInSignal();
        if (spill < 0 && !g_state->spillFailed) {
            spill = ::open(g_state->spillPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            offset = 0;
        }
        if (spill >= 0)
            writeAllAt(spill, g_hot.buffer.begin, g_hot.buffer.usedBytes(), offset);
    }
    // Hand the signal on as if we had not been here.
    if (sig > 0 && sig < 32) {
        struct sigaction& previous = g_previous[sig];
        if (previous.sa_flags & SA_SIGINFO) {
            if (previous.sa_sigaction) {
                previous.sa_sigaction(sig, info, context);
                return;
            }
        } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
            previous.sa_handler(sig);
            return;
        }
        sigaction(sig, &previous, nullptr);
        raise(sig);
    }
}

} // namespace

void installSignalHandlers() {
    for (int sig : kFatalSignals) {
        struct sigaction action;
        std::memset(&action, 0, sizeof(action));
        action.sa_sigaction = fatalSignal;
        action.sa_flags = SA_SIGINFO | SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        sigaction(sig, &action, &g_previous[sig]);
    }
}

} // namespace waitscope::measure
