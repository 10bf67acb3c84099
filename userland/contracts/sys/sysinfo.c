/* sysinfo: the memory figures are consistent, uptime and process count
 * are plausible. */
#include "common.h"
#include <sys/sysinfo.h>

int main(void)
{
    struct sysinfo si;
    check("sysinfo", sysinfo(&si));
    unsigned long long unit = si.mem_unit ? si.mem_unit : 1;
    unsigned long long total = si.totalram * unit, freeram = si.freeram * unit;
    out("mem_unit >= 1: %s", yesno(si.mem_unit >= 1));
    out("totalram between 256 MiB and 512 MiB: %s", yesno(total >= (256ULL << 20) && total <= (512ULL << 20)));
    out("freeram <= totalram: %s", yesno(freeram <= total));
    out("freeram > 0: %s", yesno(freeram > 0));
    out("uptime >= 0: %s", yesno(si.uptime >= 0));
    out("procs >= 1: %s", yesno(si.procs >= 1));
    out("sysconf(_SC_NPROCESSORS_ONLN) >= 1: %s", yesno(sysconf(_SC_NPROCESSORS_ONLN) >= 1));
    rcheck("sysinfo(NULL)", rawsys(SYS_sysinfo, 0, 0, 0, 0, 0, 0));
    return 0;
}
