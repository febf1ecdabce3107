// What the benchmarks' bare filesystems (bare_fuse.c, bare_db.c) offer the kernel, the same as
// PackFS offers it, so that each measures its own work and not different kernel settings: no open
// or release messages (stateless opens), FLUSH answered ENOSYS once, READDIRPLUS always, and
// GETXATTR answered as PackFS answers it (no data for a `user.` name, EOPNOTSUPP for the
// namespaces it keeps nothing in). Included by both; test-only.
#pragma once
#include <errno.h>
#include <fuse_lowlevel.h>
#include <string.h>

static void bare_init(void *userdata, struct fuse_conn_info *conn) {
    (void)userdata;
    unsigned wanted = FUSE_CAP_ASYNC_READ | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_PARALLEL_DIROPS |
                      FUSE_CAP_NO_OPEN_SUPPORT | FUSE_CAP_NO_OPENDIR_SUPPORT | FUSE_CAP_READDIRPLUS;
    conn->want = (conn->want | (wanted & conn->capable)) &
                 ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_ATOMIC_O_TRUNC);
}

// ENOSYS once turns each of open, opendir and flush off for the connection, as PackFS does.
static void bare_no_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)ino, (void)file;
    fuse_reply_err(req, ENOSYS);
}

static void bare_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size) {
    (void)ino, (void)size;
    fuse_reply_err(req, strncmp(name, "user.", 5) == 0 ? ENODATA : EOPNOTSUPP);
}
