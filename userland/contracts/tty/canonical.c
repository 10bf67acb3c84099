/* Canonical mode on a pty slave: a read returns one line once it is
 * complete (terminator included); erase, word erase and kill edit the line
 * before that; VEOF ends a line without a newline, or reads as end of file
 * on an empty line; a small buffer takes a line in pieces. */
#include "pty.h"

int main(void)
{
    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    /* Echo off: this test looks at what the reader gets. */
    set_modes(s, ICRNL, OPOST | ONLCR, ISIG | ICANON | IEXTEN | ECHOE | ECHOK | ECHOKE | ECHOCTL);

    type(m, "one\ntwo\n");
    show_read("read 1", s, 100);
    show_read("read 2", s, 100);

    type(m, "partial");
    sleep_ms(200);
    int avail = -1;
    ioctl(s, FIONREAD, &avail);
    out("FIONREAD with a partial line: %d", avail);
    out("readable with a partial line: %d", wait_readable(s, 200));
    type(m, " done\r");
    show_read("after CR (ICRNL)", s, 100);

    type(m, "abc\x7f\x7fxy\n");
    show_read("erase", s, 100);
    type(m, "foo bar  \x17" "baz\n");
    show_read("word erase", s, 100);
    type(m, "a foo_1-\x17\n");
    show_read("word erase punctuation", s, 100);
    type(m, "junk\x15kept\n");
    show_read("kill", s, 100);
    type(m, "\x7f\x15\x17x\n");
    show_read("erasing nothing", s, 100);

    type(m, "no newline\x04");
    show_read("VEOF ends the line", s, 100);
    type(m, "\x04");
    show_read("VEOF alone", s, 100);
    type(m, "a\x04\x04");
    show_read("VEOF after a", s, 100);
    show_read("VEOF again", s, 100);

    type(m, "abcdefgh\n");
    show_read("small read 1", s, 3);
    show_read("small read 2", s, 3);
    show_read("small read 3", s, 100);

    type(m, "\x16\x15\x16\x04" "ctl\n");
    show_read("literal next", s, 100);

    type(m, "x\ny\n");
    sleep_ms(200);
    ioctl(s, FIONREAD, &avail);
    out("FIONREAD with two lines: %d", avail);
    type(m, "\x04");
    sleep_ms(200);
    ioctl(s, FIONREAD, &avail);
    out("FIONREAD with an EOF mark too: %d", avail);
    show_read("read x", s, 100);
    show_read("read y", s, 100);
    show_read("read eof", s, 100);

    /* VEOL ends a line too (and stays in it). */
    struct termios t;
    tcgetattr(s, &t);
    t.c_cc[VEOL] = ';';
    tcsetattr(s, TCSANOW, &t);
    type(m, "one;two\n");
    show_read("VEOL", s, 100);
    show_read("after VEOL", s, 100);
    close(s);
    close(m);
    return 0;
}
