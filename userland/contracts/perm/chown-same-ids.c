/* chown by a user without CAP_CHOWN: only the owner may name an owner
 * (its own) or a group (the file's or one of its own). Naming the file's
 * current owner or group is refused to anyone else (EPERM), as a change
 * would be; -1 for both is allowed to anyone. Checked on a root-owned
 * file and on uid 1000's own file, for chown, fchown and lchown. */
#include "perm.h"

static void try(const char *label, int r)
{
    out("%s: %s", label, r == 0 ? "ok" : errname(errno));
}

int main(void)
{
    mkdir("/tmp/chown-same", 0777);
    chmod("/tmp/chown-same", 0777);
    int fd = open("/tmp/chown-same/root-file", O_CREAT | O_WRONLY, 0644);
    close(fd);
    chown("/tmp/chown-same/root-file", 0, 0);
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        const char *r = "/tmp/chown-same/root-file";
        try("root's file, owner root (its own), group -1", chown(r, 0, -1));
        try("root's file, owner -1, group root (its own)", chown(r, -1, 0));
        try("root's file, -1 and -1", chown(r, -1, -1));
        try("root's file, owner 1000", chown(r, 1000, -1));
        int rfd = open(r, O_RDONLY);
        try("root's file by fd, group root", fchown(rfd, -1, 0));
        close(rfd);
        const char *mine = "/tmp/chown-same/mine";
        int m = open(mine, O_CREAT | O_WRONLY, 0644);
        close(m);
        try("own file, owner 1000", chown(mine, 1000, -1));
        try("own file, group 1000", chown(mine, -1, 1000));
        try("own file, owner 1000 and group 1000", lchown(mine, 1000, 1000));
        try("own file, group root (not a member)", chown(mine, -1, 0));
        try("own file, owner root", chown(mine, 0, -1));
        _exit(0);
    }
    reap("child", pid);
    unlink("/tmp/chown-same/root-file");
    unlink("/tmp/chown-same/mine");
    rmdir("/tmp/chown-same");
    return 0;
}
