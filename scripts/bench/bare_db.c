// The read benchmark's second floor: the least a FUSE filesystem can do to serve a pack's tiles
// out of MapLibre's database, as PackFS must. bare_fuse.c holds the tiles in memory, raw; a
// MapLibre database holds them in SQLite, deflated (MapLibre's format: a renderer reading
// `file://` needs them inflated), so every cold tile costs an indexed read and an inflate besides
// the kernel's round trips. This does exactly that and nothing else: one SQLite statement per tile
// (PackFS's own: the tile by key, with its membership in the pack), libdeflate's inflate, the
// inflated bytes kept for the READ that follows, and the same kernel offers as bare_fuse. No
// layout, no style, no other file; names must be `<z>/<x>/<y>.<ext>`. Test-only; not part of PackFS.
// usage: bare_db DB TEMPLATE REGION_ID EXT MOUNTPOINT [THREADS]   (THREADS 1: libfuse's
//        single-threaded loop, as bare_fuse; more: its multi-threaded loop, a connection each)
//    --io-uring first: served over FUSE's io_uring transport (bare_ring.h: its ring threads serve,
//        THREADS then only sizes the /dev/fuse loop left with FORGETs; fails unless the kernel
//        offers it); the request counts of each transport are printed on exit.
// Runs in the foreground until unmounted.
#define _GNU_SOURCE  // bare_ring.h: CPU_SET
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include "bare_offers.h"
#include "bare_ring.h"
#include <libdeflate.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { timeout = 3600, kept = 256 };

// Inodes: 1 the root, 2 + z a zoom directory, a column (1 << 62) | z << 40 | x, a tile
// (1 << 61) | its row id.
static const fuse_ino_t column_bit = 1ull << 62, tile_bit = 1ull << 61;

struct config {
    const char *db, *template, *ext;
    long long region;
    time_t mounted;
};

// Per thread: a read-only connection with the statements prepared, and a decompressor.
struct worker {
    sqlite3 *db;
    sqlite3_stmt *by_key, *by_id;
    struct libdeflate_decompressor *inflater;
};

// The last tiles looked up (inode, inflated bytes), which the READ right after a LOOKUP finds.
static struct {
    fuse_ino_t inos[kept];
    char *bytes[kept];
    size_t sizes[kept], next;
} recent;

static struct config config;
static pthread_key_t worker_key;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static struct worker *worker(void) {
    struct worker *w = pthread_getspecific(worker_key);
    if (w) return w;
    w = calloc(1, sizeof *w);
    if (!w || sqlite3_open_v2(config.db, &w->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        fprintf(stderr, "bare_db: cannot open %s\n", config.db);
        exit(1);
    }
    sqlite3_busy_timeout(w->db, 30000);
    sqlite3_exec(w->db, "PRAGMA cache_size = -256", NULL, NULL, NULL);
    if (getenv("BARE_DB_MMAP")) sqlite3_exec(w->db, "PRAGMA mmap_size = 1000000000", NULL, NULL, NULL);
    const char *member = "EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = ? AND rt.tile_id = t.id)";
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT id, data, compressed FROM tiles t WHERE url_template = ? AND pixel_ratio = 1 AND z = ? "
             "AND x = ? AND y = ? AND data IS NOT NULL AND %s", member);
    if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w->by_key, NULL) != SQLITE_OK) exit(1);
    snprintf(sql, sizeof sql, "SELECT id, data, compressed FROM tiles t WHERE id = ? AND %s", member);
    if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w->by_id, NULL) != SQLITE_OK) exit(1);
    w->inflater = libdeflate_alloc_decompressor();
    pthread_setspecific(worker_key, w);
    return w;
}

// Steps `statement` (bound but for the region, its last parameter) and inflates the row's data
// into a malloc'd buffer; 0 with *ino set, or an errno.
static int fetch(struct worker *w, sqlite3_stmt *statement, int region_index, fuse_ino_t *ino, char **bytes,
                 size_t *size) {
    sqlite3_bind_int64(statement, region_index, config.region);
    int status = ENOENT;
    if (sqlite3_step(statement) == SQLITE_ROW) {
        *ino = tile_bit | (fuse_ino_t)sqlite3_column_int64(statement, 0);
        const void *data = sqlite3_column_blob(statement, 1);
        size_t stored = (size_t)sqlite3_column_bytes(statement, 1);
        if (sqlite3_column_int(statement, 2)) {
            size_t capacity = stored * 4 + 4096, actual = 0;
            for (;;) {
                *bytes = malloc(capacity);
                enum libdeflate_result result =
                    libdeflate_zlib_decompress(w->inflater, data, stored, *bytes, capacity, &actual);
                if (result == LIBDEFLATE_SUCCESS) { *size = actual; status = 0; break; }
                free(*bytes);
                if (result != LIBDEFLATE_INSUFFICIENT_SPACE || capacity > (256u << 20)) { status = EIO; break; }
                capacity *= 2;
            }
        } else {
            *bytes = malloc(stored ? stored : 1);
            memcpy(*bytes, data, stored);
            *size = stored;
            status = 0;
        }
    }
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    return status;
}

static void keep(fuse_ino_t ino, char *bytes, size_t size) {
    pthread_mutex_lock(&kept_lock);
    size_t slot = recent.next++ % kept;
    free(recent.bytes[slot]);
    recent.inos[slot] = ino, recent.bytes[slot] = bytes, recent.sizes[slot] = size;
    pthread_mutex_unlock(&kept_lock);
}

static struct stat attributes(fuse_ino_t ino, size_t size) {
    struct stat st = {0};
    st.st_ino = ino;
    st.st_mode = ino & tile_bit ? S_IFREG | 0444 : S_IFDIR | 0555;
    st.st_nlink = 1;
    st.st_size = (off_t)size;
    st.st_blocks = (blkcnt_t)((size + 511) / 512);
    st.st_atime = st.st_mtime = st.st_ctime = config.mounted;
    return st;
}

static int number(const char *text, long long *value) {
    char *end;
    *value = strtoll(text, &end, 10);
    return end != text && (*end == 0 || *end == '.');
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino, size_t size) {
    struct fuse_entry_param entry = {.ino = ino, .generation = 1, .attr = attributes(ino, size),
                                     .attr_timeout = timeout, .entry_timeout = timeout};
    fuse_reply_entry(req, &entry);
}

static void lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    long long value;
    if (!number(name, &value) || value < 0) { fuse_reply_err(req, ENOENT); return; }
    if (parent == 1) { reply_entry(req, 2 + (fuse_ino_t)value, 0); return; }
    if (!(parent & (column_bit | tile_bit))) {
        reply_entry(req, column_bit | (parent - 2) << 40 | (fuse_ino_t)value, 0);
        return;
    }
    if (!(parent & column_bit)) { fuse_reply_err(req, ENOTDIR); return; }
    const char *dot = strrchr(name, '.');
    if (!dot || strcmp(dot + 1, config.ext) != 0) { fuse_reply_err(req, ENOENT); return; }
    struct worker *w = worker();
    sqlite3_bind_text(w->by_key, 1, config.template, -1, SQLITE_STATIC);
    sqlite3_bind_int64(w->by_key, 2, (long long)((parent & ~column_bit) >> 40));
    sqlite3_bind_int64(w->by_key, 3, (long long)(parent & ((1ull << 40) - 1)));
    sqlite3_bind_int64(w->by_key, 4, value);
    fuse_ino_t ino;
    char *bytes;
    size_t size;
    int status = fetch(w, w->by_key, 5, &ino, &bytes, &size);
    if (status) { fuse_reply_err(req, status); return; }
    keep(ino, bytes, size);
    reply_entry(req, ino, size);
}

// The size of a tile looked up lately, if it is still kept; 0 with *size set, or ENOENT.
static int kept_size(fuse_ino_t ino, size_t *size) {
    int status = ENOENT;
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < kept; i++)
        if (recent.inos[i] == ino) { *size = recent.sizes[i]; status = 0; break; }
    pthread_mutex_unlock(&kept_lock);
    return status;
}

// The kernel asks for a tile's attributes although its entry lasts an hour: when it has evicted
// the inode, or when a read revalidates them (AUTO_INVAL_DATA). The size is the inflated one,
// so a tile no longer kept is fetched by id again, and kept for the READ likely to follow.
static void getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)file;
    size_t size = 0;
    if ((ino & tile_bit) && kept_size(ino, &size) != 0) {
        struct worker *w = worker();
        sqlite3_bind_int64(w->by_id, 1, (long long)(ino & ~tile_bit));
        char *bytes;
        int status = fetch(w, w->by_id, 2, &ino, &bytes, &size);
        if (status) { fuse_reply_err(req, status); return; }
        keep(ino, bytes, size);
    }
    struct stat st = attributes(ino, size);
    fuse_reply_attr(req, &st, timeout);
}

static void reply_range(fuse_req_t req, const char *bytes, size_t size, size_t want, off_t offset) {
    size_t start = (size_t)offset < size ? (size_t)offset : size;
    fuse_reply_buf(req, bytes + start, size - start < want ? size - start : want);
}

static void read_bytes(fuse_req_t req, fuse_ino_t ino, size_t want, off_t offset, struct fuse_file_info *file) {
    (void)file;
    if (!(ino & tile_bit)) { fuse_reply_err(req, EISDIR); return; }
    // A READ that reaches the end takes the bytes (no copy, and the lock is not held while
    // replying); one that does not leaves them for the next.
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < kept; i++) {
        if (recent.inos[i] != ino) continue;
        char *bytes = recent.bytes[i];
        size_t size = recent.sizes[i];
        int last = (size_t)offset + want >= size;
        if (last) recent.inos[i] = 0, recent.bytes[i] = NULL;
        if (!last) reply_range(req, bytes, size, want, offset);
        pthread_mutex_unlock(&kept_lock);
        if (last) reply_range(req, bytes, size, want, offset), free(bytes);
        return;
    }
    pthread_mutex_unlock(&kept_lock);
    struct worker *w = worker();
    sqlite3_bind_int64(w->by_id, 1, (long long)(ino & ~tile_bit));
    char *bytes;
    size_t size;
    int status = fetch(w, w->by_id, 2, &ino, &bytes, &size);
    if (status) { fuse_reply_err(req, status); return; }
    reply_range(req, bytes, size, want, offset);
    keep(ino, bytes, size);
}

int main(int argc, char **argv) {
    int ring = bare_ring_wanted(&argc, &argv, "bare_db");
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: bare_db [--io-uring] DB TEMPLATE REGION_ID EXT MOUNTPOINT [THREADS]\n");
        return 2;
    }
    config = (struct config){argv[1], argv[2], argv[4], atoll(argv[3]), time(NULL)};
    int threads = argc == 7 ? atoi(argv[6]) : 1;
    pthread_key_create(&worker_key, NULL);
    const struct fuse_lowlevel_ops ops = {
        .init = bare_init, .lookup = lookup, .getattr = getattr, .open = bare_no_open, .opendir = bare_no_open,
        .flush = bare_no_open, .read = read_bytes, .getxattr = bare_getxattr};
    char *options[] = {argv[0], "-o", "fsname=bare_db"};
    struct fuse_args args = FUSE_ARGS_INIT(3, options);
    struct fuse_session *session = fuse_session_new(&args, &ops, sizeof ops, NULL);
    if (!session || fuse_set_signal_handlers(session) != 0) return 1;
    if (fuse_session_mount(session, argv[5]) != 0) return 1;
    if (ring) bare_ring_install(session);
    int status;
    if (threads <= 1) {
        status = fuse_session_loop(session);
    } else {
        struct fuse_loop_config *loop = fuse_loop_cfg_create();
        fuse_loop_cfg_set_max_threads(loop, (unsigned)threads);
        status = fuse_session_loop_mt(session, loop);
        fuse_loop_cfg_destroy(loop);
    }
    fuse_remove_signal_handlers(session);
    fuse_session_unmount(session);
    if (ring && bare_ring_stop()) status = 1;
    fuse_session_destroy(session);
    return status ? 1 : 0;
}
