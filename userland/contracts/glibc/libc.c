/* Everyday glibc functions whose results Linux programs rely on: qsort
 * and bsearch, strtod/strtol with their errors, printf of doubles,
 * time conversion and formatting in UTC and under a POSIX TZ rule (no
 * zoneinfo files needed), getopt_long, regex, and string functions. */
#include "common.h"
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <search.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
    int v[2000];
    unsigned x = 1;
    for (int i = 0; i < 2000; i++) {
        x = x * 1103515245 + 12345;
        v[i] = (int)(x >> 8) % 100000 - 50000;
    }
    qsort(v, 2000, sizeof v[0], cmp_int);
    int sorted = 1;
    for (int i = 1; i < 2000; i++)
        if (v[i - 1] > v[i]) sorted = 0;
    out("qsort 2000 ints: sorted %s, min %d max %d", sorted ? "yes" : "no", v[0], v[1999]);
    int key = v[1234];
    int *hit = bsearch(&key, v, 2000, sizeof v[0], cmp_int);
    out("bsearch finds %d: %s", key, hit && *hit == key ? "yes" : "no");
    const char *words[] = { "pear", "apple", "fig", "banana", "cherry" };
    qsort(words, 5, sizeof words[0], cmp_str);
    out("qsort strings: %s %s %s %s %s", words[0], words[1], words[2], words[3], words[4]);

    const char *nums[] = { "3.14159", "-0.0", "1e308", "1e309", "4.9e-324", "1e-400", "0x1.8p3", "inf", "nan", "12abc", "", "  +7.5e2" };
    for (unsigned i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char *end;
        errno = 0;
        double d = strtod(nums[i], &end);
        out("strtod \"%s\": %.17g rest \"%s\" errno %s", nums[i], d, end, errname(errno));
    }
    const char *ints[] = { "42", "-2147483649", "9223372036854775807", "9223372036854775808", "0x7f", "0777", "z" };
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char *end;
        errno = 0;
        long l = strtol(ints[i], &end, 0);
        out("strtol \"%s\": %ld used %td errno %s", ints[i], l, end - ints[i], errname(errno));
    }
    out("strtoul \"-1\": %lu", strtoul("-1", NULL, 10));
    out("printf doubles: %.0f %.1f %.2f %.10g %g %g", 0.5, 0.25, 2.675, 1.0 / 3, 1e-5, 123456789.0);
    out("math: %.6f %.6f %.6f %d", sqrt(2), exp(1), atan2(1, 1) * 4, isnan(NAN));

    setenv("TZ", "UTC0", 1);
    tzset();
    time_t t = 1700000000;
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[128];
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %a %b %j %U %Z", &tm);
    out("gmtime 1700000000: %s", buf);
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%c | %x %X | %s | %z %Z", &tm);
    out("UTC0 localtime: %s", buf);
    out("timegm back: %lld", (long long)timegm(&tm));
    setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
    tzset();
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%F %T %z %Z isdst", &tm);
    out("EST5EDT Nov: %s %d", buf, tm.tm_isdst);
    time_t summer = 1690000000;
    localtime_r(&summer, &tm);
    strftime(buf, sizeof buf, "%F %T %z %Z", &tm);
    out("EST5EDT Jul: %s isdst %d", buf, tm.tm_isdst);
    struct tm in = { .tm_year = 124, .tm_mon = 1, .tm_mday = 29, .tm_hour = 12, .tm_isdst = -1 };
    out("mktime 2024-02-29 12:00 EST: %lld", (long long)mktime(&in));
    out("asctime: %s", strtok(asctime(&in), "\n"));
    memset(&tm, 0, sizeof tm);
    char *rest = strptime("2001-09-09 01:46:40", "%Y-%m-%d %H:%M:%S", &tm);
    out("strptime: rest '%s' year %d yday %d", rest ? rest : "NULL", tm.tm_year + 1900, tm.tm_yday);

    char *argv[] = { "prog", "-v", "--name=x", "--count", "3", "file", "-q", NULL };
    struct option opts[] = { { "name", required_argument, 0, 'n' }, { "count", required_argument, 0, 'c' }, { 0, 0, 0, 0 } };
    int c, idx;
    opterr = 0;
    while ((c = getopt_long(7, argv, "vn:c:", opts, &idx)) != -1)
        out("getopt: %c %s", c == '?' ? '?' : c, optarg ? optarg : "-");
    out("operands from %d: %s", optind, argv[optind]);

    regex_t re;
    regmatch_t mt[3];
    regcomp(&re, "([a-z]+)@([a-z]+)\\.org", REG_EXTENDED);
    int r = regexec(&re, "mail: bob@example.org!", 3, mt, 0);
    out("regexec: %d, match %d-%d, user %d-%d", r, (int)mt[0].rm_so, (int)mt[0].rm_eo, (int)mt[1].rm_so, (int)mt[1].rm_eo);
    regfree(&re);

    char s[] = "a,b,,c";
    char *save, *tok;
    int n = 0;
    for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        n++;
    out("strtok_r tokens: %d; strsignal(SIGSEGV): %s; strerror(ENOENT): %s", n, strsignal(SIGSEGV), strerror(ENOENT));
    out("memmem: %s; strcasestr: %s", (char *)memmem("haystack", 8, "st", 2), strcasestr("HayStack", "STA"));
    return 0;
}
