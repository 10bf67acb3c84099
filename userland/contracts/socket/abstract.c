/* Abstract AF_UNIX names (sun_path starting with a NUL byte): every byte
 * of the address length counts, nothing appears in the filesystem, a
 * name in use is EADDRINUSE for the same socket type only, and it is free
 * again once its socket closes. Binding with only the family autobinds a
 * "\0" + five hex digits name; SO_PASSCRED autobinds on connect and send. */
#include "common.h"
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#define BASE offsetof(struct sockaddr_un, sun_path)

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, name, strlen(name));
    return BASE + 1 + strlen(name);
}

static int hexname(const struct sockaddr_un *a, socklen_t len)
{
    if (len != BASE + 6 || a->sun_path[0] != 0)
        return 0;
    for (int i = 1; i < 6; i++)
        if (!strchr("0123456789abcdef", a->sun_path[i]))
            return 0;
    return 1;
}

int main(void)
{
    struct sockaddr_un a, b;
    socklen_t len = abstract_addr(&a, "kevlar-abstract"), blen;
    int srv = socket(AF_UNIX, SOCK_STREAM, 0);
    check("bind", bind(srv, (struct sockaddr *)&a, len));
    blen = sizeof b;
    check("getsockname", getsockname(srv, (struct sockaddr *)&b, &blen));
    out("name length: %d same bytes: %s", (int)blen, yesno(blen == len && memcmp(&a, &b, len) == 0));
    show("no filesystem node", access("kevlar-abstract", F_OK));
    int dup = socket(AF_UNIX, SOCK_STREAM, 0);
    show("bind the same name", bind(dup, (struct sockaddr *)&a, len));
    show("bind the name plus a NUL", bind(dup, (struct sockaddr *)&a, len + 1));
    int other = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("bind the name for a datagram socket", bind(other, (struct sockaddr *)&a, len));
    check("listen", listen(srv, 4));

    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    check("connect", connect(c, (struct sockaddr *)&a, len));
    blen = sizeof b;
    getpeername(c, (struct sockaddr *)&b, &blen);
    out("peer name length: %d same: %s", (int)blen, yesno(blen == len && memcmp(&a, &b, len) == 0));
    int s = accept(srv, NULL, NULL);
    check("accept", s);
    blen = sizeof b;
    getsockname(s, (struct sockaddr *)&b, &blen);
    out("accepted socket's name is the listener's: %s", yesno(blen == len && memcmp(&a, &b, len) == 0));
    write(c, "hi", 2);
    char buf[8];
    show("read", read(s, buf, sizeof buf));
    int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
    show("connect to the name plus a NUL", connect(c2, (struct sockaddr *)&a, len + 1));
    struct sockaddr_un shorter;
    socklen_t slen = abstract_addr(&shorter, "kevlar-abstrac");
    show("connect to a prefix", connect(c2, (struct sockaddr *)&shorter, slen));
    int dg = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("datagram socket connects to the datagram name", connect(dg, (struct sockaddr *)&a, len));
    close(dup);
    close(c2);

    /* Closing frees the name. */
    close(s);
    close(c);
    close(srv);
    int again = socket(AF_UNIX, SOCK_STREAM, 0);
    check("bind after the owner closed", bind(again, (struct sockaddr *)&a, len));
    close(again);

    /* An address of the family alone: autobind. */
    int au = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un fam = {.sun_family = AF_UNIX};
    blen = sizeof b;
    getsockname(au, (struct sockaddr *)&b, &blen);
    out("unbound name length: %d", (int)blen);
    check("autobind", bind(au, (struct sockaddr *)&fam, sizeof(sa_family_t)));
    blen = sizeof b;
    getsockname(au, (struct sockaddr *)&b, &blen);
    out("autobound name: length %d five hex digits: %s", (int)blen, yesno(hexname(&b, blen)));
    struct sockaddr_un first = b;
    check("autobind again", bind(au, (struct sockaddr *)&fam, sizeof(sa_family_t)));
    blen = sizeof b;
    getsockname(au, (struct sockaddr *)&b, &blen);
    out("name kept: %s", yesno(memcmp(&first, &b, blen) == 0));
    show("bind a name after autobind", bind(au, (struct sockaddr *)&a, len));

    /* The receiver sees an autobound sender's name. */
    int rx = socket(AF_UNIX, SOCK_DGRAM, 0);
    socklen_t rlen = abstract_addr(&a, "kevlar-rx");
    bind(rx, (struct sockaddr *)&a, rlen);
    int tx = socket(AF_UNIX, SOCK_DGRAM, 0);
    int on = 1;
    setsockopt(tx, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    show("sendto with SO_PASSCRED", sendto(tx, "x", 1, 0, (struct sockaddr *)&a, rlen));
    blen = sizeof b;
    memset(&b, 0, sizeof b);
    show("recvfrom", recvfrom(rx, buf, sizeof buf, 0, (struct sockaddr *)&b, &blen));
    out("sender autobound: %s", yesno(hexname(&b, blen)));
    int tx2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    show("sendto without", sendto(tx2, "y", 1, 0, (struct sockaddr *)&a, rlen));
    blen = sizeof b;
    show("recvfrom", recvfrom(rx, buf, sizeof buf, 0, (struct sockaddr *)&b, &blen));
    out("unbound sender's address length: %d", (int)blen);

    /* A stream client with SO_PASSCRED gets a name on connect. */
    socklen_t llen = abstract_addr(&a, "kevlar-l");
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    bind(l, (struct sockaddr *)&a, llen);
    listen(l, 1);
    int pc = socket(AF_UNIX, SOCK_STREAM, 0);
    setsockopt(pc, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    check("connect with SO_PASSCRED", connect(pc, (struct sockaddr *)&a, llen));
    blen = sizeof b;
    int ps = accept(l, (struct sockaddr *)&b, &blen);
    check("accept", ps);
    out("client autobound: %s", yesno(hexname(&b, blen)));
    return 0;
}
