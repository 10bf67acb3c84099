/* /proc/self/maps: one line per mapping in address order, Linux's column
 * layout, permissions and private/shared flags, file offsets and names,
 * [stack] and [heap]; mprotect splits a line. */
#include "../common.h"
#include <sys/mman.h>

struct line {
    unsigned long start, end, offset;
    char perms[8];
    unsigned major, minor;
    unsigned long ino;
    char name[256];
    int name_column;
};

static int parse(char *text, struct line *lines, int max)
{
    int n = 0;
    for (char *l = strtok(text, "\n"); l && n < max; l = strtok(NULL, "\n")) {
        struct line *x = &lines[n];
        int consumed = 0;
        if (sscanf(l, "%lx-%lx %4s %lx %x:%x %lu %n", &x->start, &x->end, x->perms, &x->offset, &x->major, &x->minor, &x->ino, &consumed) < 7)
            continue;
        x->name[0] = 0;
        x->name_column = 0;
        if (l[consumed]) {
            snprintf(x->name, sizeof x->name, "%s", l + consumed);
            x->name_column = consumed;
        }
        n++;
    }
    return n;
}

static int read_maps(struct line *lines, int max)
{
    static char text[65536];
    int fd = open("/proc/self/maps", O_RDONLY);
    ssize_t n = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return parse(text, lines, max);
}

static struct line *find(struct line *lines, int n, unsigned long addr)
{
    for (int i = 0; i < n; i++)
        if (lines[i].start <= addr && addr < lines[i].end)
            return &lines[i];
    return NULL;
}

static void describe(const char *label, struct line *x, unsigned long start, unsigned long end)
{
    if (!x) {
        out("%s: no line", label);
        return;
    }
    out("%s: exact range %s, %s offset %lx dev %s inode %s name [%s]", label, yesno(x->start == start && x->end == end),
        x->perms, x->offset, x->major || x->minor ? "set" : "0:0", x->ino ? "set" : "0", x->name);
}

int main(void)
{
    static struct line lines[256];
    char cwd[256];
    getcwd(cwd, sizeof cwd);
    long page = sysconf(_SC_PAGESIZE);
    char *ro = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *sh = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd = open("file", O_RDWR | O_CREAT, 0644);
    ftruncate(fd, 3 * page);
    char *file = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, page);
    char *big = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(big + page, page, PROT_READ);
    /* musl's sbrk cannot grow: move the break with the system call. */
    char *heap = (char *)syscall(SYS_brk, 0);
    syscall(SYS_brk, heap + page);
    heap[0] = 1;
    int n = read_maps(lines, 256);
    out("lines: %s", yesno(n > 5));
    int ordered = 1;
    for (int i = 1; i < n; i++)
        if (lines[i].start < lines[i - 1].end)
            ordered = 0;
    out("in address order, not overlapping: %s", yesno(ordered));
    int columns = 1;
    for (int i = 0; i < n; i++)
        if (lines[i].name[0] && lines[i].name_column != 73 && lines[i].name_column != 0)
            columns = lines[i].name_column < 73 ? 0 : columns;
    out("names start at column 73: %s", yesno(columns));
    describe("PROT_READ anonymous", find(lines, n, (unsigned long)ro), (unsigned long)ro, (unsigned long)ro + 2 * page);
    describe("MAP_SHARED anonymous", find(lines, n, (unsigned long)sh), (unsigned long)sh, (unsigned long)sh + page);
    describe("PROT_NONE", find(lines, n, (unsigned long)none), (unsigned long)none, (unsigned long)none + page);
    struct line *f = find(lines, n, (unsigned long)file);
    describe("file at offset one page", f, (unsigned long)file, (unsigned long)file + page);
    char want[512];
    snprintf(want, sizeof want, "%s/file", cwd);
    out("file mapping names the file: %s", yesno(f && strcmp(f->name, want) == 0));
    struct stat st;
    fstat(fd, &st);
    out("file mapping inode is the file's: %s", yesno(f && f->ino == st.st_ino));
    describe("before mprotect hole", find(lines, n, (unsigned long)big), (unsigned long)big, (unsigned long)big + page);
    describe("mprotect hole", find(lines, n, (unsigned long)big + page), (unsigned long)big + page, (unsigned long)big + 2 * page);
    describe("after mprotect hole", find(lines, n, (unsigned long)big + 2 * page), (unsigned long)big + 2 * page, (unsigned long)big + 4 * page);
    int local;
    struct line *stack = find(lines, n, (unsigned long)&local);
    out("stack: %s %s", stack ? stack->perms : "-", stack ? stack->name : "-");
    struct line *h = find(lines, n, (unsigned long)heap);
    out("brk area: %s %s", h ? h->perms : "-", h ? h->name : "-");
    struct line *code = find(lines, n, (unsigned long)main);
    out("code: %s %s", code ? code->perms : "-", code ? code->name : "-");
    int has_exe = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i].name, "/contracts/proc/maps") == 0 && strchr(lines[i].perms, 'x'))
            has_exe = 1;
    out("executable mapping of the program: %s", yesno(has_exe));
    munmap(ro, page);
    n = read_maps(lines, 256);
    out("after unmapping the first page: %s", find(lines, n, (unsigned long)ro) ? "still there" : "gone");
    describe("rest of PROT_READ anonymous", find(lines, n, (unsigned long)ro + page), (unsigned long)ro + page, (unsigned long)ro + 2 * page);
    return 0;
}
