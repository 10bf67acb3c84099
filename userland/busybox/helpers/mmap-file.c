/* mmap-file: what the BusyBox suite's scripts need of mmap on a file
 * (BusyBox has no applet for it). Prints only return values and errno
 * names, so Linux and Kevlar print the same.
 *
 *   mmap-file shared FILE   two processes MAP_SHARED the file: the child's
 *                           store is seen by the parent's mapping and by
 *                           read(); the parent's write() by the child's
 *                           mapping; msync(MS_SYNC); the file keeps "STORE"
 *                           at offset 4096 and "WRITE" at 8000.
 *   mmap-file sigbus FILE   a page wholly past the end of a mapped file
 *                           raises SIGBUS; the file's last page does not.
 *   mmap-file private FILE  a private mapping sees the file until it is
 *                           written, then keeps its copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(int e) {
    switch (e) {
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case EACCES: return "EACCES";
    case ENOMEM: return "ENOMEM";
    case EBADF: return "EBADF";
    default: return "E?";
    }
}

static int shared(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { printf("open: %s\n", err(errno)); return 1; }
    printf("ftruncate: %d\n", ftruncate(fd, 12288));
    char *p = mmap(0, 12288, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { printf("mmap shared: %s\n", err(errno)); return 1; }
    printf("mmap shared: ok\n");
    int go[2], done[2];
    if (pipe(go) || pipe(done)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        char *q = mmap(0, 12288, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (q == MAP_FAILED) _exit(2);
        memcpy(q + 4096, "STORE", 5);
        char c = 1;
        write(done[1], &c, 1);
        read(go[0], &c, 1);
        /* the parent wrote with write(2): this mapping sees it */
        printf("child sees write(): %s\n", memcmp(q + 8000, "WRITE", 5) == 0 ? "yes" : "no");
        fflush(stdout);
        _exit(0);
    }
    char c;
    read(done[0], &c, 1);
    printf("parent mapping sees the child's store: %s\n", memcmp(p + 4096, "STORE", 5) == 0 ? "yes" : "no");
    char buf[5];
    printf("pread: %zd\n", pread(fd, buf, 5, 4096));
    printf("read() sees the store: %s\n", memcmp(buf, "STORE", 5) == 0 ? "yes" : "no");
    printf("pwrite: %zd\n", pwrite(fd, "WRITE", 5, 8000));
    write(go[1], &c, 1);
    int status;
    waitpid(pid, &status, 0);
    printf("child exit: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    printf("msync MS_SYNC: %d\n", msync(p, 12288, MS_SYNC));
    printf("msync MS_ASYNC: %d\n", msync(p, 12288, MS_ASYNC));
    int r = msync(p, 12288, MS_SYNC | MS_ASYNC);
    printf("msync both: %d %s\n", r, err(errno));
    printf("fsync: %d\n", fsync(fd));
    printf("fdatasync: %d\n", fdatasync(fd));
    printf("munmap: %d\n", munmap(p, 12288));
    close(fd);
    return 0;
}

static sigjmp_buf env;
static void on_bus(int sig) { siglongjmp(env, sig); }

static int sigbus(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { printf("open: %s\n", err(errno)); return 1; }
    printf("write: %zd\n", write(fd, "abc", 3));
    volatile char *p = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { printf("mmap: %s\n", err(errno)); return 1; }
    signal(SIGBUS, on_bus);
    int sig = sigsetjmp(env, 1);
    if (sig == 0) {
        printf("last page: %c, past the end reads %d\n", p[0], p[100]);
        (void)p[4096];
        printf("no SIGBUS\n");
    } else {
        printf("SIGBUS past the end: %s\n", sig == SIGBUS ? "yes" : "no");
    }
    printf("ftruncate: %d\n", ftruncate(fd, 8192));
    sig = sigsetjmp(env, 1);
    if (sig == 0) {
        p[4096] = 'x';
        printf("grown: the second page is there: %d\n", p[4097]);
        (void)p[8192];
        printf("no SIGBUS\n");
    } else {
        printf("SIGBUS past the new end: %s\n", sig == SIGBUS ? "yes" : "no");
    }
    char c = '?';
    ssize_t n = pread(fd, &c, 1, 4096);
    printf("pread: %zd %c\n", n, c);
    munmap((void *)p, 3 * 4096);
    close(fd);
    return 0;
}

static int private_map(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { printf("open: %s\n", err(errno)); return 1; }
    printf("write: %zd\n", write(fd, "original", 8));
    char *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) { printf("mmap private: %s\n", err(errno)); return 1; }
    printf("pwrite: %zd\n", pwrite(fd, "CHANGED!", 8, 0));
    printf("private sees the file before writing: %.8s\n", p);
    p[0] = 'x';
    printf("pwrite: %zd\n", pwrite(fd, "AGAIN...", 8, 0));
    printf("private after its own store: %.8s\n", p);
    char buf[9] = {0};
    ssize_t n = pread(fd, buf, 8, 0);
    printf("pread: %zd %s\n", n, buf);
    munmap(p, 4096);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, 0, _IONBF, 0);
    if (argc != 3) { fprintf(stderr, "usage: mmap-file shared|sigbus|private FILE\n"); return 2; }
    if (!strcmp(argv[1], "shared")) return shared(argv[2]);
    if (!strcmp(argv[1], "sigbus")) return sigbus(argv[2]);
    if (!strcmp(argv[1], "private")) return private_map(argv[2]);
    return 2;
}
