/* process_madvise: flags must be 0 (EINVAL), more than 1024 iovecs or a
 * negative length EINVAL, an unreadable iovec array EFAULT, a pidfd that
 * is not one EBADF, advice other than COLD/PAGEOUT/WILLNEED EINVAL, a
 * zombie ESRCH; the bytes advised are returned (a later bad range stops
 * the count), a first bad range gives its error (EINVAL unaligned, ENOMEM
 * for a hole); another user without CAP_SYS_NICE: EPERM on its own
 * process, EACCES on root's. The memory stays as it was. */
#include "common.h"
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#endif

static long pm(int pidfd, struct iovec *v, size_t n, int advice, unsigned flags)
{
    return syscall(SYS_process_madvise, pidfd, v, n, advice, flags);
}

int main(void)
{
    int go[2];
    pipe(go);
    char *m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(m, 'x', 4 * 4096);
    munmap(m + 2 * 4096, 4096);
    pid_t child = fork();
    if (child == 0) {
        char c;
        read(go[0], &c, 1);
        out("child's memory kept: %s", yesno(m[0] == 'x' && m[4096] == 'x' && m[3 * 4096] == 'x'));
        _exit(0);
    }
    int pidfd = syscall(SYS_pidfd_open, child, 0);
    struct iovec one = { m, 4096 };
    struct iovec two[2] = { { m, 2 * 4096 }, { m + 3 * 4096, 4096 } };
    struct iovec holey[2] = { { m, 4096 }, { m, 4 * 4096 } };
    struct iovec unaligned = { m + 1, 4096 };
    struct iovec hole = { m + 2 * 4096, 4096 };
    struct iovec negative = { m, (size_t)-1 };
    show("COLD one page", pm(pidfd, &one, 1, MADV_COLD, 0));
    show("PAGEOUT two ranges", pm(pidfd, two, 2, MADV_PAGEOUT, 0));
    show("WILLNEED", pm(pidfd, &one, 1, MADV_WILLNEED, 0));
    show("a page, then a range over a hole", pm(pidfd, holey, 2, MADV_COLD, 0));
    show("a hole", pm(pidfd, &hole, 1, MADV_COLD, 0));
    show("unaligned", pm(pidfd, &unaligned, 1, MADV_COLD, 0));
    show("no ranges", pm(pidfd, &one, 0, MADV_COLD, 0));
    show("flags 1", pm(pidfd, &one, 1, MADV_COLD, 1));
    show("1025 iovecs", pm(pidfd, &one, 1025, MADV_COLD, 0));
    show("negative length", pm(pidfd, &negative, 1, MADV_COLD, 0));
    show("bad iovec array", pm(pidfd, (void *)8, 1, MADV_COLD, 0));
    show("MADV_DONTNEED", pm(pidfd, &one, 1, MADV_DONTNEED, 0));
    show("not a pidfd", pm(go[0], &one, 1, MADV_COLD, 0));
    show("bad fd", pm(999, &one, 1, MADV_COLD, 0));
    int self = syscall(SYS_pidfd_open, getpid(), 0);
    show("itself", pm(self, &one, 1, MADV_COLD, 0));

    pid_t other = fork();
    if (other == 0) {
        if (setresuid(65534, 65534, 65534) != 0)
            _exit(9);
        int mine = syscall(SYS_pidfd_open, getpid(), 0);
        show("nobody, its own process", pm(mine, &one, 1, MADV_COLD, 0));
        show("nobody, root's process", pm(pidfd, &one, 1, MADV_COLD, 0));
        _exit(0);
    }
    reap("nobody", other);

    write(go[1], "g", 1);
    siginfo_t si;
    waitid(P_PID, child, &si, WEXITED | WNOWAIT);
    show("zombie", pm(pidfd, &one, 1, MADV_COLD, 0));
    waitpid(child, NULL, 0);
    show("reaped", pm(pidfd, &one, 1, MADV_COLD, 0));
    return 0;
}
