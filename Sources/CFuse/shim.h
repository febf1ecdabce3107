// libfuse 3 low-level API. FUSE_USE_VERSION must be defined before the header; Swift cannot pass
// -D to a system module, so the shim sets it.
// 312 (3.12), not 35: below 312 `fuse_session_loop_mt` takes the old config struct, which has no
// max_threads; from 312 it takes the `fuse_loop_cfg_*` object. Everything PackFS uses from 35 is kept.
#pragma once
#define FUSE_USE_VERSION 312
#include <fuse3/fuse_lowlevel.h>
