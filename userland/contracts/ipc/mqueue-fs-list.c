/* The mqueue file system's root lists the queues mq_open made (sorted
 * here: the order differs between kernels); a queue file's stat (mode
 * from mq_open's, size, link count), the root's size growing with the
 * queues, and the state line reading a queue file gives (QSIZE counts
 * the bytes queued). */
#include "ipc.h"
#include <dirent.h>
#include <mqueue.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define DIR_ "mqfs-list"

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *label)
{
    char *names[16];
    int n = 0;
    DIR *d = opendir(DIR_);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 16)
        names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, n, sizeof names[0], cmp);
    char buf[512] = "";
    for (int i = 0; i < n; i++) {
        strcat(buf, " ");
        strcat(buf, names[i]);
        free(names[i]);
    }
    out("%s:%s", label, buf);
}

static void qsize(const char *label)
{
    char buf[256];
    int fd = open(DIR_ "/kevlar-mqfs-b", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (n < 0) {
        out("%s: %s", label, errname(errno));
    } else {
        buf[n] = 0;
        out("%s: %zd bytes '%s'", label, n, buf);
    }
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    mq_unlink("/kevlar-mqfs-a");
    mq_unlink("/kevlar-mqfs-b");
    mkdir(DIR_, 0755);
    if (check("mount", mount("none", DIR_, "mqueue", 0, NULL)) < 0)
        return 1;
    struct stat st;
    stat(DIR_, &st);
    off_t empty = st.st_size;
    umask(022);
    mqd_t a = mq_open("/kevlar-mqfs-a", O_RDWR | O_CREAT, 0640, NULL);
    mqd_t b = mq_open("/kevlar-mqfs-b", O_RDWR | O_CREAT, 0666, NULL);
    out("mq_open: %s %s", a < 0 ? errname(errno) : "ok", b < 0 ? errname(errno) : "ok");
    list("listing");
    stat(DIR_, &st);
    out("root size grew by %ld", (long)(st.st_size - empty));
    if (check("stat a", stat(DIR_ "/kevlar-mqfs-a", &st)) == 0)
        out("a: mode %o nlink %lu size %ld", st.st_mode, (unsigned long)st.st_nlink, (long)st.st_size);
    if (check("stat b", stat(DIR_ "/kevlar-mqfs-b", &st)) == 0)
        out("b: mode %o", st.st_mode);
    qsize("empty");
    check("send", mq_send(b, "hello", 5, 1));
    check("send", mq_send(b, "hi", 2, 3));
    qsize("two messages");
    mq_close(a);
    mq_close(b);
    mq_unlink("/kevlar-mqfs-a");
    mq_unlink("/kevlar-mqfs-b");
    list("after mq_unlink");
    check("umount", umount(DIR_));
    rmdir(DIR_);
    return 0;
}
