/* Much data through a pair: slave output larger than what the master side
 * buffers blocks the writer until the master reads, and all of it arrives
 * in order; ONLCR doubles newlines on the way; master input larger than the
 * slave's input buffer waits for the slave's reader. */
#include "pty.h"

#define OUT_BYTES 200000
#define IN_BYTES 30000

static unsigned sum_of(const unsigned char *p, int n, unsigned sum)
{
    for (int i = 0; i < n; i++)
        sum = sum * 31 + p[i];
    return sum;
}

int main(void)
{
    int m, s;
    if (open_pty(&m, &s, O_NOCTTY) < 0)
        return 0;
    set_modes(s, 0, 0, 0); /* raw, no echo, no output processing */

    pid_t writer = fork();
    if (writer == 0) {
        static unsigned char data[OUT_BYTES];
        for (int i = 0; i < OUT_BYTES; i++)
            data[i] = (unsigned char)(i * 7 + i / 251);
        long done = 0;
        while (done < OUT_BYTES) {
            ssize_t n = write(s, data + done, OUT_BYTES - done);
            if (n <= 0)
                _exit(1);
            done += n;
        }
        _exit(0);
    }
    unsigned char buf[4096];
    long got = 0;
    unsigned sum = 0, expect = 0;
    while (got < OUT_BYTES) {
        if (!wait_readable(m, 5000))
            break;
        ssize_t n = read(m, buf, sizeof buf);
        if (n <= 0)
            break;
        sum = sum_of(buf, (int)n, sum);
        got += n;
    }
    for (long i = 0; i < OUT_BYTES; i++) {
        unsigned char c = (unsigned char)(i * 7 + i / 251);
        expect = sum_of(&c, 1, expect);
    }
    int status;
    waitpid(writer, &status, 0);
    out("slave to master: %ld bytes, in order: %s, writer %s", got, sum == expect ? "yes" : "no", wait_desc(status));

    /* ONLCR: every newline arrives as CR LF. */
    set_modes(s, 0, OPOST | ONLCR, 0);
    writer = fork();
    if (writer == 0) {
        char lines[2000];
        memset(lines, '\n', sizeof lines);
        ssize_t n = write(s, lines, sizeof lines);
        _exit(n == (ssize_t)sizeof lines ? 0 : 1);
    }
    got = 0;
    long crs = 0;
    while (got < 4000) {
        if (!wait_readable(m, 5000))
            break;
        ssize_t n = read(m, buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            crs += buf[i] == '\r';
        got += n;
    }
    waitpid(writer, &status, 0);
    out("2000 newlines with ONLCR: %ld bytes, %ld CRs, writer %s", got, crs, wait_desc(status));

    /* Master to slave, more than the slave's input buffer holds. */
    set_modes(s, 0, 0, 0);
    pid_t reader = fork();
    if (reader == 0) {
        long total = 0;
        unsigned rsum = 0;
        while (total < IN_BYTES) {
            ssize_t n = read(s, buf, sizeof buf);
            if (n <= 0)
                break;
            rsum = sum_of(buf, (int)n, rsum);
            total += n;
            sleep_ms(5);
        }
        unsigned esum = 0;
        for (long i = 0; i < IN_BYTES; i++) {
            unsigned char c = (unsigned char)('a' + i % 26);
            esum = sum_of(&c, 1, esum);
        }
        out("master to slave: %ld bytes, in order: %s", total, rsum == esum ? "yes" : "no");
        _exit(0);
    }
    static unsigned char input[IN_BYTES];
    for (int i = 0; i < IN_BYTES; i++)
        input[i] = (unsigned char)('a' + i % 26);
    long done = 0;
    while (done < IN_BYTES) {
        ssize_t n = write(m, input + done, IN_BYTES - done);
        if (n <= 0) {
            out("master write: %s", errname(errno));
            break;
        }
        done += n;
    }
    waitpid(reader, &status, 0);
    out("reader: %s, master wrote %ld", wait_desc(status), done);
    close(s);
    close(m);
    return 0;
}
