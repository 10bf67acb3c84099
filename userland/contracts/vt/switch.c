/* Switching consoles: VT_ACTIVATE + VT_WAITACTIVE, /sys/class/tty/tty0/active
 * following the foreground console, a console in graphics mode under
 * VT_AUTO refusing switches, and VT_PROCESS: the owner gets the release
 * signal and the switch waits for its VT_RELDISP, or gets the acquire
 * signal on a switch to its console. */
#include "vt.h"
#include <sys/mount.h>

static void show_active(const char *label)
{
    char buf[32] = { 0 };
    int fd = open("sys/class/tty/tty0/active", O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    out("%s: %s", label, buf);
}

static void show_file(const char *path)
{
    char buf[128] = { 0 };
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    out("%s: %s", path, buf);
}

/* Waits up to 5 s for `sig` (blocked); says whether it came, from the kernel. */
static void expect_signal(const char *label, int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    struct timespec ts = { 5, 0 };
    siginfo_t si;
    int got = sigtimedwait(&set, &si, &ts);
    if (got < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %s, si_code SI_KERNEL %s", label, signame(got), yesno(si.si_code == SI_KERNEL));
}

int main(void)
{
    mkdir("sys", 0755);
    check("mount sysfs", mount("sysfs", "sys", "sysfs", 0, NULL));
    show_active("active at start");
    show_file("sys/class/tty/tty2/dev");
    show_file("sys/class/tty/tty2/uevent");
    show_file("sys/class/tty/tty0/dev");
    show_file("sys/class/tty/console/active");

    int zero = open("/dev/tty0", O_RDWR | O_NOCTTY);
    int two = open("/dev/tty2", O_RDWR | O_NOCTTY);
    check("open tty0, tty2", zero < 0 ? zero : two);

    show("VT_ACTIVATE 2", ioctl(zero, VT_ACTIVATE, 2));
    show("VT_WAITACTIVE 2", ioctl(zero, VT_WAITACTIVE, 2));
    show_state("after switch", zero, 0x1);
    show_active("active");
    show("TIOCLINUX GETFGCONSOLE", ({ char sub = TIOCL_GETFGCONSOLE; ioctl(two, TIOCLINUX, &sub); }));
    /* The foreground console cannot be freed. */
    show("VT_DISALLOCATE 2 (foreground)", ioctl(zero, VT_DISALLOCATE, 2));
    /* /dev/tty0 opened now reaches console 2. */
    int zero2 = open("/dev/tty0", O_RDWR | O_NOCTTY);
    ioctl(zero2, KDSKBMODE, K_XLATE);
    show_int("tty2 KDGKBMODE after setting it through the new tty0", two, KDGKBMODE);
    show_int("tty1 KDGKBMODE", zero, KDGKBMODE);
    ioctl(two, KDSKBMODE, K_UNICODE);
    close(zero2);

    /* Graphics mode under VT_AUTO: switches away are refused. */
    show("KDSETMODE graphics", ioctl(two, KDSETMODE, KD_GRAPHICS));
    show_int("KDGETMODE", two, KDGETMODE);
    show("VT_ACTIVATE 1 (refused)", ioctl(zero, VT_ACTIVATE, 1));
    show_state("still", zero, 0x1);
    show("KDSETMODE text", ioctl(two, KDSETMODE, KD_TEXT));

    /* VT_PROCESS on console 2: a switch away sends the release signal and
     * waits for VT_RELDISP. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    struct vt_mode_k m = { VT_PROCESS, 0, SIGUSR1, SIGUSR2, 9 };
    show("VT_SETMODE process", ioctl(two, VT_SETMODE, &m));
    memset(&m, 0x55, sizeof m);
    ioctl(two, VT_GETMODE, &m);
    out("mode: %d waitv %d relsig %s acqsig %s frsig %d", m.mode, m.waitv, signame(m.relsig), signame(m.acqsig), m.frsig);
    show("VT_ACTIVATE 1", ioctl(zero, VT_ACTIVATE, 1));
    expect_signal("release signal", SIGUSR1);
    show_state("before VT_RELDISP", zero, 0x1);
    show("VT_RELDISP 1", ioctl(two, VT_RELDISP, 1));
    show_state("after VT_RELDISP", zero, 0x1);
    show("VT_RELDISP 1 again", ioctl(two, VT_RELDISP, 1));
    show("VT_RELDISP ACKACQ", ioctl(two, VT_RELDISP, VT_ACKACQ));

    /* A switch to a VT_PROCESS console sends its owner the acquire signal. */
    show("VT_ACTIVATE 2", ioctl(zero, VT_ACTIVATE, 2));
    expect_signal("acquire signal", SIGUSR2);
    show("VT_WAITACTIVE 2", ioctl(zero, VT_WAITACTIVE, 2));
    show("VT_RELDISP ACKACQ", ioctl(two, VT_RELDISP, VT_ACKACQ));
    /* Refusing a release: the switch is forgotten. */
    show("VT_ACTIVATE 1", ioctl(zero, VT_ACTIVATE, 1));
    expect_signal("release signal", SIGUSR1);
    show("VT_RELDISP 0 (refuse)", ioctl(two, VT_RELDISP, 0));
    show_state("after refusing", zero, 0x1);

    /* Back to VT_AUTO and console 1. */
    struct vt_mode_k autom = { VT_AUTO, 0, 0, 0, 0 };
    show("VT_SETMODE auto", ioctl(two, VT_SETMODE, &autom));
    show("VT_RELDISP under VT_AUTO", ioctl(two, VT_RELDISP, 1));
    show("VT_ACTIVATE 1", ioctl(zero, VT_ACTIVATE, 1));
    show("VT_WAITACTIVE 1", ioctl(zero, VT_WAITACTIVE, 1));
    show_state("at the end", zero, 0x1);
    show_active("active at the end");
    close(two);
    close(zero);
    umount("sys");
    return 0;
}
