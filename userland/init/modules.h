/* The kernel modules an init needs under Debian's Linux (virtio, ext4...):
 * finit_module(2) on each path listed, one per line, in a file, in order.
 * Failures are expected on a kernel without loadable modules (Kevlar) and
 * are not reported. Shared by the inits that boot under both kernels. */
#ifndef KEVLAR_INIT_MODULES_H
#define KEVLAR_INIT_MODULES_H

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void load_modules(const char *list_path)
{
    char list[4096];
    int fd = open(list_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, list, sizeof list - 1);
    close(fd);
    if (n <= 0)
        return;
    list[n] = 0;
    for (char *save = NULL, *line = strtok_r(list, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int m = open(line, O_RDONLY | O_CLOEXEC);
        if (m < 0)
            continue;
        syscall(SYS_finit_module, m, "", 0);
        close(m);
    }
}

#endif
