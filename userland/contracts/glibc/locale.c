/* Locales with glibc: the "C" locale's classification and conventions,
 * C.UTF-8 loaded from the locale files in the image (multibyte
 * conversions, wide-character classes and widths, the codeset),
 * newlocale/uselocale per thread, and a locale that is not installed. */
#include "common.h"
#include <ctype.h>
#include <langinfo.h>
#include <locale.h>
#include <wchar.h>
#include <wctype.h>

static void conv(const char *what, const char *s)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t w[32];
    const char *p = s;
    size_t n = mbsrtowcs(w, &p, 32, &st);
    if (n == (size_t)-1) {
        out("%s: mbsrtowcs -1 %s", what, errname(errno));
        return;
    }
    char line[256];
    int off = snprintf(line, sizeof line, "%s: %zu chars:", what, n);
    for (size_t i = 0; i < n; i++)
        off += snprintf(line + off, sizeof line - off, " U+%04X/w%d", (unsigned)w[i], wcwidth(w[i]));
    out("%s", line);
}

int main(void)
{
    out("initial: %s", setlocale(LC_ALL, NULL));
    out("setlocale \"\" with LANG=C: %s", setlocale(LC_ALL, ""));
    out("C codeset: %s", nl_langinfo(CODESET));
    out("MB_CUR_MAX: %zu", MB_CUR_MAX);
    int alpha = 0, upper = 0;
    for (int c = 0; c < 256; c++) {
        alpha += !!isalpha(c);
        upper += !!isupper(c);
    }
    out("C: isalpha %d chars, isupper %d, toupper('q') %c, toupper(0xe9) %#x", alpha, upper, toupper('q'), toupper(0xe9));
    struct lconv *lc = localeconv();
    out("C localeconv: decimal '%s' thousands '%s'", lc->decimal_point, lc->thousands_sep);
    conv("C \"caf\\xc3\\xa9\"", "caf\xc3\xa9");
    out("C strcoll(a,B): %s", strcoll("a", "B") > 0 ? ">" : "<");

    out("setlocale C.UTF-8: %s", setlocale(LC_ALL, "C.UTF-8") ?: "NULL");
    out("codeset: %s, MB_CUR_MAX %zu", nl_langinfo(CODESET), MB_CUR_MAX);
    conv("UTF-8 \"caf\\xc3\\xa9 \\xe4\\xb8\\xad \\xf0\\x9f\\x98\\x80\"", "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
    conv("UTF-8 invalid", "a\xff");
    out("iswalpha(U+00E9) %d iswupper(U+00C9) %d towupper(U+00E9) U+%04X", !!iswalpha(0xe9), !!iswupper(0xc9), (unsigned)towupper(0xe9));
    char mb[8];
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t k = wcrtomb(mb, 0x20ac, &st);
    out("wcrtomb(U+20AC): %zu bytes %02x %02x %02x", k, (unsigned char)mb[0], (unsigned char)mb[1], (unsigned char)mb[2]);
    char buf[64];
    snprintf(buf, sizeof buf, "%ls", L"\u00e9t\u00e9");
    out("%%ls of \"\\u00e9t\\u00e9\": %zu bytes", strlen(buf));
    out("strcoll C.UTF-8(a,b): %s", strcoll("a", "b") < 0 ? "<" : ">=");

    out("setlocale xx_YY.UTF-8: %s", setlocale(LC_ALL, "xx_YY.UTF-8") ?: "NULL");
    out("still: %s", setlocale(LC_CTYPE, NULL));
    locale_t l = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old = uselocale(l);
    out("uselocale C: MB_CUR_MAX %zu", MB_CUR_MAX);
    uselocale(old);
    out("back: MB_CUR_MAX %zu", MB_CUR_MAX);
    freelocale(l);
    out("newlocale missing: %s", newlocale(LC_ALL_MASK, "zz_ZZ", (locale_t)0) ? "ok" : errname(errno));
    return 0;
}
