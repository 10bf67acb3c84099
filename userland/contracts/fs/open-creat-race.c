/* open(O_CREAT) without O_EXCL is atomic: two processes creating and
 * unlinking the same name never see EEXIST (the loser of a create race
 * opens the winner's file), as sqlite's WAL files need. */
#include "common.h"

static int churn(void)
{
    int failures = 0;
    for (int i = 0; i < 3000; i++) {
        int fd = open("shared-name", O_RDWR | O_CREAT, 0644);
        if (fd < 0)
            failures++;
        else
            close(fd);
        unlink("shared-name");
    }
    return failures;
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(churn() == 0 ? 0 : 1);
    int failures = churn();
    int status;
    waitpid(pid, &status, 0);
    out("parent's opens all succeeded: %s", yesno(failures == 0));
    out("child's opens all succeeded: %s", yesno(WIFEXITED(status) && WEXITSTATUS(status) == 0));
    return 0;
}
