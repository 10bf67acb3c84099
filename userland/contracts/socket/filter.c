/* Socket filters on AF_UNIX sockets as Linux 6.1 runs them: a datagram
 * or seqpacket receiver's classic BPF program sees each message sent to
 * it (0 tosses it while the sender is told it all went, a smaller length
 * cuts it); a stream socket takes one but never runs it.
 * SO_GET_FILTER gives the program back (its count when asked for 0,
 * EINVAL with too little room, 0 without one); SO_LOCK_FILTER makes
 * attaching and detaching EPERM and cannot be undone; SO_DETACH_FILTER
 * without a filter is ENOENT; SO_ATTACH_BPF refuses a descriptor that is
 * no eBPF program (EBADF, EINVAL) and a bad length. */
#include "../common.h"
#include <stdint.h>
#include <sys/socket.h>

/* include/uapi/linux/filter.h and bpf_common.h (musl has no header). */
struct sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
#define BPF_LD 0x00
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_B 0x10
#define BPF_ABS 0x20
#define BPF_JEQ 0x10
#define BPF_K 0x00
#define BPF_STMT(code, k) {(uint16_t)(code), 0, 0, k}
#define BPF_JUMP(code, k, jt, jf) {(uint16_t)(code), jt, jf, k}
#ifndef SO_ATTACH_FILTER
#define SO_ATTACH_FILTER 26
#define SO_DETACH_FILTER 27
#endif
#ifndef SO_GET_FILTER
#define SO_GET_FILTER SO_ATTACH_FILTER
#endif

#ifndef SO_LOCK_FILTER
#define SO_LOCK_FILTER 44
#endif
#ifndef SO_ATTACH_BPF
#define SO_ATTACH_BPF 50
#endif

static int attach(int fd, struct sock_filter *code, int n)
{
    struct sock_fprog prog = {(unsigned short)n, code};
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
}

static void recv_all(const char *label, int fd)
{
    char buf[64];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            out("%s: recv %s", label, errname(errno));
            return;
        }
        out("%s: got %zd '%.*s'", label, n, (int)n, buf);
        if (n == 0)
            return;
    }
}

static void send_one(const char *label, int fd, const char *text)
{
    ssize_t n = send(fd, text, strlen(text), MSG_DONTWAIT);
    out("%s: send '%s' %s %zd", label, text, n < 0 ? errname(errno) : "ok", n);
}

int main(void)
{
    /* Keep 3 bytes. */
    struct sock_filter three[] = {BPF_STMT(BPF_RET | BPF_K, 3)};
    /* Drop all. */
    struct sock_filter none[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
    /* Keep messages starting with 'A'. */
    struct sock_filter first_a[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'A', 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffff),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };

    int d[2];
    check("socketpair dgram", socketpair(AF_UNIX, SOCK_DGRAM, 0, d));
    check("attach ret 3", attach(d[1], three, 1));
    send_one("dgram ret 3", d[0], "hello");
    recv_all("dgram ret 3", d[1]);
    check("attach ret 0", attach(d[1], none, 1));
    send_one("dgram ret 0", d[0], "hello");
    recv_all("dgram ret 0", d[1]);
    check("attach first byte A", attach(d[1], first_a, 4));
    send_one("dgram A", d[0], "Apple");
    send_one("dgram A", d[0], "Banana");
    send_one("dgram A", d[0], "Avocado");
    recv_all("dgram A", d[1]);
    /* The sender's own filter is not the one that runs. */
    send_one("dgram back", d[1], "Banana");
    recv_all("dgram back", d[0]);

    socklen_t len = 0;
    check("SO_GET_FILTER len 0", getsockopt(d[1], SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    out("count: %u", (unsigned)len);
    struct sock_filter got[8];
    len = 2;
    check("SO_GET_FILTER len 2", getsockopt(d[1], SOL_SOCKET, SO_GET_FILTER, got, &len));
    len = 8;
    memset(got, 0, sizeof got);
    check("SO_GET_FILTER len 8", getsockopt(d[1], SOL_SOCKET, SO_GET_FILTER, got, &len));
    out("len %u, same program: %s", (unsigned)len, yesno(memcmp(got, first_a, sizeof first_a) == 0));
    len = 8;
    check("SO_GET_FILTER without a filter", getsockopt(d[0], SOL_SOCKET, SO_GET_FILTER, got, &len));
    out("len %u", (unsigned)len);

    check("detach", setsockopt(d[1], SOL_SOCKET, SO_DETACH_FILTER, &(int){0}, sizeof(int)));
    check("detach again", setsockopt(d[1], SOL_SOCKET, SO_DETACH_FILTER, &(int){0}, sizeof(int)));
    check("attach with a short length", setsockopt(d[1], SOL_SOCKET, SO_ATTACH_FILTER, three, 8));
    int v = -1;
    len = sizeof v;
    check("SO_LOCK_FILTER get", getsockopt(d[1], SOL_SOCKET, SO_LOCK_FILTER, &v, &len));
    out("locked: %d", v);
    check("attach ret 3", attach(d[1], three, 1));
    check("SO_LOCK_FILTER 1", setsockopt(d[1], SOL_SOCKET, SO_LOCK_FILTER, &(int){1}, sizeof(int)));
    len = sizeof v;
    getsockopt(d[1], SOL_SOCKET, SO_LOCK_FILTER, &v, &len);
    out("locked: %d", v);
    check("attach when locked", attach(d[1], none, 1));
    check("attach a bad program when locked", attach(d[1], NULL, 1));
    check("detach when locked", setsockopt(d[1], SOL_SOCKET, SO_DETACH_FILTER, &(int){0}, sizeof(int)));
    check("SO_LOCK_FILTER 0", setsockopt(d[1], SOL_SOCKET, SO_LOCK_FILTER, &(int){0}, sizeof(int)));
    check("SO_LOCK_FILTER 1 again", setsockopt(d[1], SOL_SOCKET, SO_LOCK_FILTER, &(int){1}, sizeof(int)));
    send_one("locked ret 3", d[0], "world");
    recv_all("locked ret 3", d[1]);
    check("SO_ATTACH_BPF when locked", setsockopt(d[1], SOL_SOCKET, SO_ATTACH_BPF, &(int){-1}, sizeof(int)));

    check("SO_ATTACH_BPF fd -1", setsockopt(d[0], SOL_SOCKET, SO_ATTACH_BPF, &(int){-1}, sizeof(int)));
    int p[2];
    pipe(p);
    check("SO_ATTACH_BPF a pipe", setsockopt(d[0], SOL_SOCKET, SO_ATTACH_BPF, &p[0], sizeof(int)));
    long long wide = p[0];
    check("SO_ATTACH_BPF length 8", setsockopt(d[0], SOL_SOCKET, SO_ATTACH_BPF, &wide, sizeof wide));

    int q[2];
    check("socketpair seqpacket", socketpair(AF_UNIX, SOCK_SEQPACKET, 0, q));
    check("attach ret 3", attach(q[1], three, 1));
    send_one("seqpacket ret 3", q[0], "hello");
    recv_all("seqpacket ret 3", q[1]);

    int s[2];
    check("socketpair stream", socketpair(AF_UNIX, SOCK_STREAM, 0, s));
    check("attach ret 0", attach(s[1], none, 1));
    send_one("stream ret 0", s[0], "hello");
    recv_all("stream ret 0", s[1]);
    len = 0;
    check("stream SO_GET_FILTER len 0", getsockopt(s[1], SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    out("count: %u", (unsigned)len);
    return 0;
}
