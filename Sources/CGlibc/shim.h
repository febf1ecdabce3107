// glibc's calls that Swift's Glibc module does not import: malloc tuning (mallopt), and the GNU
// extensions PackFS uses (thread names, pipe2, posix_spawn's new session and closefrom). They are
// declared here rather than by defining _GNU_SOURCE, which changes glibc's own structs (fd_set)
// against the Glibc module's view of them.
#pragma once
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <fcntl.h>

extern int pthread_setname_np(pthread_t thread, const char *name);
extern int pipe2(int ends[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int lowest);

static inline int packfs_mallopt(int parameter, int value) { return mallopt(parameter, value); }
static inline int packfs_malloc_arena_max(void) { return M_ARENA_MAX; }
static inline int packfs_malloc_trim_threshold(void) { return M_TRIM_THRESHOLD; }
static inline int packfs_malloc_mmap_threshold(void) { return M_MMAP_THRESHOLD; }

/// Names the calling thread (at most 15 bytes are kept).
static inline int packfs_name_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }

/// A pipe whose ends close on exec.
static inline int packfs_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

/// posix_spawn's flag for a child in a session of its own (glibc's value, a GNU extension).
static inline short packfs_spawn_setsid(void) { return 0x80; }

/// Has a spawned child close every descriptor from `lowest` up, as exec'd children should: an
/// inherited one (a test runner's socket that tells it its child ended) would outlive the child.
static inline int packfs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
