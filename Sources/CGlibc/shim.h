// glibc's calls that Swift's Glibc module does not import: malloc tuning (mallopt), and the
// _GNU_SOURCE extensions PackFS uses (thread names, pipe2, posix_spawn's new session).
#pragma once
#define _GNU_SOURCE 1
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>

static inline int packfs_mallopt(int parameter, int value) { return mallopt(parameter, value); }
static inline int packfs_malloc_arena_max(void) { return M_ARENA_MAX; }
static inline int packfs_malloc_trim_threshold(void) { return M_TRIM_THRESHOLD; }
static inline int packfs_malloc_mmap_threshold(void) { return M_MMAP_THRESHOLD; }

/// Names the calling thread (at most 15 bytes are kept).
static inline int packfs_name_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }

/// A pipe whose ends close on exec.
static inline int packfs_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

/// posix_spawn's flag for a child in a session of its own.
static inline short packfs_spawn_setsid(void) { return POSIX_SPAWN_SETSID; }

/// Has a spawned child close every descriptor from `lowest` up, as exec'd children should: an
/// inherited one (a test runner's socket that tells it its child ended) would outlive the child.
static inline int packfs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
