/* A request works on the file its descriptor named at io_submit (Linux's
 * iocb holds a reference to it), not on whatever the descriptor names
 * later. A vectored write to a pipe, larger than the pipe, blocks in
 * io_submit; meanwhile another thread closes the descriptor and opens a
 * regular file on the same number, then drains the pipe: every byte of
 * both vectors still goes into the pipe and none into the file. */
#include "aio.h"
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#define FIRST (256 * 1024)
#define SECOND 4096

static aio_context_t ctx;
static int wfd;
static char first[FIRST], second[SECOND];
static struct iocb cb;
static long submitted;

static void *submitter(void *arg)
{
    (void)arg;
    static struct iovec iov[2] = {{first, FIRST}, {second, SECOND}};
    cb = mkiocb(IOCB_CMD_PWRITEV, wfd, iov, 2, 0, 7);
    submitted = submit1(ctx, &cb);
    return NULL;
}

int main(void)
{
    check("io_setup", io_setup(4, &ctx));
    int p[2];
    check("pipe", pipe(p));
    wfd = p[1];
    memset(first, 'a', sizeof first);
    memset(second, 'b', sizeof second);
    int size = fcntl(p[0], F_GETPIPE_SZ);
    pthread_t th;
    pthread_create(&th, NULL, submitter, NULL);

    /* The pipe full: the write waits inside io_submit. */
    int queued = 0;
    for (int i = 0; i < 20000 && queued < size; i++) {
        msleep(1);
        ioctl(p[0], FIONREAD, &queued);
    }
    out("pipe full while io_submit waits: %s", yesno(queued == size));

    check("close the descriptor", close(wfd));
    int other = open("other", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (other != wfd && other >= 0) {
        dup2(other, wfd);
        close(other);
    }
    out("a regular file opened on it: %s", yesno(other >= 0));

    static char buf[65536];
    size_t total = 0, seconds = 0;
    while (total < FIRST + SECOND) {
        ssize_t n = read(p[0], buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            seconds += buf[i] == 'b';
        total += n;
    }
    pthread_join(th, NULL);
    out("io_submit: %ld", submitted);
    reap_one("event", ctx, &cb);
    out("the pipe got %zu bytes, %zu of the second vector", total, seconds);
    struct stat st;
    stat("other", &st);
    out("the regular file's size: %lld", (long long)st.st_size);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
