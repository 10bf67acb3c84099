/* Key quotas: a user other than root may own 200 keys (its thread
 * keyring among them); the next add_key fails with EDQUOT, and so does an
 * update past the 20000 bytes of maxbytes. */
#include "../common.h"

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setgid(2000);
        setuid(2000);
        long t = syscall(SYS_keyctl, 0, -1, 1, 0, 0);
        check("thread keyring", t);
        int added = 0;
        long r = 0;
        char desc[32];
        for (int i = 0; i < 400; i++) {
            snprintf(desc, sizeof desc, "k%d", i);
            r = syscall(SYS_add_key, "user", desc, "x", 1, -1);
            if (r < 0)
                break;
            added++;
        }
        out("added %d, then %s", added, r < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("uid 2000", pid);
    pid = fork();
    if (pid == 0) {
        setgid(2001);
        setuid(2001);
        static char big[20000];
        memset(big, 'b', sizeof big);
        check("20000 bytes", syscall(SYS_add_key, "user", "big", big, 20000, -1));
        check("16000 bytes", syscall(SYS_add_key, "user", "big", big, 16000, -1));
        long k = syscall(SYS_add_key, "user", "big2", big, 3000, -1);
        check("3000 more", k);
        check("update to 4000", syscall(SYS_keyctl, 2, k, (long)big, 4000, 0));
        _exit(0);
    }
    reap("uid 2001", pid);
    return 0;
}
