// libdeflate (Debian's libdeflate-dev): whole-buffer DEFLATE decompression and SIMD CRC-32 and
// Adler-32. No macros or variadic functions to wrap; the header is all Swift needs.
#pragma once
#include <libdeflate.h>
