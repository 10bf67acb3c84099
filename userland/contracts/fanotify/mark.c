/* fanotify_mark's checks, in Linux 6.1's order: flags, mark type and
 * command, the mask (EINVAL), the group (EBADF, EINVAL), permission
 * events on a notification group, events that need file handles, the
 * object (ENOENT, ENOTDIR, EBADF), FAN_MARK_REMOVE of nothing (ENOENT),
 * FAN_MARK_FLUSH, and file-handle groups on tmpfs (ENODEV). */
#include "fan.h"

#define M(label, flags, mask, dfd, path) check(label, fanotify_mark(fan, flags, mask, dfd, path))

int main(void)
{
    put_file("file", "x");
    mkdir("dir", 0755);
    symlink("file", "link");
    symlink("missing", "dangling");
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    check("init", fan);

    M("add open on a file", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "file");
    M("add again (more bits)", FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_MODIFY, AT_FDCWD, "file");
    M("add on a dir with FAN_ONDIR|FAN_EVENT_ON_CHILD", FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, AT_FDCWD, "dir");
    M("no command", 0, FAN_OPEN, AT_FDCWD, "file");
    M("ADD|REMOVE", FAN_MARK_ADD | FAN_MARK_REMOVE, FAN_OPEN, AT_FDCWD, "file");
    M("ADD|FLUSH", FAN_MARK_ADD | FAN_MARK_FLUSH, FAN_OPEN, AT_FDCWD, "file");
    M("unknown flag 0x800", FAN_MARK_ADD | 0x800, FAN_OPEN, AT_FDCWD, "file");
    M("MOUNT|FILESYSTEM", FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM, FAN_OPEN, AT_FDCWD, "file");
    M("mask 0", FAN_MARK_ADD, 0, AT_FDCWD, "file");
    check("mask upper bits", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | (1ULL << 32), AT_FDCWD, "file"));
    M("FAN_Q_OVERFLOW in mask", FAN_MARK_ADD, FAN_Q_OVERFLOW, AT_FDCWD, "file");
    M("unknown event 0x2000", FAN_MARK_ADD, 0x2000, AT_FDCWD, "file");
    M("IGNORE|IGNORED_MASK", FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK, FAN_OPEN, AT_FDCWD, "file");
    check("bad group fd", fanotify_mark(99, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "file"));
    int regular = open("file", O_RDONLY);
    check("not a group", fanotify_mark(regular, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "file"));
    M("perm event on a notification group", FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, "file");
    M("FAN_CREATE without file handles", FAN_MARK_ADD, FAN_CREATE, AT_FDCWD, "dir");
    M("FAN_ATTRIB without file handles", FAN_MARK_ADD, FAN_ATTRIB, AT_FDCWD, "file");
    M("FAN_FS_ERROR on an inode", FAN_MARK_ADD, FAN_FS_ERROR, AT_FDCWD, "file");
    M("EVICTABLE on a mount", FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_EVICTABLE, FAN_OPEN, AT_FDCWD, ".");
    M("EVICTABLE on an inode", FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, AT_FDCWD, "dir");
    M("then not evictable", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "dir");
    M("evictable again (EEXIST)", FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, AT_FDCWD, "dir");
    M("missing", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "missing");
    M("empty path", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "");
    check("bad path pointer", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, (const char *)8));
    M("ONLYDIR on a file", FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, AT_FDCWD, "file");
    M("ONLYDIR on a dir", FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, AT_FDCWD, "dir");
    M("through a symlink", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "link");
    M("dangling symlink", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "dangling");
    M("dangling symlink, DONT_FOLLOW", FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW, FAN_OPEN, AT_FDCWD, "dangling");
    check("no path, dirfd a file", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, regular, NULL));
    check("no path, dirfd a file, ONLYDIR", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_ACCESS, regular, NULL));
    check("no path, AT_FDCWD", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, NULL));
    check("no path, bad dirfd", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, 99, NULL));
    int dirfd = open("dir", O_RDONLY | O_DIRECTORY);
    check("relative to a dirfd", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, dirfd, "."));
    check("relative to a file fd", fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, regular, "x"));
    M("IGNORE on a dir without SURV_MODIFY", FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, AT_FDCWD, "dir");
    M("IGNORE on a mount without SURV_MODIFY", FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE, FAN_OPEN, AT_FDCWD, ".");
    M("IGNORE with FAN_ONDIR on a file", FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, AT_FDCWD, "file");
    M("IGNORED_MASK on the file", FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_ACCESS, AT_FDCWD, "file");
    M("IGNORE on a file", FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_ACCESS, AT_FDCWD, "file");
    M("IGNORE on a dir with SURV_MODIFY", FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, FAN_ACCESS, AT_FDCWD, "dir");
    M("then IGNORED_MASK on the dir (EEXIST)", FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_ACCESS, AT_FDCWD, "dir");
    M("then IGNORE without SURV_MODIFY (EEXIST)", FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_ACCESS, AT_FDCWD, "dir");
    M("mount mark", FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, AT_FDCWD, ".");
    M("filesystem mark", FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, AT_FDCWD, ".");
    M("remove some bits", FAN_MARK_REMOVE, FAN_MODIFY, AT_FDCWD, "file");
    M("remove the rest", FAN_MARK_REMOVE, FAN_OPEN | FAN_CLOSE_WRITE | FAN_ACCESS, AT_FDCWD, "file");
    M("remove unmarked file", FAN_MARK_REMOVE, FAN_OPEN, AT_FDCWD, "file");
    M("remove unmarked mount", FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_ACCESS, AT_FDCWD, "/proc");
    M("remove mount mark", FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_OPEN, AT_FDCWD, ".");
    M("remove missing path", FAN_MARK_REMOVE, FAN_OPEN, AT_FDCWD, "missing");
    M("flush with a path", FAN_MARK_FLUSH, 0, AT_FDCWD, "file");
    M("flush with ONLYDIR", FAN_MARK_FLUSH | FAN_MARK_ONLYDIR, 0, AT_FDCWD, NULL);
    M("flush inode marks", FAN_MARK_FLUSH, 0, AT_FDCWD, NULL);
    M("remove after flush", FAN_MARK_REMOVE, FAN_OPEN, AT_FDCWD, "dir");
    M("flush filesystem marks", FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, -1, NULL);
    M("remove after flush (fs)", FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_OPEN, AT_FDCWD, ".");
    M("flush with a mask", FAN_MARK_FLUSH, FAN_OPEN, AT_FDCWD, NULL);
    M("perm event on procfs? (notif group)", FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "/proc/self/status");

    int content = fanotify_init(FAN_CLASS_CONTENT, O_RDONLY);
    check("content: perm on a file", fanotify_mark(content, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM, AT_FDCWD, "file"));
    check("content: perm on procfs", fanotify_mark(content, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, "/proc/self/status"));
    check("content: open on procfs", fanotify_mark(content, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "/proc/self/status"));

    int fid = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
    check("fid: mark on tmpfs", fanotify_mark(fid, FAN_MARK_ADD, FAN_CREATE, AT_FDCWD, "dir"));
    check("fid: mark on procfs", fanotify_mark(fid, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "/proc"));
    check("fid: FAN_CREATE on a mount", fanotify_mark(fid, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CREATE, AT_FDCWD, "dir"));
    check("fid: FAN_RENAME without names", fanotify_mark(fid, FAN_MARK_ADD, FAN_RENAME, AT_FDCWD, "dir"));
    check("fid: missing", fanotify_mark(fid, FAN_MARK_ADD, FAN_CREATE, AT_FDCWD, "missing"));
    int dfid = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID, O_RDONLY);
    check("target fid: dirent event on a file", fanotify_mark(dfid, FAN_MARK_ADD, FAN_CREATE, AT_FDCWD, "file"));

    /* Read permission is needed on what is marked. */
    put_file("secret", "x");
    chmod("secret", 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(1000) < 0)
            _exit(99);
        check("uid 1000 (group made by root): mark a file it cannot read", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "secret"));
        check("uid 1000 (group made by root): inode mark", fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, "file"));
        check("uid 1000 (group made by root): mount mark", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, AT_FDCWD, "file"));
        _exit(0);
    }
    reap("uid 1000", pid);
    return 0;
}
