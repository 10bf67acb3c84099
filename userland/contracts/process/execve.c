/* execve of a helper: argv and envp arrive intact, the pid is kept, and the
 * error cases fail with the documented errno. */
#include "common.h"

static void run(char *path, char **argv, char **envp)
{
    pid_t pid = fork();
    if (pid == 0) {
        execve(path, argv, envp);
        out("execve %s: %s", argv[0], errname(errno));
        _exit(100);
    }
    reap(argv[0], pid);
}

int main(void)
{
    char *env[] = {"CONTRACT_A=1", "OTHER=2", "CONTRACT_B=with space", NULL};
    run(HELPERS "/print-args", (char *[]){"print-args", "one", "", "three four", NULL}, env);

    char pidbuf[32];
    pid_t pid = fork();
    if (pid == 0) {
        snprintf(pidbuf, sizeof pidbuf, "%d", getpid());
        execve(HELPERS "/probe", (char *[]){"probe", "pid-is", pidbuf, NULL}, env);
        _exit(100);
    }
    reap("probe pid-is", pid);

    run(HELPERS "/exit-with", (char *[]){"exit-with", "77", NULL}, env);

    /* Errors, each in the calling process (execve returns on failure). */
    errno = 0;
    show("execve missing file", execve("/contracts/no-such-file", (char *[]){"x", NULL}, env));
    put_file("not-executable", "#!/contracts/helpers/print-args\n");
    chmod("not-executable", 0644);
    show("execve mode 0644", execve("not-executable", (char *[]){"x", NULL}, env));
    put_file("garbage", "this is neither ELF nor a script\n");
    chmod("garbage", 0755);
    show("execve unknown format", execve("./garbage", (char *[]){"x", NULL}, env));
    mkdir("dir", 0755);
    show("execve directory", execve("dir", (char *[]){"x", NULL}, env));
    show("execve through a file", execve(HELPERS "/exit-with/x", (char *[]){"x", NULL}, env));
    return 0;
}
