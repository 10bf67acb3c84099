/* reboot(2) checks the caller and the magic numbers before anything else
 * (only the harmless Ctrl-Alt-Del setting is actually changed here), and
 * setdomainname/sethostname are root's. */
#include "../common.h"
#include <sys/reboot.h>
#include <sys/utsname.h>

#define MAGIC1 0xfee1dead
#define MAGIC2 672274793

int main(void)
{
    rcheck("bad first magic", rawsys(SYS_reboot, 0x12345678, MAGIC2, RB_POWER_OFF, 0, 0, 0));
    rcheck("bad second magic", rawsys(SYS_reboot, MAGIC1, 1, RB_POWER_OFF, 0, 0, 0));
    rcheck("unknown command", rawsys(SYS_reboot, MAGIC1, MAGIC2, 0x1234, 0, 0, 0));
    rcheck("Ctrl-Alt-Del off", rawsys(SYS_reboot, MAGIC1, MAGIC2, RB_DISABLE_CAD, 0, 0, 0));
    check("setdomainname", setdomainname("contract.test", 13));
    struct utsname u;
    uname(&u);
    out("domainname: %s", u.domainname);
    check("setdomainname too long", setdomainname(u.domainname, 65));
    pid_t pid = fork();
    if (pid == 0) {
        setuid(1000);
        rcheck("uid 1000 power off", rawsys(SYS_reboot, MAGIC1, MAGIC2, RB_POWER_OFF, 0, 0, 0));
        rcheck("uid 1000 bad magic", rawsys(SYS_reboot, 0, 0, RB_POWER_OFF, 0, 0, 0));
        check("uid 1000 sethostname", sethostname("x", 1));
        check("uid 1000 setdomainname", setdomainname("x", 1));
        _exit(0);
    }
    reap("uid 1000", pid);
    return 0;
}
