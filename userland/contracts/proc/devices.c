/* devtmpfs and sysfs: the device nodes devtmpfs gives (types, numbers,
 * modes), the same tree at a second mount, and sysfs's class, dev/char
 * and device directories with their dev and uevent files. */
#include "../common.h"
#include <sys/mount.h>

static const char *names[] = {"console", "full", "kmsg", "null", "random", "tty", "ttyS0", "urandom", "zero"};

static void show_node(const char *dir, const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) < 0) {
        out("%s: %s", name, errname(errno));
        return;
    }
    out("%s: %s %u:%u %04o", name, S_ISCHR(st.st_mode) ? "char" : "other", major(st.st_rdev), minor(st.st_rdev), st.st_mode & 07777);
}

static void show_text(const char *label, const char *path)
{
    char buf[512];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = '|';
    out("%s: %s", label, buf);
}

static void show_link(const char *label, const char *path)
{
    char buf[256];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    out("%s -> %s", label, n > 0 ? buf : errname(errno));
}

int main(void)
{
    /* /dev is devtmpfs (contract-init mounts it). */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        show_node("/dev", names[i]);
    check("/dev/fd is not there", access("/dev/fd", F_OK));
    mkdir("dev2", 0755);
    check("mount devtmpfs again", mount("devtmpfs", "dev2", "devtmpfs", 0, NULL));
    put_file("dev2/shared-marker", "x");
    check("a file made in one devtmpfs mount shows in the other", access("/dev/shared-marker", F_OK));
    unlink("dev2/shared-marker");
    check("umount", umount("dev2"));
    int fd = open("/dev/null", O_WRONLY);
    check("write /dev/null", write(fd, "x", 1));
    close(fd);

    mkdir("sys", 0755);
    check("mount sysfs", mount("sysfs", "sys", "sysfs", 0, NULL));
    show_text("class/mem/null/dev", "sys/class/mem/null/dev");
    show_text("class/mem/zero/uevent", "sys/class/mem/zero/uevent");
    show_text("class/tty/console/dev", "sys/class/tty/console/dev");
    show_text("class/tty/tty/uevent", "sys/class/tty/tty/uevent");
    show_link("dev/char/1:3", "sys/dev/char/1:3");
    show_link("dev/char/1:9", "sys/dev/char/1:9");
    show_link("dev/char/5:1", "sys/dev/char/5:1");
    show_link("class/mem/null", "sys/class/mem/null");
    show_link("devices/virtual/mem/null/subsystem", "sys/devices/virtual/mem/null/subsystem");
    struct stat st;
    stat("sys/class/mem/null/dev", &st);
    out("attribute size: %lld mode: %04o", (long long)st.st_size, st.st_mode & 07777);
    stat("sys/class", &st);
    out("class directory mode: %04o", st.st_mode & 07777);
    stat("sys", &st);
    out("root mode: %04o", st.st_mode & 07777);
    const char *dirs[] = {"block", "bus", "class", "dev", "devices", "kernel"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "sys/%s", dirs[i]);
        out("sys/%s is a directory: %s", dirs[i], yesno(stat(path, &st) == 0 && S_ISDIR(st.st_mode)));
    }
    check("write an attribute", open("sys/class/mem/null/dev", O_WRONLY));
    check("create in sysfs", open("sys/class/new", O_WRONLY | O_CREAT, 0644));
    check("umount", umount("sys"));
    return 0;
}
