/* A process whose parent exits is reparented to init (pid 1): its getppid()
 * becomes 1. The grandchild reports over a pipe. */
#include "common.h"

int main(void)
{
    int pfd[2], first[2];
    pipe(pfd);
    pid_t child = fork();
    if (child == 0) {
        pipe(first);
        pid_t me = getpid();
        pid_t gc = fork();
        if (gc == 0) {
            close(pfd[0]);
            char c = getppid() == me ? 'y' : 'n';
            write(first[1], &c, 1);
            /* Wait (bounded) for our parent to die. */
            int ok = 0;
            for (int i = 0; i < 500; i++) {
                if (getppid() == 1) {
                    ok = 1;
                    break;
                }
                msleep(10);
            }
            char r[2] = {c, ok ? 'y' : 'n'};
            write(pfd[1], r, 2);
            _exit(0);
        }
        char c;
        read(first[0], &c, 1); /* exit only after the grandchild saw us */
        _exit(0);
    }
    close(pfd[1]);
    reap("middle process", child);
    char r[2] = {0};
    ssize_t n = read_full(pfd[0], r, 2);
    out("grandchild report bytes: %ld", (long)n);
    out("grandchild first saw its real parent: %s", yesno(r[0] == 'y'));
    out("grandchild reparented to pid 1: %s", yesno(r[1] == 'y'));
    out("read after grandchild exit: %ld", (long)read(pfd[0], r, 2));
    return 0;
}
