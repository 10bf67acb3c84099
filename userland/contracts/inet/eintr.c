/* Blocking socket calls and signals: a handler without SA_RESTART makes
 * a blocked recv, accept and recvfrom fail with EINTR; with SA_RESTART
 * they restart and return what arrives later; SO_RCVTIMEO turns a wait
 * into EAGAIN. */
#include "inet.h"
#include <sys/time.h>

static void on_alarm(int sig) { (void)sig; }

static void handler(int restart)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGALRM, &sa, NULL);
}

static void alarm_ms(long ms)
{
    struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
    lo_up();
    int port = 0;
    int l = tcp_listener(&port);
    handler(0);
    alarm_ms(50);
    show("accept interrupted", accept(l, NULL, NULL));
    int c = tcp_connect(port);
    int s = accept(l, NULL, NULL);
    char buf[16];
    alarm_ms(50);
    show("recv interrupted", recv(s, buf, sizeof buf, 0));
    int up = 0;
    int u = bound_socket(SOCK_DGRAM, &up);
    alarm_ms(50);
    show("recvfrom interrupted", recvfrom(u, buf, sizeof buf, 0, NULL, NULL));

    handler(1);
    pid_t pid = fork();
    if (pid == 0) {
        msleep(200);
        write(c, "late", 4);
        _exit(0);
    }
    alarm_ms(50);
    ssize_t n = recv(s, buf, sizeof buf, 0);
    out("recv with SA_RESTART: %zd %.*s", n, (int)(n > 0 ? n : 0), buf);
    reap("writer", pid);

    struct timeval tv = {0, 100000};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    show("recv with SO_RCVTIMEO", recv(s, buf, sizeof buf, 0));
    setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    show("accept with SO_RCVTIMEO", accept(l, NULL, NULL));
    return 0;
}
