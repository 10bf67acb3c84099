/* say(): one formatted line to stdout in a single write (retried on
 * EINTR and short writes), so lines from several processes never
 * interleave. Shared by bench-init and bench. */
#ifndef BENCH_SAY_H
#define BENCH_SAY_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if (len > (int)sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    const char *p = line;
    while (len > 0) {
        ssize_t w = write(1, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        len -= w;
    }
}

#endif
