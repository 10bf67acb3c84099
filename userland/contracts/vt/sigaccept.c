/* KDSIGACCEPT: a process asks for a signal when the keyboard's "spawn a
 * console" key is pressed (systemd does, for SIGWINCH, at every boot).
 * It needs CAP_KILL and, as every console change, the console as
 * controlling terminal or CAP_SYS_TTY_CONFIG (EPERM, checked before the
 * signal); the signal is 1..64 but SIGKILL (EINVAL); a terminal that is
 * not a console does not know the request (ENOTTY). Nothing here presses
 * the key, so no signal is expected. */
#include "vt.h"

#define KDSIGACCEPT 0x4B4E

static void uid1000_requests(int zero)
{
    check("uid 1000 SIGWINCH", ioctl(zero, KDSIGACCEPT, SIGWINCH));
    check("uid 1000 signal 0", ioctl(zero, KDSIGACCEPT, 0));
}

static void console_user_request(int seven, int zero)
{
    (void)zero;
    check("ctty SIGWINCH", ioctl(seven, KDSIGACCEPT, SIGWINCH));
}

int main(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    grantpt(master);
    unlockpt(master);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    check("pty slave SIGWINCH", ioctl(slave, KDSIGACCEPT, SIGWINCH));

    int zero = open("/dev/tty0", O_RDWR | O_NOCTTY);
    check("open /dev/tty0", zero);
    check("SIGWINCH", ioctl(zero, KDSIGACCEPT, SIGWINCH));
    check("signal 0", ioctl(zero, KDSIGACCEPT, 0));
    check("SIGKILL", ioctl(zero, KDSIGACCEPT, SIGKILL));
    check("SIGSTOP", ioctl(zero, KDSIGACCEPT, SIGSTOP));
    check("signal 64", ioctl(zero, KDSIGACCEPT, 64));
    check("signal 65", ioctl(zero, KDSIGACCEPT, 65));
    check("signal -1", ioctl(zero, KDSIGACCEPT, -1L));
    check("again SIGWINCH", ioctl(zero, KDSIGACCEPT, SIGWINCH));

    /* A user without capabilities: EPERM before the signal is looked at. */
    as_uid1000("uid 1000", uid1000_requests, zero);
    /* Its controlling terminal is enough for other console changes, not
     * for this one: CAP_KILL is needed too. */
    as_console_user("controlling terminal", console_user_request, zero);
    return 0;
}
