// FUSE over io_uring: liburing, and the uapi (Linux 6.14, protocol 7.42) that Debian's 6.1 kernel
// headers lack: from the kernel's include/uapi/linux/fuse.h. The daemon serves over it when the
// kernel offers it (FUSEBridge's RingTransport; docs: Documentation/filesystems/fuse-io-uring.rst).
#pragma once
#include <liburing.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>

// FUSE_INIT: flags2 bit 9 (flags bit 41); the reply needs FUSE_INIT_EXT (flags bit 30) to carry flags2.
#define PACKFS_FUSE_OVER_IO_URING_FLAGS2 (1u << 9)
#define PACKFS_FUSE_INIT_EXT (1u << 30)
#define PACKFS_FUSE_INIT_OPCODE 26u

struct packfs_uring_ent_in_out {
    uint64_t flags;
    uint64_t commit_id;   // the request's unique, named again in its commit
    uint32_t payload_sz;  // bytes of the payload buffer in use (request: its args after op_in; reply: its args)
    uint32_t padding;
    uint64_t reserved;
};

// What the kernel writes for a request and reads for its reply (288 bytes).
struct packfs_uring_req_header {
    char in_out[128];     // struct fuse_in_header, or the reply's struct fuse_out_header
    char op_in[128];      // the request's first argument (its per-operation struct), if any
    struct packfs_uring_ent_in_out ring_ent_in_out;
};

enum { PACKFS_URING_CMD_REGISTER = 1, PACKFS_URING_CMD_COMMIT_AND_FETCH = 2 };

struct packfs_uring_cmd_req {
    uint64_t flags;
    uint64_t commit_id;
    uint16_t qid;
    uint8_t padding[6];
};

// Fills `sqe` (a 128-byte SQE: the ring is made with IORING_SETUP_SQE128) with a FUSE ring command
// on /dev/fuse `fd`: REGISTER with the entry's two buffers (`buffers`, 2 iovecs), or COMMIT_AND_FETCH
// of `commit_id`. Zeroed first: the kernel refuses a uring_cmd whose reserved fields are not 0.
static inline void packfs_uring_prep_cmd(struct io_uring_sqe *sqe, int fd, uint32_t command, uint16_t qid,
                                         uint64_t commit_id, const struct iovec *buffers, uint64_t user_data) {
    memset(sqe, 0, 128);
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fd;
    sqe->cmd_op = command;
    if (buffers) {
        sqe->addr = (uint64_t)(uintptr_t)buffers;
        sqe->len = 2;
    }
    sqe->user_data = user_data;
    struct packfs_uring_cmd_req *request = (struct packfs_uring_cmd_req *)sqe->cmd;
    request->commit_id = commit_id;
    request->qid = qid;
}

// A poll for input on `fd` (the thread's eventfd: how a ring thread is told to stop).
static inline void packfs_uring_prep_wake(struct io_uring_sqe *sqe, int fd, uint64_t user_data) {
    io_uring_prep_poll_add(sqe, fd, POLLIN);
    sqe->user_data = user_data;
}

static inline int packfs_uring_init(unsigned entries, struct io_uring *ring) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    params.flags = IORING_SETUP_SQE128 | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE;
    params.cq_entries = 2 * entries;
    return io_uring_queue_init_params(entries, ring, &params);
}

// Pins the calling thread to `cpu` (a ring thread to its queue's CPU: the kernel hands a queue
// the requests of processes running there). CPU_SET is a macro Swift cannot call, and glibc
// defines it only under _GNU_SOURCE: the bit is set by hand.
static inline int packfs_pin_this_thread(int cpu) {
    cpu_set_t set;
    memset(&set, 0, sizeof set);
    const int bits = 8 * (int)sizeof set.__bits[0];
    if (cpu < 0 || cpu >= (int)(8 * sizeof set)) return -1;
    set.__bits[cpu / bits] |= 1UL << (cpu % bits);
    return sched_setaffinity(0, sizeof set, &set);
}

// The CPUs a thread may run on, kept to give them back when it stops keeping to one.
typedef struct { cpu_set_t set; } packfs_cpus;
static inline int packfs_this_thread_cpus(packfs_cpus *cpus) { return sched_getaffinity(0, sizeof cpus->set, &cpus->set); }
static inline int packfs_set_this_thread_cpus(const packfs_cpus *cpus) {
    return sched_setaffinity(0, sizeof cpus->set, &cpus->set);
}

static inline unsigned long long packfs_monotonic_coarse_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}
