/* glibc's stdio on a dynamically linked program: printf formats to a pipe
 * (fully buffered: nothing is written until fflush), files written and read
 * back with fwrite/fread/fgets/fseek, line buffering on request, ungetc,
 * fmemopen and open_memstream, and what stays buffered across fork. */
#include "common.h"
#include <wchar.h>

int main(void)
{
    /* stdout is a pipe: glibc buffers it fully. */
    printf("int %d %5d|%-5d| %+d %x %#o %llu\n", 42, 7, 7, 3, 255, 8, 18446744073709551615ULL);
    printf("float %.3f %e %g %g %a\n", 3.14159, 12345.678, 0.0001, 1e20, 1.0);
    printf("str %s|%10s|%-10s|%.3s|%c%%\n", "abc", "right", "left", "truncate", 'x');
    printf("ptr null %p, size %zu, ssize %zd\n", (void *)0, (size_t)123, (ssize_t)-5);
    fflush(stdout);

    FILE *f = fopen("data.txt", "w+");
    if (!f) { out("fopen: %s", errname(errno)); return 1; }
    for (int i = 0; i < 1000; i++)
        fprintf(f, "line %04d %s\n", i, i % 2 ? "odd" : "even");
    out("ftell after writes: %ld", ftell(f));
    struct stat st;
    stat("data.txt", &st);
    out("on disk before fflush < written: %s", st.st_size < ftell(f) ? "yes" : "no");
    fflush(f);
    stat("data.txt", &st);
    out("on disk after fflush: %lld", (long long)st.st_size);
    rewind(f);
    char line[64];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n++;
    out("lines read: %d feof %d ferror %d", n, feof(f), ferror(f));
    fseek(f, 10 * 15, SEEK_SET);
    fgets(line, sizeof line, f);
    out("line at 150: %s", strtok(line, "\n"));
    int c = fgetc(f);
    ungetc('Z', f);
    out("ungetc: %c then %c", c, fgetc(f));
    fclose(f);

    f = fopen("data.txt", "r");
    char buf[4096];
    size_t got = fread(buf, 1, sizeof buf, f);
    out("fread: %zu", got);
    fclose(f);
    out("fopen missing: %s", fopen("nope/x", "r") ? "ok" : errname(errno));
    out("fopen bad mode: %s", fopen("data.txt", "q") ? "ok" : errname(errno));

    /* Memory streams. */
    char mem[32];
    FILE *m = fmemopen(mem, sizeof mem, "w");
    fprintf(m, "%s-%d", "mem", 99);
    fclose(m);
    out("fmemopen: %s", mem);
    char *dyn = NULL;
    size_t dlen = 0;
    m = open_memstream(&dyn, &dlen);
    for (int i = 0; i < 100; i++)
        fprintf(m, "%d,", i);
    fclose(m);
    out("open_memstream: %zu bytes, ends %s", dlen, dyn + dlen - 4);
    free(dyn);

    /* Unflushed stdio data is copied by fork: flushed twice. */
    printf("buffered before fork\n");
    pid_t pid = fork();
    if (pid == 0) {
        printf("child adds\n");
        exit(0); /* exit flushes the child's copy */
    }
    int status;
    waitpid(pid, &status, 0);
    printf("parent adds\n");
    fflush(stdout);

    /* Line buffering on request. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("line buffered ");
    out("(written by write first)");
    printf("now\n");
    wprintf(L"%ls\n", L"wide ignored on a byte stream");
    out("fwide(stdout): %d", fwide(stdout, 0) > 0 ? 1 : fwide(stdout, 0) < 0 ? -1 : 0);
    return 0;
}
