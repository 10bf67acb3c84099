/* A deep hierarchy: 400 levels made, a process that ends in the deepest
 * one, every level removed while it is a zombie (a zombie populates
 * nothing), then the zombie reaped (the last reference to the removed
 * chain goes), and what /proc/PID/cgroup of the zombie shows. */
#include "cg.h"

#define LEVELS 400

int main(void)
{
    cg_mount();
    static char path[4096];
    strcpy(path, CG "/t-deep");
    int made = mkdir(path, 0755) == 0;
    for (int i = 0; i < LEVELS && made; i++) {
        strcat(path, "/d");
        made = mkdir(path, 0755) == 0;
    }
    out("made %d levels: %s", LEVELS, yesno(made));
    int go[2];
    pipe(go);
    int ready[2];
    pipe(ready);
    pid_t child = fork();
    if (child == 0) {
        char c;
        check("child moves itself to the deepest", cg_move(path, 0));
        char text[4200];
        if (cg_read("/proc/self/cgroup", text, sizeof text) > 0)
            out("child's cgroup has %d levels: %s", LEVELS, yesno(strlen(text) == strlen("0::/t-deep\n") + 2 * LEVELS));
        write(ready[1], "r", 1);
        read(go[0], &c, 1);
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    write(go[1], "x", 1);
    /* Wait until it is a zombie, without reaping it. */
    siginfo_t si;
    waitid(P_PID, child, &si, WEXITED | WNOWAIT);
    char events[4200];
    snprintf(events, sizeof events, "%s/cgroup.events", path);
    out("deepest depopulated: %s", yesno(cg_wait_key(events, "populated", 0)));
    int removed = 1;
    for (int i = 0; i <= LEVELS; i++) {
        removed &= rmdir(path) == 0;
        *strrchr(path, '/') = 0;
    }
    out("removed every level with the zombie inside: %s", yesno(removed));
    char self[64], text[4200];
    snprintf(self, sizeof self, "/proc/%d/cgroup", (int)child);
    if (cg_read(self, text, sizeof text) > 0)
        out("zombie's cgroup: %s, marked deleted: %s", strlen(text) < 64 ? "short" : "the removed deepest one", yesno(strstr(text, "/d (deleted)\n") != NULL));
    reap("child", child);
    cg_umount();
    return 0;
}
