// libfuse 3 low-level API. FUSE_USE_VERSION must be defined before the header; Swift cannot pass
// -D to a system module, so the shim sets it.
#pragma once
#define FUSE_USE_VERSION 35
#include <fuse3/fuse_lowlevel.h>
