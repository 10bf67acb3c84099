/* The interface ioctls on lo: flags (up, loopback), index, MTU, address
 * and netmask, SIOCGIFCONF listing lo; ENODEV for an unknown name. */
#include "inet.h"

static int req(int fd, unsigned long r, const char *name, struct ifreq *ifr)
{
    memset(ifr, 0, sizeof *ifr);
    strcpy(ifr->ifr_name, name);
    return ioctl(fd, r, ifr);
}

int main(void)
{
    lo_up();
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    check("SIOCGIFFLAGS", req(s, SIOCGIFFLAGS, "lo", &r));
    out("up %s loopback %s running %s", yesno(r.ifr_flags & IFF_UP), yesno(r.ifr_flags & IFF_LOOPBACK), yesno(r.ifr_flags & IFF_RUNNING));
    check("SIOCGIFINDEX", req(s, SIOCGIFINDEX, "lo", &r));
    out("index %d", r.ifr_ifindex);
    check("SIOCGIFMTU", req(s, SIOCGIFMTU, "lo", &r));
    out("mtu %d", r.ifr_mtu);
    check("SIOCGIFADDR", req(s, SIOCGIFADDR, "lo", &r));
    out("addr %s", inet_ntoa(((struct sockaddr_in *)&r.ifr_addr)->sin_addr));
    check("SIOCGIFNETMASK", req(s, SIOCGIFNETMASK, "lo", &r));
    out("netmask %s", inet_ntoa(((struct sockaddr_in *)&r.ifr_netmask)->sin_addr));
    check("SIOCGIFHWADDR", req(s, SIOCGIFHWADDR, "lo", &r));
    out("hw family %d", r.ifr_hwaddr.sa_family);
    check("unknown interface", req(s, SIOCGIFFLAGS, "nosuch0", &r));
    struct ifreq list[8];
    struct ifconf conf = {.ifc_len = sizeof list, .ifc_req = list};
    check("SIOCGIFCONF", ioctl(s, SIOCGIFCONF, &conf));
    int found = 0;
    for (int i = 0; i < conf.ifc_len / (int)sizeof(struct ifreq); i++)
        if (!strcmp(list[i].ifr_name, "lo"))
            found = !strcmp(inet_ntoa(((struct sockaddr_in *)&list[i].ifr_addr)->sin_addr), "127.0.0.1");
    out("lo listed with 127.0.0.1: %s", yesno(found));
    int un = socket(AF_UNIX, SOCK_STREAM, 0);
    check("SIOCGIFINDEX on an AF_UNIX socket", req(un, SIOCGIFINDEX, "lo", &r));
    return 0;
}
