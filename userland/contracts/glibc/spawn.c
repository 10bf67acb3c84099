/* posix_spawn with glibc (clone with CLONE_VM|CLONE_VFORK on a separate
 * stack): file actions (open, dup2, close, chdir), the signal mask and
 * default dispositions, a new process group, posix_spawnp's PATH search,
 * and errors (a missing program, a failing file action) reported as the
 * return value, not by a child that exits 127. */
#include "common.h"
#include <spawn.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        sigset_t m;
        sigprocmask(SIG_SETMASK, NULL, &m);
        struct sigaction sa;
        sigaction(SIGUSR2, NULL, &sa);
        char cwd[128];
        out("child: %s, USR1 blocked %d, USR2 %s, own group %s, cwd %s", argv[2], sigismember(&m, SIGUSR1),
            sa.sa_handler == SIG_DFL ? "default" : "other", getpgrp() == getpid() ? "yes" : "no",
            getcwd(cwd, sizeof cwd));
        return 4;
    }
    int st;
    pid_t pid;
    char *av[] = { "spawn", "child", "plain", NULL };
    /* The child prints as it runs: report after reaping it. */
    int r = posix_spawn(&pid, "/contracts/glibc/spawn", NULL, NULL, av, environ);
    waitpid(pid, &st, 0);
    out("posix_spawn: %s", errname(r));
    out("status: exited %d", WEXITSTATUS(st));

    /* Output redirected into a file by file actions. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 3, "spawned.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 3, 1);
    posix_spawn_file_actions_addclose(&fa, 3);
    posix_spawn_file_actions_addchdir_np(&fa, "/tmp");
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR1);
    posix_spawnattr_setsigmask(&at, &mask);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGUSR2);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    signal(SIGUSR2, SIG_IGN);
    char *av2[] = { "spawn", "child", "redirected", NULL };
    r = posix_spawn(&pid, "/contracts/glibc/spawn", &fa, &at, av2, environ);
    out("posix_spawn with actions: %s", errname(r));
    waitpid(pid, &st, 0);
    out("status: exited %d", WEXITSTATUS(st));
    char buf[256] = "";
    int fd = open("spawned.txt", O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    close(fd);
    out("file got: %s", strtok(buf, "\n"));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);

    setenv("PATH", "/nope:/contracts/glibc", 1);
    char *av3[] = { "spawn", "child", "via-path", NULL };
    r = posix_spawnp(&pid, "spawn", NULL, NULL, av3, environ);
    waitpid(pid, &st, 0);
    out("posix_spawnp: %s", errname(r));
    out("status: exited %d", WEXITSTATUS(st));

    r = posix_spawn(&pid, "/nonexistent/prog", NULL, NULL, av, environ);
    out("posix_spawn missing program: %s", errname(r));
    r = posix_spawnp(&pid, "no-such-program", NULL, NULL, av, environ);
    out("posix_spawnp missing program: %s", errname(r));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 5, "/nonexistent/file", O_RDONLY, 0);
    r = posix_spawn(&pid, "/contracts/glibc/spawn", &fa, NULL, av, environ);
    out("posix_spawn failing open action: %s", errname(r));
    r = waitpid(-1, &st, WNOHANG);
    out("no child left: %d %s", r, errname(errno));
    return 0;
}
