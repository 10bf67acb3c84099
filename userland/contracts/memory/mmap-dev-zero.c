/* mmap of /dev/zero: private mappings are private zero-filled memory,
 * shared ones are shared anonymous memory (a child's writes show in the
 * parent); the open mode still matters (EACCES). */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    int fd = open("/dev/zero", O_RDWR);
    char *ro = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
    out("PROT_READ MAP_SHARED: %s", ro == MAP_FAILED ? errname(errno) : "ok");
    if (ro != MAP_FAILED)
        out("reads zero: %s", yesno(ro[0] == 0 && ro[pg - 1] == 0));
    char *priv = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    out("MAP_PRIVATE read-write: %s", priv == MAP_FAILED ? errname(errno) : "ok");
    char *shared = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    out("MAP_SHARED read-write: %s", shared == MAP_FAILED ? errname(errno) : "ok");
    if (priv != MAP_FAILED && shared != MAP_FAILED) {
        strcpy(priv, "private");
        strcpy(shared, "before");
        pid_t pid = fork();
        if (pid == 0) {
            strcpy(priv, "child");
            strcpy(shared, "child wrote");
            _exit(0);
        }
        waitpid(pid, NULL, 0);
        out("parent sees: private '%s', shared '%s'", priv, shared);
        char buf[8];
        out("reading the fd still gives zeros: %s", yesno(read(fd, buf, 8) == 8 && buf[0] == 0 && buf[7] == 0));
    }
    int rdonly = open("/dev/zero", O_RDONLY);
    char *bad = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, rdonly, 0);
    out("MAP_SHARED writable on a read-only fd: %s", bad == MAP_FAILED ? errname(errno) : "ok");
    char *cow = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, rdonly, 0);
    out("MAP_PRIVATE writable on a read-only fd: %s", cow == MAP_FAILED ? errname(errno) : "ok");
    int wronly = open("/dev/zero", O_WRONLY);
    char *w = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, wronly, 0);
    out("any mapping on a write-only fd: %s", w == MAP_FAILED ? errname(errno) : "ok");
    int null = open("/dev/null", O_RDWR);
    char *n = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, null, 0);
    out("/dev/null: %s", n == MAP_FAILED ? errname(errno) : "ok");
    return 0;
}
