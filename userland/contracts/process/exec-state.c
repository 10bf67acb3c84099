/* What execve keeps and what it resets: O_CLOEXEC fds close, others stay;
 * caught signals reset to default, ignored stay ignored; the mask and the
 * cwd are kept. */
#include "common.h"

static void handler(int s) { (void)s; }

int main(void)
{
    int keep = open("kept", O_CREAT | O_WRONLY, 0644);
    int gone = open("gone", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    out("fds: kept=%d cloexec=%d", keep, gone);
    signal(SIGUSR1, handler);
    signal(SIGUSR2, SIG_IGN);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigprocmask(SIG_BLOCK, &m, NULL);
    mkdir("sub", 0755);
    chdir("sub");
    pid_t pid = fork();
    if (pid == 0) {
        execve(HELPERS "/probe", (char *[]){"probe", "fd", "3", "4", NULL}, (char *[]){NULL});
        _exit(100);
    }
    reap("probe fd", pid);
    pid = fork();
    if (pid == 0) {
        execve(HELPERS "/probe", (char *[]){"probe", "sig", NULL}, (char *[]){NULL});
        _exit(100);
    }
    reap("probe sig", pid);
    pid = fork();
    if (pid == 0) {
        execve(HELPERS "/probe", (char *[]){"probe", "cwd", NULL}, (char *[]){NULL});
        _exit(100);
    }
    reap("probe cwd", pid);
    return 0;
}
