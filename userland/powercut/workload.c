/* The power-cut workload (tools/powercut.py), PID 1 of its own initramfs.
 *
 *   /workload run ROUNDS   on the ext4 disk /dev/vda: per round a new file
 *                          data-N written in pieces, fsync'd with its
 *                          directory, then "PC-SYNCED N" printed; around it
 *                          churn that is never synced (a log appended to,
 *                          renames, unlinks, a file unlinked while open,
 *                          directories made and removed, truncation).
 *                          QEMU is killed somewhere in there; a run that
 *                          is not ends with umount and power-off.
 *   /workload check N      after a cut: mounts the disk (the journal is
 *                          replayed), checks data-0..data-N byte for byte
 *                          ("PC-CHECK ok"/"PC-CHECK FAIL"), runs a few
 *                          more rounds, unmounts and powers off; the host
 *                          then runs e2fsck -fn on the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

static void fail(const char *what)
{
    printf("PC-CHECK FAIL %s (%s)\n", what, strerror(errno));
    fflush(stdout);
    failures++;
}

static void power_off(void)
{
    fflush(stdout);
    reboot(RB_POWER_OFF);
    _exit(1);
}

static size_t size_of(int n)
{
    return 1000 + (size_t)(n * 7919) % 150000;
}

static void fill(unsigned char *buf, size_t len, unsigned seed)
{
    unsigned x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)x;
    }
}

static void write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            fail("write");
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

static int held = -1;

static void round_of(int n, int dirfd)
{
    char name[64], other[64];
    size_t len = size_of(n);
    unsigned char *buf = malloc(len);
    fill(buf, len, (unsigned)n + 1);
    snprintf(name, sizeof name, "/mnt/data-%d", n);
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        fail("create");
        free(buf);
        return;
    }
    /* In pieces: the file grows by appends. */
    for (size_t done = 0; done < len;) {
        size_t piece = len - done < 12345 ? len - done : 12345;
        write_all(fd, buf + done, piece);
        done += piece;
    }
    if (fsync(fd) != 0 || fsync(dirfd) != 0)
        fail("fsync");
    close(fd);
    free(buf);
    printf("PC-SYNCED %d\n", n);
    fflush(stdout);

    /* Churn, never synced. */
    unsigned char chunk[3000];
    fill(chunk, sizeof chunk, 1000u + (unsigned)n);
    int log = open("/mnt/log", O_CREAT | O_WRONLY | O_APPEND, 0644);
    if (log >= 0) {
        write_all(log, chunk, sizeof chunk);
        close(log);
    }
    snprintf(name, sizeof name, "/mnt/tmp-%d", n);
    fd = open(name, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) {
        for (int k = 0; k < 5; k++)
            write_all(fd, chunk, sizeof chunk);
        close(fd);
    }
    if (n > 0) {
        snprintf(name, sizeof name, "/mnt/tmp-%d", n - 1);
        snprintf(other, sizeof other, "/mnt/old-%d", n - 1);
        rename(name, other);
    }
    if (n > 1) {
        snprintf(name, sizeof name, "/mnt/old-%d", n - 2);
        unlink(name);
    }
    /* A file unlinked while open: on the orphan list until closed. */
    if (held >= 0)
        close(held);
    held = open("/mnt/held", O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (held >= 0) {
        for (int k = 0; k < 10; k++)
            write_all(held, chunk, sizeof chunk);
        unlink("/mnt/held");
    }
    snprintf(name, sizeof name, "/mnt/dir-%d", n);
    mkdir(name, 0755);
    snprintf(other, sizeof other, "/mnt/dir-%d/f", n);
    fd = open(other, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) {
        write_all(fd, chunk, 100);
        close(fd);
    }
    if (n > 0) {
        snprintf(other, sizeof other, "/mnt/dir-%d/f", n - 1);
        unlink(other);
        snprintf(name, sizeof name, "/mnt/dir-%d", n - 1);
        rmdir(name);
    }
    if (n % 5 == 4)
        truncate("/mnt/log", 1000);
}

static int check(int upto)
{
    int bad = 0;
    for (int n = 0; n <= upto; n++) {
        char name[64];
        size_t len = size_of(n);
        unsigned char *want = malloc(len), *got = malloc(len + 1);
        fill(want, len, (unsigned)n + 1);
        snprintf(name, sizeof name, "/mnt/data-%d", n);
        int fd = open(name, O_RDONLY);
        ssize_t total = 0;
        if (fd >= 0) {
            ssize_t r;
            while ((r = read(fd, got + total, len + 1 - (size_t)total)) > 0)
                total += r;
            close(fd);
        }
        if (fd < 0 || (size_t)total != len || memcmp(want, got, len) != 0) {
            printf("PC-CHECK FAIL data-%d (%s, %zd of %zu bytes)\n", n, fd < 0 ? strerror(errno) : "content", total, len);
            bad++;
        }
        free(want);
        free(got);
    }
    printf("PC-CHECK %s: %d synced files\n", bad ? "FAIL" : "ok", upto + 1);
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    int arg = argc > 2 ? atoi(argv[2]) : 20;
    mkdir("/dev", 0755);
    mkdir("/mnt", 0755);
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 && errno != EBUSY)
        fail("mount /dev");
    if (mount("/dev/vda", "/mnt", "ext4", 0, NULL) != 0) {
        fail("mount /dev/vda");
        power_off();
    }
    printf("PC-MOUNTED %s\n", mode);
    fflush(stdout);
    int dirfd = open("/mnt", O_RDONLY | O_DIRECTORY);
    int first = 0, rounds = arg;
    if (strcmp(mode, "check") == 0) {
        if (arg >= 0)
            failures += check(arg);
        /* The workload goes on on the recovered disk. */
        first = 1000;
        rounds = 3;
    }
    for (int n = first; n < first + rounds; n++)
        round_of(n, dirfd);
    if (held >= 0)
        close(held);
    close(dirfd);
    if (umount("/mnt") != 0)
        fail("umount");
    printf("PC-DONE %s failures=%d\n", mode, failures);
    power_off();
    return 0;
}
