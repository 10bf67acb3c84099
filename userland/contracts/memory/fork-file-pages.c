/* fork and a file's cached pages (Linux's copy_page_range): a file
 * mapping holding no private page is not copied into the child, whose
 * first read faults its pages in again (one fault, with fault-around);
 * the pages a private mapping made its own (a write, then mprotect to
 * read-only, as the dynamic loader does with RELRO) are copied. Counted
 * with /proc/self/stat's minflt in the child. */
#include "common.h"
#include <sys/mman.h>

#define WINDOW (16 * 4096L)

static char statbuf[4096];

/* minflt, field 10 of /proc/self/stat (after the ")" of comm). */
static long minflt(void)
{
    int fd = open("/proc/self/stat", O_RDONLY);
    ssize_t n = read(fd, statbuf, sizeof statbuf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    statbuf[n] = 0;
    char *p = strrchr(statbuf, ')');
    long v = -1;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld", &v) != 1)
        return -1;
    return v;
}

static volatile char sink;

/* Faults taken reading one byte of each of `pages` pages; `*ok` is
 * cleared when a page does not hold `fill + i`. */
static long touch(const char *map, int pages, char fill, int *ok)
{
    long before = minflt();
    for (int i = 0; i < pages; i++) {
        sink = map[i * 4096L];
        if (sink != (char)(fill + i))
            *ok = 0;
    }
    return minflt() - before;
}

/* A 64 KiB-aligned place for a 16-page mapping. */
static char *aligned_place(void)
{
    char *area = mmap(NULL, 2 * WINDOW, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return (char *)(((unsigned long)area + WINDOW - 1) & ~(WINDOW - 1));
}

int main(void)
{
    static char page[4096];
    int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 16; i++) {
        memset(page, 'a' + i, sizeof page);
        write(fd, page, sizeof page); /* in the page cache from now on */
    }
    memset(statbuf, 0, sizeof statbuf);
    int ok = 1;
    sink = 0;
    touch(NULL, 0, 0, &ok); /* the stack and globals it uses, present */

    char *ro = mmap(aligned_place(), WINDOW, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    char *sh = mmap(aligned_place(), WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    char *rel = mmap(aligned_place(), WINDOW, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    out("maps: %s %s %s", ro != MAP_FAILED ? "ok" : errname(errno), sh != MAP_FAILED ? "ok" : errname(errno),
        rel != MAP_FAILED ? "ok" : errname(errno));
    out("parent: faults reading the private read-only mapping: %ld", touch(ro, 16, 'a', &ok));
    out("parent: faults reading the shared mapping: %ld", touch(sh, 16, 'a', &ok));
    /* Page 3 of the private mapping becomes its own, then read-only. */
    rel[3 * 4096L] = 'X';
    out("mprotect read-only: %d", mprotect(rel, WINDOW, PROT_READ));
    out("parent contents: %s", ok ? "ok" : "wrong");

    pid_t pid = fork();
    if (pid == 0) {
        /* Its own copies of what the counting writes, first. */
        int cok = 1;
        memset(statbuf, 0, sizeof statbuf);
        sink = 0;
        touch(NULL, 0, 0, &cok);
        long f_ro = touch(ro, 16, 'a', &cok);
        long f_sh = touch(sh, 16, 'a', &cok);
        long before = minflt();
        sink = rel[3 * 4096L];
        long f_own = minflt() - before;
        char own = sink;
        out("child: faults reading the private read-only mapping: %ld", f_ro);
        out("child: faults reading the shared mapping: %ld", f_sh);
        out("child: faults reading the private page it inherited: %ld (%c)", f_own, own);
        out("child contents: %s", cok ? "ok" : "wrong");
        _exit(0);
    }
    reap("child", pid);
    return 0;
}
