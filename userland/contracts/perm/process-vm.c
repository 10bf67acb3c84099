/* process_vm_readv and process_vm_writev: the caller's own memory, a
 * child's (read, written, copy-on-write pages copied), the argument
 * checks (flags, UIO_MAXIOV, zero lengths before the pid is looked at,
 * ESRCH, EFAULT for the arrays and local buffers outside user space),
 * partial transfers stopping at an inaccessible remote page, writes to a
 * read-only mapping, a zombie; then as uid 1000: a root process (EPERM),
 * its own child, its parent of the same user (Yama's relational scope:
 * only descendants), and with CAP_SYS_PTRACE. */
#include "perm.h"
#include <sys/mman.h>
#include <sys/uio.h>

static char secret[64] = "the parent's secret";

static long vm_read(pid_t pid, void *local, size_t llen, const void *remote, size_t rlen)
{
    struct iovec l = { local, llen }, r = { (void *)remote, rlen };
    return rawsys(SYS_process_vm_readv, pid, (long)&l, 1, (long)&r, 1, 0);
}

static long vm_write(pid_t pid, const void *local, size_t llen, void *remote, size_t rlen)
{
    struct iovec l = { (void *)local, llen }, r = { remote, rlen };
    return rawsys(SYS_process_vm_writev, pid, (long)&l, 1, (long)&r, 1, 0);
}

static void result(const char *label, long r)
{
    if (r < 0 && r > -4096)
        out("%s: %s", label, errname((int)-r));
    else
        out("%s: %ld", label, r);
}

static void self_checks(void)
{
    char buf[64] = "";
    pid_t me = getpid();
    result("read self", vm_read(me, buf, sizeof buf, secret, sizeof secret));
    out("  got: %s", buf);
    /* Several segments on both sides, of different sizes. */
    char a[5] = "", b[30] = "";
    struct iovec l[2] = { { a, 4 }, { b, 20 } };
    struct iovec r[3] = { { secret, 3 }, { secret + 3, 0 }, { secret + 4, 30 } };
    result("read self, scattered", rawsys(SYS_process_vm_readv, me, (long)l, 2, (long)r, 3, 0));
    out("  got: '%s' '%s'", a, b);
    result("flags 1", rawsys(SYS_process_vm_readv, me, (long)l, 2, (long)r, 3, 1));
    result("1025 local iovecs", rawsys(SYS_process_vm_readv, me, (long)l, 1025, (long)r, 1, 0));
    result("1025 remote iovecs", rawsys(SYS_process_vm_readv, me, (long)l, 1, (long)r, 1025, 0));
    struct iovec empty = { buf, 0 };
    result("empty local, no such pid", rawsys(SYS_process_vm_readv, 999999, (long)&empty, 1, (long)r, 1, 0));
    result("empty remote, no such pid", rawsys(SYS_process_vm_readv, 999999, (long)l, 1, (long)&empty, 1, 0));
    result("no such pid", vm_read(999999, buf, 8, secret, 8));
    result("bad local iovec array", rawsys(SYS_process_vm_readv, me, 8, 1, (long)r, 1, 0));
    result("bad remote iovec array", rawsys(SYS_process_vm_readv, me, (long)l, 1, 8, 1, 0));
    result("negative local length", vm_read(me, buf, (size_t)-1, secret, 8));
    result("local buffer in the kernel half", vm_read(me, (void *)0xffff800000000000UL, 8, secret, 8));
    result("remote address unmapped", vm_read(me, buf, 8, (void *)8, 8));
    result("local buffer unmapped", vm_read(me, (void *)8, 8, secret, 8));
    char *pages = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(pages, 'p', 2 * 4096);
    mprotect(pages + 2 * 4096, 4096, PROT_NONE);
    static char big[3 * 4096];
    result("read across into PROT_NONE", vm_read(me, big, sizeof big, pages + 100, 3 * 4096 - 200));
    result("read starting in PROT_NONE", vm_read(me, big, 8, pages + 2 * 4096, 8));
    mprotect(pages + 4096, 4096, PROT_READ);
    result("write to a read-only page", vm_write(me, "x", 1, pages + 4096, 1));
    result("write running into a read-only page", vm_write(me, big, 8192, pages + 100, 8192));
    result("write to a writable page", vm_write(me, "q", 1, pages, 1));
    out("  the byte: %c", pages[0]);
}

static void child_checks(void)
{
    int to_child[2], from_child[2];
    pipe(to_child);
    pipe(from_child);
    pid_t child = fork();
    if (child == 0) {
        char c;
        read(to_child[0], &c, 1);
        out("  child sees: %s", secret);
        write(from_child[1], "x", 1);
        read(to_child[0], &c, 1);
        _exit(0);
    }
    char buf[64] = "";
    result("read a child (copy-on-write page)", vm_read(child, buf, sizeof buf, secret, sizeof secret));
    out("  got: %s", buf);
    result("write a child", vm_write(child, "the child's copy", 17, secret, 17));
    write(to_child[1], "x", 1);
    char c;
    read(from_child[0], &c, 1);
    out("  parent still sees: %s", secret);
    write(to_child[1], "x", 1);
    waitpid(child, NULL, 0);
    result("read a reaped child", vm_read(child, buf, 8, secret, 8));
    child = fork();
    if (child == 0)
        _exit(0);
    siginfo_t si;
    waitid(P_PID, child, &si, WEXITED | WNOWAIT);
    result("read a zombie", vm_read(child, buf, 8, secret, 8));
    waitpid(child, NULL, 0);
}

static void user_checks(long root_pid)
{
    char buf[64] = "";
    result("  read root's process", vm_read((pid_t)root_pid, buf, 8, secret, 8));
    result("  write root's process", vm_write((pid_t)root_pid, "x", 1, secret, 1));
    /* A child of this user: a descendant. */
    int go[2];
    pipe(go);
    pid_t child = fork();
    if (child == 0) {
        char c;
        read(go[0], &c, 1);
        _exit(0);
    }
    result("  read own child", vm_read(child, buf, 8, secret, 8));
    /* The child reads its parent (same user, not a descendant). */
    pid_t parent = getpid();
    pid_t reader = fork();
    if (reader == 0) {
        result("  child reads its parent", vm_read(parent, buf, 8, secret, 8));
        _exit(0);
    }
    waitpid(reader, NULL, 0);
    write(go[1], "x", 1);
    waitpid(child, NULL, 0);
}

int main(void)
{
    self_checks();
    child_checks();
    pid_t root = sleeper(0);
    out("uid 1000");
    as_user(NO_CAP, user_checks, root);
    out("uid 1000 with CAP_SYS_PTRACE");
    as_user(CAP_SYS_PTRACE_, user_checks, root);
    end_sleeper(root);
    return 0;
}
