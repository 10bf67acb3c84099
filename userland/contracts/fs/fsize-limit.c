/* RLIMIT_FSIZE on regular files: a write crossing the limit is cut short
 * at it, one starting at the limit fails with EFBIG and raises SIGXFSZ
 * (whose default action ends the process), an empty write is never
 * refused, pwrite and ftruncate/truncate growing past it are refused the
 * same way, shrinking is allowed, and pipes and /dev/null ignore it. */
#include "common.h"
#include <sys/resource.h>

static volatile sig_atomic_t xfsz;
static void on_xfsz(int sig) { (void)sig; xfsz++; }

static void took(const char *label)
{
    out("%s: SIGXFSZ %s", label, xfsz ? "raised" : "not raised");
    xfsz = 0;
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit r = {1000, RLIM_INFINITY};
        setrlimit(RLIMIT_FSIZE, &r);
        int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
        char buf[4096];
        memset(buf, 'x', sizeof buf);
        write(fd, buf, 10);
        write(fd, buf, sizeof buf); /* fills up to the limit */
        write(fd, buf, 1);          /* at the limit: SIGXFSZ kills */
        out("not reached");
        _exit(0);
    }
    reap("default action", pid);
    struct stat st;
    stat("f", &st);
    out("file size after the killed writer: %lld", (long long)st.st_size);

    signal(SIGXFSZ, on_xfsz);
    struct rlimit r = {1000, RLIM_INFINITY};
    check("setrlimit FSIZE 1000", setrlimit(RLIMIT_FSIZE, &r));
    int fd = open("g", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[4096];
    memset(buf, 'y', sizeof buf);
    show("write 600", write(fd, buf, 600));
    took("write 600");
    show("write 600 crossing the limit", write(fd, buf, 600));
    took("crossing");
    show("write 1 at the limit", write(fd, buf, 1));
    took("at the limit");
    show("write 0 at the limit", write(fd, buf, 0));
    took("empty write");
    show("pwrite 1 at 999", pwrite(fd, buf, 1, 999));
    took("pwrite below");
    show("pwrite 10 at 5000", pwrite(fd, buf, 10, 5000));
    took("pwrite past");
    show("lseek to 2000", lseek(fd, 2000, SEEK_SET));
    show("write past the limit", write(fd, buf, 5));
    took("write past");
    show("ftruncate to 1000", ftruncate(fd, 1000));
    took("ftruncate to the limit");
    show("ftruncate to 1001", ftruncate(fd, 1001));
    took("ftruncate past");
    show("ftruncate to 10", ftruncate(fd, 10));
    show("truncate to 5000", truncate("g", 5000));
    took("truncate past");
    fstat(fd, &st);
    out("size: %lld", (long long)st.st_size);

    int p[2];
    pipe(p);
    show("pipe write of 2000", write(p[1], buf, 2000));
    took("pipe");
    int nul = open("/dev/null", O_WRONLY);
    show("/dev/null write of 4096", write(nul, buf, 4096));
    took("/dev/null");

    signal(SIGXFSZ, SIG_IGN);
    show("ignored SIGXFSZ: pwrite at the limit", pwrite(fd, buf, 1, 1000));
    return 0;
}
