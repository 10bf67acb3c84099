/* memfd_create: an anonymous tmpfs file (mode 0777, no links, read-write,
 * the /proc fd link "/memfd:NAME (deleted)"), MFD_CLOEXEC, the name's
 * length limit (249 bytes), unknown flags, a bad name pointer, and the
 * seals every tmpfs file reports (F_SEAL_SEAL without MFD_ALLOW_SEALING,
 * none with it; EINVAL for files that are not tmpfs). */
#include "common.h"
#include <sys/mman.h>

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#endif

static long mfd(const char *name, unsigned flags)
{
    return syscall(SYS_memfd_create, name, flags);
}

int main(void)
{
    int fd = mfd("test", 0);
    check("memfd_create", fd);
    struct stat st;
    fstat(fd, &st);
    out("mode %o nlink %ld size %ld", (unsigned)st.st_mode, (long)st.st_nlink, (long)st.st_size);
    out("F_GETFL accmode rdwr: %s", yesno((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR));
    out("F_GETFD: %d", fcntl(fd, F_GETFD));
    char link[64], buf[256];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    buf[n < 0 ? 0 : n] = 0;
    out("link: %s", buf);
    show("write", write(fd, "hello world", 11));
    show("lseek", lseek(fd, 6, SEEK_SET));
    n = read(fd, buf, 20);
    buf[n < 0 ? 0 : n] = 0;
    out("read %ld: %s", (long)n, buf);
    check("ftruncate 8192", ftruncate(fd, 8192));
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    out("mmap shared: %s", p == MAP_FAILED ? errname(errno) : "ok");
    if (p != MAP_FAILED) {
        memcpy(p + 4096, "mapped", 6);
        show("pread", pread(fd, buf, 6, 4096));
        buf[6] = 0;
        out("through the mapping: %s", buf);
        munmap(p, 8192);
    }
    show("F_GET_SEALS without MFD_ALLOW_SEALING", fcntl(fd, F_GET_SEALS));
    check("F_ADD_SEALS without MFD_ALLOW_SEALING", fcntl(fd, F_ADD_SEALS, F_SEAL_GROW));
    close(fd);

    fd = mfd("cloexec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    out("MFD_CLOEXEC F_GETFD: %d", fcntl(fd, F_GETFD));
    show("F_GET_SEALS with MFD_ALLOW_SEALING", fcntl(fd, F_GET_SEALS));
    close(fd);

    fd = mfd("", 0);
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, buf, sizeof buf - 1);
    buf[n < 0 ? 0 : n] = 0;
    out("empty name link: %s", buf);
    close(fd);

    char name[300];
    memset(name, 'a', sizeof name);
    name[249] = 0;
    fd = mfd(name, 0);
    check("name of 249 bytes", fd);
    close(fd);
    name[249] = 'a';
    name[250] = 0;
    check("name of 250 bytes", mfd(name, 0));
    check("bad name pointer", mfd((const char *)8, 0));
    check("flag 0x100", mfd("x", 0x100));
    check("flag 0x80000000", mfd("x", 0x80000000u));
    check("MFD_NOEXEC_SEAL (8)", mfd("x", 8));

    int t = open("tmpfile", O_RDWR | O_CREAT, 0644);
    show("F_GET_SEALS of a tmpfs file", fcntl(t, F_GET_SEALS));
    check("F_ADD_SEALS of a tmpfs file", fcntl(t, F_ADD_SEALS, F_SEAL_GROW));
    close(t);
    int pr = open("/proc/self/status", O_RDONLY);
    check("F_GET_SEALS of a /proc file", fcntl(pr, F_GET_SEALS));
    close(pr);
    int pp[2];
    pipe(pp);
    check("F_GET_SEALS of a pipe", fcntl(pp[0], F_GET_SEALS));
    return 0;
}
