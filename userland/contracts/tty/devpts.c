/* devpts at /dev/pts (mounted by the init with mode=620,ptmxmode=666):
 * ptmx is there, each open pair's slave appears as a character device
 * owned by the opener with the mount's mode, and goes away when the master
 * closes; /dev/pts/ptmx opens pairs too. */
#include "pty.h"

#include <dirent.h>
#include <sys/sysmacros.h>

static int listed(const char *entry)
{
    DIR *d = opendir("/dev/pts");
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, entry) == 0)
            found = 1;
    closedir(d);
    return found;
}

int main(void)
{
    struct stat st;
    check("stat /dev/pts", stat("/dev/pts", &st));
    out("directory: %d", S_ISDIR(st.st_mode));
    check("stat /dev/pts/ptmx", stat("/dev/pts/ptmx", &st));
    out("ptmx: char %d mode %o rdev %u:%u", S_ISCHR(st.st_mode), st.st_mode & 07777, major(st.st_rdev), minor(st.st_rdev));
    out("ptmx listed: %d", listed("ptmx"));

    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    char name[64];
    ptsname_r(m, name, sizeof name);
    const char *leaf = name + strlen("/dev/pts/");
    out("slave listed: %d", listed(leaf));
    check("stat slave", stat(name, &st));
    out("slave: char %d mode %o owner root %d", S_ISCHR(st.st_mode), st.st_mode & 07777, st.st_uid == 0);
    struct dirent *e;
    DIR *d = opendir("/dev/pts");
    int entries = 0;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, leaf) == 0)
            out("d_type of the slave is DT_CHR: %d", e->d_type == DT_CHR);
    closedir(d);
    (void)entries;
    check("chmod slave 600", chmod(name, 0600));
    stat(name, &st);
    out("mode after chmod: %o", st.st_mode & 07777);
    show("unlink slave", unlink(name));
    show("mkdir in /dev/pts", mkdir("/dev/pts/x", 0755));

    /* A second pair gets another number. */
    int m2 = posix_openpt(O_RDWR | O_NOCTTY);
    char name2[64];
    ptsname_r(m2, name2, sizeof name2);
    out("second pair differs: %s", strcmp(name, name2) != 0 ? "yes" : "no");
    close(m2);
    out("second gone after its master closes: %s", access(name2, F_OK) != 0 ? "yes" : "no");

    /* /dev/pts/ptmx works as /dev/ptmx does. */
    int m3 = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY);
    show("open /dev/pts/ptmx ok", m3 >= 0 ? 0 : -1);
    unsigned int n3 = 0;
    show("TIOCGPTN", ioctl(m3, TIOCGPTN, &n3) == 0 ? 0 : -1);
    close(m3);

    close(s);
    out("still listed while the master is open: %d", listed(leaf));
    close(m);
    out("listed after the master closed: %d", listed(leaf));
    show("stat after close", stat(name, &st));
    return 0;
}
