/* PID 1 that ends the machine the way its argument says: "restart"
 * (reboot's RB_AUTOBOOT: QEMU, run with -no-reboot, exits with status 0)
 * or "halt" (RB_HALT_SYSTEM: the machine stays on, doing nothing, until
 * the test's timeout). It prints a line after the call, which must never
 * appear. */
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int cmd = strcmp(mode, "halt") == 0 ? RB_HALT_SYSTEM : RB_AUTOBOOT;
    printf("REBOOT-TEST %s\n", mode);
    fflush(stdout);
    sync();
    reboot(cmd);
    printf("REBOOT-TEST still running\n");
    return 1;
}
