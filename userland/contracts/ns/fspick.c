/* fspick(2) as Linux 6.1: a file-system context on a mounted file
 * system (the path must be a mount's root), its flags (FSPICK_CLOEXEC,
 * FSPICK_SYMLINK_NOFOLLOW, FSPICK_EMPTY_PATH, FSPICK_NO_AUTOMOUNT) and
 * errors, then FSCONFIG_CMD_RECONFIGURE changing a tmpfs's size and
 * nr_inodes (statfs and mountinfo see it; EINVAL below what is in use or
 * on an unlimited size, after which the context is EBUSY), again and
 * again on one context; CMD_CREATE and fsmount on it are EBUSY, and
 * CMD_RECONFIGURE on fsopen's context too; EPERM as uid 1000. */
#include "../common.h"
#include "newmount.h"
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#define NR_fspick 433
#define FSPICK_CLOEXEC 1
#define FSPICK_SYMLINK_NOFOLLOW 2
#define FSPICK_NO_AUTOMOUNT 4
#define FSPICK_EMPTY_PATH 8

static long fspick(int dfd, const char *path, unsigned flags)
{
    return rawsys(NR_fspick, dfd, (long)path, flags, 0, 0, 0);
}

static long fsconfig(int fd, int cmd, const char *key, const void *value, int aux)
{
    return rawsys(NR_fsconfig, fd, cmd, (long)key, (long)value, aux, 0);
}

/* The super options of the mount at a path ending in `suffix`. */
static void show_mount(const char *suffix)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char point[256], type[64], source[64], super[128];
        if (sscanf(line, "%*d %*d %*s %*s %255s", point) != 1)
            continue;
        size_t n = strlen(point), m = strlen(suffix);
        if (n < m || strcmp(point + n - m, suffix) != 0)
            continue;
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(dash, " - %63s %63s %127s", type, source, super) != 3)
            continue;
        out("mountinfo %s: %s %s", suffix, type, super);
    }
    if (f)
        fclose(f);
}

/* The node count only once nr_inodes is set (the default is the
 * machine's). */
static void show_statfs(const char *path, int files)
{
    struct statfs s;
    if (statfs(path, &s) < 0)
        out("statfs %s: %s", path, errname(errno));
    else if (files)
        out("statfs %s: blocks %llu files %llu", path, (unsigned long long)s.f_blocks, (unsigned long long)s.f_files);
    else
        out("statfs %s: blocks %llu", path, (unsigned long long)s.f_blocks);
}

static void fill(const char *path, size_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char buf[65536];
    memset(buf, 'x', sizeof buf);
    size_t done = 0;
    while (done < bytes) {
        ssize_t w = write(fd, buf, bytes - done < sizeof buf ? bytes - done : sizeof buf);
        if (w <= 0)
            break;
        done += w;
    }
    close(fd);
    out("wrote %zu bytes to %s", done, path);
}

int main(void)
{
    mkdir("fm", 0755);
    check("mount tmpfs size=4m on fm", mount("none", "fm", "tmpfs", 0, "size=4m"));
    mkdir("fm/sub", 0755);
    symlink("fm", "link");
    mkdir("unl", 0755);
    check("mount tmpfs size=0 on unl", mount("none", "unl", "tmpfs", 0, "size=0"));

    rcheck("fspick flags 0x10", fspick(AT_FDCWD, "fm", 0x10));
    rcheck("fspick missing path", fspick(AT_FDCWD, "nosuch", 0));
    rcheck("fspick bad path pointer", fspick(AT_FDCWD, (const char *)8, 0));
    rcheck("fspick a directory inside the mount", fspick(AT_FDCWD, "fm/sub", 0));
    rcheck("fspick a directory that is no mount", fspick(AT_FDCWD, ".", 0));
    rcheck("fspick empty path", fspick(AT_FDCWD, "", 0));
    rcheck("fspick bad dfd", fspick(900, "fm", 0));
    rcheck("fspick link with SYMLINK_NOFOLLOW", fspick(AT_FDCWD, "link", FSPICK_SYMLINK_NOFOLLOW));
    long l = rcheck("fspick link", fspick(AT_FDCWD, "link", FSPICK_NO_AUTOMOUNT));
    close(l);
    int dir = open("fm", O_RDONLY | O_DIRECTORY);
    long e = rcheck("fspick EMPTY_PATH on the mount's root", fspick(dir, "", FSPICK_EMPTY_PATH));
    close(e);
    close(dir);

    int fc = rcheck("fspick fm CLOEXEC", fspick(AT_FDCWD, "fm", FSPICK_CLOEXEC));
    out("close-on-exec: %s", yesno(fcntl(fc, F_GETFD) & FD_CLOEXEC));
    char link[64], target[64] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fc);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    out("fd link: %s", target);
    char byte;
    out("read: %s", read(fc, &byte, 1) < 0 ? errname(errno) : "data");

    rcheck("RECONFIGURE with nothing set", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    show_statfs("fm", 0);
    rcheck("SET_STRING size 2m", fsconfig(fc, FSCONFIG_SET_STRING, "size", "2m", 0));
    rcheck("SET_STRING bogus", fsconfig(fc, FSCONFIG_SET_STRING, "bogus", "1", 0));
    rcheck("RECONFIGURE", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    show_statfs("fm", 0);
    show_mount("/fm");
    rcheck("SET_STRING nr_inodes 50", fsconfig(fc, FSCONFIG_SET_STRING, "nr_inodes", "50", 0));
    rcheck("SET_STRING mode 0700", fsconfig(fc, FSCONFIG_SET_STRING, "mode", "0700", 0));
    rcheck("SET_FLAG rw", fsconfig(fc, FSCONFIG_SET_FLAG, "rw", NULL, 0));
    rcheck("RECONFIGURE again", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    show_statfs("fm", 1);
    show_mount("/fm");
    struct stat st;
    stat("fm", &st);
    out("root mode: %o", st.st_mode & 07777);
    rcheck("CMD_CREATE on fspick's context", fsconfig(fc, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
    rcheck("fsmount of fspick's context", rawsys(NR_fsmount, fc, 0, 0, 0, 0, 0));

    fill("fm/big", 1536 * 1024);
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "fm/f%d", i);
        close(open(name, O_CREAT | O_WRONLY, 0644));
    }
    rcheck("SET_STRING nr_inodes 3", fsconfig(fc, FSCONFIG_SET_STRING, "nr_inodes", "3", 0));
    rcheck("RECONFIGURE below the nodes in use", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    rcheck("SET_STRING after the failure", fsconfig(fc, FSCONFIG_SET_STRING, "size", "3m", 0));
    rcheck("RECONFIGURE after the failure", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    close(fc);
    show_statfs("fm", 1);

    fc = rcheck("fspick fm again", fspick(AT_FDCWD, "fm", 0));
    rcheck("SET_STRING size 1m", fsconfig(fc, FSCONFIG_SET_STRING, "size", "1m", 0));
    rcheck("RECONFIGURE below the size in use", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    close(fc);
    fc = rcheck("fspick fm a third time", fspick(AT_FDCWD, "fm", 0));
    rcheck("SET_STRING size 0", fsconfig(fc, FSCONFIG_SET_STRING, "size", "0", 0));
    rcheck("RECONFIGURE to no size limit", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    close(fc);
    show_statfs("fm", 1);
    show_mount("/fm");
    fill("fm/big2", 3 * 1024 * 1024);

    fc = rcheck("fspick unl", fspick(AT_FDCWD, "unl", 0));
    rcheck("SET_STRING size 1m", fsconfig(fc, FSCONFIG_SET_STRING, "size", "1m", 0));
    rcheck("RECONFIGURE limiting an unlimited size", fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    close(fc);
    show_mount("/unl");

    int fo = rcheck("fsopen tmpfs", rawsys(NR_fsopen, (long)"tmpfs", 0, 0, 0, 0, 0));
    rcheck("RECONFIGURE on fsopen's context", fsconfig(fo, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    close(fo);

    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        rcheck("fspick as uid 1000", fspick(AT_FDCWD, "fm", 0));
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);
    umount("fm");
    umount("unl");
    return 0;
}
