/* access/faccessat/faccessat2: root passes read/write checks regardless of
 * mode but needs some x bit for X_OK; AT_EACCESS with a different euid;
 * invalid mode is EINVAL. */
#include "common.h"

static long fa2(const char *p, int mode, int flags) { return syscall(SYS_faccessat2, AT_FDCWD, p, mode, flags); }

int main(void)
{
    put_file("none", "");
    chmod("none", 0);
    put_file("xo", "");
    chmod("xo", 0100);
    check("root F_OK on mode 000", access("none", F_OK));
    check("root R_OK|W_OK on mode 000", access("none", R_OK | W_OK));
    check("root X_OK on mode 000", access("none", X_OK));
    check("root X_OK on mode 100", access("xo", X_OK));
    mkdir("d", 0);
    check("root X_OK on dir mode 000", access("d", X_OK));
    check("missing", access("nope", F_OK));
    check("bad mode", access("none", 0x10));
    check("through a file", access("none/x", F_OK));
    check("faccessat2 F_OK", fa2("none", F_OK, 0));
    check("faccessat2 bad flags", fa2("none", F_OK, 0x4));
    symlink("nope", "dangling");
    check("faccessat2 AT_SYMLINK_NOFOLLOW on dangling", fa2("dangling", F_OK, AT_SYMLINK_NOFOLLOW));
    check("faccessat2 following dangling", fa2("dangling", F_OK, 0));
    put_file("mine", "");
    chmod("mine", 0640);
    chown("mine", 1000, 1000);
    pid_t pid = fork();
    if (pid == 0) {
        /* real uid 0, effective 1000: access() uses the real id. */
        setresuid(0, 1000, 0);
        check("euid 1000: access R_OK (real uid 0)", access("none", R_OK));
        check("euid 1000: faccessat2 AT_EACCESS R_OK", fa2("none", R_OK, AT_EACCESS));
        check("euid 1000: AT_EACCESS W_OK on own 0640", fa2("mine", W_OK, AT_EACCESS));
        _exit(0);
    }
    reap("child", pid);
    pid = fork();
    if (pid == 0) {
        setgid(1000);
        setuid(2000);
        check("other user R_OK on 0640 owned by 1000", access("mine", R_OK));
        setresuid(2000, 2000, 2000);
        _exit(0);
    }
    reap("child", pid);
    pid = fork();
    if (pid == 0) {
        setgid(1000);
        setuid(3000);
        check("group member R_OK on 0640", access("mine", R_OK));
        check("group member W_OK on 0640", access("mine", W_OK));
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
