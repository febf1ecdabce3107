// libfuse 3 low-level API. FUSE_USE_VERSION must be defined before the header; Swift cannot pass
// -D to a system module, so the shim sets it.
// 312 (3.12): the API as of the oldest libfuse PackFS is built against (Debian's is 3.14). The
// request loop is PackFS's own (FUSEBridge's WorkerLoop), over fuse_session_receive_buf/process_buf.
#pragma once
#define FUSE_USE_VERSION 312
#include <fuse3/fuse_lowlevel.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

// A wake-up for the thread that ends the loop (FUSEBridge's ExitRequest). libfuse's SIGINT, SIGTERM
// and SIGHUP handlers only set the session's exit flag, which a thread asleep in the kernel never
// sees; this chains a handler after each of libfuse's that also writes a byte to a pipe, so that
// the waiting thread sleeps in read() instead of polling the flag. The state is process-wide, as
// signal dispositions are: one chain at a time. It lives in a function-local static, which Swift's
// importer emits with the function (a file-scope static in a module header it does not).
struct packfs_exit_chain {
    int wake_fd;
    volatile sig_atomic_t received;
    struct sigaction chained[3];
};

// Names the calling thread (what /proc/<pid>/task/<tid>/comm shows). prctl, not Foundation's
// Thread.name, which names the thread through a pthread_t its creator may not have stored yet.
static inline int packfs_name_this_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

static const int packfs_exit_signals[3] = {SIGHUP, SIGINT, SIGTERM};

static inline struct packfs_exit_chain *packfs_exit_chain_state(void) {
    static struct packfs_exit_chain state = {.wake_fd = -1};
    return &state;
}

static void packfs_exit_signal_handler(int sig) {
    int saved = errno;
    struct packfs_exit_chain *chain = packfs_exit_chain_state();
    for (int i = 0; i < 3; i++) {
        void (*handler)(int) = chain->chained[i].sa_handler;
        if (packfs_exit_signals[i] == sig && handler != SIG_DFL && handler != SIG_IGN) handler(sig);
    }
    if (chain->received == 0) chain->received = sig;
    char byte = (char)sig;
    ssize_t ignored = write(chain->wake_fd, &byte, 1);
    (void)ignored;
    errno = saved;
}

// Chains the handler after those installed now (libfuse's); `fd`: the pipe's non-blocking write end.
static inline int packfs_chain_exit_signals(int fd) {
    struct packfs_exit_chain *chain = packfs_exit_chain_state();
    struct sigaction action = {0};
    action.sa_handler = packfs_exit_signal_handler;
    sigemptyset(&action.sa_mask);
    chain->wake_fd = fd;
    chain->received = 0;
    for (int i = 0; i < 3; i++) {
        if (sigaction(packfs_exit_signals[i], &action, &chain->chained[i]) != 0) return -1;
    }
    return 0;
}

// Puts back the handlers that were there before the chain (libfuse removes only its own).
static inline void packfs_unchain_exit_signals(void) {
    struct packfs_exit_chain *chain = packfs_exit_chain_state();
    for (int i = 0; i < 3; i++) sigaction(packfs_exit_signals[i], &chain->chained[i], NULL);
    chain->wake_fd = -1;
}

// Interrupting a worker asleep in read() on /dev/fuse (FUSEBridge's WorkerLoop): a real-time
// signal whose handler does nothing, installed without SA_RESTART so that read() returns EINTR.
// SIGRTMIN is a function call in glibc (it reserves the first few), so Swift cannot import it.
static void packfs_wake_handler(int sig) { (void)sig; }

static inline int packfs_wake_signal(void) { return SIGRTMIN + 5; }

static inline int packfs_install_wake_handler(void) {
    struct sigaction action = {0};
    action.sa_handler = packfs_wake_handler;
    sigemptyset(&action.sa_mask);
    return sigaction(packfs_wake_signal(), &action, NULL);
}

// The first exit signal since the chain was made, or 0.
static inline int packfs_exit_signal_received(void) { return packfs_exit_chain_state()->received; }

// libfuse's own messages (an unknown -o option, a mount that failed). While a mount is being set
// up they are kept (appended: libfuse writes one message in pieces), so that the mount's error can say it in its one line (printed
// as well, it ran into that line); otherwise they go to stderr as libfuse prints them. Set up on
// one thread before any worker runs.
struct packfs_fuse_log {
    int capturing;
    char last[512];
};

static inline struct packfs_fuse_log *packfs_fuse_log_state(void) {
    static struct packfs_fuse_log state;
    return &state;
}

static inline void packfs_fuse_log_handler(enum fuse_log_level level, const char *format, va_list arguments) {
    (void)level;
    struct packfs_fuse_log *state = packfs_fuse_log_state();
    if (state->capturing) {
        size_t used = strnlen(state->last, sizeof state->last);
        if (used + 1 < sizeof state->last) vsnprintf(state->last + used, sizeof state->last - used, format, arguments);
        return;
    }
    vfprintf(stderr, format, arguments);
}

/// Starts (1) or ends (0) keeping libfuse's messages; starting forgets the last one.
static inline void packfs_fuse_log_capture(int on) {
    struct packfs_fuse_log *state = packfs_fuse_log_state();
    if (on) state->last[0] = 0;
    state->capturing = on;
    fuse_set_log_func(packfs_fuse_log_handler);
}

/// The messages kept ("" when none).
static inline const char *packfs_fuse_log_last(void) { return packfs_fuse_log_state()->last; }
