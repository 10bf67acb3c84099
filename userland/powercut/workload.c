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
 *   /workload sqlite-run ROUNDS, /workload sqlite-check N
 *                          the same with sqlite3 from a Debian root on
 *                          /dev/vda (read-only, chrooted into) and the ext4
 *                          disk on /dev/vdb as its /mnt: per round one
 *                          sqlite3 process commits a row of table t (a
 *                          rollback journal, synchronous=FULL: fsync'd)
 *                          and churns table u; the check runs PRAGMA
 *                          integrity_check and counts rows 0..N whose
 *                          contents are what was written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* Runs sqlite3 on /mnt/db with `sql`; its output (at most len - 1
 * bytes) in out. Returns its exit status, -1 if it did not run. */
static int sqlite(const char *sql, char *out, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execl("/usr/bin/sqlite3", "sqlite3", "/mnt/db", sql, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(fds[0], got + 1 < len ? out + got : sink, got + 1 < len ? len - 1 - got : sizeof sink)) > 0)
        if (got + 1 < len)
            got += (size_t)r;
    out[got] = 0;
    close(fds[0]);
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Row i's value: 3000 + i letters, the letter from i. */
#define ROW_VALUE "substr(replace(hex(zeroblob(4000)), '0', char(97 + %d %% 26)), 1, 3000 + %d)"

static void sqlite_round(int n)
{
    char sql[1024], out[512];
    snprintf(sql, sizeof sql,
             "CREATE TABLE IF NOT EXISTS t(i INTEGER PRIMARY KEY, v TEXT);"
             "CREATE TABLE IF NOT EXISTS u(k INTEGER PRIMARY KEY, v BLOB);"
             "INSERT INTO t VALUES(%d, " ROW_VALUE ");"
             "INSERT INTO u(v) VALUES(randomblob(20000));"
             "DELETE FROM u WHERE k < (SELECT max(k) FROM u) - 3;",
             n, n, n);
    int status = sqlite(sql, out, sizeof out);
    if (status != 0) {
        printf("PC-CHECK FAIL sqlite3 round %d: status %d: %s\n", n, status, out);
        failures++;
        return;
    }
    printf("PC-SYNCED %d\n", n);
    fflush(stdout);
}

static int sqlite_check(int upto)
{
    char sql[512], out[512];
    int status = sqlite("PRAGMA integrity_check;", out, sizeof out);
    if (status != 0 || strcmp(out, "ok\n") != 0) {
        printf("PC-CHECK FAIL integrity_check: status %d: %s\n", status, out);
        return 1;
    }
    if (upto < 0)
        return 0;
    /* ROW_VALUE with the row's own i. */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM t WHERE i <= %d AND v = substr(replace(hex(zeroblob(4000)), '0', char(97 + i %% 26)), 1, 3000 + i);", upto);
    status = sqlite(sql, out, sizeof out);
    if (status != 0 || atoi(out) != upto + 1) {
        printf("PC-CHECK FAIL rows 0..%d: status %d: %s\n", upto, status, out);
        return 1;
    }
    printf("PC-CHECK ok: integrity_check ok, %d committed rows\n", upto + 1);
    return 0;
}

static int sqlite_main(const char *mode, int arg)
{
    mkdir("/root", 0755);
    if (mount("/dev/vda", "/root", "ext4", MS_RDONLY, NULL) != 0) {
        fail("mount the Debian root /dev/vda");
        power_off();
    }
    if (mount("/dev/vdb", "/root/mnt", "ext4", 0, NULL) != 0) {
        fail("mount /dev/vdb");
        power_off();
    }
    if (mount("devtmpfs", "/root/dev", "devtmpfs", 0, NULL) != 0 || mount("proc", "/root/proc", "proc", 0, NULL) != 0 ||
        mount("tmpfs", "/root/tmp", "tmpfs", 0, NULL) != 0)
        fail("mount /dev, /proc, /tmp in the root");
    if (chroot("/root") != 0 || chdir("/") != 0) {
        fail("chroot");
        power_off();
    }
    printf("PC-MOUNTED %s\n", mode);
    fflush(stdout);
    int first = 0, rounds = arg;
    if (strcmp(mode, "sqlite-check") == 0) {
        failures += sqlite_check(arg);
        first = 1000;
        rounds = 3;
    }
    for (int n = first; n < first + rounds; n++)
        sqlite_round(n);
    if (umount("/mnt") != 0)
        fail("umount");
    printf("PC-DONE %s failures=%d\n", strncmp(mode, "sqlite-", 7) == 0 ? mode + 7 : mode, failures);
    power_off();
    return 0;
}

/* Under Linux (tools/powercut.py's Linux check) the virtio and ext4
 * drivers are modules, listed in /modules.list; Kevlar has them built in
 * and no such file. */
static void load_modules(void)
{
    char list[4096];
    int fd = open("/modules.list", O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, list, sizeof list - 1);
    close(fd);
    if (n <= 0)
        return;
    list[n] = 0;
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        int m = open(line, O_RDONLY);
        if (m >= 0) {
            syscall(SYS_finit_module, m, "", 0);
            close(m);
        }
    }
    /* The disk appears when its driver probes it. */
    for (int i = 0; i < 100 && access("/dev/vda", F_OK) != 0; i++)
        usleep(100000);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    mkdir("/dev", 0755);
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 && errno != EBUSY)
        fail("mount /dev");
    load_modules();
    int arg = argc > 2 ? atoi(argv[2]) : 20;
    if (strncmp(mode, "sqlite-", 7) == 0)
        return sqlite_main(mode, arg);
    mkdir("/mnt", 0755);
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
