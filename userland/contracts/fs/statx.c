/* statx: the basic fields for a file, a directory and a symlink; the mask
 * covers STATX_BASIC_STATS; AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH; invalid
 * flags and reserved mask bits are EINVAL. */
#include "common.h"

static long sx(int dfd, const char *p, int flags, unsigned mask, struct k_statx *x)
{
    memset(x, 0, sizeof *x);
    return syscall(SYS_statx, dfd, p, flags, mask, x);
}

static void pr(const char *label, long r, struct k_statx *x)
{
    if (r < 0) {
        out("%s: %s", label, errname(errno));
        return;
    }
    out("%s: basic mask=%s %s mode=%o size=%llu nlink=%u uid=%u", label,
        yesno((x->stx_mask & K_STATX_BASIC_STATS) == K_STATX_BASIC_STATS), ftype(x->stx_mode),
        x->stx_mode & 07777, S_ISDIR(x->stx_mode) ? 0ULL : (unsigned long long)x->stx_size, S_ISDIR(x->stx_mode) ? 0 : x->stx_nlink, x->stx_uid);
}

int main(void)
{
    umask(022);
    struct k_statx x;
    put_file("f", "hello");
    link("f", "f2");
    mkdir("d", 0711);
    symlink("f", "l");
    pr("file", sx(AT_FDCWD, "f", 0, K_STATX_BASIC_STATS, &x), &x);
    pr("dir", sx(AT_FDCWD, "d", 0, K_STATX_BASIC_STATS, &x), &x);
    pr("symlink followed", sx(AT_FDCWD, "l", 0, K_STATX_BASIC_STATS, &x), &x);
    pr("symlink nofollow", sx(AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, K_STATX_BASIC_STATS, &x), &x);
    int fd = open("f", O_RDONLY);
    pr("AT_EMPTY_PATH", sx(fd, "", AT_EMPTY_PATH, K_STATX_BASIC_STATS, &x), &x);
    struct stat st;
    fstat(fd, &st);
    out("stx_ino matches st_ino: %s", yesno(x.stx_ino == st.st_ino));
    out("mtime matches stat: %s", yesno(x.stx_mtime.tv_sec == st.st_mtim.tv_sec && x.stx_mtime.tv_nsec == (uint32_t)st.st_mtim.tv_nsec));
    pr("missing", sx(AT_FDCWD, "none", 0, K_STATX_BASIC_STATS, &x), &x);
    pr("bad flags", sx(AT_FDCWD, "f", 0x80000000, K_STATX_BASIC_STATS, &x), &x);
    pr("reserved mask bit", sx(AT_FDCWD, "f", 0, 0x80000000U, &x), &x);
    /* Mask 0: the call works; which fields come back is up to the fs. */
    long r0 = sx(AT_FDCWD, "f", 0, 0, &x);
    out("mask 0: %s", r0 < 0 ? errname(errno) : "ok");
    return 0;
}
