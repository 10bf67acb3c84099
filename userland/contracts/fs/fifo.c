/* mknod(S_IFIFO)/mkfifo: the node is a FIFO; non-blocking opens: reader
 * succeeds alone, writer without a reader is ENXIO; data flows once both
 * ends are open. Device nodes need CAP_MKNOD (root has it), regular files
 * can be made with mknod too. */
#include "common.h"

int main(void)
{
    umask(022);
    struct stat st;
    check("mknod S_IFIFO", mknod("f1", S_IFIFO | 0666, 0));
    stat("f1", &st);
    out("type: %s mode: %o", ftype(st.st_mode), st.st_mode & 07777);
    check("mkfifo", mkfifo("f2", 0600));
    show("mkfifo existing", mkfifo("f2", 0600));
    check("mknod S_IFREG", mknod("reg", S_IFREG | 0644, 0));
    stat("reg", &st);
    out("mknod regular: %s size %ld", ftype(st.st_mode), (long)st.st_size);
    show("mknod bad type", mknod("bad", 0170000 | 0644, 0));
    show("O_WRONLY|O_NONBLOCK without reader", open("f1", O_WRONLY | O_NONBLOCK));
    int r = open("f1", O_RDONLY | O_NONBLOCK);
    out("O_RDONLY|O_NONBLOCK alone: %s", r >= 0 ? "ok" : errname(errno));
    char buf[16];
    show("read with no writer ever", read(r, buf, sizeof buf));
    int w = open("f1", O_WRONLY | O_NONBLOCK);
    out("writer now opens: %s", w >= 0 ? "ok" : errname(errno));
    show("read empty with writer", read(r, buf, sizeof buf));
    write(w, "fifo!", 5);
    show("read", read(r, buf, sizeof buf));
    close(w);
    show("read after writer closed", read(r, buf, sizeof buf));
    int rw = open("f2", O_RDWR);
    out("O_RDWR on a fifo does not block: %s", rw >= 0 ? "ok" : errname(errno));
    fstat(rw, &st);
    out("fstat: %s size %ld", ftype(st.st_mode), (long)st.st_size);
    show("lseek on fifo", lseek(rw, 0, SEEK_SET));
    return 0;
}
