// The read benchmark's floor: the least a FUSE filesystem can do to serve the same tiles. It holds
// every listed file in memory and makes the kernel the same offers PackFS makes (no open or
// release messages, FLUSH answered ENOSYS, hour-long entry and attribute timeouts, page cache
// kept), so a warm pass sends it nothing, as it sends PackFS nothing. The gap between ordinary
// files and this filesystem is the kernel's own FUSE path; the gap between this and PackFS is
// PackFS's. Test-only; not part of PackFS.
// usage: bare_fuse ROOT LIST MOUNTPOINT   (LIST: paths relative to ROOT, one per line; runs in
// the foreground until unmounted)
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { timeout = 3600, bucket_count = 1 << 16 };

// A node's inode number is its index; 1 is the root. `next` chains nodes of one hash bucket.
struct node {
    fuse_ino_t parent;
    char *name;
    int is_directory;
    char *bytes;
    size_t size;
    size_t next;
};

struct tree {
    struct node *nodes;
    size_t count, capacity;
    size_t buckets[bucket_count];
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

static fuse_ino_t add(struct tree *tree, fuse_ino_t parent, const char *name, int is_directory) {
    if (tree->count == tree->capacity) {
        tree->capacity = tree->capacity ? tree->capacity * 2 : 1024;
        tree->nodes = realloc(tree->nodes, tree->capacity * sizeof *tree->nodes);
        if (!tree->nodes) { perror("realloc"); exit(1); }
    }
    size_t index = tree->count++;
    size_t *head = &tree->buckets[bucket(parent, name)];
    tree->nodes[index] = (struct node){parent, strdup(name), is_directory, NULL, 0, *head};
    *head = index;
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
        if (!child) child = add(tree, parent, name, next != NULL);
        if (!next) read_file(&tree->nodes[child], full);
        parent = child;
    }
}

static void load(struct tree *tree, const char *root, const char *listing) {
    FILE *list = fopen(listing, "r");
    if (!list) { perror(listing); exit(1); }
    add(tree, 0, "(unused)", 0);
    add(tree, 0, "", 1);
    char line[4096];
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (*line) load_path(tree, root, line);
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

static void init(void *userdata, struct fuse_conn_info *conn) {
    (void)userdata;
    unsigned wanted = FUSE_CAP_ASYNC_READ | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_PARALLEL_DIROPS |
                      FUSE_CAP_NO_OPEN_SUPPORT | FUSE_CAP_NO_OPENDIR_SUPPORT;
    conn->want = (conn->want | (wanted & conn->capable)) &
                 ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO |
                   FUSE_CAP_ATOMIC_O_TRUNC);
}

static void lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    struct tree *tree = tree_of(req);
    fuse_ino_t ino = valid(tree, parent) ? find(tree, parent, name) : 0;
    if (!ino) { fuse_reply_err(req, ENOENT); return; }
    struct fuse_entry_param entry = {.ino = ino, .generation = 1, .attr = attributes(tree, ino),
                                     .attr_timeout = timeout, .entry_timeout = timeout};
    fuse_reply_entry(req, &entry);
}

static void getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)file;
    struct tree *tree = tree_of(req);
    if (!valid(tree, ino)) { fuse_reply_err(req, ENOENT); return; }
    struct stat st = attributes(tree, ino);
    fuse_reply_attr(req, &st, timeout);
}

// ENOSYS once turns each of these off for the connection, as PackFS does.
static void no_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)ino, (void)file;
    fuse_reply_err(req, ENOSYS);
}

static void read_bytes(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset,
                       struct fuse_file_info *file) {
    (void)file;
    struct tree *tree = tree_of(req);
    if (!valid(tree, ino) || tree->nodes[ino].is_directory) { fuse_reply_err(req, EISDIR); return; }
    const struct node *node = &tree->nodes[ino];
    size_t start = (size_t)offset < node->size ? (size_t)offset : node->size;
    size_t length = node->size - start < size ? node->size - start : size;
    fuse_reply_buf(req, node->bytes + start, length);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: bare_fuse ROOT LIST MOUNTPOINT\n"); return 2; }
    static struct tree tree;
    load(&tree, argv[1], argv[2]);
    const struct fuse_lowlevel_ops ops = {.init = init, .lookup = lookup, .getattr = getattr,
                                          .open = no_open, .opendir = no_open, .flush = no_open,
                                          .read = read_bytes};
    char *options[] = {argv[0], "-o", "fsname=bare_fuse"};
    struct fuse_args args = FUSE_ARGS_INIT(3, options);
    struct fuse_session *session = fuse_session_new(&args, &ops, sizeof ops, &tree);
    if (!session || fuse_set_signal_handlers(session) != 0) return 1;
    if (fuse_session_mount(session, argv[3]) != 0) return 1;
    int status = fuse_session_loop(session);
    fuse_remove_signal_handlers(session);
    fuse_session_unmount(session);
    fuse_session_destroy(session);
    return status ? 1 : 0;
}
