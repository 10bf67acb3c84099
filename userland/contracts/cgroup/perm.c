/* Who may move a process: the writer needs write access to cgroup.procs
 * of the common ancestor of source and destination (delegation by chown),
 * checked with the credentials of the file's opener. */
#include "cg.h"

#define A CG "/t-perm"

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    mkdir(A "/x", 0755);
    mkdir(A "/y", 0755);
    /* Delegate A to uid 1000: the directory and its cgroup.procs. */
    chown(A, 1000, 1000);
    chown(A "/cgroup.procs", 1000, 1000);
    chown(A "/x/cgroup.procs", 1000, 1000);
    chown(A "/y/cgroup.procs", 1000, 1000);
    struct stat st;
    if (stat(A "/cgroup.procs", &st) == 0)
        out("delegated cgroup.procs owner %d mode %o", (int)st.st_uid, st.st_mode & 0777);
    cg_move(A "/x", 0);
    pid_t child = fork();
    if (child == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(2);
        check("uid 1000: x to y (common ancestor delegated)", cg_move(A "/y", 0));
        cg_show("uid 1000: now", "/proc/self/cgroup");
        check("uid 1000: to the root", cg_move(CG, 0));
        check("uid 1000: open the root's cgroup.procs", open(CG "/cgroup.procs", O_WRONLY));
        check("uid 1000: mkdir in the delegated cgroup", mkdir(A "/z", 0755));
        if (stat(A "/z", &st) == 0)
            out("uid 1000: new cgroup owner %d", (int)st.st_uid);
        if (stat(A "/z/cgroup.procs", &st) == 0)
            out("uid 1000: its cgroup.procs owner %d", (int)st.st_uid);
        check("uid 1000: into it", cg_move(A "/z", 0));
        check("uid 1000: mkdir at the root", mkdir(CG "/t-perm-no", 0755));
        _exit(0);
    }
    reap("child", child);
    cg_move(CG, 0);
    /* An opener's rights count, not the writer's: root opens, uid 1000 writes. */
    int fd = open(CG "/cgroup.procs", O_WRONLY);
    child = fork();
    if (child == 0) {
        if (setgid(1000) < 0 || setuid(1000) < 0)
            _exit(2);
        char text[32];
        snprintf(text, sizeof text, "%d", getpid());
        cg_move(A "/y", 0);
        check("uid 1000: write to root's cgroup.procs opened by root", write(fd, text, strlen(text)));
        _exit(0);
    }
    reap("child", child);
    close(fd);
    rmdir(A "/z");
    rmdir(A "/x");
    rmdir(A "/y");
    check("rmdir", rmdir(A));
    cg_umount();
    return 0;
}
