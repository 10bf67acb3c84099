/* /proc/PID/mem is a debugger's access (FOLL_FORCE): it writes into a
 * private read-only mapping (a program's text: the change is the
 * process's own, the file and other processes keep the original, and the
 * page stays read-only for the process) and reads a PROT_NONE mapping;
 * a shared mapping without write permission cannot be written (EIO). */
#include "ptrace.h"
#include "../fault.h"

static const char *(*volatile unused_read)(volatile void *) __attribute__((unused)) = try_read;
#include <sys/mman.h>

__attribute__((noinline)) int ro_fn(void)
{
    return 42;
}

static int (*volatile fnp)(void) = ro_fn;
static char *volatile none_page, *volatile ro_page, *volatile shared_page;

int main(void)
{
    none_page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ro_page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    shared_page = mmap(0, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(none_page, 0x5a, 16);
    memset(ro_page, 0x11, 16);
    mprotect(none_page, 4096, PROT_NONE);
    mprotect(ro_page, 4096, PROT_READ);
    int go[2], done[2];
    pipe(go);
    pipe(done);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(go[0], &c, 1);
        char res[64];
        res[0] = fnp() == 43 ? 'y' : 'n';
        res[1] = ro_page[0] == 0x22 ? 'y' : 'n';
        snprintf(res + 2, sizeof res - 2, "%s", try_write(ro_page, 0x33));
        write(done[1], res, strlen(res));
        pause();
        _exit(0);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int fd = open(path, O_RDWR);
    check("open", fd);
    unsigned char code[8];
    show("pread text", pread(fd, code, sizeof code, (off_t)(uintptr_t)ro_fn));
    int at = -1;
    for (int i = 0; i < 6; i++)
        if (code[i] == 42 && at < 0)
            at = i;
    out("42 in ro_fn's code: %s", yesno(at >= 0));
    unsigned char v = 43;
    show("pwrite text", pwrite(fd, &v, 1, (off_t)(uintptr_t)ro_fn + at));
    unsigned char c2 = 0x22;
    show("pwrite PROT_READ private", pwrite(fd, &c2, 1, (off_t)(uintptr_t)ro_page));
    unsigned char n[4] = {0};
    show("pread PROT_NONE", pread(fd, n, sizeof n, (off_t)(uintptr_t)none_page));
    out("  bytes: %02x %02x", n[0], n[3]);
    show("pwrite PROT_NONE private", pwrite(fd, &c2, 1, (off_t)(uintptr_t)none_page));
    show("pwrite PROT_READ shared", pwrite(fd, &c2, 1, (off_t)(uintptr_t)shared_page));
    out("parent's ro_fn still 42: %s", yesno(fnp() == 42));
    out("parent's ro_page still 0x11: %s", yesno(ro_page[0] == 0x11));
    write(go[1], "x", 1);
    char res[64] = {0};
    read(done[0], res, sizeof res - 1);
    out("child's ro_fn returns 43: %c", res[0]);
    out("child sees the PROT_READ write: %c", res[1]);
    out("child's own write to it: %s", res + 2);
    close(fd);
    kill(pid, SIGKILL);
    reap("end", pid);
    return 0;
}
