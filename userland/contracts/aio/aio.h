/* Helpers of the aio tests: the linux/aio_abi.h structures (musl has no
 * wrapper and no header of them), raw system calls, and iocb builders. */
#ifndef CONTRACTS_AIO_H
#define CONTRACTS_AIO_H
#include "../common.h"
#include <stdint.h>
#include <sys/syscall.h>

typedef unsigned long aio_context_t;

struct iocb {
    uint64_t aio_data;
    uint32_t aio_key;
    int32_t aio_rw_flags;
    uint16_t aio_lio_opcode;
    int16_t aio_reqprio;
    uint32_t aio_fildes;
    uint64_t aio_buf;
    uint64_t aio_nbytes;
    int64_t aio_offset;
    uint64_t aio_reserved2;
    uint32_t aio_flags;
    uint32_t aio_resfd;
};

struct io_event {
    uint64_t data;
    uint64_t obj;
    int64_t res;
    int64_t res2;
};

struct aio_ring {
    unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
    struct io_event io_events[];
};

struct aio_sigset {
    const sigset_t *sigmask;
    size_t sigsetsize;
};

enum {
    IOCB_CMD_PREAD = 0,
    IOCB_CMD_PWRITE = 1,
    IOCB_CMD_FSYNC = 2,
    IOCB_CMD_FDSYNC = 3,
    IOCB_CMD_POLL = 5,
    IOCB_CMD_NOOP = 6,
    IOCB_CMD_PREADV = 7,
    IOCB_CMD_PWRITEV = 8,
};
#define IOCB_FLAG_RESFD 1
#define IOCB_FLAG_IOPRIO 2

#ifndef RWF_HIPRI
#define RWF_HIPRI 1
#define RWF_DSYNC 2
#define RWF_SYNC 4
#define RWF_NOWAIT 8
#define RWF_APPEND 16
#endif

#ifndef SYS_io_pgetevents
#define SYS_io_pgetevents 333
#endif

static __attribute__((unused)) long io_setup(unsigned nr, aio_context_t *ctx)
{
    return syscall(SYS_io_setup, nr, ctx);
}
static __attribute__((unused)) long io_destroy(aio_context_t ctx)
{
    return syscall(SYS_io_destroy, ctx);
}
static __attribute__((unused)) long io_submit(aio_context_t ctx, long nr, struct iocb **iocbs)
{
    return syscall(SYS_io_submit, ctx, nr, iocbs);
}
static __attribute__((unused)) long io_cancel(aio_context_t ctx, struct iocb *iocb, struct io_event *result)
{
    return syscall(SYS_io_cancel, ctx, iocb, result);
}
static __attribute__((unused)) long io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event *events, struct timespec *timeout)
{
    return syscall(SYS_io_getevents, ctx, min_nr, nr, events, timeout);
}
static __attribute__((unused)) long io_pgetevents(aio_context_t ctx, long min_nr, long nr, struct io_event *events, struct timespec *timeout, struct aio_sigset *sig)
{
    return syscall(SYS_io_pgetevents, ctx, min_nr, nr, events, timeout, sig);
}

/* An iocb for opcode on fd. */
static __attribute__((unused)) struct iocb mkiocb(int op, int fd, void *buf, size_t n, long long off, uint64_t data)
{
    struct iocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_lio_opcode = op;
    cb.aio_fildes = fd;
    cb.aio_buf = (uint64_t)(uintptr_t)buf;
    cb.aio_nbytes = n;
    cb.aio_offset = off;
    cb.aio_data = data;
    return cb;
}

/* Submits one iocb: the call's result (-1 and errno on failure). */
static __attribute__((unused)) long submit1(aio_context_t ctx, struct iocb *cb)
{
    struct iocb *list[1] = { cb };
    return io_submit(ctx, 1, list);
}

/* "label: ok" or "label: ENAME" for the submission of one iocb. */
static __attribute__((unused)) void try_submit(const char *label, aio_context_t ctx, struct iocb *cb)
{
    long r = submit1(ctx, cb);
    if (r == 1)
        out("%s: submitted", label);
    else if (r < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %ld", label, r);
}

/* An event's result as a number or an errno name. */
static __attribute__((unused)) const char *resname(int64_t res)
{
    static char buf[32];
    if (res < 0 && res > -4096)
        return errname((int)-res);
    snprintf(buf, sizeof buf, "%lld", (long long)res);
    return buf;
}

/* Waits (up to 5 s) for one event and prints it: its data, whether obj is
 * the iocb, its result. */
static __attribute__((unused)) void reap_one(const char *label, aio_context_t ctx, struct iocb *cb)
{
    struct io_event ev;
    struct timespec ts = { 5, 0 };
    long r = io_getevents(ctx, 1, 1, &ev, &ts);
    if (r != 1) {
        out("%s: getevents %ld %s", label, r, r < 0 ? errname(errno) : "");
        return;
    }
    out("%s: data=%llu obj=%s res=%s res2=%lld", label, (unsigned long long)ev.data,
        ev.obj == (uint64_t)(uintptr_t)cb ? "iocb" : "other", resname(ev.res), (long long)ev.res2);
}
#endif
