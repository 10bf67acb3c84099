/* noexec, nodev and nosuid of a bind mount are that mount's alone: a
 * program reached through a noexec bind cannot be executed (EACCES) nor
 * mapped with PROT_EXEC (EPERM), and runs through the original place; a
 * device node reached through a nodev bind cannot be opened (EACCES);
 * statfs shows the flags of the mount the path goes through. */
#include "../common.h"
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

static void copy_self(const char *to)
{
    int in = open("/proc/self/exe", O_RDONLY);
    int o = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
    char buf[8192];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(o, buf, n) != n)
            break;
    close(in);
    close(o);
}

static void run(const char *label, const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)path, "child", NULL};
        execv(path, argv);
        _exit(errno == EACCES ? 40 : 41);
    }
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 40)
        out("%s: exec EACCES", label);
    else if (WIFEXITED(st))
        out("%s: exited %d", label, WEXITSTATUS(st));
    else
        out("%s: %s", label, wstatus(st));
}

static void map_exec(const char *label, const char *path)
{
    int fd = open(path, O_RDONLY);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    out("%s: mmap PROT_EXEC %s", label, p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED)
        munmap(p, 4096);
    p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    out("%s: mmap PROT_READ %s", label, p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED)
        munmap(p, 4096);
    close(fd);
}

static void flags(const char *path)
{
    struct statfs st;
    check(path, statfs(path, &st));
    out("%s: statfs noexec %s nodev %s nosuid %s", path, yesno(st.f_flags & ST_NOEXEC), yesno(st.f_flags & ST_NODEV),
        yesno(st.f_flags & ST_NOSUID));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return 7;
    mkdir("bx", 0755);
    check("mount tmpfs on bx", mount("none", "bx", "tmpfs", 0, NULL));
    mkdir("bx/a", 0755);
    mkdir("bx/n", 0755);
    copy_self("bx/a/prog");
    check("mknod bx/a/null", mknod("bx/a/null", S_IFCHR | 0666, makedev(1, 3)));
    check("bind bx/a on bx/n", mount("bx/a", "bx/n", NULL, MS_BIND, NULL));
    check("remount bx/n bind,noexec,nodev,nosuid",
          mount(NULL, "bx/n", NULL, MS_REMOUNT | MS_BIND | MS_NOEXEC | MS_NODEV | MS_NOSUID, NULL));
    run("bx/n/prog", "bx/n/prog");
    run("bx/a/prog", "bx/a/prog");
    map_exec("bx/n/prog", "bx/n/prog");
    map_exec("bx/a/prog", "bx/a/prog");
    int fd = open("bx/n/null", O_RDWR);
    out("open bx/n/null: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    fd = open("bx/a/null", O_RDWR);
    out("open bx/a/null: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    flags("bx/n");
    flags("bx/a");
    flags("bx/n/prog");
    check("remount bx/n bind (flags cleared)", mount(NULL, "bx/n", NULL, MS_REMOUNT | MS_BIND, NULL));
    run("bx/n/prog again", "bx/n/prog");
    flags("bx/n");
    check("umount bx/n", umount("bx/n"));
    check("umount bx", umount("bx"));
    return 0;
}
