/* fsopen/fsconfig/fsmount/move_mount as Linux 6.1: a tmpfs context takes
 * its string and flag parameters (unknown ones and a second source are
 * EINVAL), FSCONFIG_CMD_CREATE makes it once (then EBUSY), fsmount gives
 * a detached mount with its attributes that files can be made in, and
 * move_mount attaches it (then it moves like any mount); the argument
 * and descriptor errors of each call in Linux's order; EPERM as uid 1000. */
#include "../common.h"
#include "newmount.h"
#include <sys/mount.h>
#include <sys/statfs.h>

static long fsconfig(int fd, int cmd, const char *key, const void *value, int aux)
{
    return rawsys(NR_fsconfig, fd, cmd, (long)key, (long)value, aux, 0);
}

static void show_mount(const char *suffix)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char point[256], opts[128], type[64], source[64];
        if (sscanf(line, "%*d %*d %*s %*s %255s %127s", point, opts) != 2)
            continue;
        size_t n = strlen(point), m = strlen(suffix);
        if (n < m || strcmp(point + n - m, suffix) != 0)
            continue;
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(dash, " - %63s %63s", type, source) != 2)
            continue;
        out("mountinfo %s: %s %s %s", suffix, opts, type, source);
    }
    if (f)
        fclose(f);
}

int main(void)
{
    mkdir("fm", 0755);
    check("mount tmpfs on fm", mount("none", "fm", "tmpfs", 0, NULL));
    mkdir("fm/t", 0755);
    mkdir("fm/u", 0755);
    rcheck("fsopen nosuchfs", rawsys(NR_fsopen, (long)"nosuchfs", 0, 0, 0, 0, 0));
    rcheck("fsopen tmpfs flags 2", rawsys(NR_fsopen, (long)"tmpfs", 2, 0, 0, 0, 0));
    rcheck("fsopen bad name pointer", rawsys(NR_fsopen, 8, 0, 0, 0, 0, 0));
    int fs = rcheck("fsopen tmpfs", rawsys(NR_fsopen, (long)"tmpfs", FSOPEN_CLOEXEC, 0, 0, 0, 0));
    rcheck("fsconfig fd -1", fsconfig(-1, FSCONFIG_SET_FLAG, "ro", NULL, 0));
    rcheck("fsconfig unused fd", fsconfig(900, FSCONFIG_SET_FLAG, "ro", NULL, 0));
    int p[2];
    pipe(p);
    rcheck("fsconfig on a pipe", fsconfig(p[0], FSCONFIG_SET_FLAG, "ro", NULL, 0));
    rcheck("fsconfig unknown command", fsconfig(fs, 99, NULL, NULL, 0));
    rcheck("fsconfig SET_FLAG without key", fsconfig(fs, FSCONFIG_SET_FLAG, NULL, NULL, 0));
    rcheck("fsconfig SET_FLAG with value", fsconfig(fs, FSCONFIG_SET_FLAG, "ro", "x", 0));
    rcheck("fsconfig SET_STRING without value", fsconfig(fs, FSCONFIG_SET_STRING, "size", NULL, 0));
    rcheck("fsconfig CMD_CREATE with key", fsconfig(fs, FSCONFIG_CMD_CREATE, "x", NULL, 0));
    rcheck("fsconfig bad key pointer", fsconfig(fs, FSCONFIG_SET_FLAG, (const char *)8, NULL, 0));
    rcheck("fsconfig SET_STRING size", fsconfig(fs, FSCONFIG_SET_STRING, "size", "1M", 0));
    rcheck("fsconfig SET_STRING mode", fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0750", 0));
    rcheck("fsconfig SET_STRING bogus", fsconfig(fs, FSCONFIG_SET_STRING, "bogus", "1", 0));
    rcheck("fsconfig SET_FLAG bogus", fsconfig(fs, FSCONFIG_SET_FLAG, "bogus", NULL, 0));
    rcheck("fsconfig SET_FLAG size", fsconfig(fs, FSCONFIG_SET_FLAG, "size", NULL, 0));
    rcheck("fsconfig SET_BINARY size", fsconfig(fs, FSCONFIG_SET_BINARY, "size", "1M", 2));
    rcheck("fsconfig source", fsconfig(fs, FSCONFIG_SET_STRING, "source", "mysrc", 0));
    rcheck("fsconfig source again", fsconfig(fs, FSCONFIG_SET_STRING, "source", "other", 0));
    rcheck("fsconfig SET_FLAG source", fsconfig(fs, FSCONFIG_SET_FLAG, "source", NULL, 0));
    rcheck("fsconfig CMD_RECONFIGURE", fsconfig(fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
    rcheck("fsmount before CMD_CREATE", rawsys(NR_fsmount, fs, 0, 0, 0, 0, 0));
    rcheck("fsconfig CMD_CREATE", fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
    rcheck("fsconfig CMD_CREATE again", fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
    rcheck("fsconfig SET_STRING after create", fsconfig(fs, FSCONFIG_SET_STRING, "size", "2M", 0));
    rcheck("fsmount flags 2", rawsys(NR_fsmount, fs, 2, 0, 0, 0, 0));
    rcheck("fsmount attr 0x400", rawsys(NR_fsmount, fs, 0, 0x400, 0, 0, 0));
    rcheck("fsmount noatime|strictatime", rawsys(NR_fsmount, fs, 0, MOUNT_ATTR_NOATIME | MOUNT_ATTR_STRICTATIME, 0, 0, 0));
    rcheck("fsmount on a pipe", rawsys(NR_fsmount, p[0], 0, 0, 0, 0, 0));
    rcheck("fsmount unused fd", rawsys(NR_fsmount, 900, 0, 0, 0, 0, 0));
    int mfd = rcheck("fsmount nodev,noexec", rawsys(NR_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, 0, 0, 0));
    out("fsmount fd has O_PATH: %s", yesno(fcntl(mfd, F_GETFL) & O_PATH));
    out("fsmount fd is FD_CLOEXEC: %s", yesno(fcntl(mfd, F_GETFD) & FD_CLOEXEC));
    int f = openat(mfd, "file", O_CREAT | O_WRONLY, 0644);
    out("create a file in the detached mount: %s", f < 0 ? errname(errno) : "ok");
    if (f >= 0)
        close(f);
    struct statfs st;
    check("fstatfs of the detached mount", fstatfs(mfd, &st));
    out("detached: tmpfs %s nodev %s noexec %s", yesno(st.f_type == 0x01021994), yesno(st.f_flags & ST_NODEV), yesno(st.f_flags & ST_NOEXEC));
    struct stat sb;
    check("fstat of the detached root", fstat(mfd, &sb));
    out("detached root mode %o", sb.st_mode & 07777);
    rcheck("move_mount to a missing path", rawsys(NR_move_mount, mfd, (long)"", AT_FDCWD, (long)"fm/none", MOVE_MOUNT_F_EMPTY_PATH, 0));
    rcheck("move_mount without F_EMPTY_PATH", rawsys(NR_move_mount, mfd, (long)"", AT_FDCWD, (long)"fm/t", 0, 0));
    rcheck("move_mount MOVE_MOUNT_BENEATH", rawsys(NR_move_mount, mfd, (long)"", AT_FDCWD, (long)"fm/t", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_BENEATH, 0));
    rcheck("move_mount to fm/t", rawsys(NR_move_mount, mfd, (long)"", AT_FDCWD, (long)"fm/t", MOVE_MOUNT_F_EMPTY_PATH, 0));
    out("fm/t/file after the move: %s", stat("fm/t/file", &sb) == 0 ? "exists" : errname(errno));
    check("statfs fm/t", statfs("fm/t", &st));
    out("fm/t: nodev %s noexec %s", yesno(st.f_flags & ST_NODEV), yesno(st.f_flags & ST_NOEXEC));
    show_mount("/fm/t");
    rcheck("move_mount the attached mount to fm/u", rawsys(NR_move_mount, AT_FDCWD, (long)"fm/t", AT_FDCWD, (long)"fm/u", 0, 0));
    out("fm/u/file: %s", stat("fm/u/file", &sb) == 0 ? "exists" : errname(errno));
    out("fm/t/file: %s", stat("fm/t/file", &sb) == 0 ? "exists" : errname(errno));
    rcheck("move_mount a directory that is no mount", rawsys(NR_move_mount, AT_FDCWD, (long)"fm/t", AT_FDCWD, (long)"fm/u", 0, 0));
    check("umount fm/u while the fsmount descriptor is open", umount("fm/u"));
    close(mfd);
    check("umount fm/u", umount("fm/u"));
    int fs2 = rcheck("fsopen tmpfs again", rawsys(NR_fsopen, (long)"tmpfs", FSOPEN_CLOEXEC, 0, 0, 0, 0));
    rcheck("fsconfig ro", fsconfig(fs2, FSCONFIG_SET_FLAG, "ro", NULL, 0));
    rcheck("fsconfig CMD_CREATE", fsconfig(fs2, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
    int m2 = rcheck("fsmount", rawsys(NR_fsmount, fs2, FSMOUNT_CLOEXEC, 0, 0, 0, 0));
    f = openat(m2, "file", O_CREAT | O_WRONLY, 0644);
    out("create in a read-only file system: %s", f < 0 ? errname(errno) : "ok");
    close(m2);
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        rcheck("uid 1000: fsopen", rawsys(NR_fsopen, (long)"tmpfs", 0, 0, 0, 0, 0));
        rcheck("uid 1000: fsmount", rawsys(NR_fsmount, fs, 0, 0, 0, 0, 0));
        rcheck("uid 1000: move_mount", rawsys(NR_move_mount, AT_FDCWD, (long)"fm", AT_FDCWD, (long)"fm", 0, 0));
        _exit(0);
    }
    reap("child", pid);
    close(fs);
    close(fs2);
    check("umount fm", umount("fm"));
    return 0;
}
