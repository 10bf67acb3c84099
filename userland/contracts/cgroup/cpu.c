/* The cpu controller: cpu.weight and cpu.max (defaults, values, the
 * errors), cpu.stat's fields with and without the controller, and
 * usage_usec counting a member's CPU time. */
#include "cg.h"

#define A CG "/t-cpu"

static void stat_keys(const char *label, const char *path)
{
    char buf[1024];
    if (cg_read(path, buf, sizeof buf) < 0)
        return;
    char keys[512] = "";
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *sp = strchr(line, ' ');
        if (sp)
            *sp = 0;
        strcat(keys, " ");
        strcat(keys, line);
    }
    out("%s:%s", label, keys);
}

int main(void)
{
    cg_mount();
    mkdir(A, 0755);
    stat_keys("cpu.stat keys without the controller", A "/cpu.stat");
    check("cpu.weight without the controller", access(A "/cpu.weight", F_OK));
    cg_try("root +cpu", CG "/cgroup.subtree_control", "+cpu");
    stat_keys("cpu.stat keys with it", A "/cpu.stat");
    cg_show("cpu.weight", A "/cpu.weight");
    cg_show("cpu.max", A "/cpu.max");
    cg_try("weight 0", A "/cpu.weight", "0");
    cg_try("weight 10001", A "/cpu.weight", "10001");
    cg_try("weight abc", A "/cpu.weight", "abc");
    cg_try("weight 50", A "/cpu.weight", "50\n");
    cg_show("cpu.weight", A "/cpu.weight");
    cg_try("max 50000", A "/cpu.max", "50000");
    cg_show("cpu.max", A "/cpu.max");
    cg_try("max 20000 50000", A "/cpu.max", "20000 50000");
    cg_show("cpu.max", A "/cpu.max");
    cg_try("max 500 (under 1 ms)", A "/cpu.max", "500");
    cg_try("max with a 2 s period", A "/cpu.max", "max 2000000");
    cg_try("max junk", A "/cpu.max", "lots");
    cg_try("max max", A "/cpu.max", "max");
    cg_show("cpu.max", A "/cpu.max");
    cg_try("max max 100000", A "/cpu.max", "max 100000");
    out("usage_usec of the empty cgroup: %lld", cg_key(A "/cpu.stat", "usage_usec"));
    pid_t child = fork();
    if (child == 0) {
        cg_move(A, 0);
        long long start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        while (now_ns(CLOCK_PROCESS_CPUTIME_ID) - start < 100000000LL)
            ;
        _exit(0);
    }
    reap("burner", child);
    out("usage_usec at least 100 ms: %s", yesno(cg_key(A "/cpu.stat", "usage_usec") >= 100000));
    rmdir(A);
    cg_try("root -cpu", CG "/cgroup.subtree_control", "-cpu");
    cg_umount();
    return 0;
}
