/* getsockname/getpeername: an unbound socket is 0.0.0.0:0, a connected
 * one has an ephemeral port in Linux's default range, the peer of an
 * unconnected socket is ENOTCONN, and a short buffer gets the full
 * length back. */
#include "inet.h"

int main(void)
{
    lo_up();
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    check("getsockname unbound", getsockname(s, (struct sockaddr *)&a, &len));
    out("unbound: %s:%d len %d", inet_ntoa(a.sin_addr), ntohs(a.sin_port), (int)len);
    len = sizeof a;
    check("getpeername unconnected", getpeername(s, (struct sockaddr *)&a, &len));
    int port = 0;
    int l = tcp_listener(&port);
    out("listener port in range: %s", yesno(port >= 32768 && port <= 60999));
    int c = tcp_connect(port);
    len = sizeof a;
    getsockname(c, (struct sockaddr *)&a, &len);
    int cp = ntohs(a.sin_port);
    out("client: %s, port in range: %s, differs from listener: %s", inet_ntoa(a.sin_addr), yesno(cp >= 32768 && cp <= 60999), yesno(cp != port));
    len = sizeof a;
    getpeername(c, (struct sockaddr *)&a, &len);
    out("client's peer: %s, is listener: %s", inet_ntoa(a.sin_addr), yesno(ntohs(a.sin_port) == port));
    char small[4];
    len = sizeof small;
    check("short buffer", getsockname(c, (struct sockaddr *)small, &len));
    out("length reported %d", (int)len);
    int w = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in any;
    memset(&any, 0, sizeof any);
    any.sin_family = AF_INET;
    bind(w, (struct sockaddr *)&any, sizeof any);
    len = sizeof a;
    getsockname(w, (struct sockaddr *)&a, &len);
    out("bound to INADDR_ANY:0: %s, port in range: %s", inet_ntoa(a.sin_addr), yesno(ntohs(a.sin_port) >= 32768 && ntohs(a.sin_port) <= 60999));
    close(l);
    return 0;
}
