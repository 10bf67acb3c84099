/* Binds stacked on one directory: Linux follows a stack of any height
 * (up to fs.mount-max mounts in the namespace), so 1,100 binds of a
 * directory on itself all succeed, a walk through the stack reaches the
 * directory's files, mountinfo lists each bind (rooted at the directory:
 * `/d` of the tmpfs), and 1,100 unmounts take them away again. */
#include "../common.h"
#include <sched.h>
#include <sys/mount.h>

#define BINDS 1100

/* Counts the lines of /proc/self/mountinfo, and copies the fourth field
 * (the mount's root) of the last line into `root`. */
static int mountinfo_lines(char *root, size_t len)
{
    static char buf[1 << 16];
    int fd = open("/proc/self/mountinfo", O_RDONLY);
    if (fd < 0)
        return -1;
    int lines = 0;
    char line[1024];
    size_t used = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                line[used] = 0;
                lines++;
                if (root)
                    sscanf(line, "%*s %*s %*s %1023s", root);
                used = 0;
            } else if (used < sizeof line - 1) {
                line[used++] = buf[i];
            }
        }
    }
    close(fd);
    (void)len;
    return lines;
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        check("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        check("make / private recursively", mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
        mkdir("stack-t", 0755);
        check("mount tmpfs on stack-t", mount("none", "stack-t", "tmpfs", 0, NULL));
        mkdir("stack-t/d", 0755);
        put_file("stack-t/d/file", "x");
        char root[1024] = "";
        int before = mountinfo_lines(NULL, 0);
        int made = 0, err = 0;
        for (int i = 0; i < BINDS; i++) {
            if (mount("stack-t/d", "stack-t/d", NULL, MS_BIND, NULL) < 0) {
                err = errno;
                break;
            }
            made++;
        }
        out("binds of stack-t/d on itself: %d of %d%s%s", made, BINDS, err ? ", then " : "", err ? errname(err) : "");
        struct stat st;
        check("stat stack-t/d/file through the stack", stat("stack-t/d/file", &st));
        check("create stack-t/d/new through the stack", put_file("stack-t/d/new", "y"));
        check("stat stack-t/d/.. (out of the stack)", stat("stack-t/d/..", &st));
        int after = mountinfo_lines(root, sizeof root);
        out("mountinfo lines added: %d", after - before);
        out("root field of the top bind: %s", root);
        int gone = 0;
        while (umount("stack-t/d") == 0)
            gone++;
        out("unmounts of stack-t/d: %d, then %s", gone, errname(errno));
        check("stat stack-t/d/new after", stat("stack-t/d/new", &st));
        out("mountinfo lines added after: %d", mountinfo_lines(NULL, 0) - before);
        check("umount stack-t", umount("stack-t"));
        _exit(0);
    }
    reap("child", pid);
    rmdir("stack-t");
    return 0;
}
