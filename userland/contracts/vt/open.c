/* Opening virtual consoles: the nodes devtmpfs makes (tty0..tty63, 4:N,
 * 0600 root), /dev/tty0 reaching the foreground console, a console open
 * marking it in use (VT_GETSTATE, VT_OPENQRY), the settings a new console
 * starts with (termios, 80x25, keyboard and display modes), and output
 * going to the console's screen. */
#include "vt.h"
#include <termios.h>

static void node(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    out("%s: %s %u:%u mode %03o uid %u", path, ftype(st.st_mode), major(st.st_rdev), minor(st.st_rdev),
        st.st_mode & 07777, st.st_uid);
}

int main(void)
{
    node("/dev/tty0");
    node("/dev/tty1");
    node("/dev/tty2");
    node("/dev/tty63");
    node("/dev/tty64");

    int zero = open("/dev/tty0", O_RDWR | O_NOCTTY);
    check("open /dev/tty0", zero);
    struct stat st;
    fstat(zero, &st);
    out("tty0 fd rdev: %u:%u", major(st.st_rdev), minor(st.st_rdev));
    out("isatty: %s", yesno(isatty(zero)));
    show_state("state with tty0 open", zero, 0x7);
    show_int("VT_OPENQRY", zero, VT_OPENQRY);

    int two = open("/dev/tty2", O_RDWR | O_NOCTTY);
    check("open /dev/tty2", two);
    show_state("state with tty2 open", zero, 0x7);
    show_state("state through tty2", two, 0x7);
    show_int("VT_OPENQRY", zero, VT_OPENQRY);

    /* A new console's settings. */
    struct termios t;
    tcgetattr(two, &t);
    out("tty2 termios: iflag 0x%x oflag 0x%x cflag 0x%x lflag 0x%x", t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag);
    struct winsize ws = { 0, 0, 0, 0 };
    ioctl(two, TIOCGWINSZ, &ws);
    out("tty2 winsize: %u rows, %u cols", ws.ws_row, ws.ws_col);
    show_int("KDGKBMODE", two, KDGKBMODE);
    show_int("KDGETMODE", two, KDGETMODE);
    show_byte("KDGKBTYPE", two, KDGKBTYPE);
    show_byte("KDGKBLED", two, KDGKBLED);
    struct vt_mode_k m;
    memset(&m, 0x55, sizeof m);
    check("VT_GETMODE", ioctl(two, VT_GETMODE, &m));
    out("tty2 mode: %d waitv %d relsig %d acqsig %d frsig %d", m.mode, m.waitv, m.relsig, m.acqsig, m.frsig);

    /* Output goes to the screen: written in full, at once. */
    show("write tty2", write(two, "hello, console\n", 15));
    show("write tty0", write(zero, "\n", 1));

    /* Input comes from TIOCSTI only (root may push into any terminal). */
    struct termios raw = t;
    raw.c_lflag &= ~(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    tcsetattr(two, TCSANOW, &raw);
    char c = 'k';
    check("TIOCSTI", ioctl(two, TIOCSTI, &c));
    char got[4] = { 0 };
    show("read tty2", read(two, got, sizeof got));
    out("read: %c", got[0]);
    tcsetattr(two, TCSANOW, &t);

    /* Not a controlling terminal: /dev/tty is not there. */
    int tty = open("/dev/tty", O_RDWR);
    check("open /dev/tty", tty);

    /* A non-root user cannot open the 0600 nodes. */
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(1000, 1000, 1000) < 0)
            _exit(1);
        check("uid 1000 open /dev/tty0", open("/dev/tty0", O_RDWR | O_NOCTTY));
        check("uid 1000 open /dev/tty2", open("/dev/tty2", O_WRONLY | O_NOCTTY));
        _exit(0);
    }
    reap("uid 1000", child);
    close(two);
    close(zero);
    return 0;
}
