/* Permission checks for a non-root process (uid 1000): owner/group/other
 * bits, directory write and search permission, the sticky bit, chmod and
 * chown of files it does not own, and setuid-bit clearing on write. */
#include "common.h"

int main(void)
{
    umask(0);
    mkdir("w", 0777);
    put_file("w/root600", "secret");
    chmod("w/root600", 0600);
    put_file("w/root644", "public");
    chmod("w/root644", 0644);
    put_file("w/victim", "v");
    chmod("w/victim", 0644);
    put_file("w/group660", "group");
    chown("w/group660", 0, 100);
    chmod("w/group660", 0660);
    mkdir("w/noexec", 0766);
    put_file("w/noexec/f", "x");
    mkdir("w/readonly", 0755);
    mkdir("sticky", 01777);
    put_file("sticky/roots", "r");
    chmod("sticky/roots", 0666);
    pid_t pid = fork();
    if (pid == 0) {
        gid_t g[] = {100};
        setgroups(1, g);
        setgid(1000);
        setuid(1000);
        show("open root 0600 for read", open("w/root600", O_RDONLY));
        show("open root 0644 for read", open("w/root644", O_RDONLY));
        show("open root 0644 for write", open("w/root644", O_WRONLY));
        show("open group 0660 as group member (rw)", open("w/group660", O_RDWR));
        show("create in 0777 dir", open("w/mine", O_CREAT | O_WRONLY, 0640));
        show("create in 0755 root dir", open("w/readonly/x", O_CREAT | O_WRONLY, 0644));
        show("open file in dir without search (x) bit", open("w/noexec/f", O_RDONLY));
        show("list dir without x but with r", open("w/noexec", O_RDONLY | O_DIRECTORY) >= 0 ? 0 : -1);
        show("unlink root's file in 0777 dir", unlink("w/victim"));
        show("chmod root's file", chmod("w/root600", 0777));
        show("chmod own file", chmod("w/mine", 0600));
        show("chown own file to another user", chown("w/mine", 2000, -1));
        show("chgrp own file to a group we are in", chown("w/mine", -1, 100));
        show("chgrp own file to another group", chown("w/mine", -1, 5));
        show("unlink root's file in sticky dir", unlink("sticky/roots"));
        show("rename root's file in sticky dir", rename("sticky/roots", "sticky/x"));
        show("create own file in sticky dir", open("sticky/mine", O_CREAT | O_WRONLY, 0644));
        show("unlink own file in sticky dir", unlink("sticky/mine"));
        show("write into root's 0666 file in sticky dir", open("sticky/roots", O_WRONLY));
        show("utimensat explicit times on root's file", utimensat(AT_FDCWD, "w/root644", (struct timespec[2]){{1, 0}, {1, 0}}, 0));
        show("mkdir in 0755 root dir", mkdir("w/readonly/d", 0755));
        show("rmdir root's dir in 0777 dir", rmdir("w/readonly"));
        show("truncate root 0644 file", truncate("w/root644", 0));
        show("execute root 0644 file", access("w/root644", X_OK));
        _exit(0);
    }
    reap("child", pid);
    struct stat st;
    stat("w/mine", &st);
    out("created file: mode=%o uid=%d gid=%d", st.st_mode & 07777, st.st_uid, st.st_gid);
    /* Root writing a setuid file owned by another user keeps the bit; an
     * unprivileged writer clears it. */
    chmod("w/mine", 04755);
    pid = fork();
    if (pid == 0) {
        setgid(1000);
        setuid(1000);
        int fd = open("w/mine", O_WRONLY);
        write(fd, "x", 1);
        _exit(0);
    }
    reap("child writes its setuid file", pid);
    stat("w/mine", &st);
    out("mode after unprivileged write: %o", st.st_mode & 07777);
    return 0;
}
