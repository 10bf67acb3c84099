/* Set-user-id and set-group-id programs: exec gives the file's owner and
 * group as effective and saved ids (set-group-id only with group execute),
 * root's capabilities for a root owner, AT_SECURE and a process that is
 * not dumpable; the bits are ignored on a nosuid mount and under
 * PR_SET_NO_NEW_PRIVS; root running a program owned by another user keeps
 * its permitted set but not its effective one. */
#include "perm.h"
#include <sys/mount.h>

#define HELPER "/contracts/helpers/setuid-ids"

/* Copies the helper to `path` with `mode`, owned by uid/gid `owner`. */
static void install(const char *path, mode_t mode, uid_t owner)
{
    close(copy_file_open(HELPER, path, 0700));
    if (chown(path, owner, owner) != 0 || chmod(path, mode) != 0)
        out("install %s: %s", path, errname(errno));
}

static void run(const char *label, const char *path, uid_t as, int nnp)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (as != 0)
            become(as, NO_CAP);
        if (nnp)
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        execl(path, path, label, (char *)NULL);
        out("%s: exec %s", label, errname(errno));
        _exit(1);
    }
    waitpid(pid, NULL, 0);
}

int main(void)
{
    struct stat st;
    stat(HELPER, &st);
    out("helper mode %o owner %u", (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
    run("root", HELPER, 0, 0);
    run("uid1000", HELPER, 1000, 0);
    run("uid1000-nnp", HELPER, 1000, 1);
    install("owned-by-2000", 06755, 2000);
    run("uid1000-runs-2000s", "./owned-by-2000", 1000, 0);
    run("root-runs-2000s", "./owned-by-2000", 0, 0);
    install("sgid-no-group-x", 02745, 2000);
    run("uid1000-sgid-no-group-x", "./sgid-no-group-x", 1000, 0);
    mkdir("nosuid", 0755);
    if (mount("none", "nosuid", "tmpfs", MS_NOSUID, "mode=755") != 0)
        out("mount: %s", errname(errno));
    install("nosuid/ids", 06755, 0);
    run("uid1000-nosuid", "./nosuid/ids", 1000, 0);
    umount("nosuid");
    /* Writing to a set-user-id file without CAP_FSETID clears the bit. */
    install("written", 06775, 1000);
    pid_t pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        int fd = open("written", O_WRONLY | O_APPEND);
        write(fd, "", 1);
        close(fd);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    stat("written", &st);
    out("after a write by uid 1000: mode %o", (unsigned)(st.st_mode & 07777));
    return 0;
}
