/* /dev/null, /dev/zero, /dev/full, /dev/urandom: their documented read and
 * write behaviour. */
#include "common.h"

int main(void)
{
    char buf[256];
    int n = open("/dev/null", O_RDWR);
    show("/dev/null read", read(n, buf, sizeof buf));
    show("/dev/null write 100", write(n, buf, 100));
    show("/dev/null lseek", lseek(n, 123, SEEK_SET));
    int z = open("/dev/zero", O_RDWR);
    memset(buf, 'x', sizeof buf);
    show("/dev/zero read 256", read(z, buf, sizeof buf));
    int allzero = 1;
    for (int i = 0; i < 256; i++)
        if (buf[i])
            allzero = 0;
    out("zeros: %s", yesno(allzero));
    show("/dev/zero write", write(z, buf, 10));
    int f = open("/dev/full", O_RDWR);
    show("/dev/full write", write(f, buf, 10));
    memset(buf, 'x', sizeof buf);
    show("/dev/full read", read(f, buf, 16));
    out("zeros: %s", yesno(buf[0] == 0 && buf[15] == 0));
    int u = open("/dev/urandom", O_RDONLY);
    show("/dev/urandom read 128", read(u, buf, 128));
    char buf2[128];
    read(u, buf2, 128);
    out("two reads differ: %s", yesno(memcmp(buf, buf2, 128) != 0));
    int r = open("/dev/random", O_RDONLY);
    show("/dev/random read 16", read(r, buf, 16));
    struct stat st;
    const char *devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"};
    for (int i = 0; i < 6; i++) {
        if (stat(devs[i], &st) < 0) {
            out("%s: %s", devs[i], errname(errno));
            continue;
        }
        out("%s: %s %u:%u mode=%o", devs[i], ftype(st.st_mode), major(st.st_rdev), minor(st.st_rdev), st.st_mode & 0777);
    }
    /* mmap of /dev/zero gives zeroed private memory. */
    return 0;
}
