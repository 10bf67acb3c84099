/* The four receive-timestamp options on AF_UNIX sockets: what each reads
 * back after each is set (Linux keeps three flags they share), the control
 * message each makes (SCM_TIMESTAMP/SCM_TIMESTAMPNS and the _NEW types,
 * their lengths and units), datagram and seqpacket sockets stamping and a
 * stream socket taking the option without ever stamping; the time is the
 * send's when the receiver had asked by then, the receive's otherwise. */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include "common.h"

#define SO_TIMESTAMP_OLD_ 29
#define SO_TIMESTAMPNS_OLD_ 35
#define SO_TIMESTAMP_NEW_ 63
#define SO_TIMESTAMPNS_NEW_ 64

static const int kinds[4] = {SO_TIMESTAMP_OLD_, SO_TIMESTAMPNS_OLD_, SO_TIMESTAMP_NEW_, SO_TIMESTAMPNS_NEW_};
static const char *const names[4] = {"TIMESTAMP", "TIMESTAMPNS", "TIMESTAMP_NEW", "TIMESTAMPNS_NEW"};

static void readback(const char *label, int fd)
{
    char line[256];
    int at = snprintf(line, sizeof line, "%s:", label);
    for (int i = 0; i < 4; i++) {
        int v = -1;
        socklen_t len = sizeof v;
        if (getsockopt(fd, SOL_SOCKET, kinds[i], &v, &len))
            at += snprintf(line + at, sizeof line - at, " %s %s", names[i], errname(errno));
        else
            at += snprintf(line + at, sizeof line - at, " %s=%d", names[i], v);
    }
    out("%s", line);
}

static long long now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1000000LL + tv.tv_usec;
}

/* Receives one message and prints its control messages; *stamp_us gets the
 * timestamp in microseconds (0 without one). */
static void receive(const char *label, int fd, long long *stamp_us)
{
    char data[64];
    char control[256];
    struct iovec iov = {data, sizeof data};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    *stamp_us = 0;
    ssize_t n = recvmsg(fd, &m, 0);
    if (n < 0) {
        out("%s: recvmsg %s", label, errname(errno));
        return;
    }
    out("%s: %zd bytes, controllen %zu", label, n, (size_t)m.msg_controllen);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        const char *kind = "?";
        for (int i = 0; i < 4; i++)
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == kinds[i])
                kind = names[i];
        long long sec, frac;
        memcpy(&sec, CMSG_DATA(c), 8);
        memcpy(&frac, CMSG_DATA(c) + 8, 8);
        int ns = c->cmsg_type == SO_TIMESTAMPNS_OLD_ || c->cmsg_type == SO_TIMESTAMPNS_NEW_;
        out("  level %d SCM_%s len %zu, fraction in range: %s", c->cmsg_level, kind, (size_t)c->cmsg_len,
            yesno(frac >= 0 && frac < (ns ? 1000000000LL : 1000000LL)));
        *stamp_us = sec * 1000000LL + (ns ? frac / 1000 : frac);
    }
}

static void kinds_on(int type, const char *tname)
{
    int sv[2];
    if (socketpair(AF_UNIX, type, 0, sv)) {
        out("%s socketpair: %s", tname, errname(errno));
        return;
    }
    int one = 1, zero = 0;
    long long stamp;
    readback(tname, sv[1]);
    for (int i = 0; i < 4; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s after %s on", tname, names[i]);
        if (setsockopt(sv[1], SOL_SOCKET, kinds[i], &one, sizeof one))
            out("%s: setsockopt %s", label, errname(errno));
        readback(label, sv[1]);
        send(sv[0], "x", 1, 0);
        receive(label, sv[1], &stamp);
    }
    /* Off through another option than the one set clears the stamp and
     * nanosecond flags and keeps the layout. */
    check("setsockopt TIMESTAMP 0", setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP_OLD_, &zero, sizeof zero));
    readback("after TIMESTAMP off", sv[1]);
    send(sv[0], "y", 1, 0);
    receive("off", sv[1], &stamp);
    /* A short option value: EINVAL. */
    out("setsockopt TIMESTAMP len 2: %s", setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP_OLD_, &one, 2) ? errname(errno) : "ok");
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    kinds_on(SOCK_DGRAM, "dgram");
    kinds_on(SOCK_SEQPACKET, "seqpacket");
    kinds_on(SOCK_STREAM, "stream");

    /* When: a message sent after the option was set carries the time of
     * its send; one sent before, the time of its receive. */
    int sv[2], one = 1;
    long long stamp;
    check("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
    send(sv[0], "early", 5, 0);
    check("setsockopt TIMESTAMP", setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP_OLD_, &one, sizeof one));
    send(sv[0], "late", 4, 0);
    usleep(1000000);
    long long before = now_us();
    receive("sent before the option", sv[1], &stamp);
    out("  stamped at the receive: %s", yesno(stamp >= before));
    before = now_us();
    receive("sent after the option", sv[1], &stamp);
    out("  stamped at the send (over 0.5 s before the receive): %s", yesno(stamp > 0 && stamp < before - 500000));
    return 0;
}
