/* MS_MOVE into a shared mount propagates to its peers, as systemd makes
 * a unit's credentials mount (execute.c's setup_credentials): in a child
 * mount namespace it makes /dev a slave, mounts a ramfs on a directory
 * there (which stays in the child) and moves it to /run/credentials/UNIT,
 * which is shared with the host namespace: the host then has the ramfs
 * there (run-credentials-*.mount), as a mount of its own that outlives the
 * child, and unmounting it there does not touch the child's. */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include "common.h"

#define RAMFS_MAGIC 0x858458f6

static const char *type_of(const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) < 0)
        return errname(errno);
    return sf.f_type == RAMFS_MAGIC ? "ramfs" : sf.f_type == 0x01021994 ? "tmpfs" : "other";
}

int main(void)
{
    mkdir("base", 0755);
    check("mount tmpfs base", mount("none", "base", "tmpfs", 0, ""));
    check("make base shared", mount(NULL, "base", NULL, MS_SHARED, NULL));
    mkdir("base/run", 0755);
    mkdir("base/run/cred", 0700);
    mkdir("base/dev", 0755);
    check("mount tmpfs base/dev", mount("none", "base/dev", "tmpfs", 0, ""));
    mkdir("base/dev/w", 0700);
    int p[2], back[2];
    check("pipe", pipe(p));
    check("pipe back", pipe(back));
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        close(back[1]);
        check("child: unshare CLONE_NEWNS", unshare(CLONE_NEWNS));
        check("child: make base/dev a slave", mount(NULL, "base/dev", NULL, MS_SLAVE | MS_REC, NULL));
        check("child: mount ramfs on base/dev/w", mount("ramfs", "base/dev/w", "ramfs", MS_NODEV | MS_NOEXEC | MS_NOSUID, "mode=0700"));
        int fd = open("base/dev/w/secret", O_CREAT | O_WRONLY, 0400);
        check("child: write a credential", write(fd, "s3", 2));
        close(fd);
        check("child: move it to base/run/cred", mount("base/dev/w", "base/run/cred", NULL, MS_MOVE, NULL));
        out("child: base/run/cred is %s", type_of("base/run/cred"));
        out("child: base/dev/w is %s", type_of("base/dev/w"));
        int q = open("base/run/cred/secret", O_RDONLY);
        out("child: the credential %s", q >= 0 ? "is there" : errname(errno));
        close(q);
        /* Tell the parent, then wait until it has looked. */
        write(p[1], "x", 1);
        char c;
        read(back[0], &c, 1);
        _exit(0);
    }
    close(p[1]);
    close(back[0]);
    char c;
    read(p[0], &c, 1);
    out("parent: base/run/cred is %s", type_of("base/run/cred"));
    out("parent: base/dev/w is %s", type_of("base/dev/w"));
    int fd = open("base/run/cred/secret", O_RDONLY);
    char buf[4] = {0};
    if (fd >= 0) {
        read(fd, buf, 2);
        close(fd);
        out("parent: reads the credential: %s", buf);
    } else {
        out("parent: open the credential: %s", errname(errno));
    }
    close(back[1]);
    reap("child", pid);
    out("parent: after the child, base/run/cred is %s", type_of("base/run/cred"));
    check("parent: umount base/run/cred", umount("base/run/cred"));
    out("parent: then base/run/cred is %s", type_of("base/run/cred"));
    umount("base/dev");
    umount("base");
    return 0;
}
