/* Fault-around (Linux's do_fault_around, fault_around_bytes = 64 KiB): a
 * read fault on a file mapping whose pages the page cache holds maps the
 * cached pages of the whole 64 KiB-aligned window around the address
 * (cut at the mapping's start), before the faulting page as well as
 * after it. Counted with /proc/self/stat's minflt: touching the rest of
 * the window afterwards takes no fault.
 *
 * The window is also cut at the end of the page table (2 MiB of address
 * space): the mappings are placed at known distances from a table
 * boundary (placed anywhere, a boundary could cut a window short in one
 * run and not in the next, as Linux places mappings at random), and one
 * crosses a boundary on purpose. */
#include "common.h"
#include <sys/mman.h>

#define PAGES 64
#define WINDOW (16 * 4096L)
#define TABLE_SPAN (2L << 20)

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
    /* fields 3..10: state ppid pgrp session tty tpgid flags minflt */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld", &v) != 1)
        return -1;
    return v;
}

static volatile char sink;

/* Faults taken reading one byte of each page in [from, to). */
static long touch(const char *map, int from, int to)
{
    long before = minflt();
    for (int i = from; i < to; i++)
        sink = map[i * 4096L];
    return minflt() - before;
}

int main(void)
{
    static char page[4096];
    int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < PAGES; i++) {
        memset(page, 'a' + i % 26, sizeof page);
        write(fd, page, sizeof page); /* in the page cache from now on */
    }
    memset(statbuf, 0, sizeof statbuf);
    minflt();
    /* A place at the start of a page table's span: 64 KiB-aligned, so the
     * windows are at known pages, and no table boundary within reach. */
    char *area = mmap(NULL, 3 * TABLE_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *base = (char *)(((unsigned long)area + TABLE_SPAN - 1) & ~(TABLE_SPAN - 1));
    char *map = mmap(base, PAGES * 4096L, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    out("map: %s", map == base ? "ok" : errname(errno));

    /* Page 20 first: its window is pages 16-31. */
    out("faults reading page 20: %ld", touch(map, 20, 21));
    out("faults reading pages 16-31 after it: %ld", touch(map, 16, 32));
    /* Page 47 (window 32-47): the pages before it come too. */
    out("faults reading page 47: %ld", touch(map, 47, 48));
    out("faults reading pages 32-47 after it: %ld", touch(map, 32, 48));
    /* Already mapped pages inside a window are skipped, not a stop: page
     * 50 mapped first, then page 60 maps 48-63 around it. */
    out("faults reading page 50: %ld", touch(map, 50, 51));
    out("faults reading page 60: %ld", touch(map, 60, 61));
    out("faults reading pages 48-63 after them: %ld", touch(map, 48, 64));

    /* A mapping starting 4 pages into a window: the window starts at the
     * mapping's start and holds 16 pages from there. */
    char *shifted = mmap(base + 4 * 4096L, 32 * 4096L, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    out("shifted map: %s", shifted == base + 4 * 4096L ? "ok" : errname(errno));
    out("faults reading its page 2: %ld", touch(shifted, 2, 3));
    out("faults reading its pages 0-15 after it: %ld", touch(shifted, 0, 16));
    out("faults reading its page 16: %ld", touch(shifted, 16, 17));

    /* Writes are not faulted around: a private writable mapping's write
     * fault copies one page; reads of its neighbours fault around. */
    char *rw = mmap(base, 16 * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    out("writable map: %s", rw == base ? "ok" : errname(errno));
    long before = minflt();
    rw[3 * 4096L] = 'X';
    out("faults writing page 3: %ld", minflt() - before);
    out("faults reading pages 0-15 after it: %ld", touch(rw, 0, 16));
    out("page 3 reads back: %c, page 4: %c", rw[3 * 4096L], rw[4 * 4096L]);

    /* A mapping across a table boundary, 8 pages before it: the window of
     * its page 2 stops at the boundary; the next table's first page
     * faults and maps its own window. */
    char *across = mmap(base + TABLE_SPAN - 8 * 4096L, 32 * 4096L, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    out("map across a table boundary: %s", across == base + TABLE_SPAN - 8 * 4096L ? "ok" : errname(errno));
    out("faults reading its page 2: %ld", touch(across, 2, 3));
    out("faults reading its pages 0-7 after it: %ld", touch(across, 0, 8));
    out("faults reading its page 8: %ld", touch(across, 8, 9));
    out("faults reading its pages 8-23 after it: %ld", touch(across, 8, 24));
    close(fd);
    return 0;
}
