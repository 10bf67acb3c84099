/* File permission checks by capability, as Linux's generic_permission and
 * friends: uid 1000 with CAP_DAC_OVERRIDE reads and writes others' files
 * and directories but runs no file without an execute bit,
 * CAP_DAC_READ_SEARCH only reads and searches, CAP_FOWNER passes the owner
 * checks (chmod, explicit times, the sticky bit), CAP_CHOWN gives files
 * away; root that dropped its capabilities is refused like anyone else;
 * access() answers for the real uid, with root's permitted set. */
#include "perm.h"
#include <sys/stat.h>

#define CAP_CHOWN_ 0
#define CAP_DAC_OVERRIDE_ 1
#define CAP_DAC_READ_SEARCH_ 2
#define CAP_FOWNER_ 3

static void tries(long unused)
{
    (void)unused;
    int fd = open("private/file", O_RDONLY);
    out("  read private/file: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    fd = open("private/file", O_WRONLY);
    out("  write private/file: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0)
        close(fd);
    DIR *d = opendir("private");
    out("  list private: %s", d ? "ok" : errname(errno));
    if (d)
        closedir(d);
    fd = open("private/new", O_WRONLY | O_CREAT, 0600);
    out("  create in private: %s", fd < 0 ? errname(errno) : "ok");
    if (fd >= 0) {
        close(fd);
        unlink("private/new");
    }
    out("  exec a file without x bits: %s", access("noexec", F_OK) == 0 && execl("./noexec", "noexec", (char *)NULL) < 0 ? errname(errno) : "?");
    out("  chmod root's file: %s", chmod("rootfile", 0644) < 0 ? errname(errno) : "ok");
    struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };
    out("  explicit times on root's file: %s", utimensat(AT_FDCWD, "rootfile", ts, 0) < 0 ? errname(errno) : "ok");
    out("  unlink root's file in a sticky dir: %s", unlink("sticky/rootfile") < 0 ? errname(errno) : "ok");
    out("  chown own file to 2000: %s", chown("mine", 2000, -1) < 0 ? errname(errno) : "ok");
    out("  access(R_OK) private/file: %s", access("private/file", R_OK) < 0 ? errname(errno) : "ok");
}

static void setup(void)
{
    mkdir("private", 0700);
    put_file("private/file", "secret");
    chmod("private/file", 0600);
    put_file("noexec", "#!/bin/sh\n");
    chmod("noexec", 0666);
    put_file("rootfile", "r");
    chmod("rootfile", 0600);
    mkdir("sticky", 01777);
    chmod("sticky", 01777);
    put_file("sticky/rootfile", "r");
    put_file("mine", "m");
    chown("mine", 1000, 1000);
    chmod(".", 0777);
}

int main(void)
{
    static const struct { const char *name; int cap; } modes[] = {
        { "uid 1000", NO_CAP },
        { "uid 1000 with CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE_ },
        { "uid 1000 with CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH_ },
        { "uid 1000 with CAP_FOWNER", CAP_FOWNER_ },
        { "uid 1000 with CAP_CHOWN", CAP_CHOWN_ },
    };
    for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        setup();
        out("%s", modes[i].name);
        as_user(modes[i].cap, tries, 0);
    }
    /* Root without capabilities: the files of uid 1000 are closed to it. */
    setup();
    chown("private", 1000, 1000);
    chown("private/file", 1000, 1000);
    pid_t pid = fork();
    if (pid == 0) {
        perm_set_caps(NO_CAP);
        int fd = open("private/file", O_RDONLY);
        out("root without capabilities: read uid 1000's private file: %s", fd < 0 ? errname(errno) : "ok");
        out("root without capabilities: access(R_OK): %s", access("private/file", R_OK) < 0 ? errname(errno) : "ok");
        out("root without capabilities: chown: %s", chown("mine", 0, -1) < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    reap("root child", pid);
    return 0;
}
