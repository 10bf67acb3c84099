/* File-system marks (FAN_MARK_FILESYSTEM) with file-handle groups hear
 * the directory-entry events of the whole file system (FAN_CREATE,
 * FAN_DELETE, FAN_MOVED_FROM/TO, FAN_ONDIR) and the self events
 * (FAN_DELETE_SELF, FAN_MOVE_SELF) of every node, with FAN_REPORT_FID,
 * FAN_REPORT_DFID_NAME and both; FAN_RENAME (Linux 5.17) is one event
 * with the old directory and name (FAN_EVENT_INFO_TYPE_OLD_DFID_NAME)
 * and the new ones (NEW_DFID_NAME) for a file-system mark, the old only
 * for a mark on the old directory, the new only for one on the new. Every
 * record's fsid is the one statfs gives that tmpfs mount (not another's,
 * not zero), and file systems with a zero fsid refuse file-handle marks
 * (ENODEV). */
#include "fan.h"
#include <sys/mount.h>
#include <sys/vfs.h>

#define INFO_OLD_DFID_NAME 10
#define INFO_NEW_DFID_NAME 12

struct handle {
    struct file_handle fh;
    unsigned char bytes[128];
};

static struct handle handles[8];
static const char *handle_names[8];
static int nhandles;
static fsid_t fsid, other_fsid;

static void remember(const char *path, const char *name)
{
    struct handle *h = &handles[nhandles];
    h->fh.handle_bytes = 128;
    int mnt;
    if (name_to_handle_at(AT_FDCWD, path, &h->fh, &mnt, 0) < 0) {
        out("name_to_handle_at %s: %s", path, errname(errno));
        return;
    }
    handle_names[nhandles++] = name;
}

static const char *which(struct file_handle *fh)
{
    for (int i = 0; i < nhandles; i++)
        if (handles[i].fh.handle_bytes == fh->handle_bytes && handles[i].fh.handle_type == fh->handle_type &&
            !memcmp(handles[i].fh.f_handle, fh->f_handle, fh->handle_bytes))
            return handle_names[i];
    return "unknown";
}

static const char *mask_name(uint64_t m)
{
    static char buf[256];
    const char *base = fan_mask(m & ~(uint64_t)FAN_RENAME);
    if (m & FAN_RENAME)
        snprintf(buf, sizeof buf, "RENAME%s%s", (m & ~(uint64_t)FAN_RENAME) ? "|" : "", (m & ~(uint64_t)FAN_RENAME) ? base : "");
    else
        snprintf(buf, sizeof buf, "%s", base);
    return buf;
}

static void dump(const char *label, int fan)
{
    char buf[4096] __attribute__((aligned(8)));
    out("-- %s", label);
    for (;;) {
        ssize_t n = read(fan, buf, sizeof buf);
        if (n < 0) {
            if (errno != EAGAIN)
                out("read: %s", errname(errno));
            return;
        }
        struct fanotify_event_metadata *m = (void *)buf;
        for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
            out("%s fd=%s pid=%s len=%u", mask_name(m->mask), m->fd == FAN_NOFD ? "FAN_NOFD" : "some",
                m->pid == getpid() ? "self" : "other", m->event_len);
            if (m->fd >= 0)
                close(m->fd);
            char *p = (char *)(m + 1), *end = (char *)m + m->event_len;
            while (p < end) {
                struct fanotify_event_info_fid *info = (void *)p;
                struct file_handle *fh = (struct file_handle *)info->handle;
                const char *name = "";
                int t = info->hdr.info_type;
                if (t == FAN_EVENT_INFO_TYPE_DFID_NAME || t == INFO_OLD_DFID_NAME || t == INFO_NEW_DFID_NAME)
                    name = (char *)fh->f_handle + fh->handle_bytes;
                const char *fs = !memcmp(&info->fsid, &fsid, sizeof fsid) ? "= statfs"
                                 : !memcmp(&info->fsid, &other_fsid, sizeof fsid) ? "= other fs" : "!= statfs";
                out("  info type %d len %d fsid %s handle %s%s%s", t, info->hdr.len, fs, which(fh), *name ? " name " : "", name);
                if (info->hdr.len == 0)
                    break;
                p += info->hdr.len;
            }
        }
    }
}

static int group(const char *label, unsigned flags, uint64_t mask)
{
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | flags, O_RDONLY);
    check(label, fan);
    if (fan >= 0)
        check("  mark filesystem m", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask, AT_FDCWD, "m"));
    return fan;
}

int main(void)
{
    mkdir("m", 0755);
    mkdir("other", 0755);
    mkdir("mq", 0755);
    check("mount tmpfs m", mount("none", "m", "tmpfs", 0, ""));
    check("mount tmpfs other", mount("none", "other", "tmpfs", 0, ""));
    struct statfs sf;
    statfs("m", &sf);
    fsid = sf.f_fsid;
    out("fsid of m: %s", fsid.__val[0] || fsid.__val[1] ? "non-zero" : "zero");
    statfs("other", &sf);
    other_fsid = sf.f_fsid;
    out("fsid of m and other: %s", memcmp(&fsid, &other_fsid, sizeof fsid) ? "different" : "same");

    /* Zero fsid: no file-handle marks. */
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
    check("mark /proc (FID)", fanotify_mark(fan, FAN_MARK_ADD, FAN_CREATE, AT_FDCWD, "/proc"));
    check("mount mqueue", mount("none", "mq", "mqueue", 0, ""));
    check("mark mqueue (FID)", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CREATE, AT_FDCWD, "mq"));
    check("mark /dev/pts (FID)", fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CREATE, AT_FDCWD, "/dev/pts"));
    umount("mq");
    close(fan);

    mkdir("m/d", 0755);
    mkdir("m/e", 0755);
    remember("m", "m");
    remember("m/d", "m/d");
    remember("m/e", "m/e");

    int names = group("init DFID_NAME", FAN_REPORT_DIR_FID | FAN_REPORT_NAME,
                      FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_ONDIR);
    int both = group("init FID|DFID_NAME", FAN_REPORT_FID | FAN_REPORT_DIR_FID | FAN_REPORT_NAME,
                     FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR);
    int fid = group("init FID", FAN_REPORT_FID, FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR);
    int ren = group("init DFID_NAME (rename)", FAN_REPORT_DIR_FID | FAN_REPORT_NAME, FAN_RENAME | FAN_ONDIR);
    int fd_group = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
    check("mark filesystem m, FAN_CREATE without handles", fanotify_mark(fd_group, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CREATE, AT_FDCWD, "m"));
    check("mark filesystem m, FAN_RENAME without names",
          fanotify_mark(fid, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_RENAME, AT_FDCWD, "m"));
    check("mark mount m, FAN_CREATE", fanotify_mark(names, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CREATE, AT_FDCWD, "m"));

    close(open("m/d/f", O_CREAT | O_WRONLY, 0644));
    remember("m/d/f", "f");
    close(open("other/x", O_CREAT | O_WRONLY, 0644));
    const char *labels[] = {"DFID_NAME", "FID|DFID_NAME", "FID", "rename"};
    int groups[] = {names, both, fid, ren};
    for (int i = 0; i < 4; i++) {
        char l[64];
        snprintf(l, sizeof l, "create m/d/f: %s", labels[i]);
        dump(l, groups[i]);
    }
    rename("m/d/f", "m/e/g");
    for (int i = 0; i < 4; i++) {
        char l[64];
        snprintf(l, sizeof l, "rename m/d/f m/e/g: %s", labels[i]);
        dump(l, groups[i]);
    }
    mkdir("m/d/sub", 0755);
    remember("m/d/sub", "sub");
    rename("m/d/sub", "m/d/sub2");
    rmdir("m/d/sub2");
    for (int i = 0; i < 4; i++) {
        char l[64];
        snprintf(l, sizeof l, "mkdir, rename, rmdir m/d/sub: %s", labels[i]);
        dump(l, groups[i]);
    }
    unlink("m/e/g");
    for (int i = 0; i < 4; i++) {
        char l[64];
        snprintf(l, sizeof l, "unlink m/e/g: %s", labels[i]);
        dump(l, groups[i]);
    }
    for (int i = 0; i < 4; i++)
        close(groups[i]);

    /* FAN_RENAME on inode marks: the old directory's, the new one's. */
    int old_side = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_REPORT_DIR_FID | FAN_REPORT_NAME, O_RDONLY);
    check("mark m/d FAN_RENAME", fanotify_mark(old_side, FAN_MARK_ADD, FAN_RENAME, AT_FDCWD, "m/d"));
    int new_side = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_REPORT_DIR_FID | FAN_REPORT_NAME, O_RDONLY);
    check("mark m/e FAN_RENAME", fanotify_mark(new_side, FAN_MARK_ADD, FAN_RENAME, AT_FDCWD, "m/e"));
    close(open("m/d/h", O_CREAT | O_WRONLY, 0644));
    rename("m/d/h", "m/e/h");
    dump("rename m/d/h m/e/h: old directory's mark", old_side);
    dump("rename m/d/h m/e/h: new directory's mark", new_side);
    rename("m/e/h", "m/e/i");
    dump("rename m/e/h m/e/i: old directory's mark", old_side);
    dump("rename m/e/h m/e/i: new directory's mark", new_side);
    unlink("m/e/i");
    close(old_side);
    close(new_side);
    close(fd_group);
    umount("m");
    umount("other");
    return 0;
}
