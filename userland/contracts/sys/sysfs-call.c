/* sysfs(2): option 3 counts the file system types, 2 names the one at an
 * index, 1 gives the index of a name, in /proc/filesystems' order (the
 * lists differ between kernels: only their agreement is shown). Errors:
 * an unknown name or index and an unknown option are EINVAL, bad
 * pointers EFAULT. */
#include "common.h"

int main(void)
{
    char names[64][128];
    int lines = 0;
    FILE *f = fopen("/proc/filesystems", "r");
    char line[128];
    while (f && lines < 64 && fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        char *name = tab ? tab + 1 : line;
        name[strcspn(name, "\n")] = 0;
        snprintf(names[lines++], sizeof names[0], "%s", name);
    }
    if (f)
        fclose(f);
    long count = syscall(SYS_sysfs, 3);
    out("count equals /proc/filesystems' lines: %s", yesno(count == lines));
    int names_agree = 1, indexes_agree = 1;
    for (int i = 0; i < lines; i++) {
        char buf[64] = "";
        if (syscall(SYS_sysfs, 2, i, buf) != 0 || strcmp(buf, names[i]) != 0)
            names_agree = 0;
        if (syscall(SYS_sysfs, 1, names[i]) != i)
            indexes_agree = 0;
    }
    out("names by index agree: %s", yesno(names_agree));
    out("indexes by name agree: %s", yesno(indexes_agree));
    out("proc is listed: %s", yesno(syscall(SYS_sysfs, 1, "proc") >= 0));
    char buf[64];
    show("unknown name", syscall(SYS_sysfs, 1, "no-such-fs"));
    show("index past the end", syscall(SYS_sysfs, 2, count, buf));
    show("bad buffer", syscall(SYS_sysfs, 2, 0, (char *)8));
    show("bad name", syscall(SYS_sysfs, 1, (char *)8));
    show("option 0", syscall(SYS_sysfs, 0));
    show("option 4", syscall(SYS_sysfs, 4));
    return 0;
}
