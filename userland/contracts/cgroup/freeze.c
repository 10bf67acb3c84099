/* cgroup.freeze: the subtree's tasks stop (a busy loop makes no
 * progress) and cgroup.events reports "frozen 1" once they all have;
 * writing 0 thaws them. SIGKILL still ends a frozen process. Values
 * other than 0 and 1 are refused. */
#include "cg.h"
#include <sys/mman.h>

#define A CG "/t-freeze"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    cg_try("write 2", A "/cgroup.freeze", "2");
    cg_try("write junk", A "/cgroup.freeze", "x");
    cg_try("freeze an empty cgroup", A "/cgroup.freeze", "1");
    out("empty cgroup frozen: %s", yesno(cg_wait_key(A "/cgroup.events", "frozen", 1)));
    cg_try("thaw", A "/cgroup.freeze", "0");
    out("thawed: %s", yesno(cg_wait_key(A "/cgroup.events", "frozen", 0)));
    volatile unsigned long *counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            (*counter)++;
    }
    cg_move(A, child);
    while (*counter == 0)
        msleep(1);
    cg_try("freeze", A "/cgroup.freeze", "1");
    cg_show("cgroup.freeze", A "/cgroup.freeze");
    out("frozen: %s", yesno(cg_wait_key(A "/cgroup.events", "frozen", 1)));
    unsigned long before = *counter;
    msleep(200);
    out("counter still while frozen: %s", yesno(*counter == before));
    cg_try("thaw", A "/cgroup.freeze", "0");
    out("thawed: %s", yesno(cg_wait_key(A "/cgroup.events", "frozen", 0)));
    before = *counter;
    for (int i = 0; i < 200 && *counter == before; i++)
        msleep(10);
    out("counter moves again: %s", yesno(*counter != before));
    cg_try("freeze again", A "/cgroup.freeze", "1");
    out("frozen again: %s", yesno(cg_wait_key(A "/cgroup.events", "frozen", 1)));
    kill(child, SIGKILL);
    reap("child killed while frozen", child);
    cg_show("events", A "/cgroup.events");
    cg_try("thaw", A "/cgroup.freeze", "0");
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
