/* bind: EADDRINUSE for a taken port (TCP and UDP separately),
 * SO_REUSEADDR sharing a port until one listens, EINVAL for a second bind
 * or a short address, EAFNOSUPPORT for another family, EADDRNOTAVAIL for
 * an address not on this host. */
#include "inet.h"

int main(void)
{
    lo_up();
    int port = 0;
    int a = bound_socket(SOCK_STREAM, &port);
    struct sockaddr_in addr = lo_addr(port);
    int b = socket(AF_INET, SOCK_STREAM, 0);
    show("same port, tcp", bind(b, (struct sockaddr *)&addr, sizeof addr));
    struct sockaddr_in any = addr;
    any.sin_addr.s_addr = htonl(INADDR_ANY);
    show("same port on INADDR_ANY", bind(b, (struct sockaddr *)&any, sizeof any));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    show("same port, udp", bind(u, (struct sockaddr *)&addr, sizeof addr));
    int u2 = socket(AF_INET, SOCK_DGRAM, 0);
    show("udp port taken by udp", bind(u2, (struct sockaddr *)&addr, sizeof addr));
    struct sockaddr_in zero = lo_addr(0);
    show("bind again", bind(a, (struct sockaddr *)&zero, sizeof zero));
    close(a);
    close(b);
    close(u);
    close(u2);

    int one = 1;
    int r1 = socket(AF_INET, SOCK_STREAM, 0), r2 = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(r1, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(r2, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in z = lo_addr(0);
    bind(r1, (struct sockaddr *)&z, sizeof z);
    addr = lo_addr(port_of(r1));
    show("reuseaddr both", bind(r2, (struct sockaddr *)&addr, sizeof addr));
    show("listen first", listen(r1, 1));
    show("listen second", listen(r2, 1));
    int r3 = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(r3, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    show("reuseaddr onto a listener", bind(r3, (struct sockaddr *)&addr, sizeof addr));

    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in x = lo_addr(0);
    show("short length", bind(s, (struct sockaddr *)&x, sizeof x - 1));
    x.sin_family = AF_INET6;
    show("wrong family", bind(s, (struct sockaddr *)&x, sizeof x));
    x = lo_addr(0);
    x.sin_addr.s_addr = inet_addr("10.1.2.3");
    show("foreign address", bind(s, (struct sockaddr *)&x, sizeof x));
    return 0;
}
