/* /proc/keys and /proc/key-users as Linux 6.1 prints them. A process in
 * a new anonymous session keyring adds user keys and a keyring; each of
 * its keys' lines (serial and usage count masked: random and the
 * kernel's own) shows the flags, timeout (perm, seconds, minutes, hours,
 * days, weeks, expd), permissions, owner, type and description (a user
 * key's length, a keyring's count or "empty"); revoked and expired keys
 * stay listed until collected. A user who neither possesses nor owns
 * them sees none of them until their "other" view bit is set.
 * /proc/key-users shows the quota line of a user made for the test;
 * reading /proc/keys makes a user no keyrings (no line of its own). */
#include "../common.h"
#include <sys/wait.h>

#define KEY_SPEC_SESSION_KEYRING -3
#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_REVOKE 3
#define KEYCTL_SETPERM 5
#define KEYCTL_SET_TIMEOUT 15

static long add_key(const char *type, const char *desc, const void *p, size_t n, long ring)
{
    return syscall(SYS_add_key, type, desc, p, n, ring);
}

static long kc(long op, long a, long b, long c, long d)
{
    return syscall(SYS_keyctl, op, a, b, c, d);
}

struct named {
    long serial;
    const char *name;
};

/* Prints the lines of /proc/keys of the keys in `keys`, with the serial
 * as the name and the usage count masked; then how many lines there are
 * of keys not in the list (not printed: the kernel's own). */
static void show_keys(const char *who, struct named *keys, int n)
{
    char text[16384];
    int fd = open("/proc/keys", O_RDONLY);
    if (fd < 0) {
        out("%s: open /proc/keys: %s", who, errname(errno));
        return;
    }
    ssize_t len = read_full(fd, text, sizeof text - 1);
    close(fd);
    text[len > 0 ? len : 0] = 0;
    char *lines[16] = {0};
    long last = -1;
    int ordered = 1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        long serial = strtol(line, NULL, 16);
        ordered &= serial > last;
        last = serial;
        for (int i = 0; i < n; i++)
            if (keys[i].serial == serial && strlen(line) >= 28)
                lines[i] = line;
    }
    /* In the order of the list ("%08x %7s %5d %4s ..."). */
    for (int i = 0; i < n; i++) {
        char *line = lines[i];
        if (!line) {
            out("%s: %s not listed", who, keys[i].name);
            continue;
        }
        char timeout[8];
        snprintf(timeout, sizeof timeout, "%.4s", line + 23);
        /* Seconds left tick while the test runs: 41s to 50s pass. */
        int secs = atoi(timeout);
        if (timeout[3] == 's' && secs > 40 && secs <= 50)
            snprintf(timeout, sizeof timeout, "<=50s");
        out("%s: %-8.8s %.7s usage %s%s", who, keys[i].name, line + 9, timeout, line + 27);
    }
    out("%s: lines in serial order: %s", who, yesno(ordered));
}

int main(void)
{
    const char *files[] = {"/proc/keys", "/proc/key-users"};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat(files[i], &st) < 0)
            out("stat %s: %s", files[i], errname(errno));
        else
            out("stat %s: mode %o", files[i], st.st_mode & 07777);
    }

    pid_t pid = fork();
    if (pid == 0) {
        long ses = kc(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0);
        long k1 = add_key("user", "proc-keys:one", "hello", 5, KEY_SPEC_SESSION_KEYRING);
        long ring = add_key("keyring", "proc-ring", NULL, 0, KEY_SPEC_SESSION_KEYRING);
        long k2 = add_key("user", "proc-keys:two", "0123456789", 10, ring);
        long k3 = add_key("logon", "svc:three", "secret", 6, ring);
        long empty = add_key("keyring", "proc-empty", NULL, 0, ring);
        long t1 = add_key("user", "t-sec", "x", 1, ring);
        long t2 = add_key("user", "t-min", "x", 1, ring);
        long t3 = add_key("user", "t-hour", "x", 1, ring);
        long t4 = add_key("user", "t-day", "x", 1, ring);
        long t5 = add_key("user", "t-week", "x", 1, ring);
        long rv = add_key("user", "revoked", "x", 1, ring);
        out("keys made: %s", yesno(ses > 0 && k1 > 0 && ring > 0 && k2 > 0 && k3 > 0 && empty > 0 && t1 > 0 && rv > 0));
        kc(KEYCTL_SET_TIMEOUT, t1, 50, 0, 0);
        /* Half a unit over, so the seconds the test takes change nothing. */
        kc(KEYCTL_SET_TIMEOUT, t2, 50 * 60 + 30, 0, 0);
        kc(KEYCTL_SET_TIMEOUT, t3, 5 * 3600 + 1800, 0, 0);
        kc(KEYCTL_SET_TIMEOUT, t4, 3 * 86400 + 43200, 0, 0);
        kc(KEYCTL_SET_TIMEOUT, t5, 20 * 86400 + 43200, 0, 0);
        kc(KEYCTL_REVOKE, rv, 0, 0, 0);
        struct named keys[] = {
            {ses, "session"}, {k1, "one"}, {ring, "ring"}, {k2, "two"}, {k3, "three"}, {empty, "empty"},
            {t1, "t-sec"}, {t2, "t-min"}, {t3, "t-hour"}, {t4, "t-day"}, {t5, "t-week"}, {rv, "revoked"},
        };
        int n = sizeof keys / sizeof keys[0];
        show_keys("owner", keys, n);

        /* Another user, in a session of its own: sees none of them. */
        int p[2], q[2];
        pipe(p);
        pipe(q);
        pid_t other = fork();
        if (other == 0) {
            char go;
            if (setgid(4243) < 0 || setuid(4242) < 0)
                _exit(1);
            kc(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0);
            add_key("user", "mine", "abc", 3, KEY_SPEC_SESSION_KEYRING);
            show_keys("uid 4242", keys, 3);
            write(p[1], "r", 1);
            read(q[0], &go, 1);
            show_keys("uid 4242 with other view on one", keys, 3);
            /* Its own quota line. */
            char text[4096];
            int fd = open("/proc/key-users", O_RDONLY);
            ssize_t len = fd < 0 ? -1 : read_full(fd, text, sizeof text - 1);
            close(fd);
            text[len > 0 ? len : 0] = 0;
            for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
                if (atoi(line) == 4242)
                    out("key-users: %s", line);
            _exit(0);
        }
        char got;
        read(p[0], &got, 1);
        out("setperm one 0x3f010001: %s", kc(KEYCTL_SETPERM, k1, 0x3f010001, 0, 0) == 0 ? "ok" : errname(errno));
        write(q[1], "g", 1);
        int ws;
        waitpid(other, &ws, 0);
        out("other user: %s", wstatus(ws));
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);
    out("owner: %s", wstatus(ws));

    /* Reading /proc/keys makes no keyrings: a user with no keys still
     * has no line in /proc/key-users after it. */
    pid = fork();
    if (pid == 0) {
        if (setgid(4344) < 0 || setuid(4343) < 0)
            _exit(1);
        char text[16384];
        int fd = open("/proc/keys", O_RDONLY);
        read_full(fd, text, sizeof text - 1);
        close(fd);
        fd = open("/proc/key-users", O_RDONLY);
        ssize_t len = read_full(fd, text, sizeof text - 1);
        close(fd);
        text[len > 0 ? len : 0] = 0;
        int listed = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            listed |= atoi(line) == 4343;
        out("uid 4343 in /proc/key-users after reading /proc/keys: %s", yesno(listed));
        _exit(0);
    }
    waitpid(pid, &ws, 0);
    out("reader: %s", wstatus(ws));
    return 0;
}
