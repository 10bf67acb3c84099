/* Files without a poll method (regular files, directories, /dev/null,
 * /dev/zero) poll as Linux's DEFAULT_POLLMASK: POLLIN | POLLOUT |
 * POLLRDNORM | POLLWRNORM, so a poll for POLLRDNORM or POLLWRNORM alone
 * returns at once instead of sleeping. */
#include "common.h"
#include <poll.h>

static void try_poll(const char *label, int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    int n = poll(&p, 1, 0);
    out("%s: poll %d revents%s%s%s%s", label, n, p.revents & POLLIN ? " IN" : "",
        p.revents & POLLOUT ? " OUT" : "", p.revents & POLLRDNORM ? " RDNORM" : "",
        p.revents & POLLWRNORM ? " WRNORM" : "");
}

int main(void)
{
    put_file("f", "data");
    int f = open("f", O_RDWR);
    int d = open(".", O_RDONLY | O_DIRECTORY);
    int null = open("/dev/null", O_RDWR);
    int zero = open("/dev/zero", O_RDONLY);
    const short all = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
    try_poll("file, all", f, all);
    try_poll("file, RDNORM", f, POLLRDNORM);
    try_poll("file, WRNORM", f, POLLWRNORM);
    try_poll("directory, all", d, all);
    try_poll("/dev/null, all", null, all);
    try_poll("/dev/zero, RDNORM", zero, POLLRDNORM);
    /* A blocking poll for POLLRDNORM alone must not sleep. */
    struct pollfd p = {.fd = f, .events = POLLRDNORM};
    out("blocking poll for RDNORM on a file: %d", poll(&p, 1, 2000));
    return 0;
}
