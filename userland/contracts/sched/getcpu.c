/* getcpu: the CPU is one of the online ones, the node 0; either pointer
 * may be NULL; a bad one is EFAULT. */
#include "common.h"

int main(void)
{
    unsigned cpu = 999, node = 999;
    rcheck("getcpu", rawsys(SYS_getcpu, (long)&cpu, (long)&node, 0, 0, 0, 0));
    out("cpu below the online count: %s, node %u", yesno(cpu < (unsigned)sysconf(_SC_NPROCESSORS_ONLN)), node);
    rcheck("getcpu NULL, NULL", rawsys(SYS_getcpu, 0, 0, 0, 0, 0, 0));
    rcheck("getcpu cpu only", rawsys(SYS_getcpu, (long)&cpu, 0, 0, 0, 0, 0));
    rcheck("getcpu bad cpu pointer", rawsys(SYS_getcpu, 8, (long)&node, 0, 0, 0, 0));
    rcheck("getcpu bad node pointer", rawsys(SYS_getcpu, (long)&cpu, 8, 0, 0, 0, 0));
    rcheck("getcpu bad cache pointer (ignored)", rawsys(SYS_getcpu, (long)&cpu, (long)&node, 8, 0, 0, 0));
    return 0;
}
