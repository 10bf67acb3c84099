/* The main thread's stack grows on demand: deep recursion using a few MiB
 * works, within the default 8 MiB limit. */
#include "common.h"
#include <sys/resource.h>

static int depth_sum(int n)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    pad[1023] = (char)n;
    if (n == 0)
        return 0;
    return depth_sum(n - 1) + pad[0] - pad[1023] + 1;
}

int main(void)
{
    out("recursion 4000 x 1 KiB: %d", depth_sum(4000));
    volatile char big[1 << 20];
    memset((char *)big, 1, sizeof big);
    out("1 MiB stack array: %d", big[(1 << 20) - 1]);
    return 0;
}
