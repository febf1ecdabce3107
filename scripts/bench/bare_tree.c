// The walk benchmark's floor: the least a FUSE filesystem can do to answer a walk of the same
// tree. It holds the names and sizes of a listing in memory (no contents) and answers LOOKUP,
// GETATTR, READDIR and READDIRPLUS with the kernel settings PackFS asks for (READDIRPLUS on, no
// opendir messages, hour-long entry and attribute timeouts), and GETXATTR as PackFS does: no
// data for a `user.` name, EOPNOTSUPP for the namespaces it has no attributes in. `du -s` and
// `ls -lR` of it cost the kernel's FUSE round trips and nothing else; the gap between this and
// PackFS is PackFS's. Test-only; not part of PackFS.
// usage: bare_tree LIST MOUNTPOINT   (LIST: lines "TYPE SIZE PATH", TYPE d or f, PATH relative
// to the root, a directory listed before what it holds, as `find -printf '%y %s %P\n'` writes;
// runs in the foreground until unmounted)
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { timeout = 3600, bucket_count = 1 << 20 };

// A node's inode number is its index; 1 is the root. `next` chains nodes of one hash bucket;
// `first_child` and `sibling` list a directory in the order of the listing.
struct node {
    fuse_ino_t parent;
    char *name;
    int is_directory;
    off_t size;
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

static fuse_ino_t add(struct tree *tree, fuse_ino_t parent, const char *name, int is_directory, off_t size) {
    if (tree->count == tree->capacity) {
        tree->capacity = tree->capacity ? tree->capacity * 2 : 1024;
        tree->nodes = realloc(tree->nodes, tree->capacity * sizeof *tree->nodes);
        if (!tree->nodes) { perror("realloc"); exit(1); }
    }
    size_t index = tree->count++;
    size_t *head = &tree->buckets[bucket(parent, name)];
    tree->nodes[index] = (struct node){parent, strdup(name), is_directory, size, *head, 0, 0, 0};
    *head = index;
    if (parent) {
        struct node *dir = &tree->nodes[parent];
        if (dir->last_child) tree->nodes[dir->last_child].sibling = index; else dir->first_child = index;
        dir->last_child = index;
    }
    return index;
}

// Adds PATH (its parent already added) as a directory or a file of SIZE bytes.
static void load_line(struct tree *tree, char *line) {
    char type;
    long long size;
    int consumed = 0;
    if (sscanf(line, "%c %lld %n", &type, &size, &consumed) != 2 || !consumed) return;
    char *path = line + consumed;
    if (!*path) return;  // the root itself
    fuse_ino_t parent = 1;
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = 0;
        for (char *name = strtok(path, "/"); name && parent; name = strtok(NULL, "/")) parent = find(tree, parent, name);
        if (!parent) { fprintf(stderr, "bare_tree: %s is listed before its directory\n", line); exit(1); }
        path = slash + 1;
    }
    add(tree, parent, path, type == 'd', type == 'd' ? 0 : (off_t)size);
}

static void load(struct tree *tree, const char *listing) {
    FILE *list = fopen(listing, "r");
    if (!list) { perror(listing); exit(1); }
    tree->buckets = calloc(bucket_count, sizeof *tree->buckets);
    if (!tree->buckets) { perror("calloc"); exit(1); }
    add(tree, 0, "(unused)", 0, 0);
    add(tree, 0, "", 1, 0);
    char line[8192];
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        load_line(tree, line);
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
    st.st_size = node->size;
    st.st_blocks = (node->size + 511) / 512;
    st.st_atime = st.st_mtime = st.st_ctime = tree->loaded;
    return st;
}

static struct tree *tree_of(fuse_req_t req) { return fuse_req_userdata(req); }

static int valid(const struct tree *tree, fuse_ino_t ino) { return ino >= 1 && ino < tree->count; }

static void init(void *userdata, struct fuse_conn_info *conn) {
    (void)userdata;
    unsigned wanted = FUSE_CAP_ASYNC_READ | FUSE_CAP_AUTO_INVAL_DATA | FUSE_CAP_PARALLEL_DIROPS |
                      FUSE_CAP_NO_OPEN_SUPPORT | FUSE_CAP_NO_OPENDIR_SUPPORT | FUSE_CAP_READDIRPLUS;
    conn->want = (conn->want | (wanted & conn->capable)) &
                 ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_ATOMIC_O_TRUNC);
}

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

static void no_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *file) {
    (void)ino, (void)file;
    fuse_reply_err(req, ENOSYS);
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

static void getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size) {
    (void)ino, (void)size;
    fuse_reply_err(req, strncmp(name, "user.", 5) == 0 ? ENODATA : EOPNOTSUPP);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: bare_tree LIST MOUNTPOINT\n"); return 2; }
    static struct tree tree;
    load(&tree, argv[1]);
    const struct fuse_lowlevel_ops ops = {.init = init, .lookup = lookup, .getattr = getattr,
                                          .opendir = no_open, .readdir = readdir,
                                          .readdirplus = readdirplus, .getxattr = getxattr};
    char *options[] = {argv[0], "-o", "fsname=bare_tree"};
    struct fuse_args args = FUSE_ARGS_INIT(3, options);
    struct fuse_session *session = fuse_session_new(&args, &ops, sizeof ops, &tree);
    if (!session || fuse_set_signal_handlers(session) != 0) return 1;
    if (fuse_session_mount(session, argv[2]) != 0) return 1;
    int status = fuse_session_loop(session);
    fuse_remove_signal_handlers(session);
    fuse_session_unmount(session);
    fuse_session_destroy(session);
    return status ? 1 : 0;
}
