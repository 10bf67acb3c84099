/* The securebits (PR_GET/SET_SECUREBITS): the start value, KEEP_CAPS
 * shared with PR_SET_KEEPCAPS, unknown bits and locked bits (EPERM), a
 * locked KEEP_CAPS refusing PR_SET_KEEPCAPS, NO_SETUID_FIXUP keeping the
 * capabilities across setresuid, NOROOT giving root's exec no
 * capabilities, NO_CAP_AMBIENT_RAISE, and CAP_SETPCAP being needed. */
#include "perm.h"

#define NOROOT 0x1
#define NO_SETUID_FIXUP 0x4
#define KEEP_CAPS 0x10
#define KEEP_CAPS_LOCKED 0x20
#define NO_CAP_AMBIENT_RAISE 0x40

static unsigned permitted(void)
{
    struct perm_cap_header h = {0x20080522, 0};
    struct perm_cap_data d[2];
    syscall(SYS_capget, &h, d);
    return d[0].permitted;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        out("exec under NOROOT: permitted %s", permitted() ? "some" : "none");
        show("exec: GET_SECUREBITS", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
        return 0;
    }
    show("GET_SECUREBITS", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
    show("SET_KEEPCAPS 1", prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
    show("GET_SECUREBITS", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
    show("SET_SECUREBITS 0", prctl(PR_SET_SECUREBITS, 0, 0, 0, 0));
    show("GET_KEEPCAPS", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
    show("SET_SECUREBITS unknown bit", prctl(PR_SET_SECUREBITS, 0x100, 0, 0, 0));
    pid_t child = fork();
    if (child == 0) {
        show("lock KEEP_CAPS on", prctl(PR_SET_SECUREBITS, KEEP_CAPS | KEEP_CAPS_LOCKED, 0, 0, 0));
        show("SET_KEEPCAPS 0 when locked", prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0));
        show("clear the locked bit", prctl(PR_SET_SECUREBITS, KEEP_CAPS_LOCKED, 0, 0, 0));
        show("unlock", prctl(PR_SET_SECUREBITS, KEEP_CAPS, 0, 0, 0));
        show("add NO_CAP_AMBIENT_RAISE", prctl(PR_SET_SECUREBITS, KEEP_CAPS | KEEP_CAPS_LOCKED | NO_CAP_AMBIENT_RAISE, 0, 0, 0));
        struct perm_cap_header h = {0x20080522, 0};
        struct perm_cap_data d[2];
        syscall(SYS_capget, &h, d);
        d[0].inheritable |= 1u << CAP_KILL_;
        syscall(SYS_capset, &h, d);
        show("ambient raise under NO_CAP_AMBIENT_RAISE", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_KILL_, 0, 0));
        _exit(0);
    }
    reap("child", child);
    child = fork();
    if (child == 0) {
        show("NO_SETUID_FIXUP", prctl(PR_SET_SECUREBITS, NO_SETUID_FIXUP, 0, 0, 0));
        if (setresuid(1000, 1000, 1000) != 0)
            _exit(1);
        out("after setresuid: permitted %s", permitted() ? "some" : "none");
        show("uid 1000: GET_SECUREBITS", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
        _exit(0);
    }
    reap("child", child);
    child = fork();
    if (child == 0) {
        show("NOROOT", prctl(PR_SET_SECUREBITS, NOROOT, 0, 0, 0));
        execl("/proc/self/exe", argv[0], "after", (char *)NULL);
        out("exec: %s", errname(errno));
        _exit(1);
    }
    reap("child", child);
    child = fork();
    if (child == 0) {
        if (setresuid(1000, 1000, 1000) != 0)
            _exit(1);
        show("uid 1000 without CAP_SETPCAP: SET_SECUREBITS", prctl(PR_SET_SECUREBITS, 0, 0, 0, 0));
        _exit(0);
    }
    reap("child", child);
    return 0;
}
