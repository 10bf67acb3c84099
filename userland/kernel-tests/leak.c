/* Kevlar-only test (not compared with Linux, whose free memory moves with
 * its caches): thousands of fork/exec/exit cycles must give back every
 * page, kernel stack and page table, and thousands of AF_UNIX socket
 * lifetimes (data, files and connections left in flight) every socket,
 * and thousands of TCP and UDP exchanges over loopback (closed by either
 * side first, some with unread data) every buffer.
 * Prints `LEAK-CHECK ok` or the growth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>

static unsigned long free_ram(void)
{
    struct sysinfo si;
    sysinfo(&si);
    return si.freeram * si.mem_unit;
}

static int mode = 0; /* 0: mixed; 1: fork+exit; 2: vfork+exit; 3: fork+exec; 4: vfork+exec */

static void cycle(const char *self, int n)
{
    for (int i = 0; i < n; i++) {
        int use_fork = mode == 0 ? (i % 2) : (mode == 1 || mode == 3);
        int do_exec = mode == 0 ? (i % 4 < 2) : (mode >= 3);
        pid_t pid = use_fork ? fork() : vfork();
        if (pid == 0) {
            if (do_exec)
                execl(self, self, "child", (char *)0);
            _exit(3);
        }
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) {
            printf("LEAK-CHECK bad child status %#x\n", status);
            exit(1);
        }
    }
}

/* Sockets closed with data, a passed file and an unaccepted connection
 * still queued: closing must free them all. */
static void socket_cycle(int n)
{
    static char data[5000];
    struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "\0kevlar-leak"};
    socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 12;
    for (int i = 0; i < n; i++) {
        int sv[2], p[2], d[2];
        socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
        write(sv[0], data, 100);
        write(sv[1], data, sizeof data);
        pipe(p);
        char ctl[CMSG_SPACE(sizeof(int))];
        memset(ctl, 0, sizeof ctl);
        struct iovec iov = {data, 1};
        struct msghdr mh = {0};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = ctl;
        mh.msg_controllen = sizeof ctl;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &p[0], sizeof(int));
        sendmsg(sv[0], &mh, 0);
        close(p[0]);
        close(p[1]);
        close(sv[0]);
        close(sv[1]);
        socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
        for (int k = 0; k < 3; k++)
            send(d[0], data, 200, 0);
        recv(d[1], data, sizeof data, 0);
        close(d[1]);
        close(d[0]);
        int l = socket(AF_UNIX, SOCK_STREAM, 0);
        bind(l, (struct sockaddr *)&a, alen);
        listen(l, 4);
        int c1 = socket(AF_UNIX, SOCK_STREAM, 0), c2 = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(c1, (struct sockaddr *)&a, alen);
        connect(c2, (struct sockaddr *)&a, alen);
        write(c2, data, 10);
        int s = accept(l, NULL, NULL);
        write(s, data, 10);
        close(l);
        close(c1);
        close(s);
        close(c2);
    }
}

/* TCP connections through a listener, closed by either side first (one
 * of them with data left unread), and UDP datagrams. */
static int inet_failures;

static void inet_cycle(int n)
{
    static char data[3000];
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    bind(l, (struct sockaddr *)&a, sizeof a);
    listen(l, 4);
    getsockname(l, (struct sockaddr *)&a, &alen);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(u, (struct sockaddr *)&ua, sizeof ua);
    alen = sizeof ua;
    getsockname(u, (struct sockaddr *)&ua, &alen);
    for (int i = 0; i < n; i++) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        connect(c, (struct sockaddr *)&a, sizeof a);
        int s = accept(l, NULL, NULL);
        write(c, data, sizeof data);
        if (read(s, data, 1000) != 1000)
            inet_failures++;
        write(s, data, 100);
        if (i % 2) {
            close(s);
            close(c);
        } else {
            close(c);
            close(s);
        }
        int d = socket(AF_INET, SOCK_DGRAM, 0);
        sendto(d, data, 500, 0, (struct sockaddr *)&ua, sizeof ua);
        if (recv(u, data, sizeof data, 0) != 500)
            inet_failures++;
        close(d);
    }
    close(l);
    close(u);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        char *p = malloc(64 * 1024);
        memset(p, 1, 64 * 1024);
        return 3;
    }
    if (argc > 1)
        mode = atoi(argv[1]);
    cycle(argv[0], 200); /* warm up caches (heap size classes, stack cache) */
    unsigned long before = free_ram();
    cycle(argv[0], 2000);
    unsigned long after = free_ram();
    long grown = (long)before - (long)after;
    socket_cycle(200);
    before = free_ram();
    socket_cycle(2000);
    long socket_grown = (long)before - (long)free_ram();
    /* Linux boots with lo down; Kevlar's is up, and this does no harm. */
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    int ctl = socket(AF_INET, SOCK_DGRAM, 0);
    ioctl(ctl, SIOCGIFFLAGS, &ifr);
    ifr.ifr_flags |= IFF_UP;
    ioctl(ctl, SIOCSIFFLAGS, &ifr);
    close(ctl);
    inet_cycle(200);
    before = free_ram();
    inet_cycle(2000);
    long inet_grown = (long)before - (long)free_ram();
    struct sysinfo si;
    sysinfo(&si);
    /* The tolerance allows for caches that grow with peak concurrency
     * (kernel stacks kept for reuse, heap slabs) while still catching
     * anything that leaks 256 bytes or more per cycle. */
    if (inet_failures)
        printf("LEAK-CHECK %d TCP/UDP exchanges failed\n", inet_failures);
    else if (grown <= 512 * 1024 && socket_grown <= 512 * 1024 && inet_grown <= 512 * 1024)
        printf("LEAK-CHECK ok\n");
    else if (grown > 512 * 1024)
        printf("LEAK-CHECK leaked %ld KiB over 2000 cycles (%d processes alive)\n", grown / 1024, si.procs);
    else if (socket_grown > 512 * 1024)
        printf("LEAK-CHECK sockets leaked %ld KiB over 2000 cycles\n", socket_grown / 1024);
    else
        printf("LEAK-CHECK TCP/UDP sockets leaked %ld KiB over 2000 cycles\n", inet_grown / 1024);
    fflush(stdout);
    if (getpid() == 1)
        reboot(RB_POWER_OFF);
    return 0;
}
