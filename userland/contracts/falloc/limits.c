/* fallocate and RLIMIT_FSIZE on tmpfs: growing past the limit raises
 * SIGXFSZ and fails with EFBIG, with KEEP_SIZE too (shmem checks the new
 * end either way); within the file it is allowed. memfd seals: F_SEAL_GROW
 * refuses allocating past the end, F_SEAL_WRITE refuses punching. */
#include "common.h"
#include <sys/resource.h>
#include <sys/mman.h>

static volatile sig_atomic_t got;
static void on_xfsz(int s) { (void)s; got++; }

int main(void)
{
    signal(SIGXFSZ, on_xfsz);
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
    fallocate(fd, 0, 0, 4096);
    struct rlimit rl = { 8192, 8192 };
    setrlimit(RLIMIT_FSIZE, &rl);
    check("within the limit", fallocate(fd, 0, 0, 8192));
    out("signals: %d", got);
    check("past the limit", fallocate(fd, 0, 4096, 8192));
    out("signals: %d", got);
    check("keep size past the limit", fallocate(fd, 1, 4096, 8192));
    out("signals: %d", got);
    check("punch past the limit", fallocate(fd, 3, 4096, 1 << 20));
    out("signals: %d", got);
    check("inside, file larger than limit", fallocate(fd, 0, 0, 100));
    rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
    struct stat st;
    fstat(fd, &st);
    out("size %ld", (long)st.st_size);

    int m = memfd_create("m", MFD_ALLOW_SEALING);
    ftruncate(m, 8192);
    check("add F_SEAL_GROW", fcntl(m, F_ADD_SEALS, F_SEAL_GROW));
    rl.rlim_cur = rl.rlim_max = 4096;
    setrlimit(RLIMIT_FSIZE, &rl);
    check("sealed and past the limit", fallocate(m, 0, 4096, 8192));
    out("signals: %d", got);
    rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
    check("allocate inside", fallocate(m, 0, 0, 8192));
    check("allocate past the end", fallocate(m, 0, 4096, 8192));
    check("keep size past the end", fallocate(m, 1, 4096, 8192));
    check("zero range (shmem has none)", fallocate(m, 0x10, 0, 4096));
    check("punch", fallocate(m, 3, 0, 4096));
    check("add F_SEAL_WRITE", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE));
    check("punch when sealed", fallocate(m, 3, 0, 4096));
    check("allocate inside when sealed", fallocate(m, 0, 0, 4096));
    fstat(m, &st);
    out("memfd size %ld blocks %ld", (long)st.st_size, (long)st.st_blocks);
    return 0;
}
