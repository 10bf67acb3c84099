/* A socket filter on a UDP socket, as Linux 6.1 runs it on each datagram
 * arriving (udp_queue_rcv_one_skb): the program sees the UDP header
 * (source and destination ports, length) then the payload; 0 drops the
 * datagram (poll shows nothing, recv EAGAIN), a length keeps that much
 * of header and payload, never less than the header (an empty datagram).
 * Only datagrams sent after the filter is attached are sent here. */
#include "inet.h"
#include <stdint.h>

struct sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
#define BPF_LD 0x00
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_H 0x08
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

#define RX_PORT 47311
#define TX_PORT 47312

static int attach(int fd, struct sock_filter *code, int n)
{
    struct sock_fprog prog = {(unsigned short)n, code};
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
}

static int udp_bound(int port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
        out("bind %d: %s", port, errname(errno));
    return fd;
}

static void send_to(int fd, const char *text)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(RX_PORT), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ssize_t n = sendto(fd, text, strlen(text), 0, (struct sockaddr *)&a, sizeof a);
    out("send '%s': %zd", text, n);
}

/* Receives what is there: waits up to 2 s for the first datagram (loopback
 * delivery is not synchronous), then takes the rest without waiting. */
static void recv_all(const char *label, int fd, int expect)
{
    char buf[64];
    int got = 0;
    for (;;) {
        if (got < expect) {
            struct pollfd p = {fd, POLLIN, 0};
            poll(&p, 1, 2000);
        }
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            out("%s: recv %s", label, errname(errno));
            return;
        }
        got++;
        out("%s: got %zd '%.*s'", label, n, (int)n, buf);
    }
}

int main(void)
{
    lo_up();
    int rx = udp_bound(RX_PORT), tx = udp_bound(TX_PORT);
    /* Header and 3 bytes. */
    struct sock_filter eleven[] = {BPF_STMT(BPF_RET | BPF_K, 11)};
    check("attach ret 11", attach(rx, eleven, 1));
    send_to(tx, "hello");
    recv_all("ret 11", rx, 1);
    /* Less than the header: the header stays, no payload. */
    struct sock_filter four[] = {BPF_STMT(BPF_RET | BPF_K, 4)};
    check("attach ret 4", attach(rx, four, 1));
    send_to(tx, "hello");
    recv_all("ret 4", rx, 1);
    /* Drop everything: nothing to poll or read. */
    struct sock_filter none[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
    check("attach ret 0", attach(rx, none, 1));
    send_to(tx, "hello");
    struct pollfd p = {rx, POLLIN, 0};
    out("poll after 500 ms: %d", poll(&p, 1, 500));
    recv_all("ret 0", rx, 0);
    /* The ports and length the program sees, and the first payload byte. */
    struct sock_filter fields[] = {
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TX_PORT, 0, 7),
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RX_PORT, 0, 5),
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 8 + 5, 0, 3),
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'A', 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffff),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    check("attach port, length and byte checks", attach(rx, fields, 10));
    send_to(tx, "Apple");
    send_to(tx, "Bingo");
    send_to(tx, "Apricot");
    send_to(tx, "Aloha");
    recv_all("fields", rx, 2);
    check("detach", setsockopt(rx, SOL_SOCKET, SO_DETACH_FILTER, &(int){0}, sizeof(int)));
    send_to(tx, "Bingo");
    recv_all("detached", rx, 1);
    return 0;
}
