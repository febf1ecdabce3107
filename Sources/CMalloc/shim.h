// glibc's malloc tuning (mallopt), which Swift's Glibc module does not import.
#pragma once
#include <malloc.h>

static inline int packfs_mallopt(int parameter, int value) { return mallopt(parameter, value); }
static inline int packfs_malloc_arena_max(void) { return M_ARENA_MAX; }
static inline int packfs_malloc_trim_threshold(void) { return M_TRIM_THRESHOLD; }
static inline int packfs_malloc_mmap_threshold(void) { return M_MMAP_THRESHOLD; }
