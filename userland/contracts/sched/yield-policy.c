/* sched_yield succeeds; the default policy is SCHED_OTHER with priority 0;
 * priority ranges of the policies are the documented ones. */
#include "common.h"
#include <sched.h>

int main(void)
{
    show("sched_yield", sched_yield());
    for (int i = 0; i < 100; i++)
        sched_yield();
    out("100 yields: done");
    int pol = syscall(SYS_sched_getscheduler, 0);
    out("policy: %s", pol == SCHED_OTHER ? "SCHED_OTHER" : "other");
    struct sched_param sp = {0};
    check("sched_getparam", syscall(SYS_sched_getparam, 0, &sp));
    out("priority: %d", sp.sched_priority);
    out("SCHED_OTHER range: %d..%d", sched_get_priority_min(SCHED_OTHER), sched_get_priority_max(SCHED_OTHER));
    out("SCHED_FIFO range: %d..%d", sched_get_priority_min(SCHED_FIFO), sched_get_priority_max(SCHED_FIFO));
    out("SCHED_RR range: %d..%d", sched_get_priority_min(SCHED_RR), sched_get_priority_max(SCHED_RR));
    show("priority range of bad policy", sched_get_priority_max(1234));
    show("getscheduler(no such pid)", syscall(SYS_sched_getscheduler, 999999));
    show("getscheduler(-1)", syscall(SYS_sched_getscheduler, -1));
    struct timespec ts;
    check("sched_rr_get_interval", sched_rr_get_interval(0, &ts));
    return 0;
}
