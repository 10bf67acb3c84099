/* setsockopt's order of checks with a bad value pointer: a level the
 * protocol does not have is refused first (ENOPROTOOPT for TCP and UDP,
 * EOPNOTSUPP for AF_UNIX, which has no protocol options), while a known
 * level, and SOL_SOCKET even with an unknown name, read the value first
 * (EFAULT). Fuzzers hit this constantly (SOL_TLS on a TCP socket). */
#include "common.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

int main(void)
{
    int tcp = socket(AF_INET, SOCK_STREAM, 0), udp = socket(AF_INET, SOCK_DGRAM, 0), un = socket(AF_UNIX, SOCK_STREAM, 0);
    show("tcp, SOL_TLS", setsockopt(tcp, 282, 1, NULL, 40));
    show("tcp, level 999", setsockopt(tcp, 999, 1, NULL, 4));
    show("tcp, TCP_NODELAY", setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, NULL, 4));
    show("tcp, IP_TOS", setsockopt(tcp, IPPROTO_IP, IP_TOS, NULL, 4));
    show("udp, level 999", setsockopt(udp, 999, 1, NULL, 4));
    show("udp, SOL_UDP", setsockopt(udp, IPPROTO_UDP, 1, NULL, 4));
    show("unix, SOL_TCP", setsockopt(un, IPPROTO_TCP, 1, NULL, 4));
    show("unix, level 999", setsockopt(un, 999, 1, NULL, 4));
    show("tcp, SOL_SOCKET name 999", setsockopt(tcp, SOL_SOCKET, 999, NULL, 4));
    return 0;
}
