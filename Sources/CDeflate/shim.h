// libdeflate: whole-buffer DEFLATE/zlib/gzip decompression, about twice zlib's inflate speed.
// Nothing to wrap: its API has no macros.
#pragma once
#include <libdeflate.h>
