/* socket(AF_INET, ...) and socketpair: the types and protocols that
 * exist, the errors for the rest, and SOCK_NONBLOCK/SOCK_CLOEXEC. */
#include "inet.h"

int main(void)
{
    lo_up();
    check("stream", socket(AF_INET, SOCK_STREAM, 0));
    check("stream IPPROTO_TCP", socket(AF_INET, SOCK_STREAM, IPPROTO_TCP));
    check("dgram IPPROTO_UDP", socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP));
    check("stream IPPROTO_UDP", socket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
    check("dgram IPPROTO_TCP", socket(AF_INET, SOCK_DGRAM, IPPROTO_TCP));
    check("seqpacket", socket(AF_INET, SOCK_SEQPACKET, 0));
    check("bad type 9", socket(AF_INET, 9, 0));
    check("bad flag", socket(AF_INET, SOCK_STREAM | 0x100, 0));
    int sv[2];
    check("socketpair stream", socketpair(AF_INET, SOCK_STREAM, 0, sv));
    check("socketpair dgram", socketpair(AF_INET, SOCK_DGRAM, 0, sv));
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    out("O_NONBLOCK %s FD_CLOEXEC %s", yesno(fcntl(fd, F_GETFL) & O_NONBLOCK), yesno(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    struct stat st;
    fstat(fd, &st);
    out("fstat: %s", S_ISSOCK(st.st_mode) ? "socket" : "other");
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    check("listen on udp", listen(u, 1));
    check("accept on udp", accept(u, NULL, NULL));
    int t = socket(AF_INET, SOCK_STREAM, 0);
    check("accept not listening", accept(t, NULL, NULL));
    return 0;
}
