// Running a child with its output relayed below a ticking progress line.
#include "child_process.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace waitscope::analysis {
namespace {

/// A child's output stream relayed to one of ours, whole lines at a time.
struct Relay {
    int fd = -1; ///< read end of the child's pipe, -1 once closed
    FILE* out = nullptr;
    std::string pending; ///< a line not yet complete
};

int exitCode(int status) {
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

} // namespace

int runChild(const std::vector<std::string>& args,
             const std::vector<std::pair<std::string, std::string>>& variables,
             const std::string& prefix, const std::string& label) {
    std::fflush(stdout);
    std::fflush(stderr);
    const bool ticking = !label.empty() && isatty(STDERR_FILENO) != 0;
    int pipes[2][2] = {{-1, -1}, {-1, -1}};
    if (ticking && (pipe(pipes[0]) != 0 || pipe(pipes[1]) != 0)) {
        std::perror((prefix + ": pipe").c_str());
        return 127;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror((prefix + ": fork").c_str());
        return 127;
    }
    if (pid == 0) {
        if (ticking) {
            dup2(pipes[0][1], STDOUT_FILENO);
            dup2(pipes[1][1], STDERR_FILENO);
            for (auto& p : pipes) {
                close(p[0]);
                close(p[1]);
            }
        }
        for (const auto& [name, value] : variables) {
            setenv(name.c_str(), value.c_str(), 1);
        }
        std::vector<char*> argv;
        for (const std::string& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        std::fprintf(stderr, "%s: error: cannot run %s\n", prefix.c_str(), args[0].c_str());
        _exit(127);
    }
    int status = 0;
    if (!ticking) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return exitCode(status);
    }
    Relay relays[2] = {{pipes[0][0], stdout, {}}, {pipes[1][0], stderr, {}}};
    close(pipes[0][1]);
    close(pipes[1][1]);
    const auto start = std::chrono::steady_clock::now();
    bool shown = false;
    const auto clearTick = [&shown] {
        if (shown) {
            std::fputs("\r\033[K", stderr);
            shown = false;
        }
    };
    while (relays[0].fd >= 0 || relays[1].fd >= 0) {
        pollfd fds[2] = {{relays[0].fd, POLLIN, 0}, {relays[1].fd, POLLIN, 0}};
        const int ready = poll(fds, 2, 1000);
        for (int i = 0; i < 2 && ready > 0; ++i) {
            if (relays[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
                continue;
            }
            char buffer[4096];
            const ssize_t n = read(relays[i].fd, buffer, sizeof buffer);
            if (n <= 0) {
                close(relays[i].fd);
                relays[i].fd = -1;
                if (!relays[i].pending.empty()) {
                    clearTick();
                    std::fputs(relays[i].pending.c_str(), relays[i].out);
                    relays[i].pending.clear();
                }
                continue;
            }
            relays[i].pending.append(buffer, static_cast<size_t>(n));
            const size_t end = relays[i].pending.rfind('\n');
            if (end != std::string::npos) {
                clearTick();
                std::fwrite(relays[i].pending.data(), 1, end + 1, relays[i].out);
                std::fflush(relays[i].out);
                relays[i].pending.erase(0, end + 1);
            }
        }
        const long elapsed = static_cast<long>(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (elapsed > 0 && relays[0].pending.empty() && relays[1].pending.empty()) {
            std::fprintf(stderr, "\r%s: %s... %ld s\033[K", prefix.c_str(), label.c_str(), elapsed);
            std::fflush(stderr);
            shown = true;
        }
    }
    clearTick();
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return exitCode(status);
}

} // namespace waitscope::analysis
