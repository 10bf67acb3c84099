/* /proc/self links: exe, cwd, root, fd/N (files, directories, pipes,
 * devices, unlinked files) with their modes, and what opening them does:
 * fd/N opens the same file again (new offset), a pipe's link opens the
 * same pipe. */
#include "../common.h"

static void show_link(const char *label, const char *path)
{
    char buf[512];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    buf[n] = 0;
    out("%s: %s", label, buf);
}

static void show_fd(const char *label, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    show_link(label, path);
}

static void show_mode(const char *label, int fd)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (lstat(path, &st) < 0) {
        out("%s mode: %s", label, errname(errno));
        return;
    }
    out("%s mode: %s %04o", label, S_ISLNK(st.st_mode) ? "link" : "not a link", st.st_mode & 07777);
}

int main(void)
{
    char cwd[256], buf[512];
    getcwd(cwd, sizeof cwd);

    show_link("exe", "/proc/self/exe");
    ssize_t n = readlink("/proc/self/cwd", buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    out("cwd is getcwd: %s", yesno(n > 0 && strcmp(buf, cwd) == 0));
    show_link("root", "/proc/self/root");
    n = readlink("/proc/self", buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    out("/proc/self is the pid: %s", yesno(n > 0 && atol(buf) == getpid()));
    struct stat a, b;
    stat("/proc/self/exe", &a);
    stat("/contracts/proc/self-links", &b);
    out("exe is the program file: %s", yesno(a.st_ino == b.st_ino && a.st_dev == b.st_dev));
    stat("/proc/self/cwd", &a);
    stat(".", &b);
    out("cwd link leads to the cwd: %s", yesno(a.st_ino == b.st_ino && a.st_dev == b.st_dev));

    put_file("data", "0123456789");
    mkdir("dir", 0755);
    int rdonly = open("data", O_RDONLY);
    int wronly = open("data", O_WRONLY);
    int rdwr = open("data", O_RDWR);
    int dirfd = open("dir", O_RDONLY | O_DIRECTORY);
    int null = open("/dev/null", O_RDWR);
    int p[2];
    pipe(p);
    snprintf(buf, sizeof buf, "%s/data", cwd);
    {
        char link[512];
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", rdonly);
        ssize_t m = readlink(path, link, sizeof link - 1);
        link[m > 0 ? m : 0] = 0;
        out("file link is its absolute path: %s", yesno(m > 0 && strcmp(link, buf) == 0));
    }
    show_mode("O_RDONLY", rdonly);
    show_mode("O_WRONLY", wronly);
    show_mode("O_RDWR", rdwr);
    show_mode("directory", dirfd);
    show_fd("/dev/null", null);
    char link[128];
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", p[0]);
    n = readlink(buf, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    out("pipe link starts with pipe:[: %s", yesno(strncmp(link, "pipe:[", 6) == 0 && link[n - 1] == ']'));
    char link2[128];
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", p[1]);
    ssize_t n2 = readlink(buf, link2, sizeof link2 - 1);
    link2[n2 > 0 ? n2 : 0] = 0;
    out("both ends name the same pipe: %s", yesno(n == n2 && memcmp(link, link2, n) == 0));

    /* Opening fd/N: the same file, a new description with its own offset. */
    char tmp[16] = "";
    read(rdonly, tmp, 4);
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", rdonly);
    int again = open(buf, O_RDONLY);
    fstat(again, &a);
    fstat(rdonly, &b);
    out("reopen is the same file: %s", yesno(a.st_ino == b.st_ino && a.st_dev == b.st_dev));
    memset(tmp, 0, sizeof tmp);
    read(again, tmp, 3);
    out("reopen starts at offset 0: %s", tmp);
    close(again);
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", dirfd);
    show_link("directory link", buf);
    check("open fd/N with O_NOFOLLOW", open(buf, O_RDONLY | O_NOFOLLOW));

    /* A pipe's read end opened for writing is the pipe's write side. */
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", p[0]);
    int w = open(buf, O_WRONLY);
    check("open pipe read end's link O_WRONLY", w);
    write(w, "via-proc", 8);
    close(w);
    memset(tmp, 0, sizeof tmp);
    read(p[0], tmp, 8);
    out("read from the pipe: %s", tmp);

    /* An unlinked file keeps its link, marked deleted. */
    int gone = open("gone", O_RDWR | O_CREAT, 0644);
    unlink("gone");
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", gone);
    n = readlink(buf, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    out("unlinked file ends with (deleted): %s", yesno(n > 10 && strcmp(link + n - 10, " (deleted)") == 0));

    /* fd lists the open fds; fdinfo gives the offset and flags. */
    DIR *d = opendir("/proc/self/fd");
    int count = 0, has_rdwr = 0;
    struct dirent *e;
    char want[16];
    snprintf(want, sizeof want, "%d", rdwr);
    while ((e = readdir(d))) {
        if (e->d_name[0] != '.')
            count++;
        if (strcmp(e->d_name, want) == 0)
            has_rdwr = 1;
        if (strcmp(e->d_name, want) == 0)
            out("entry type: %s", e->d_type == DT_LNK ? "DT_LNK" : "other");
    }
    closedir(d);
    out("fd entries (with the directory's own): %d", count);
    out("lists the O_RDWR fd: %s", yesno(has_rdwr));
    int cl = open("data", O_RDONLY | O_CLOEXEC);
    read(cl, tmp, 5);
    snprintf(buf, sizeof buf, "/proc/self/fdinfo/%d", cl);
    int info = open(buf, O_RDONLY);
    char text[256] = "";
    read(info, text, sizeof text - 1);
    close(info);
    long long pos = -1;
    unsigned flags = 0;
    sscanf(text, "pos:\t%lld\nflags:\t%o", &pos, &flags);
    out("fdinfo pos: %lld", pos);
    out("fdinfo access mode: %o cloexec: %s", flags & O_ACCMODE, yesno(flags & O_CLOEXEC));
    out("fdinfo has mnt_id and ino: %s", yesno(strstr(text, "\nmnt_id:\t") && strstr(text, "\nino:\t")));
    check("readlink of a closed fd", readlink("/proc/self/fd/900", link, sizeof link));
    check("open fdinfo of a closed fd", open("/proc/self/fdinfo/900", O_RDONLY));
    return 0;
}
