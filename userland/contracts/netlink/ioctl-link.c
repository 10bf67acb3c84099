/* The interface ioctls that change what netlink reports: SIOCSIFMTU on lo
 * (RTM_GETLINK and SIOCGIFMTU see the new MTU; EINVAL for a negative one;
 * EPERM without CAP_NET_ADMIN), SIOCSIFADDR on lo with its own address
 * (0), another family (EINVAL), an unknown interface (ENODEV). */
#include "nl.h"
#include <netinet/in.h>

static unsigned nl_mtu(int fd)
{
    static char buf[8192];
    struct ifinfomsg ifi = {.ifi_index = 1};
    nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, 1, &ifi, sizeof ifi);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    poll(&p, 1, 2000);
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0)
        return 0;
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    struct nlattr *a = nl_find(NL_ATTRS(h, sizeof ifi), NL_ATTRLEN(h, sizeof ifi), IFLA_MTU);
    return a ? *(uint32_t *)NL_DATA(a) : 0;
}

static int set_mtu(int s, const char *name, int mtu)
{
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, name);
    r.ifr_mtu = mtu;
    return ioctl(s, SIOCSIFMTU, &r);
}

static int set_addr(int s, const char *name, int family, uint32_t addr)
{
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, name);
    struct sockaddr_in *sin = (struct sockaddr_in *)&r.ifr_addr;
    sin->sin_family = family;
    sin->sin_addr.s_addr = htonl(addr);
    return ioctl(s, SIOCSIFADDR, &r);
}

int main(void)
{
    lo_up();
    int fd = nl_open(NETLINK_ROUTE);
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    check("SIOCSIFMTU lo 65000", set_mtu(s, "lo", 65000));
    out("netlink mtu %u", nl_mtu(fd));
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    check("SIOCGIFMTU", ioctl(s, SIOCGIFMTU, &r));
    out("ioctl mtu %d", r.ifr_mtu);
    check("SIOCSIFMTU lo -1", set_mtu(s, "lo", -1));
    check("SIOCSIFMTU lo back", set_mtu(s, "lo", 65536));
    out("netlink mtu %u", nl_mtu(fd));
    check("SIOCSIFADDR lo 127.0.0.1", set_addr(s, "lo", AF_INET, 0x7f000001));
    check("SIOCSIFADDR lo AF_INET6", set_addr(s, "lo", AF_INET6, 0x7f000001));
    check("SIOCSIFMTU nosuch0", set_mtu(s, "nosuch0", 1500));
    if (setuid(65534) < 0)
        out("setuid: %s", errname(errno));
    check("SIOCSIFMTU as nobody", set_mtu(s, "lo", 1500));
    check("SIOCSIFADDR as nobody", set_addr(s, "lo", AF_INET, 0x7f000001));
    return 0;
}
