// FUSE over io_uring for the benchmarks' bare servers (bare_fuse.c, bare_db.c), so that each floor
// can be measured on the transport PackFS uses: FUSEBridge's RingTransport, RingThread and
// RingEntry in C, the same design (Documentation/filesystems/fuse-io-uring.rst, Linux 6.14+).
// libfuse 3.14 knows nothing of the ring; it rides on its custom I/O hooks:
// - the read hook sees the kernel's INIT and whether it offers the ring (flags2 bit 9); a server
//   that asked for the ring and is not offered it says so and exits (no silent /dev/fuse figures);
// - the writev hook adds FUSE_INIT_EXT and the flag to libfuse's INIT reply, and once that reply
//   is written (the kernel refuses entries before) starts the ring threads: per possible CPU (the
//   kernel makes a queue for each), `bare_ring_threads` threads, each with its own SQE128 ring and
//   one entry, kept to the queue's CPU as PackFS's are: while /proc/loadavg shows no more runnable
//   tasks than cores, checked at most every 100 ms after a request (PACKFS_RING_PIN=N instead pins
//   the first N of each queue's threads always, the others never);
// - a ring thread REGISTERs its entry, lays each request out as a /dev/fuse read gives it and
//   hands it to fuse_session_process_buf; the reply comes back through the writev hook (the
//   thread's current entry, matched by unique), goes into the entry and is COMMIT_AND_FETCHed.
// FORGET and INTERRUPT stay on /dev/fuse, served by libfuse's own loop as before. On exit the
// server prints how many requests each transport carried (the proof the ring served).
// Test-only; one transport per process (its state is global). Needs liburing.
#pragma once
#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include (CPU_SET, pthread_setaffinity_np)"
#endif
#include <errno.h>
#include <fuse_lowlevel.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

// The uapi (protocol 7.42) that Debian's kernel headers lack, from include/uapi/linux/fuse.h.
enum {
    ring_init_opcode = 26, ring_flags2_offered = 1u << 9, ring_init_ext = 1u << 30, ring_max_pages = 1u << 22,
    ring_register = 1, ring_commit_and_fetch = 2, ring_in_header = 40, ring_out_header = 16,
    bare_ring_threads = 4,  // per queue, as RingTransport.threadsPerQueue
};

struct ring_header {  // what the kernel writes a request into and reads the reply from (288 bytes)
    char in_out[128];  // struct fuse_in_header, or the reply's struct fuse_out_header
    char op_in[128];   // the request's per-operation struct, if any
    uint64_t flags, commit_id;
    uint32_t payload_sz, padding;
    uint64_t reserved;
};

struct ring_cmd {  // the SQE's command area
    uint64_t flags, commit_id;
    uint16_t qid;
    uint8_t padding[6];
};

struct ring_entry {
    struct io_uring ring;
    int wake;  // an eventfd polled on the ring: written to stop the thread
    uint16_t queue;
    enum { pin_never, pin_always, pin_while_idle } pinning;
    bool is_pinned;             // runs only on its queue's CPU now
    uint64_t next_load_check;   // CLOCK_MONOTONIC_COARSE, ns
    cpu_set_t allowed;          // where it may run otherwise
    struct ring_header *header;
    char *payload, *request;  // request: laid out as /dev/fuse gives it, for libfuse
    size_t payload_bytes;
    struct iovec buffers[2];
    uint64_t unique;  // the request being served (0: none, or answered)
    pthread_t thread;
};

static struct {
    struct fuse_session *session;
    int fd;
    const char *program;
    uint64_t init_unique;
    int offered, accepted;
    struct ring_entry *entries;
    int count, queues;
    atomic_ulong over_ring, over_device;
} bare_ring;

static __thread struct ring_entry *ring_current;

enum { ring_wake_cookie = 0, ring_entry_cookie = 1 };

static void ring_fail(const char *what, int error) {
    fprintf(stderr, "%s: io_uring: %s%s%s\n", bare_ring.program, what, error ? ": " : "", error ? strerror(error) : "");
    exit(1);
}

// A FUSE ring command on the entry's ring; zeroed first (the kernel refuses nonzero reserved fields).
static void ring_prep(struct ring_entry *e, uint32_t command, uint64_t commit_id) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
    if (!sqe) ring_fail("no free SQE", 0);
    memset(sqe, 0, 128);
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = bare_ring.fd;
    sqe->cmd_op = command;
    if (command == ring_register) sqe->addr = (uint64_t)(uintptr_t)e->buffers, sqe->len = 2;
    sqe->user_data = ring_entry_cookie;
    struct ring_cmd *cmd = (struct ring_cmd *)sqe->cmd;
    cmd->commit_id = commit_id;
    cmd->qid = e->queue;
}

static void ring_commit(struct ring_entry *e) {
    e->unique = 0;
    ring_prep(e, ring_commit_and_fetch, e->header->commit_id);
}

// An answer without data: `error` 0 or a negative errno.
static void ring_commit_error(struct ring_entry *e, int32_t error) {
    uint32_t length = ring_out_header;
    memcpy(e->header->in_out, &length, 4);
    memcpy(e->header->in_out + 4, &error, 4);
    memcpy(e->header->in_out + 8, &e->unique, 8);
    e->header->payload_sz = 0;
    ring_commit(e);
}

// A reply from libfuse (iov[0] its out header) into the entry, then committed.
static ssize_t ring_reply(struct ring_entry *e, const struct iovec *iov, int count) {
    size_t used = 0;
    for (int i = 1; i < count; i++) {
        if (used + iov[i].iov_len > e->payload_bytes) { ring_commit_error(e, -EIO); return -1; }
        memcpy(e->payload + used, iov[i].iov_base, iov[i].iov_len);
        used += iov[i].iov_len;
    }
    memcpy(e->header->in_out, iov[0].iov_base, ring_out_header);
    e->header->payload_sz = (uint32_t)used;
    ring_commit(e);
    return (ssize_t)(ring_out_header + used);
}

// The request the kernel put in the entry, through libfuse, which replies through the writev
// hook on this thread; committed empty if no reply came (a FORGET-like request).
static void ring_serve(struct ring_entry *e) {
    uint32_t length;
    memcpy(&length, e->header->in_out, 4);
    memcpy(&e->unique, e->header->in_out + 8, 8);
    size_t received = e->header->payload_sz;
    long operation = (long)length - ring_in_header - (long)received;
    if (operation < 0 || operation > 128 || received > e->payload_bytes || !e->unique) {
        ring_commit_error(e, -EIO);
        return;
    }
    memcpy(e->request, e->header->in_out, ring_in_header);
    memcpy(e->request + ring_in_header, e->header->op_in, (size_t)operation);
    memcpy(e->request + ring_in_header + operation, e->payload, received);
    struct fuse_buf buffer = {.size = length, .mem = e->request, .fd = -1};
    atomic_fetch_add(&bare_ring.over_ring, 1);
    ring_current = e;
    fuse_session_process_buf(bare_ring.session, &buffer);
    ring_current = NULL;
    if (e->unique) ring_commit_error(e, 0);
}

// One completion of the entry; 0 when the thread should end.
static bool ring_pin(struct ring_entry *e) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(e->queue, &cpus);
    return pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0;
}

// Whether /proc/loadavg shows no more runnable tasks (the caller among them) than cores.
static bool ring_spare_core(void) {
    char text[128] = "";
    FILE *file = fopen("/proc/loadavg", "r");
    if (!file) return true;
    bool read = fgets(text, sizeof text, file) != NULL;
    fclose(file);
    double a, b, c;
    int runnable;
    if (!read || sscanf(text, "%lf %lf %lf %d/", &a, &b, &c, &runnable) != 4) return true;
    return runnable <= sysconf(_SC_NPROCESSORS_ONLN);
}

// As RingThread.followLoad: kept to the queue's CPU while the machine has a spare core.
static void ring_follow_load(struct ring_entry *e) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    uint64_t ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    if (ns < e->next_load_check) return;
    e->next_load_check = ns + 100000000ull;
    bool wanted = ring_spare_core();
    if (wanted == e->is_pinned) return;
    if (wanted) e->is_pinned = ring_pin(e);
    else if (pthread_setaffinity_np(pthread_self(), sizeof e->allowed, &e->allowed) == 0) e->is_pinned = false;
}

static int ring_handle(struct ring_entry *e, int result) {
    switch (-result) {
    case 0: ring_serve(e); if (e->pinning == pin_while_idle) ring_follow_load(e); return 1;
    case EAGAIN: case EINTR: ring_prep(e, ring_register, 0); return 1;  // INIT not processed yet: again
    case ENOTCONN: case ECONNABORTED: case ECANCELED: case ENODEV: return 0;  // the unmount
    default: ring_fail("entry", -result); return 0;
    }
}

static void *ring_run(void *argument) {
    struct ring_entry *e = argument;
    pthread_getaffinity_np(pthread_self(), sizeof e->allowed, &e->allowed);
    if (e->pinning == pin_always) e->is_pinned = ring_pin(e);
    if (e->pinning == pin_while_idle) ring_follow_load(e);
    struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
    io_uring_prep_poll_add(sqe, e->wake, POLLIN);
    sqe->user_data = ring_wake_cookie;
    ring_prep(e, ring_register, 0);
    for (;;) {
        int submitted = io_uring_submit_and_wait(&e->ring, 1);
        if (submitted < 0 && submitted != -EINTR) ring_fail("io_uring_submit_and_wait", -submitted);
        struct io_uring_cqe *cqe;
        while (io_uring_peek_cqe(&e->ring, &cqe) == 0) {
            uint64_t cookie = cqe->user_data;
            int result = cqe->res;
            io_uring_cqe_seen(&e->ring, cqe);
            if (cookie == ring_wake_cookie || !ring_handle(e, result)) return NULL;
        }
    }
}

static void ring_make_entry(struct ring_entry *e, uint16_t queue, size_t payload_bytes) {
    struct io_uring_params params = {.flags = IORING_SETUP_SQE128 | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE,
                                     .cq_entries = 8};
    int status = io_uring_queue_init_params(4, &e->ring, &params);
    if (status < 0) ring_fail("io_uring_queue_init_params", -status);
    e->wake = eventfd(0, 0);
    e->queue = queue;
    e->payload_bytes = payload_bytes;
    // Never freed: the kernel keeps the buffers' addresses until the connection ends.
    if (posix_memalign((void **)&e->header, 4096, sizeof *e->header) || posix_memalign((void **)&e->payload, 4096, payload_bytes) ||
        !(e->request = malloc(ring_in_header + 128 + payload_bytes)) || e->wake < 0)
        ring_fail("entry buffers", errno);
    memset(e->header, 0, sizeof *e->header);
    e->buffers[0] = (struct iovec){e->header, sizeof *e->header};
    e->buffers[1] = (struct iovec){e->payload, payload_bytes};
}

// The kernel makes one queue per possible CPU.
static int ring_possible_cpus(void) {
    FILE *file = fopen("/sys/devices/system/cpu/possible", "r");
    char text[256] = "";
    if (file) { if (!fgets(text, sizeof text, file)) text[0] = 0; fclose(file); }
    int highest = -1;
    for (char *part = strtok(text, ","); part; part = strtok(NULL, ",")) {
        char *dash = strchr(part, '-');
        int last = atoi(dash ? dash + 1 : part);
        if (last > highest) highest = last;
    }
    return highest >= 0 ? highest + 1 : (int)sysconf(_SC_NPROCESSORS_CONF);
}

// libfuse's INIT reply (iov[1] its fuse_init_out): the ring's flags added, the entries made with
// payloads as large as the kernel will demand (its largest read or write).
static void ring_accept(struct iovec *iov, int count) {
    if (count < 2 || iov[1].iov_len < 36) ring_fail("libfuse's INIT reply is too short", 0);
    char *reply = iov[1].iov_base;
    uint32_t flags, max_write, flags2;
    uint16_t max_pages = 32;
    memcpy(&flags, reply + 12, 4);
    memcpy(&max_write, reply + 20, 4);
    if (flags & ring_max_pages) memcpy(&max_pages, reply + 28, 2);
    size_t payload = max_write > 8192 ? max_write : 8192;
    if ((size_t)max_pages * 4096 > payload) payload = (size_t)max_pages * 4096;
    payload = (payload + 4095) / 4096 * 4096;
    bare_ring.queues = ring_possible_cpus();
    bare_ring.count = bare_ring.queues * bare_ring_threads;
    bare_ring.entries = calloc((size_t)bare_ring.count, sizeof *bare_ring.entries);
    if (!bare_ring.entries) ring_fail("entries", errno);
    const char *pin = getenv("PACKFS_RING_PIN");  // how many of each queue's threads are pinned always
    int pinned = pin ? atoi(pin) : 0;
    for (int i = 0; i < bare_ring.count; i++) {
        ring_make_entry(&bare_ring.entries[i], (uint16_t)(i / bare_ring_threads), payload);
        bare_ring.entries[i].pinning = !pin ? pin_while_idle : i % bare_ring_threads < pinned ? pin_always : pin_never;
    }
    flags |= ring_init_ext;
    memcpy(reply + 12, &flags, 4);
    memcpy(&flags2, reply + 32, 4);
    flags2 |= ring_flags2_offered;
    memcpy(reply + 32, &flags2, 4);
    bare_ring.accepted = 1;
}

static ssize_t ring_read_hook(int fd, void *buffer, size_t length, void *userdata) {
    (void)userdata;
    ssize_t count = read(fd, buffer, length);
    if (count <= 0) return count;
    atomic_fetch_add(&bare_ring.over_device, 1);
    const char *request = buffer;
    uint32_t opcode, flags, flags2;
    if (count < ring_in_header + 20) return count;
    memcpy(&opcode, request + 4, 4);
    if (opcode != ring_init_opcode) return count;
    memcpy(&bare_ring.init_unique, request + 8, 8);
    memcpy(&flags, request + ring_in_header + 12, 4);
    memcpy(&flags2, request + ring_in_header + 16, 4);
    bare_ring.offered = (flags & ring_init_ext) && (flags2 & ring_flags2_offered);
    if (!bare_ring.offered) {
        fprintf(stderr, "%s: io_uring asked for, but the kernel's INIT does not offer it: exiting\n", bare_ring.program);
        fuse_session_exit(bare_ring.session);
    }
    return count;
}

static ssize_t ring_writev_hook(int fd, struct iovec *iov, int count, void *userdata) {
    (void)userdata;
    uint64_t unique = 0;
    if (count > 0 && iov[0].iov_len >= 16) memcpy(&unique, (char *)iov[0].iov_base + 8, 8);
    struct ring_entry *e = ring_current;
    if (unique && e && e->unique == unique) return ring_reply(e, iov, count);
    int is_init = unique && unique == bare_ring.init_unique && bare_ring.offered;
    if (is_init) ring_accept(iov, count);
    ssize_t written = writev(fd, iov, count);
    if (is_init && written >= 0) {
        for (int i = 0; i < bare_ring.count; i++) {
            int status = pthread_create(&bare_ring.entries[i].thread, NULL, ring_run, &bare_ring.entries[i]);
            if (status) ring_fail("pthread_create", status);
        }
    }
    return written;
}

// Removes a leading "--io-uring" from the arguments; 1 if it was there. Before the mount, so that
// a kernel whose switch is off fails the server with nothing mounted.
static int bare_ring_wanted(int *argc, char ***argv, const char *program) {
    if (*argc < 2 || strcmp((*argv)[1], "--io-uring") != 0) return 0;
    (*argv)[1] = (*argv)[0];
    (*argc)--, (*argv)++;
    bare_ring.program = program;
    FILE *parameter = fopen("/sys/module/fuse/parameters/enable_uring", "r");
    int enabled = parameter && fgetc(parameter) == 'Y';
    if (parameter) fclose(parameter);
    if (!enabled) ring_fail("/sys/module/fuse/parameters/enable_uring is not Y", 0);
    return 1;
}

// After fuse_session_mount: libfuse's I/O through the hooks.
static void bare_ring_install(struct fuse_session *session) {
    bare_ring.session = session;
    bare_ring.fd = fuse_session_fd(session);
    static const struct fuse_custom_io hooks = {.writev = ring_writev_hook, .read = ring_read_hook};
    if (fuse_session_custom_io(session, &hooks, bare_ring.fd) != 0) ring_fail("libfuse refused the I/O hooks", 0);
}

// After the loop: stops the ring threads and says what each transport carried; 1 if the ring
// was asked for and never served.
static int bare_ring_stop(void) {
    for (int i = 0; i < bare_ring.count; i++) eventfd_write(bare_ring.entries[i].wake, 1);
    for (int i = 0; i < bare_ring.count; i++) {
        pthread_join(bare_ring.entries[i].thread, NULL);
        io_uring_queue_exit(&bare_ring.entries[i].ring);
    }
    fprintf(stderr, "%s: io_uring (%d queues, %d threads each): %lu requests over the ring, %lu over /dev/fuse\n",
            bare_ring.program, bare_ring.queues, bare_ring_threads, (unsigned long)bare_ring.over_ring,
            (unsigned long)bare_ring.over_device);
    return !bare_ring.accepted;
}
