/* Two threads: one waits in io_getevents (min_nr 3) while the other
 * submits three writes one at a time; the waiter gets all three. */
#include "aio.h"
#include <pthread.h>

static aio_context_t ctx;
static int fd;
static struct iocb cbs[3];
static void *submitter(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        msleep(50);
        cbs[i] = mkiocb(IOCB_CMD_PWRITE, fd, "abc", 3, i * 3, 100 + i);
        submit1(ctx, &cbs[i]);
    }
    return NULL;
}

int main(void)
{
    check("io_setup", io_setup(8, &ctx));
    fd = open("f", O_RDWR | O_CREAT, 0644);
    pthread_t th;
    pthread_create(&th, NULL, submitter, NULL);
    struct io_event ev[3];
    struct timespec ts = { 10, 0 };
    long got = 0;
    while (got < 3) {
        long n = io_getevents(ctx, 3 - got, 3 - got, ev + got, &ts);
        if (n <= 0)
            break;
        got += n;
    }
    out("got: %ld", got);
    unsigned long long sum = 0;
    for (long i = 0; i < got; i++)
        sum += ev[i].data + (unsigned long long)ev[i].res;
    out("data and results add up to: %llu", sum);
    pthread_join(th, NULL);
    struct stat st;
    fstat(fd, &st);
    out("file size: %lld", (long long)st.st_size);
    check("io_destroy", io_destroy(ctx));
    return 0;
}
