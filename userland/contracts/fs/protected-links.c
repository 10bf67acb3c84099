/* fs.protected_symlinks, protected_hardlinks, protected_fifos and
 * protected_regular (off by default in Linux; Debian turns the first two
 * on). On: a trailing symlink in a sticky world-writable directory owned
 * by someone else is followed only by its owner (EACCES, root included);
 * a user may hard-link only files it owns or may read and write (EPERM);
 * an O_CREAT open of someone else's FIFO or file there fails (EACCES).
 * The settings found at the start are restored at the end. */
#include "common.h"

static void put(const char *name, const char *value)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, value, strlen(value)) < 0)
        out("write %s: -1 %s", name, errname(errno));
    if (fd >= 0)
        close(fd);
}

static void get(const char *name, char *value, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, value, size - 1);
    value[n < 0 ? 0 : n] = 0;
    if (fd >= 0)
        close(fd);
}

static void try_open(const char *label, const char *path, int flags)
{
    int fd = open(path, flags | O_NONBLOCK, 0644);
    if (fd < 0)
        out("%s: -1 %s", label, errname(errno));
    else {
        out("%s: ok", label);
        close(fd);
    }
}

static void as_user(void)
{
    if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
        _exit(2);
}

static const char *const settings[] = { "protected_symlinks", "protected_hardlinks",
                                        "protected_fifos", "protected_regular" };

int main(void)
{
    char saved[4][32];
    for (int i = 0; i < 4; i++)
        get(settings[i], saved[i], sizeof saved[i]);
    char cwd[256];
    if (!getcwd(cwd, sizeof cwd))
        return 1;
    /* A sticky world-writable directory of root's, like /tmp. */
    check("mkdir sticky", mkdir("sticky", 0777));
    check("chmod 1777", chmod("sticky", 01777));
    check("chmod cwd 755", chmod(".", 0755));
    /* Where the user makes its hard links (not sticky: it may remove them). */
    check("mkdir links", mkdir("links", 0777));
    check("chmod links 777", chmod("links", 0777));
    check("root file", put_file("sticky/rootfile", "x") < 0 ? -1 : 0);
    check("chmod rootfile 644", chmod("sticky/rootfile", 0644));
    check("root's secret", put_file("secret", "x") < 0 ? -1 : 0);
    check("chmod secret 600", chmod("secret", 0600));
    check("root's fifo", mkfifo("sticky/rootfifo", 0666));
    pid_t child = fork();
    if (child == 0) {
        as_user();
        check("user symlink", symlink("rootfile", "sticky/userlink"));
        check("user file", put_file("sticky/userfile", "y") < 0 ? -1 : 0);
        check("user fifo", mkfifo("sticky/userfifo", 0666));
        check("chmod userfile 666", chmod("sticky/userfile", 0666));
        _exit(0);
    }
    reap("user setup", child);

    for (int on = 0; on <= 1; on++) {
        out("-- protection %s", on ? "on" : "off");
        put("protected_symlinks", on ? "1" : "0");
        put("protected_hardlinks", on ? "1" : "0");
        put("protected_fifos", on ? "1" : "0");
        put("protected_regular", on ? "1" : "0");
        try_open("root follows user's link", "sticky/userlink", O_RDONLY);
        try_open("root follows it with O_NOFOLLOW", "sticky/userlink", O_RDONLY | O_NOFOLLOW | O_PATH);
        struct stat st;
        check("root lstat of it", lstat("sticky/userlink", &st));
        check("root stat through it", stat("sticky/userlink", &st));
        check("root stat through it/..", stat("sticky/userlink/..", &st));
        try_open("root O_CREAT of user's file", "sticky/userfile", O_WRONLY | O_CREAT);
        try_open("root O_CREAT of user's fifo", "sticky/userfifo", O_RDONLY | O_CREAT);
        try_open("root open of user's file", "sticky/userfile", O_WRONLY);
        try_open("root O_CREAT of own file", "sticky/rootfile", O_WRONLY | O_CREAT);
        try_open("root O_CREAT|O_EXCL of user's file", "sticky/userfile", O_WRONLY | O_CREAT | O_EXCL);
        child = fork();
        if (child == 0) {
            as_user();
            try_open("user follows own link", "sticky/userlink", O_RDONLY);
            check("user links root's 0644 file", link("sticky/rootfile", "links/hl1"));
            check("user links root's 0600 file", link("secret", "links/hl2"));
            check("user links root's fifo", link("sticky/rootfifo", "links/hl3"));
            check("user links own file", link("sticky/userfile", "links/hl4"));
            try_open("user O_CREAT of root's file", "sticky/rootfile", O_RDONLY | O_CREAT);
            unlink("links/hl1");
            unlink("links/hl2");
            unlink("links/hl3");
            unlink("links/hl4");
            _exit(0);
        }
        reap("user", child);
    }
    /* Root may hard-link anything (CAP_FOWNER). */
    check("root links user's file", link("sticky/userfile", "sticky/hl5"));
    /* Only the last component: a link in the middle is followed. */
    check("mkdir sticky/d", mkdir("sticky/d", 0755));
    child = fork();
    if (child == 0) {
        as_user();
        check("user dir link", symlink("d", "sticky/dirlink"));
        _exit(0);
    }
    reap("user", child);
    struct stat st;
    check("root stat through a middle link", stat("sticky/dirlink/.", &st));
    check("root stat of trailing dir link", stat("sticky/dirlink", &st));
    put("protected_fifos", "2");
    put("protected_regular", "2");
    check("chmod sticky 1775 (group-writable only)", chmod("sticky", 01775));
    try_open("level 2, group-writable: O_CREAT of user's file", "sticky/userfile", O_WRONLY | O_CREAT);
    put("protected_regular", "1");
    try_open("level 1, group-writable: O_CREAT of user's file", "sticky/userfile", O_WRONLY | O_CREAT);
    check("chmod sticky 0777 (not sticky)", chmod("sticky", 0777));
    try_open("not sticky: O_CREAT of user's file", "sticky/userfile", O_WRONLY | O_CREAT);
    for (int i = 0; i < 4; i++)
        put(settings[i], saved[i]);
    return 0;
}
