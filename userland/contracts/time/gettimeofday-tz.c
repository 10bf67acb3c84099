/* gettimeofday's second argument: a valid `struct timezone` gets the
 * kernel's (zero) time zone, a bad pointer is EFAULT even when tv is
 * valid, and a NULL tv with a valid tz is fine. */
#include <sys/time.h>
#include "common.h"

int main(void)
{
    struct timeval tv;
    struct { int minuteswest, dsttime; } tz = { 123, 456 };
    long r = syscall(SYS_gettimeofday, &tv, &tz);
    out("valid tv and tz: %s, tz = %d %d", r < 0 ? errname(errno) : "ok", tz.minuteswest, tz.dsttime);
    errno = 0;
    r = syscall(SYS_gettimeofday, &tv, (void *)8);
    out("valid tv, bad tz: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_gettimeofday, (void *)8, &tz);
    out("bad tv, valid tz: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_gettimeofday, NULL, &tz);
    out("no tv, valid tz: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_gettimeofday, NULL, NULL);
    out("neither: %s", r < 0 ? errname(errno) : "ok");
    return 0;
}
