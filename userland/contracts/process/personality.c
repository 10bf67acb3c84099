/* personality(2): 0xffffffff only asks; a new value comes back as the old
 * one on the next call; ADDR_NO_RANDOMIZE (what gdb sets for the programs
 * it runs) is inherited by fork and kept by exec. */
#include "../common.h"
#include <sys/personality.h>

int main(int argc, char **argv)
{
    if (argc > 1) {
        out("after exec: %#x", personality(0xffffffff));
        return 0;
    }
    out("initial: %#x", personality(0xffffffff));
    out("set ADDR_NO_RANDOMIZE, old: %#x", personality(ADDR_NO_RANDOMIZE));
    out("now: %#x", personality(0xffffffff));
    pid_t pid = fork();
    if (pid == 0) {
        out("child: %#x", personality(0xffffffff));
        execl("/proc/self/exe", argv[0], "exec", (char *)0);
        _exit(127);
    }
    reap("child", pid);
    out("set PER_LINUX | READ_IMPLIES_EXEC, old: %#x", personality(PER_LINUX | READ_IMPLIES_EXEC));
    out("now: %#x", personality(0xffffffff));
    out("set 0, old: %#x", personality(0));
    out("now: %#x", personality(0xffffffff));
    return 0;
}
