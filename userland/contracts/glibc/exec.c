/* fork, exec and wait with dynamic programs: a child re-executes this
 * program (through /proc/self/exe and by path, with argv and environment
 * checked on the other side, so the loader runs again in the child),
 * execvp searching PATH, exit statuses and signals reported by waitpid,
 * and exec failures leaving the caller running. */
#include "common.h"

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        out("child: argc %d, argv[2] %s, KEVLAR_VAR=%s", argc, argv[2], getenv("KEVLAR_VAR") ?: "(unset)");
        char exe[256];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        out("child: /proc/self/exe %s", exe);
        if (strcmp(argv[2], "crash") == 0)
            *(volatile int *)0 = 1;
        return atoi(argv[2]);
    }
    char self[256];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    out("parent: /proc/self/exe %s", self);

    const char *how[] = { "/proc/self/exe", "/contracts/glibc/exec" };
    const char *code[] = { "7", "crash" };
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            char *av[] = { "exec-child", "child", (char *)code[i], NULL };
            char *ev[] = { "KEVLAR_VAR=hello", NULL };
            execve(how[i], av, ev);
            out("execve: %s", errname(errno));
            _exit(127);
        }
        int st;
        pid_t w = waitpid(pid, &st, 0);
        out("waitpid same pid: %s", w == pid ? "yes" : "no");
        if (WIFEXITED(st))
            out("exited %d", WEXITSTATUS(st));
        else
            out("killed by %s", signame(WTERMSIG(st)));
    }

    /* execvp searches PATH; a missing program fails in the child. */
    setenv("PATH", "/nonexistent:/contracts/glibc", 1);
    pid_t pid = fork();
    if (pid == 0) {
        char *av[] = { "exec", "child", "3", NULL };
        setenv("KEVLAR_VAR", "via-execvp", 1);
        execvp("exec", av);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    out("execvp: exited %d", WEXITSTATUS(st));
    char *av[] = { "x", NULL };
    /* (each call is made before its errno is read) */
    int r = execv("/nonexistent/prog", av);
    out("execv missing: %d %s", r, errname(errno));
    r = execv("/contracts", av);
    out("execv directory: %d %s", r, errname(errno));
    r = execv("/etc/passwd", av);
    out("execv non-executable: %d %s", r, errname(errno));

    /* vfork + exec, as some programs still do. */
    pid = vfork();
    if (pid == 0) {
        char *av2[] = { "exec", "child", "5", NULL };
        execv("/contracts/glibc/exec", av2);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    out("vfork+execv: exited %d", WEXITSTATUS(st));
    r = waitpid(-1, &st, WNOHANG);
    out("waitpid with no children: %d %s", r, errname(errno));
    return 0;
}
