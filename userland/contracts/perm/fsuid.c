/* setfsuid and setfsgid: they return the previous file-system id whether
 * or not they change it (-1 only asks); only ids the caller already has
 * are allowed without CAP_SETUID/CAP_SETGID; the file-system ids decide
 * file access and new files' owners, follow the effective ids on
 * set*id, show in /proc/self/status; leaving fsuid 0 drops the file
 * capabilities from the effective set; a change makes the process not
 * dumpable. */
#include "perm.h"

static void status_line(const char *key)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *p = strstr(buf, key);
    if (!p) {
        out("  %s missing", key);
        return;
    }
    char *end = strchr(p, '\n');
    if (end)
        *end = 0;
    for (char *t = p; *t; t++)
        if (*t == '\t')
            *t = ' ';
    out("  %s", p);
}

static void effective_caps(void)
{
    struct perm_cap_header h = { 0x20080522, 0 };
    struct perm_cap_data d[2];
    syscall(SYS_capget, &h, d);
    out("  effective %x%08x", d[1].effective, d[0].effective);
}

int main(void)
{
    put_file("secret", "x");
    chmod("secret", 0600);
    chmod(".", 0777);
    pid_t pid = fork();
    if (pid == 0) {
        show("setfsuid(1000)", syscall(SYS_setfsuid, 1000));
        show("setfsuid(-1)", syscall(SYS_setfsuid, -1));
        show("setfsgid(1000)", syscall(SYS_setfsgid, 1000));
        show("setfsgid(-1)", syscall(SYS_setfsgid, -1));
        status_line("Uid:");
        status_line("Gid:");
        effective_caps();
        show("dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
        check("open root's 0600 file", open("secret", O_RDONLY));
        int fd = open("made", O_WRONLY | O_CREAT, 0644);
        struct stat st;
        fstat(fd, &st);
        out("new file owner %u group %u", (unsigned)st.st_uid, (unsigned)st.st_gid);
        show("setfsuid(0)", syscall(SYS_setfsuid, 0));
        effective_caps();
        check("open root's 0600 file again", open("secret", O_RDONLY));
        show("seteuid(2000)", seteuid(2000));
        show("setfsuid(-1) after seteuid", syscall(SYS_setfsuid, -1));
        _exit(0);
    }
    reap("root child", pid);
    pid = fork();
    if (pid == 0) {
        become(1000, NO_CAP);
        show("uid 1000: setfsuid(0)", syscall(SYS_setfsuid, 0));
        show("uid 1000: setfsuid(-1)", syscall(SYS_setfsuid, -1));
        show("uid 1000: setfsgid(0)", syscall(SYS_setfsgid, 0));
        show("uid 1000: setfsgid(-1)", syscall(SYS_setfsgid, -1));
        show("uid 1000: dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
        _exit(0);
    }
    reap("uid 1000 child", pid);
    pid = fork();
    if (pid == 0) {
        setresuid(1000, 1000, 0);
        show("saved 0: setfsuid(0)", syscall(SYS_setfsuid, 0));
        show("saved 0: setfsuid(-1)", syscall(SYS_setfsuid, -1));
        check("saved 0: open root's 0600 file", open("secret", O_RDONLY));
        _exit(0);
    }
    reap("saved-0 child", pid);
    return 0;
}
