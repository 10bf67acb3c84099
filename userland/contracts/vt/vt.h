/* The virtual-console tests: constants of <linux/vt.h>, <linux/kd.h> and
 * <linux/tiocl.h> (the test toolchain has no kernel headers), and small
 * printers. Each test leaves console 1 in the foreground, in text mode,
 * switching automatically, as it found it. */
#include "common.h"
#include <sys/ioctl.h>

#define VT_OPENQRY 0x5600
#define VT_GETMODE 0x5601
#define VT_SETMODE 0x5602
#define VT_GETSTATE 0x5603
#define VT_RELDISP 0x5605
#define VT_ACTIVATE 0x5606
#define VT_WAITACTIVE 0x5607
#define VT_DISALLOCATE 0x5608
#define VT_AUTO 0
#define VT_PROCESS 1
#define VT_ACKACQ 2

#define KDGETLED 0x4B31
#define KDGKBTYPE 0x4B33
#define KDSETMODE 0x4B3A
#define KDGETMODE 0x4B3B
#define KDGKBMODE 0x4B44
#define KDSKBMODE 0x4B45
#define KDGKBLED 0x4B64
#define KDSKBLED 0x4B65
#define KD_TEXT 0
#define KD_GRAPHICS 1
#define K_RAW 0
#define K_XLATE 1
#define K_UNICODE 3

#define TIOCL_GETSHIFTSTATE 6
#define TIOCL_SETKMSGREDIRECT 11
#define TIOCL_GETFGCONSOLE 12
#define TIOCL_GETKMSGREDIRECT 17

struct vt_mode_k {
    char mode, waitv;
    short relsig, acqsig, frsig;
};

struct vt_stat_k {
    unsigned short v_active, v_signal, v_state;
};

/* VT_GETSTATE: the active console and the in-use bits under `mask`. */
static void __attribute__((unused)) show_state(const char *label, int fd, unsigned mask)
{
    struct vt_stat_k st = { 0, 0, 0 };
    if (ioctl(fd, VT_GETSTATE, &st) < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: active %u, in use 0x%x", label, st.v_active, st.v_state & mask);
}

static int __attribute__((unused)) active_console(int fd)
{
    struct vt_stat_k st = { 0, 0, 0 };
    ioctl(fd, VT_GETSTATE, &st);
    return st.v_active;
}

/* An int-returning ioctl: "label: VALUE" or "label: ENAME". */
static void __attribute__((unused)) show_int(const char *label, int fd, unsigned long request)
{
    int v = -7;
    if (ioctl(fd, request, &v) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: %d", label, v);
}

static void __attribute__((unused)) show_byte(const char *label, int fd, unsigned long request)
{
    unsigned char v = 0xee;
    if (ioctl(fd, request, &v) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: 0x%x", label, v);
}

/* Runs body(fd) in a child as uid 1000 with no capabilities; reaps it as
 * `label`. */
static void as_uid1000(const char *label, void (*body)(int fd), int fd) __attribute__((unused));
static void as_uid1000(const char *label, void (*body)(int fd), int fd)
{
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(1000, 1000, 1000) < 0)
            _exit(1);
        body(fd);
        _exit(0);
    }
    reap(label, child);
}

/* The same with console 7 as the child's controlling terminal (opened in
 * a new session before root is dropped) and put in text mode through it:
 * body(seven, fd). */
static void as_console_user(const char *label, void (*body)(int seven, int fd), int fd) __attribute__((unused));
static void as_console_user(const char *label, void (*body)(int seven, int fd), int fd)
{
    pid_t child = fork();
    if (child == 0) {
        setsid();
        int seven = open("/dev/tty7", O_RDWR);
        check("open /dev/tty7 as controlling terminal", seven);
        if (setresuid(1000, 1000, 1000) < 0)
            _exit(1);
        check("ctty KDSETMODE text", ioctl(seven, KDSETMODE, KD_TEXT));
        body(seven, fd);
        _exit(0);
    }
    reap(label, child);
}
