/* Echo as the master sees it: plain, with ECHOCTL (^X), erase with and
 * without ECHOE, kill with ECHOK and ECHOKE, word erase, tab erase back to
 * the tab's start, literal next, reprint, ECHONL without ECHO, ECHOPRT, and
 * no echo at all. Each input is written, then its echo read, separately. */
#include "pty.h"

#define STD_LFLAG (ISIG | ICANON | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL)

static int m, s;

static void echo_of(const char *label, const char *input)
{
    type(m, input);
    show_output(label, m);
}

static void flush_line(void)
{
    type(m, "\n");
    drain(m, (char[256]){0}, 256, 300);
    tcflush(s, TCIFLUSH);
}

int main(void)
{
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    echo_of("plain", "hello\n");
    echo_of("control chars", "a\x01\x1b" "b\t\x7f");
    flush_line();
    echo_of("erase", "abc\x7f\x7f");
    echo_of("erase control", "\x01\x7f");
    flush_line();
    echo_of("kill", "abc def\x15");
    echo_of("word erase", "one two \x17");
    flush_line();
    echo_of("tab erase", "ab\tc\x7f\x7f");
    flush_line();
    echo_of("prompt", "");
    /* After output that leaves the cursor at column 3, a tab there erases
     * back over 5 columns. */
    write(s, "$$ ", 3);
    show_output("prompt written", m);
    echo_of("tab after prompt", "\t\x7f");
    flush_line();
    echo_of("literal next", "\x16\x03x");
    flush_line();
    echo_of("reprint", "abc\x12");
    flush_line();

    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~ECHOE);
    echo_of("erase without ECHOE", "ab\x7f");
    flush_line();
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~ECHOKE);
    echo_of("kill without ECHOKE", "ab\x15");
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~(ECHOKE | ECHOK));
    echo_of("kill without ECHOK", "ab\x15");
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~ECHOCTL);
    echo_of("no ECHOCTL", "a\x01\x7f\x7f");
    flush_line();
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, (STD_LFLAG & ~ECHO) | ECHONL);
    echo_of("ECHONL only", "secret\n");
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~ECHO);
    echo_of("no echo", "secret\n");
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG | ECHOPRT);
    echo_of("ECHOPRT", "abc\x7f\x7f" "d\n");
    set_modes(s, ICRNL | IXON, 0, STD_LFLAG);
    echo_of("echo without OPOST", "x\n");
    set_modes(s, ICRNL | IXON, OPOST | ONLCR, STD_LFLAG & ~ICANON);
    echo_of("raw mode echo", "a\x01\r\x7f");
    tcflush(s, TCIFLUSH);
    close(s);
    close(m);
    return 0;
}
