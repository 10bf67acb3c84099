/* The creator of a user namespace has every capability in it, and over
 * the namespaces made in it, but not outside: uid 1000 in a new user
 * namespace sets the host name of a UTS namespace made with it (not the
 * initial one's), mounts tmpfs in a mount namespace made in it (not in
 * the initial one), and is still refused files it could not open before
 * (owned by ids the namespace does not map); stat shows them owned by
 * 65534, and what it creates as its own; a program it runs gets root's
 * capabilities there, and set-user-id root is ignored. */
#include "../common.h"
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define CAP_SYS_ADMIN 21
struct cap_header { unsigned version; int pid; };
struct cap_data { unsigned effective, permitted, inheritable; };

static void map_self(void)
{
    int fd = open("/proc/self/setgroups", O_WRONLY);
    if (fd >= 0) { write(fd, "deny", 4); close(fd); }
    fd = open("/proc/self/uid_map", O_WRONLY);
    if (fd >= 0) { write(fd, "0 1000 1", 8); close(fd); }
    fd = open("/proc/self/gid_map", O_WRONLY);
    if (fd >= 0) { write(fd, "0 1000 1", 8); close(fd); }
}

static void caps(const char *label)
{
    struct cap_header h = { 0x20080522, 0 };
    struct cap_data d[2];
    if (syscall(SYS_capget, &h, d) < 0) {
        out("%s: capget %s", label, errname(errno));
        return;
    }
    out("%s: CAP_SYS_ADMIN effective %s, permitted %s", label, yesno(d[0].effective >> CAP_SYS_ADMIN & 1), yesno(d[0].permitted >> CAP_SYS_ADMIN & 1));
}

static void stat_owner(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        out("stat %s: %s", path, errname(errno));
    else
        out("stat %s: uid %d gid %d", path, (int)st.st_uid, (int)st.st_gid);
}

int main(void)
{
    mkdir("m", 0777);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0)
            _exit(9);
        /* Dumpable again, so that its /proc files are its own. */
        prctl(PR_SET_DUMPABLE, 1);
        caps("uid 1000");
        check("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
        caps("in new user ns");
        check("sethostname (initial UTS ns)", sethostname("inside", 6));
        check("mount tmpfs (initial mount ns)", mount("x", "m", "tmpfs", 0, NULL));
        map_self();
        check("unshare(CLONE_NEWUTS)", unshare(CLONE_NEWUTS));
        check("sethostname (own UTS ns)", sethostname("inside", 6));
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("mount tmpfs (own mount ns)", mount("x", "m", "tmpfs", 0, NULL));
        int fd = open("m/f", O_CREAT | O_WRONLY, 0644);
        check("create m/f", fd);
        close(fd);
        stat_owner("m/f");
        stat_owner("m");
        stat_owner("/");
        stat_owner("/contracts/list");
        check("open /contracts/list for writing", open("/contracts/list", O_WRONLY));
        check("chown m/f 0:0", chown("m/f", 0, 0));
        check("chown m/f 5:5", chown("m/f", 5, 5));
        /* exec as the namespace's root: root's capabilities; the helper's
         * set-user-id bit is ignored (its owner is not mapped here). */
        pid_t e = fork();
        if (e == 0) {
            execl(HELPERS "/setuid-ids", "setuid-ids", "exec in ns:", (char *)NULL);
            _exit(127);
        }
        reap("exec", e);
        check("umount m", umount("m"));
        check("chroot .", chroot("."));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    char name[65];
    gethostname(name, sizeof name);
    out("host name unchanged: %s", yesno(strcmp(name, "inside") != 0));
    return 0;
}
