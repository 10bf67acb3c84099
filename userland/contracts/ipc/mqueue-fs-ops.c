/* Changing queues through the mqueue file system: unlink removes the
 * name (mq_open then fails with ENOENT, an open descriptor keeps
 * working), open(O_CREAT) there makes a queue with the default
 * attributes that mq_open finds, chmod changes the mode mq_open checks
 * (as a user without CAP_DAC_OVERRIDE), mkdir is refused. */
#include "ipc.h"
#include <mqueue.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define DIR_ "mqfs-ops"

int main(void)
{
    mq_unlink("/kevlar-mqfs-u");
    mq_unlink("/kevlar-mqfs-c");
    mkdir(DIR_, 0755);
    if (check("mount", mount("none", DIR_, "mqueue", 0, NULL)) < 0)
        return 1;
    umask(0);
    mqd_t u = mq_open("/kevlar-mqfs-u", O_RDWR | O_CREAT, 0600, NULL);
    out("mq_open: %s", u < 0 ? errname(errno) : "ok");
    check("unlink", unlink(DIR_ "/kevlar-mqfs-u"));
    mqd_t again = mq_open("/kevlar-mqfs-u", O_RDWR);
    out("mq_open after unlink: %s", again < 0 ? errname(errno) : "ok");
    check("unlink again", unlink(DIR_ "/kevlar-mqfs-u"));
    check("send on the open descriptor", mq_send(u, "x", 1, 0));
    mq_close(u);

    int fd = open(DIR_ "/kevlar-mqfs-c", O_RDWR | O_CREAT | O_EXCL, 0644);
    out("open O_CREAT: %s", fd < 0 ? errname(errno) : "ok");
    struct mq_attr at;
    if (check("mq_getattr on it", mq_getattr(fd, &at)) == 0)
        out("attr: maxmsg %ld msgsize %ld curmsgs %ld", (long)at.mq_maxmsg, (long)at.mq_msgsize, (long)at.mq_curmsgs);
    check("mq_send on it", mq_send(fd, "abc", 3, 2));
    mqd_t c = mq_open("/kevlar-mqfs-c", O_RDONLY);
    out("mq_open it: %s", c < 0 ? errname(errno) : "ok");
    char buf[8192];
    unsigned prio = 0;
    ssize_t n = mq_receive(c, buf, sizeof buf, &prio);
    out("mq_receive: %zd prio %u", n, prio);
    check("open O_CREAT O_EXCL again", open(DIR_ "/kevlar-mqfs-c", O_RDWR | O_CREAT | O_EXCL, 0644));
    check("write", write(fd, "x", 1));
    close(fd);
    mq_close(c);

    check("chmod 0600", chmod(DIR_ "/kevlar-mqfs-c", 0600));
    struct stat st;
    stat(DIR_ "/kevlar-mqfs-c", &st);
    out("mode %o", st.st_mode);
    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            _exit(2);
        mqd_t q = mq_open("/kevlar-mqfs-c", O_RDONLY);
        out("mq_open as uid 1000 after chmod 0600: %s", q < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);
    check("chmod 0644", chmod(DIR_ "/kevlar-mqfs-c", 0644));
    pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            _exit(2);
        mqd_t q = mq_open("/kevlar-mqfs-c", O_RDONLY);
        out("mq_open as uid 1000 after chmod 0644: %s", q < 0 ? errname(errno) : "ok");
        _exit(0);
    }
    waitpid(pid, &ws, 0);
    check("mkdir", mkdir(DIR_ "/sub", 0755));
    check("unlink c", unlink(DIR_ "/kevlar-mqfs-c"));
    check("umount", umount(DIR_));
    rmdir(DIR_);
    return 0;
}
