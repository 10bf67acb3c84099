/* The console ioctls' errors: ENOTTY on terminals that are not consoles
 * (a pty, the serial port) and on other files; ENXIO and EINVAL for
 * console numbers and modes out of range; EBUSY freeing the foreground
 * console; EPERM for a user that neither holds CAP_SYS_TTY_CONFIG nor has
 * the console as its controlling terminal, which is enough without it. */
#include "vt.h"

static void not_a_console(const char *label, int fd)
{
    struct vt_stat_k st;
    int v;
    char sub = TIOCL_GETFGCONSOLE;
    out("%s: VT_GETSTATE %s, KDGKBMODE %s, VT_ACTIVATE %s, TIOCLINUX %s", label,
        ioctl(fd, VT_GETSTATE, &st) < 0 ? errname(errno) : "ok", ioctl(fd, KDGKBMODE, &v) < 0 ? errname(errno) : "ok",
        ioctl(fd, VT_ACTIVATE, 1) < 0 ? errname(errno) : "ok", ioctl(fd, TIOCLINUX, &sub) < 0 ? errname(errno) : "ok");
}

static void unprivileged(int zero)
{
    struct vt_mode_k m = { VT_AUTO, 0, 0, 0, 0 };
    char sub = TIOCL_GETFGCONSOLE;
    show_state("VT_GETSTATE", zero, 0x1);
    show_int("KDGKBMODE", zero, KDGKBMODE);
    show_int("KDGETMODE", zero, KDGETMODE);
    check("VT_GETMODE", ioctl(zero, VT_GETMODE, &m));
    check("VT_ACTIVATE 1", ioctl(zero, VT_ACTIVATE, 1));
    check("VT_ACTIVATE 0", ioctl(zero, VT_ACTIVATE, 0));
    check("VT_WAITACTIVE 1", ioctl(zero, VT_WAITACTIVE, 1));
    check("KDSETMODE text", ioctl(zero, KDSETMODE, KD_TEXT));
    check("KDSKBMODE unicode", ioctl(zero, KDSKBMODE, K_UNICODE));
    check("KDSKBLED 0", ioctl(zero, KDSKBLED, 0));
    check("VT_SETMODE auto", ioctl(zero, VT_SETMODE, &m));
    check("VT_RELDISP 1", ioctl(zero, VT_RELDISP, 1));
    check("TIOCLINUX GETFGCONSOLE", ioctl(zero, TIOCLINUX, &sub));
    /* VT_DISALLOCATE needs no privilege; an unallocated console is busy
     * (Linux takes it for the holder of the absent selection). */
    check("VT_DISALLOCATE 9", ioctl(zero, VT_DISALLOCATE, 9));
}

static void console_user(int seven, int zero)
{
    check("ctty KDSKBMODE unicode", ioctl(seven, KDSKBMODE, K_UNICODE));
    check("ctty VT_WAITACTIVE 1", ioctl(seven, VT_WAITACTIVE, 1));
    char s = TIOCL_GETFGCONSOLE;
    show("ctty TIOCLINUX GETFGCONSOLE", ioctl(seven, TIOCLINUX, &s));
    s = TIOCL_GETSHIFTSTATE;
    show("ctty TIOCLINUX GETSHIFTSTATE", ioctl(seven, TIOCLINUX, &s));
    out("shift state: %d", s);
    char redirect[2] = { TIOCL_SETKMSGREDIRECT, 0 };
    check("ctty TIOCLINUX SETKMSGREDIRECT", ioctl(seven, TIOCLINUX, redirect));
    /* Not its terminal: tty0 (console 1) stays out of reach. */
    check("ctty VT_ACTIVATE through tty0", ioctl(zero, VT_ACTIVATE, 1));
}

int main(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    grantpt(master);
    unlockpt(master);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    not_a_console("pty master", master);
    not_a_console("pty slave", slave);
    int serial = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_NONBLOCK);
    not_a_console("ttyS0", serial);
    not_a_console("/dev/null", open("/dev/null", O_RDWR));

    int zero = open("/dev/tty0", O_RDWR | O_NOCTTY);
    check("open /dev/tty0", zero);
    check("VT_ACTIVATE 0", ioctl(zero, VT_ACTIVATE, 0));
    check("VT_ACTIVATE 64", ioctl(zero, VT_ACTIVATE, 64));
    check("VT_WAITACTIVE 0", ioctl(zero, VT_WAITACTIVE, 0));
    check("VT_WAITACTIVE 64", ioctl(zero, VT_WAITACTIVE, 64));
    check("VT_DISALLOCATE 64", ioctl(zero, VT_DISALLOCATE, 64));
    check("VT_DISALLOCATE 1 (foreground)", ioctl(zero, VT_DISALLOCATE, 1));
    check("KDSETMODE 7", ioctl(zero, KDSETMODE, 7));
    check("KDSKBMODE 5", ioctl(zero, KDSKBMODE, 5));
    check("KDSKBLED 0x88", ioctl(zero, KDSKBLED, 0x88));
    struct vt_mode_k bad = { 2, 0, 0, 0, 0 };
    check("VT_SETMODE mode 2", ioctl(zero, VT_SETMODE, &bad));
    check("VT_SETMODE bad pointer", ioctl(zero, VT_SETMODE, (void *)8));
    check("VT_GETSTATE bad pointer", ioctl(zero, VT_GETSTATE, (void *)8));
    check("VT_RELDISP under VT_AUTO", ioctl(zero, VT_RELDISP, 1));
    int eight = open("/dev/tty8", O_RDWR | O_NOCTTY);
    check("VT_DISALLOCATE 8 (open)", ioctl(zero, VT_DISALLOCATE, 8));
    close(eight);
    /* Closed, it can be freed (Linux lets go of a closed terminal a little
     * later, from a work item: retry for up to 5 s). Freed, it is busy. */
    int freed = -1;
    for (int i = 0; i < 500 && freed < 0; i++) {
        freed = ioctl(zero, VT_DISALLOCATE, 8);
        if (freed < 0 && errno != EBUSY)
            break;
        if (freed < 0)
            msleep(10);
    }
    check("VT_DISALLOCATE 8 (closed)", freed);
    check("VT_DISALLOCATE 8 (freed)", ioctl(zero, VT_DISALLOCATE, 8));
    char sub = 99;
    check("TIOCLINUX subcode 99", ioctl(zero, TIOCLINUX, &sub));
    check("KDSKBLED 0x21", ioctl(zero, KDSKBLED, 0x21));
    show_byte("KDGKBLED", zero, KDGKBLED);
    check("KDSKBLED 0", ioctl(zero, KDSKBLED, 0));

    /* A user without capabilities. */
    as_uid1000("uid 1000", unprivileged, zero);
    /* The same user with console 7 as its controlling terminal. */
    as_console_user("controlling terminal", console_user, zero);
    return 0;
}
