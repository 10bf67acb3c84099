/* uname: sysname is "Linux" and machine "x86_64" (other fields vary). */
#include "common.h"
#include <sys/utsname.h>

int main(void)
{
    struct utsname u;
    check("uname", uname(&u));
    out("sysname: %s", u.sysname);
    out("machine: %s", u.machine);
    out("release non-empty: %s", yesno(u.release[0] != 0));
    out("release starts with a digit: %s", yesno(u.release[0] >= '0' && u.release[0] <= '9'));
    out("all strings terminated: %s", yesno(memchr(u.nodename, 0, sizeof u.nodename) && memchr(u.version, 0, sizeof u.version)));
    rcheck("uname(NULL)", rawsys(SYS_uname, 0, 0, 0, 0, 0, 0));
    check("sethostname", sethostname("contract-host", 13));
    uname(&u);
    out("nodename after sethostname: %s", u.nodename);
    char h[64];
    gethostname(h, sizeof h);
    out("gethostname: %s", h);
    check("sethostname too long", sethostname(h, 65));
    return 0;
}
