/* sock_diag answers about the sockets of the network namespace its
 * netlink socket was made in: a TCP listener and a unix socket made
 * before unshare(CLONE_NEWNET) are listed by a diag socket made before it
 * and not by one made after, whose dump lists the listener made in the
 * new namespace (on the same port). */
#include "sockdiag.h"

static int listed(int d, int family, unsigned long ino)
{
    struct replies r;
    int n = 0;
    if (family == AF_UNIX) {
        struct unix_diag_req req = {.family = AF_UNIX, .states = 0xfff};
        ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req, &r);
    } else {
        inet_dump(d, AF_INET, IPPROTO_TCP, 0xfff, 0, &r);
    }
    for (int i = 0; i < r.n; i++)
        n += reply_ino(r.msg[i]) == ino;
    replies_free(&r);
    return n;
}

int main(void)
{
    diag_setup();
    int l1 = tcp_listener("bind", 4830, 1);
    int u1 = socket(AF_UNIX, SOCK_DGRAM, 0);
    int d1 = diag_open();
    fresh_net();
    int d2 = diag_open();
    int l2 = tcp_listener("bind in the new namespace", 4830, 1);
    int u2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    out("first diag socket: first listener %d, second %d, first unix %d, second %d", listed(d1, AF_INET, ino_of(l1)), listed(d1, AF_INET, ino_of(l2)),
        listed(d1, AF_UNIX, ino_of(u1)), listed(d1, AF_UNIX, ino_of(u2)));
    out("second diag socket: first listener %d, second %d, first unix %d, second %d", listed(d2, AF_INET, ino_of(l1)), listed(d2, AF_INET, ino_of(l2)),
        listed(d2, AF_UNIX, ino_of(u1)), listed(d2, AF_UNIX, ino_of(u2)));
    return 0;
}
