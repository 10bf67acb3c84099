/* Socket options on a netlink socket as udev and systemd set them:
 * SO_RCVBUFFORCE/SO_SNDBUFFORCE (stored doubled, past rmem_max),
 * SO_PASSCRED, and SO_ATTACH_FILTER/SO_DETACH_FILTER with a classic BPF
 * program run on each message delivered: 0 drops it, a smaller length
 * cuts it, a load past the end drops it. Messages go between two
 * NETLINK_USERSOCK sockets. */
#include "nl.h"

/* include/uapi/linux/filter.h and bpf_common.h (musl has no header). */
struct sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
#define BPF_LD 0x00
#define BPF_LDX 0x01
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_W 0x00
#define BPF_H 0x08
#define BPF_B 0x10
#define BPF_IMM 0x00
#define BPF_ABS 0x20
#define BPF_IND 0x40
#define BPF_LEN 0x80
#define BPF_DIV 0x30
#define BPF_JEQ 0x10
#define BPF_K 0x00
#define BPF_A 0x10
#define BPF_STMT(code, k) {(uint16_t)(code), 0, 0, k}
#define BPF_JUMP(code, k, jt, jf) {(uint16_t)(code), jt, jf, k}
#ifndef SO_ATTACH_FILTER
#define SO_ATTACH_FILTER 26
#define SO_DETACH_FILTER 27
#endif

#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif
#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif

static int getint(int fd, int name)
{
    int v = -1;
    socklen_t l = sizeof v;
    getsockopt(fd, SOL_SOCKET, name, &v, &l);
    return v;
}

static void deliver(int tx, uint32_t to, const char *msg, int rx, const char *label)
{
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_pid = to};
    long n = sendto(tx, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof sa);
    char buf[64] = {0};
    long r = recv(rx, buf, sizeof buf, MSG_DONTWAIT);
    if (r < 0)
        out("%s: sent %ld, recv -1 %s", label, n, errname(errno));
    else
        out("%s: sent %ld, recv %ld '%.*s'", label, n, r, (int)r, buf);
}

int main(void)
{
    int rx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
    int tx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
    check("sockets", rx < 0 || tx < 0 ? -1 : 0);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    check("bind", bind(rx, (struct sockaddr *)&sa, sizeof sa));
    socklen_t l = sizeof sa;
    getsockname(rx, (struct sockaddr *)&sa, &l);
    uint32_t port = sa.nl_pid;

    int v = 1 << 20, neg = -5, small = 1;
    check("SO_RCVBUFFORCE 1M", setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v));
    out("rcvbuf %d", getint(rx, SO_RCVBUF));
    check("SO_SNDBUFFORCE 1M", setsockopt(rx, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof v));
    out("sndbuf %d", getint(rx, SO_SNDBUF));
    check("SO_RCVBUFFORCE -5", setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &neg, sizeof neg));
    out("rcvbuf %d", getint(rx, SO_RCVBUF));
    check("SO_RCVBUF 1", setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof small));
    out("rcvbuf %d", getint(rx, SO_RCVBUF));
    check("SO_RCVBUFFORCE short", setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &v, 2));
    check("SO_RCVBUFFORCE 1M", setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v));
    int on = 1;
    check("SO_PASSCRED", setsockopt(rx, SOL_SOCKET, SO_PASSCRED, &on, sizeof on));
    out("passcred %d", getint(rx, SO_PASSCRED));

    /* No filter yet. */
    check("SO_DETACH_FILTER none", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &on, sizeof on));
    deliver(tx, port, "abcdef", rx, "unfiltered");

    /* 'a' passes whole, 'b' is cut to 3 bytes, anything else dropped. */
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'a', 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'b', 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 3),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    struct sock_fprog fp = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    check("attach short optlen", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp - 1));
    struct sock_fprog bad = {.len = 0, .filter = prog};
    check("attach len 0", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &bad, sizeof bad));
    bad.len = 2;
    bad.filter = NULL;
    check("attach null", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &bad, sizeof bad));
    bad.filter = (struct sock_filter *)8;
    check("attach bad pointer", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &bad, sizeof bad));
    struct sock_filter noret[] = {BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0)};
    struct sock_fprog nr = {.len = 1, .filter = noret};
    check("attach no return", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &nr, sizeof nr));
    struct sock_filter div0[] = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), BPF_STMT(BPF_RET | BPF_K, 1)};
    struct sock_fprog d0 = {.len = 2, .filter = div0};
    check("attach div 0", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &d0, sizeof d0));

    check("attach", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp));
    deliver(tx, port, "abcdef", rx, "a-message");
    deliver(tx, port, "bcdefg", rx, "b-message");
    deliver(tx, port, "cdefgh", rx, "c-message");

    /* Big-endian half-word, indirect loads: pass "xy" followed by at
     * least 8 bytes; a load past the end drops the message. */
    struct sock_filter prog2[] = {
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ('x' << 8) | 'y', 1, 0),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_LDX | BPF_IMM, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
        BPF_STMT(BPF_RET | BPF_A, 0),
    };
    struct sock_fprog fp2 = {.len = sizeof prog2 / sizeof prog2[0], .filter = prog2};
    check("attach replaces", setsockopt(rx, SOL_SOCKET, SO_ATTACH_FILTER, &fp2, sizeof fp2));
    deliver(tx, port, "xy12345678", rx, "xy long");
    deliver(tx, port, "xy123456", rx, "xy short");
    deliver(tx, port, "yx12345678", rx, "yx");

    check("SO_DETACH_FILTER", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &on, sizeof on));
    check("SO_DETACH_FILTER again", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &on, sizeof on));
    deliver(tx, port, "cdefgh", rx, "detached");
    return 0;
}
