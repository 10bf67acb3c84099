/* SOL_PACKET options: PACKET_AUXDATA, PACKET_ORIGDEV, PACKET_VERSION,
 * PACKET_IGNORE_OUTGOING set and read back, PACKET_STATISTICS read and
 * reset, PACKET_ADD_MEMBERSHIP/DROP_MEMBERSHIP on lo, other levels
 * (ENOPROTOOPT), short values (EINVAL), unknown names. */
#include "packet.h"

static void get(int fd, const char *label, int name)
{
    int v = -1;
    socklen_t l = sizeof v;
    if (getsockopt(fd, SOL_PACKET, name, &v, &l) < 0)
        out("get %s: %s", label, errname(errno));
    else
        out("get %s: %d (len %d)", label, v, (int)l);
}

static void set(int fd, const char *label, int name, int v)
{
    out("set %s %d: %s", label, v, setsockopt(fd, SOL_PACKET, name, &v, sizeof v) < 0 ? errname(errno) : "ok");
}

int main(void)
{
    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    get(fd, "PACKET_AUXDATA", PACKET_AUXDATA);
    set(fd, "PACKET_AUXDATA", PACKET_AUXDATA, 5);
    get(fd, "PACKET_AUXDATA", PACKET_AUXDATA);
    set(fd, "PACKET_ORIGDEV", PACKET_ORIGDEV, 1);
    get(fd, "PACKET_ORIGDEV", PACKET_ORIGDEV);
    get(fd, "PACKET_VERSION", PACKET_VERSION);
    set(fd, "PACKET_VERSION", PACKET_VERSION, 2);
    get(fd, "PACKET_VERSION", PACKET_VERSION);
    set(fd, "PACKET_VERSION", PACKET_VERSION, 3);
    set(fd, "PACKET_IGNORE_OUTGOING", PACKET_IGNORE_OUTGOING, 1);
    get(fd, "PACKET_IGNORE_OUTGOING", PACKET_IGNORE_OUTGOING);
    set(fd, "PACKET_IGNORE_OUTGOING", PACKET_IGNORE_OUTGOING, 2);
    char c = 1;
    check("short PACKET_AUXDATA", setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &c, 1));
    int one = 1;
    check("SOL_IP level", setsockopt(fd, SOL_IP, IP_TOS, &one, sizeof one));
    socklen_t l = sizeof one;
    check("get SOL_IP level", getsockopt(fd, SOL_IP, IP_TOS, &one, &l));
    set(fd, "name 99", 99, 1);
    get(fd, "name 99", 99);

    struct tpacket_stats st = {7, 7};
    l = sizeof st;
    check("PACKET_STATISTICS", getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &l));
    out("  len %d packets %u drops %u", (int)l, st.tp_packets, st.tp_drops);

    struct packet_mreq mr;
    memset(&mr, 0, sizeof mr);
    mr.mr_ifindex = lo_index();
    mr.mr_type = PACKET_MR_PROMISC;
    check("ADD_MEMBERSHIP promisc lo", setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr));
    check("DROP_MEMBERSHIP promisc lo", setsockopt(fd, SOL_PACKET, PACKET_DROP_MEMBERSHIP, &mr, sizeof mr));
    check("DROP_MEMBERSHIP again", setsockopt(fd, SOL_PACKET, PACKET_DROP_MEMBERSHIP, &mr, sizeof mr));
    check("ADD_MEMBERSHIP short", setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, 4));
    mr.mr_ifindex = 9999;
    check("ADD_MEMBERSHIP ifindex 9999", setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr));
    mr.mr_ifindex = lo_index();
    mr.mr_type = 77;
    check("ADD_MEMBERSHIP type 77", setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr));
    mr.mr_type = PACKET_MR_ALLMULTI;
    check("ADD_MEMBERSHIP allmulti lo", setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr));
    return 0;
}
