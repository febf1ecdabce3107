// The benchmarks' floor: the least a FUSE filesystem can do to serve the same tree. It holds it in
// memory and makes the kernel the same offers PackFS makes (no open or release messages, FLUSH
// answered ENOSYS, hour-long entry and attribute timeouts, page cache kept, READDIRPLUS), and
// answers GETXATTR as PackFS does (no data for a `user.` name, EOPNOTSUPP for the namespaces it
// keeps nothing in), so a warm pass sends it nothing, as it sends PackFS nothing. The gap between
// ordinary files and this filesystem is the kernel's own FUSE path; the gap between this and
// PackFS is PackFS's. Test-only; not part of PackFS.
// usage: bare_fuse ROOT LIST MOUNTPOINT   (read.sh: LIST holds paths relative to ROOT, one per
//        line, each file's bytes loaded)
//    or: bare_fuse --tree LIST MOUNTPOINT (walk.sh: LIST holds lines "TYPE SIZE PATH", TYPE d or
//        f, a directory before what it holds, as `find -printf '%y %s %P\n'` writes; names and
//        sizes only, no bytes)
// --io-uring first: served over FUSE's io_uring transport (bare_ring.h; fails unless the kernel
// offers it); the request counts of each transport are printed on exit.
// Runs in the foreground until unmounted.
#define _GNU_SOURCE  // bare_ring.h: CPU_SET
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include "bare_offers.h"
#include "bare_ring.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { timeout = 3600, bucket_count = 1 << 20 };

// A node's inode number is its index; 1 is the root. `next` chains nodes of one hash bucket;
// `first_child` and `sibling` list a directory in the order it was loaded.
struct node {
    fuse_ino_t parent;
    char *name;
    int is_directory;
    char *bytes;
    size_t size;
    size_t next, first_child, last_child, sibling;
};

struct tree {
    struct node *nodes;
    size_t count, capacity;
    size_t *buckets;
    time_t loaded;
};

static size_t bucket(fuse_ino_t parent, const char *name) {
    size_t hash = parent * 1000003u;
    for (; *name; name++) hash = hash * 31 + (unsigned char)*name;
    return hash % bucket_count;
}

static fuse_ino_t find(const struct tree *tree, fuse_ino_t parent, const char *name) {
    for (size_t i = tree->buckets[bucket(parent, name)]; i; i = tree->nodes[i].next)
        if (tree->nodes[i].parent == parent && strcmp(tree->nodes[i].name, name) == 0) return i;
    return 0;
}

static fuse_ino_t add(struct tree *tree, fuse_ino_t parent, const char *name, int is_directory, size_t size) {
    if (tree->count == tree->capacity) {
        tree->capacity = tree->capacity ? tree->capacity * 2 : 1024;
        tree->nodes = realloc(tree->nodes, tree->capacity * sizeof *tree->nodes);
        if (!tree->nodes) { perror("realloc"); exit(1); }
    }
    size_t index = tree->count++;
    size_t *head = &tree->buckets[bucket(parent, name)];
    tree->nodes[index] = (struct node){parent, strdup(name), is_directory, NULL, size, *head, 0, 0, 0};
    *head = index;
    if (parent) {
        struct node *dir = &tree->nodes[parent];
        if (dir->last_child) tree->nodes[dir->last_child].sibling = index; else dir->first_child = index;
        dir->last_child = index;
    }
    return index;
}

static void read_file(struct node *node, const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(1); }
    fseek(file, 0, SEEK_END);
    node->size = (size_t)ftell(file);
    rewind(file);
    node->bytes = malloc(node->size ? node->size : 1);
    if (fread(node->bytes, 1, node->size, file) != node->size) { perror(path); exit(1); }
    fclose(file);
}

// Adds ROOT/PATH under the root, with a directory for every component but the last.
static void load_path(struct tree *tree, const char *root, char *path) {
    char full[8192];
    snprintf(full, sizeof full, "%s/%s", root, path);
    fuse_ino_t parent = 1;
    for (char *name = strtok(path, "/"), *next; name; name = next) {
        next = strtok(NULL, "/");
        fuse_ino_t child = find(tree, parent, name);
        if (!child) child = add(tree, parent, name, next != NULL, 0);
        if (!next) read_file(&tree->nodes[child], full);
        parent = child;
    }
}

// Adds a "TYPE SIZE PATH" line (PATH's directory already added): a name and a size, no bytes.
static void load_entry(struct tree *tree, char *line) {
    char type;
    long long size;
    int consumed = 0;
    if (sscanf(line, "%c %lld %n", &type, &size, &consumed) != 2 || !consumed || !line[consumed]) return;
    char *path = line + consumed, *slash = strrchr(path, '/');
    fuse_ino_t parent = 1;
    if (slash) {
        *slash = 0;
        for (char *name = strtok(path, "/"); name && parent; name = strtok(NULL, "/")) parent = find(tree, parent, name);
        if (!parent) { fprintf(stderr, "bare_fuse: %s is listed before its directory\n", line); exit(1); }
        path = slash + 1;
    }
    add(tree, parent, path, type == 'd', type == 'd' ? 0 : (size_t)size);
}

// ROOT NULL: LIST is "TYPE SIZE PATH" lines (--tree).
static void load(struct tree *tree, const char *root, const char *listing) {
    FILE *list = fopen(listing, "r");
    if (!list) { perror(listing); exit(1); }
    tree->buckets = calloc(bucket_count, sizeof *tree->buckets);
    if (!tree->buckets) { perror("calloc"); exit(1); }
    add(tree, 0, "(unused)", 0, 0);
    add(tree, 0, "", 1, 0);
    char line[4096];
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        if (root) load_path(tree, root, line); else load_entry(tree, line);
    }
    fclose(list);
    tree->loaded = time(NULL);
}

static struct stat attributes(const struct tree *tree, fuse_ino_t ino) {
    const struct node *node = &tree->nodes[ino];
    struct stat st = {0};
    st.st_ino = ino;
    st.st_mode = node->is_directory ? S_IFDIR | 0555 : S_IFREG | 0444;
    st.st_nlink = 1;
    st.st_size = (off_t)node->size;
    st.st_blocks = (blkcnt_t)((node->size + 511) / 512);
    st.st_atime = st.st_mtime = st.st_ctime = tree->loaded;
    return st;
}

static struct tree *tree_of(fuse_req_t req) { return fuse_req_userdata(req); }

static int valid(const struct tree *tree, fuse_ino_t ino) { return ino >= 1 && ino < tree->count; }

static struct fuse_entry_param entry_of(const struct tree *tree, fuse_ino_t ino) {
    return (struct fuse_entry_param){.ino = ino, .generation = 1, .attr = attributes(tree, ino),
                                     .attr_timeout = timeout, .entry_timeout = timeout};
}

static void lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    struct tree *tree = tree_of(req);
    fuse_ino_t ino = valid(tree, parent) ? find(tree, parent, name) : 0;
    if (!ino) { fuse_reply_err(req, ENOENT); return; }
    struct fuse_entry_param entry = entry_of(tree, ino);
    fuse_reply_entry(req, &entry);
}

static void getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)file;
    struct tree *tree = tree_of(req);
    if (!valid(tree, ino)) { fuse_reply_err(req, ENOENT); return; }
    struct stat st = attributes(tree, ino);
    fuse_reply_attr(req, &st, timeout);
}

static void read_bytes(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset,
                       struct fuse_file_info *file) {
    (void)file;
    struct tree *tree = tree_of(req);
    if (!valid(tree, ino) || tree->nodes[ino].is_directory) { fuse_reply_err(req, EISDIR); return; }
    const struct node *node = &tree->nodes[ino];
    if (!node->bytes) { fuse_reply_err(req, EIO); return; }  // --tree: names and sizes only
    size_t start = (size_t)offset < node->size ? (size_t)offset : node->size;
    size_t length = node->size - start < size ? node->size - start : size;
    fuse_reply_buf(req, node->bytes + start, length);
}

// The directory's entries from the offset-th on (0: ".", 1: "..", then the children; an entry's
// offset is the next one's index), as many as fit in `size`, with attributes when `plus`.
static void list(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, int plus) {
    struct tree *tree = tree_of(req);
    if (!valid(tree, ino) || !tree->nodes[ino].is_directory) { fuse_reply_err(req, ENOTDIR); return; }
    char *buffer = malloc(size);
    if (!buffer) { fuse_reply_err(req, ENOMEM); return; }
    size_t used = 0;
    off_t index = 0;
    size_t child = tree->nodes[ino].first_child;
    for (;; index++) {
        fuse_ino_t entry_ino;
        const char *name;
        if (index == 0) { entry_ino = ino; name = "."; }
        else if (index == 1) { entry_ino = tree->nodes[ino].parent ? tree->nodes[ino].parent : ino; name = ".."; }
        else if (child) { entry_ino = child; name = tree->nodes[child].name; child = tree->nodes[child].sibling; }
        else break;
        if (index < offset) continue;
        struct fuse_entry_param entry = entry_of(tree, entry_ino);
        size_t room = size - used, length;
        if (plus) {
            // "." and ".." get no lookup count (the kernel does not take one for them).
            if (index < 2) entry.ino = 0, entry.attr.st_ino = entry_ino;
            length = fuse_add_direntry_plus(req, buffer + used, room, name, &entry, index + 1);
        } else {
            length = fuse_add_direntry(req, buffer + used, room, name, &entry.attr, index + 1);
        }
        if (length > room) break;
        used += length;
    }
    fuse_reply_buf(req, buffer, used);
    free(buffer);
}

static void readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)file;
    list(req, ino, size, offset, 0);
}

static void readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)file;
    list(req, ino, size, offset, 1);
}

int main(int argc, char **argv) {
    int ring = bare_ring_wanted(&argc, &argv, "bare_fuse");
    if (argc != 4) { fprintf(stderr, "usage: bare_fuse [--io-uring] ROOT|--tree LIST MOUNTPOINT\n"); return 2; }
    static struct tree tree;
    load(&tree, strcmp(argv[1], "--tree") == 0 ? NULL : argv[1], argv[2]);
    const struct fuse_lowlevel_ops ops = {
        .init = bare_init, .lookup = lookup, .getattr = getattr, .open = bare_no_open, .opendir = bare_no_open,
        .flush = bare_no_open, .read = read_bytes, .readdir = readdir, .readdirplus = readdirplus,
        .getxattr = bare_getxattr};
    char *options[] = {argv[0], "-o", "fsname=bare_fuse"};
    struct fuse_args args = FUSE_ARGS_INIT(3, options);
    struct fuse_session *session = fuse_session_new(&args, &ops, sizeof ops, &tree);
    if (!session || fuse_set_signal_handlers(session) != 0) return 1;
    if (fuse_session_mount(session, argv[3]) != 0) return 1;
    if (ring) bare_ring_install(session);
    int status = fuse_session_loop(session);
    fuse_remove_signal_handlers(session);
    fuse_session_unmount(session);
    if (ring && bare_ring_stop()) status = 1;
    fuse_session_destroy(session);
    return status ? 1 : 0;
}
