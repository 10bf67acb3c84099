/* An mq_open descriptor acts on the queue's node: fchmod changes the
 * mode mq_open checks, futimens sets its times, fchown its owner; mmap
 * of it is ENODEV. */
#include "ipc.h"
#include <mqueue.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(void)
{
    mq_unlink("/kevlar-mq-fd-node");
    mqd_t q = mq_open("/kevlar-mq-fd-node", O_RDWR | O_CREAT, 0600, NULL);
    out("mq_open: %s", q < 0 ? errname(errno) : "ok");
    check("fchmod 0644", fchmod(q, 0644));
    check("fchown 5 6", fchown(q, 5, 6));
    struct timespec ts[2] = {{1000, 0}, {2000, 0}};
    check("futimens", futimens(q, ts));
    struct stat st;
    if (check("fstat", fstat(q, &st)) == 0)
        out("mode %o uid %u gid %u atime %ld mtime %ld", st.st_mode, st.st_uid, st.st_gid, (long)st.st_atime, (long)st.st_mtime);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, q, 0);
    out("mmap private: %s", p == MAP_FAILED ? errname(errno) : "mapped");
    p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, q, 0);
    out("mmap shared: %s", p == MAP_FAILED ? errname(errno) : "mapped");
    mq_close(q);
    mq_unlink("/kevlar-mq-fd-node");
    return 0;
}
