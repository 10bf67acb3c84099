/* Groups reporting file handles (FAN_REPORT_FID, FAN_REPORT_DFID_NAME)
 * on tmpfs: no descriptor (FAN_NOFD), the directory-entry events
 * (FAN_CREATE, FAN_DELETE, FAN_MOVED_FROM/TO with FAN_ONDIR for
 * directories) and FAN_ATTRIB, FAN_MODIFY, FAN_MOVE_SELF,
 * FAN_DELETE_SELF, each with struct fanotify_event_info_fid records whose
 * handle is the one name_to_handle_at gives and whose fsid is statfs's. */
#include "fan.h"
#include <sys/statfs.h>
#include <sys/vfs.h>

struct handle {
    struct file_handle fh;
    unsigned char bytes[128];
};

static struct handle handles[8];
static const char *handle_names[8];
static fsid_t fsid;

static void remember(int i, const char *path)
{
    handles[i].fh.handle_bytes = 128;
    int mnt;
    if (name_to_handle_at(AT_FDCWD, path, &handles[i].fh, &mnt, 0) < 0)
        out("name_to_handle_at %s: %s", path, errname(errno));
    handle_names[i] = path;
}

static const char *which(struct file_handle *fh)
{
    for (int i = 0; i < 8 && handle_names[i]; i++)
        if (handles[i].fh.handle_bytes == fh->handle_bytes && handles[i].fh.handle_type == fh->handle_type &&
            !memcmp(handles[i].fh.f_handle, fh->f_handle, fh->handle_bytes))
            return handle_names[i];
    return "unknown";
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
            out("%s fd=%s pid=%s len=%u", fan_mask(m->mask), m->fd == FAN_NOFD ? "FAN_NOFD" : "some",
                m->pid == getpid() ? "self" : "other", m->event_len);
            char *p = (char *)(m + 1), *end = (char *)m + m->event_len;
            while (p < end) {
                struct fanotify_event_info_fid *info = (void *)p;
                struct file_handle *fh = (struct file_handle *)info->handle;
                const char *name = "";
                if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME)
                    name = (char *)fh->f_handle + fh->handle_bytes;
                out("  info type %d len %d fsid %s handle %s%s%s", info->hdr.info_type, info->hdr.len,
                    !memcmp(&info->fsid, &fsid, sizeof fsid) ? "= statfs" : "!= statfs", which(fh), *name ? " name " : "", name);
                if (info->hdr.len == 0)
                    break;
                p += info->hdr.len;
            }
        }
    }
}

int main(void)
{
    mkdir("dir", 0755);
    put_file("dir/f", "f");
    struct statfs sf;
    statfs(".", &sf);
    fsid = sf.f_fsid;
    remember(0, "dir");
    remember(1, "dir/f");

    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK, O_RDONLY);
    check("init FAN_REPORT_FID", fan);
    check("mark dir", fanotify_mark(fan, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_ONDIR | FAN_DELETE_SELF, AT_FDCWD, "dir"));
    check("mark dir/f", fanotify_mark(fan, FAN_MARK_ADD, FAN_ATTRIB | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_MOVE_SELF | FAN_DELETE_SELF, AT_FDCWD, "dir/f"));

    close(open("dir/a", O_CREAT | O_WRONLY, 0644));
    dump("create dir/a", fan);
    mkdir("dir/sub", 0755);
    dump("mkdir dir/sub", fan);
    rename("dir/a", "dir/b");
    dump("rename dir/a dir/b", fan);
    unlink("dir/b");
    dump("unlink dir/b", fan);
    rmdir("dir/sub");
    dump("rmdir dir/sub", fan);
    chmod("dir/f", 0600);
    dump("chmod dir/f", fan);
    int fd = open("dir/f", O_WRONLY);
    write(fd, "x", 1);
    close(fd);
    dump("write dir/f", fan);
    rename("dir/f", "dir/g");
    dump("rename dir/f dir/g", fan);
    unlink("dir/g");
    dump("unlink dir/g", fan);

    /* Identical events merge while queued; a directory's do not merge
     * with a file's. */
    close(open("dir/c", O_CREAT | O_WRONLY, 0644));
    mkdir("dir/d", 0755);
    unlink("dir/c");
    rmdir("dir/d");
    dump("create, mkdir, unlink, rmdir (merged)", fan);
    close(fan);

    /* Directory handles with names. */
    fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_NONBLOCK, O_RDONLY);
    check("init FAN_REPORT_DFID_NAME", fan);
    check("mark dir", fanotify_mark(fan, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE | FAN_ONDIR, AT_FDCWD, "dir"));
    close(open("dir/x", O_CREAT | O_WRONLY, 0644));
    mkdir("dir/y", 0755);
    unlink("dir/x");
    dump("create dir/x, mkdir dir/y, unlink dir/x", fan);
    return 0;
}
