/* CPU affinity: the mask contains CPU 0, setting a mask of CPU 0 only
 * works and reads back, an empty mask is EINVAL. (The CPU count differs
 * between runs, so only CPU 0 is named.) */
#include "common.h"
#include <sched.h>

int main(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    check("sched_getaffinity", sched_getaffinity(0, sizeof set, &set));
    out("cpu 0 allowed: %s", yesno(CPU_ISSET(0, &set)));
    out("at least one cpu: %s", yesno(CPU_COUNT(&set) >= 1));
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    check("set to cpu 0", sched_setaffinity(0, sizeof one, &one));
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    out("now exactly cpu 0: %s", yesno(CPU_COUNT(&set) == 1 && CPU_ISSET(0, &set)));
    unsigned c = 99;
    syscall(SYS_getcpu, &c, NULL, NULL);
    out("getcpu says cpu 0: %s", yesno(c == 0));
    cpu_set_t none;
    CPU_ZERO(&none);
    check("empty mask", sched_setaffinity(0, sizeof none, &none));
    long r = syscall(SYS_sched_getaffinity, 0, 1, &set);
    out("raw getaffinity with 1-byte buffer: %s", r < 0 ? errname(errno) : "ok");
    r = syscall(SYS_sched_getaffinity, 0, sizeof set, &set);
    out("raw getaffinity returns a positive size: %s", yesno(r > 0));
    return 0;
}
