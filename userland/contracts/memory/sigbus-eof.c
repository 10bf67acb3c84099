/* Touching a file mapping past the end of the file raises SIGBUS
 * (BUS_ADRERR), while the rest of the last page reads as zeros. */
#include "fault.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    int fd = open("small", O_RDWR | O_CREAT | O_TRUNC, 0644);
    write(fd, "0123456789", 10);
    char *p = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    out("byte 9: %s", try_read(p + 9));
    out("byte 10 (same page, past EOF): %s", try_read(p + 10));
    out("next page: %s", try_read(p + pg));
    ftruncate(fd, 2 * pg);
    out("next page after growing the file: %s", try_read(p + pg));
    ftruncate(fd, 5);
    out("byte 7 after shrinking: %s", try_read(p + 7));
    out("page 1 after shrinking: %s", try_read(p + pg));
    return 0;
}
