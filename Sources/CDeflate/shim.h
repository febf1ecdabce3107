// libdeflate: whole-buffer DEFLATE/zlib/gzip decompression, about twice zlib's inflate speed,
// and SIMD CRC-32 and Adler-32. Nothing to wrap: its API has no macros.
#pragma once
#include <libdeflate.h>
