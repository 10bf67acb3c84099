/* Kevlar-only check of the virtio network card (Linux's oracle kernel has
 * no virtio-net built in, so there is nothing to compare with). Run as
 * init=/net with QEMU user networking and a guest forward of
 * 10.0.2.100:7 to `cat` on the host side (an echo service), restricted so
 * nothing leaves QEMU:
 *   -nic user,model=virtio-net-pci,restrict=on,guestfwd=tcp:10.0.2.100:7-cmd:cat
 * eth0 must exist with QEMU's static address, and 256 KiB sent over TCP
 * to the echo service must come back intact, which needs the card's
 * transmit and receive paths, ARP for the forward's address, and TCP
 * through smoltcp. Prints `NET-CHECK ok` or what went wrong. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define TOTAL (256 * 1024)

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + (i >> 8)); }

static const char *check(void)
{
    static char why[160];
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "eth0");
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0)
        return "no eth0";
    if (!(r.ifr_flags & IFF_UP))
        return "eth0 is down";
    if (ioctl(s, SIOCGIFADDR, &r) < 0 || strcmp(inet_ntoa(((struct sockaddr_in *)&r.ifr_addr)->sin_addr), "10.0.2.15"))
        return "eth0 has not 10.0.2.15";
    if (ioctl(s, SIOCGIFHWADDR, &r) < 0 || r.ifr_hwaddr.sa_family != 1)
        return "no Ethernet address";
    printf("eth0: %02x:%02x:%02x:%02x:%02x:%02x 10.0.2.15\n", (unsigned char)r.ifr_hwaddr.sa_data[0], (unsigned char)r.ifr_hwaddr.sa_data[1],
           (unsigned char)r.ifr_hwaddr.sa_data[2], (unsigned char)r.ifr_hwaddr.sa_data[3], (unsigned char)r.ifr_hwaddr.sa_data[4],
           (unsigned char)r.ifr_hwaddr.sa_data[5]);
    close(s);

    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(7);
    a.sin_addr.s_addr = inet_addr("10.0.2.100");
    struct timeval tv = {10, 0};
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
        snprintf(why, sizeof why, "connect to 10.0.2.100:7: errno %d", errno);
        return why;
    }
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    getsockname(c, (struct sockaddr *)&me, &len);
    if (strcmp(inet_ntoa(me.sin_addr), "10.0.2.15"))
        return "connected from the wrong address";
    static unsigned char out[TOTAL], in[TOTAL];
    for (size_t i = 0; i < TOTAL; i++)
        out[i] = pattern(i);
    size_t sent = 0, got = 0;
    /* Write and read in turns so neither side's buffers fill up. */
    while (got < TOTAL) {
        struct pollfd p = {c, POLLIN | (sent < TOTAL ? POLLOUT : 0), 0};
        if (poll(&p, 1, 10000) <= 0)
            return "timed out";
        if ((p.revents & POLLOUT) && sent < TOTAL) {
            size_t n = TOTAL - sent < 8192 ? TOTAL - sent : 8192;
            ssize_t w = send(c, out + sent, n, MSG_DONTWAIT);
            if (w > 0)
                sent += w;
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(c, in + got, TOTAL - got, MSG_DONTWAIT);
            if (n == 0)
                break;
            if (n > 0)
                got += n;
        }
    }
    close(c);
    if (got != TOTAL) {
        snprintf(why, sizeof why, "echoed %zu of %d bytes", got, TOTAL);
        return why;
    }
    if (memcmp(in, out, TOTAL))
        return "echo differs";
    return NULL;
}

int main(void)
{
    const char *why = check();
    if (why)
        printf("NET-CHECK failed: %s\n", why);
    else
        printf("NET-CHECK ok\n");
    fflush(stdout);
    if (getpid() == 1)
        reboot(RB_POWER_OFF);
    return 0;
}
