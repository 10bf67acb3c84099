/* Opening a pseudo-terminal pair: posix_openpt, the slave locked until
 * unlockpt (EIO), ptsname and TIOCGPTN agree, device numbers, isatty, the
 * slave's initial settings and window size, TIOCGPTPEER. */
#include "pty.h"

#include <sys/sysmacros.h>

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    show("posix_openpt ok", m >= 0 ? 0 : -1);
    if (m < 0)
        return 0;
    check("grantpt", grantpt(m));
    char name[64];
    check("ptsname_r", ptsname_r(m, name, sizeof name));
    out("name under /dev/pts: %s", strncmp(name, "/dev/pts/", 9) == 0 ? "yes" : "no");
    unsigned int index = 12345;
    check("TIOCGPTN", ioctl(m, TIOCGPTN, &index));
    char expect[64];
    snprintf(expect, sizeof expect, "/dev/pts/%u", index);
    out("TIOCGPTN matches ptsname: %s", strcmp(expect, name) == 0 ? "yes" : "no");

    int locked = -1;
    check("TIOCGPTLCK", ioctl(m, TIOCGPTLCK, &locked));
    out("locked before unlockpt: %d", locked);
    show("open locked slave", open(name, O_RDWR | O_NOCTTY));
    check("unlockpt", unlockpt(m));
    ioctl(m, TIOCGPTLCK, &locked);
    out("locked after unlockpt: %d", locked);

    int s = open(name, O_RDWR | O_NOCTTY);
    show("open slave ok", s >= 0 ? 0 : -1);
    out("isatty master: %d slave: %d", isatty(m), isatty(s));
    struct stat ms, ss;
    fstat(m, &ms);
    fstat(s, &ss);
    out("master: char device %d, rdev %u:%u", S_ISCHR(ms.st_mode), major(ms.st_rdev), minor(ms.st_rdev));
    out("slave: char device %d, major %u, minor is index: %s", S_ISCHR(ss.st_mode), major(ss.st_rdev),
        minor(ss.st_rdev) == index ? "yes" : "no");
    struct stat ps;
    check("stat slave path", stat(name, &ps));
    out("same node as the fd: %s", ps.st_ino == ss.st_ino && ps.st_dev == ss.st_dev ? "yes" : "no");

    struct termios t;
    check("tcgetattr slave", tcgetattr(s, &t));
    out("iflag %#o oflag %#o cflag %#o lflag %#o", t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag);
    char cc[128];
    int at = 0;
    for (int i = 0; i < 17; i++)
        at += snprintf(cc + at, sizeof cc - at, " %d", t.c_cc[i]);
    out("cc:%s", cc);
    struct termios mt;
    check("tcgetattr master", tcgetattr(m, &mt));
    out("master shows the slave's settings: %s",
        mt.c_iflag == t.c_iflag && mt.c_lflag == t.c_lflag && mt.c_oflag == t.c_oflag ? "yes" : "no");
    out("speed: %s", cfgetospeed(&t) == B38400 ? "B38400" : "other");
    struct winsize ws = { 1, 1, 1, 1 };
    check("TIOCGWINSZ", ioctl(s, TIOCGWINSZ, &ws));
    out("winsize %d x %d (%d x %d pixels)", ws.ws_row, ws.ws_col, ws.ws_xpixel, ws.ws_ypixel);

    /* TIOCGPTPEER opens the slave from the master. */
    int peer = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
    show("TIOCGPTPEER ok", peer >= 0 ? 0 : -1);
    if (peer >= 0) {
        struct stat peer_stat;
        fstat(peer, &peer_stat);
        out("peer is the slave: %s", peer_stat.st_rdev == ss.st_rdev ? "yes" : "no");
        type(m, "via peer\n");
        show_read("read peer", peer, 100);
        close(peer);
    }
    show("TIOCGPTN on slave", ioctl(s, TIOCGPTN, &index));
    show("TIOCGPTPEER on slave", ioctl(s, TIOCGPTPEER, O_RDWR));
    int fl = fcntl(m, F_GETFL);
    out("master access mode O_RDWR: %s", (fl & O_ACCMODE) == O_RDWR ? "yes" : "no");
    show("lseek master", lseek(m, 0, SEEK_SET));
    show("lseek slave", lseek(s, 0, SEEK_SET));
    close(s);
    close(m);
    return 0;
}
