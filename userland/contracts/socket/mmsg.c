/* sendmmsg and recvmmsg on AF_UNIX sockets: a batch of messages each way
 * with msg_len filled in; recvmmsg stops at EAGAIN, after one message with
 * MSG_WAITFORONE or a zero timeout, and reports an error after some
 * messages on the next call (SO_ERROR); sendmmsg stops at the first
 * failure and fails only when nothing was sent; bad timeouts and
 * pointers. */
#include "common.h"
#include <sys/socket.h>
#include <sys/uio.h>

#define BAD ((void *)8)

static struct mmsghdr msgs[5];
static struct iovec iovs[5];
static char bufs[5][16];

static void setup(int n, const char *const *data)
{
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < n; i++) {
        if (data) {
            iovs[i].iov_base = (void *)data[i];
            iovs[i].iov_len = strlen(data[i]);
        } else {
            memset(bufs[i], 0, sizeof bufs[i]);
            iovs[i].iov_base = bufs[i];
            iovs[i].iov_len = sizeof bufs[i];
        }
        msgs[i].msg_hdr.msg_iov = &iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_len = 12345;
    }
}

static void show_received(int n)
{
    for (int i = 0; i < n; i++)
        out("  [%d] msg_len %u '%.*s'", i, msgs[i].msg_len, (int)msgs[i].msg_len, bufs[i]);
}

int main(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    const char *three[] = {"one", "two!", "three"};
    setup(3, three);
    show("sendmmsg 3", sendmmsg(sv[0], msgs, 3, 0));
    out("  msg_len: %u %u %u", msgs[0].msg_len, msgs[1].msg_len, msgs[2].msg_len);
    setup(5, NULL);
    int n = recvmmsg(sv[1], msgs, 5, MSG_DONTWAIT, NULL);
    show("recvmmsg 5, MSG_DONTWAIT", n);
    show_received(n);
    show("recvmmsg, nothing queued", recvmmsg(sv[1], msgs, 5, MSG_DONTWAIT, NULL));
    show("sendmmsg 0", sendmmsg(sv[0], msgs, 0, 0));
    show("recvmmsg 0", recvmmsg(sv[1], msgs, 0, MSG_DONTWAIT, NULL));

    setup(3, three);
    sendmmsg(sv[0], msgs, 2, 0);
    setup(5, NULL);
    n = recvmmsg(sv[1], msgs, 5, MSG_WAITFORONE, NULL);
    show("recvmmsg MSG_WAITFORONE, two queued", n);
    show_received(n);
    setup(3, three);
    sendmmsg(sv[0], msgs, 3, 0);
    setup(5, NULL);
    struct timespec zero = {0, 0};
    n = recvmmsg(sv[1], msgs, 5, 0, &zero);
    show("recvmmsg with a zero timeout, three queued", n);
    show_received(n);
    out("  timeout left: {%ld, %ld}", (long)zero.tv_sec, (long)zero.tv_nsec);
    struct timespec plenty = {100, 0};
    n = recvmmsg(sv[1], msgs, 2, 0, &plenty);
    show("recvmmsg 2 with a long timeout", n);
    show_received(n);
    out("  time left: %s", yesno(plenty.tv_sec > 0 && plenty.tv_sec <= 100));
    struct timespec bad = {0, -1};
    show("recvmmsg with tv_nsec -1", recvmmsg(sv[1], msgs, 1, MSG_DONTWAIT, &bad));
    show("recvmmsg with a bad timeout pointer", recvmmsg(sv[1], msgs, 1, MSG_DONTWAIT, BAD));

    /* An error after some messages waits for the next call. */
    setup(3, three);
    sendmmsg(sv[0], msgs, 2, 0);
    setup(2, NULL);
    msgs[1].msg_hdr.msg_iov = BAD;
    n = recvmmsg(sv[1], msgs, 2, MSG_DONTWAIT, NULL);
    show("recvmmsg, second iovec bad", n);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(sv[1], SOL_SOCKET, SO_ERROR, &err, &len);
    out("  SO_ERROR: %s", errname(err));
    show("the message after it", recv(sv[1], bufs[0], sizeof bufs[0], MSG_DONTWAIT));
    setup(3, three);
    sendmmsg(sv[0], msgs, 1, 0);
    setup(2, NULL);
    msgs[1].msg_hdr.msg_iov = BAD;
    recvmmsg(sv[1], msgs, 2, MSG_DONTWAIT, NULL);
    setup(1, NULL);
    show("recvmmsg, nothing queued after a stored error", recvmmsg(sv[1], msgs, 1, MSG_DONTWAIT, NULL));

    /* sendmmsg stops at the first failure. */
    setup(3, three);
    msgs[1].msg_hdr.msg_iov = BAD;
    show("sendmmsg 3, second bad", sendmmsg(sv[0], msgs, 3, 0));
    setup(1, NULL);
    show("  received", recvmmsg(sv[1], msgs, 5, MSG_DONTWAIT, NULL));
    setup(3, three);
    msgs[0].msg_hdr.msg_iov = BAD;
    show("sendmmsg 3, first bad", sendmmsg(sv[0], msgs, 3, 0));
    show("sendmmsg on a pipe", sendmmsg(0, msgs, 1, 0));

    /* A stream. */
    int st[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, st);
    setup(3, three);
    show("sendmmsg 3 on a stream", sendmmsg(st[0], msgs, 3, 0));
    setup(5, NULL);
    n = recvmmsg(st[1], msgs, 5, MSG_DONTWAIT, NULL);
    show("recvmmsg on the stream", n);
    show_received(n);
    return 0;
}
