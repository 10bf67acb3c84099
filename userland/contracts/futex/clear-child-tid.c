/* CLONE_CHILD_CLEARTID: when a CLONE_VM child exits, the kernel stores 0
 * at the tid word and does a FUTEX_WAKE there, so a parent waiting on it
 * (how thread libraries join) returns. CLONE_PARENT_SETTID and
 * CLONE_CHILD_SETTID store the child's tid before it runs. */
#include "common.h"
#include "futex.h"
#include <sched.h>
#include <sys/mman.h>

static volatile int ctid, ptid, settid_seen;
static volatile int release_child;

static int child(void *arg)
{
    (void)arg;
    settid_seen = ctid;
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 100 && !release_child; i++)
        nanosleep(&ms, NULL);
    return 0;
}

int main(void)
{
    size_t size = 64 * 1024;
    char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* The child stores its tid when it first runs, maybe after we look:
     * start from -1, which only the child's store or its exit changes. */
    ctid = -1;
    int flags = CLONE_VM | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_PARENT_SETTID | SIGCHLD;
    pid_t pid = clone(child, stack + size, flags, NULL, &ptid, NULL, &ctid);
    if (pid < 0) {
        out("clone: %s", errname(errno));
        return 0;
    }
    out("parent tid stored: %s", yesno(ptid == pid));
    release_child = 1;
    /* Join: wait while the word is not 0 (the exit's store wakes us). */
    long waits = 0;
    for (int i = 0; i < 1000; i++) {
        int seen = ctid;
        if (seen == 0)
            break;
        struct timespec five = {5, 0};
        long r = rawsys(SYS_futex, (long)&ctid, FUTEX_WAIT, seen, (long)&five, 0, 0);
        if (r == -ETIMEDOUT) {
            out("join: timed out");
            break;
        }
        waits++;
    }
    out("tid word after exit: %d", ctid);
    out("child saw its tid (CLONE_CHILD_SETTID): %s", yesno(settid_seen == pid));
    reap("child", pid);

    /* A fork child's clear_child_tid is in its own memory: ours stays. */
    ctid = 1234;
    pid = (pid_t)rawsys(SYS_clone, CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0, (long)&ctid, 0, 0);
    if (pid == 0)
        _exit(0);
    reap("fork child", pid);
    out("parent's word after a fork child's exit: %d", ctid);

    /* set_tid_address returns the tid, and a process alone in its address
     * space does not clear the word at exit (nobody could see it)... but a
     * MAP_SHARED word is seen by others: Linux still leaves it alone. */
    volatile int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared[0] = 77;
    pid = fork();
    if (pid == 0) {
        long tid = rawsys(SYS_set_tid_address, (long)shared, 0, 0, 0, 0, 0);
        _exit(tid == getpid() ? 0 : 1);
    }
    reap("set_tid_address child", pid);
    out("shared word after its exit: %d", shared[0]);
    return 0;
}
