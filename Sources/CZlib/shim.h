// zlib's init functions are macros (they pass ZLIB_VERSION and the stream size); Swift cannot call
// macros, so these inline wrappers expose them as functions.
#pragma once
#include <zlib.h>

static inline int packfs_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
static inline int packfs_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
