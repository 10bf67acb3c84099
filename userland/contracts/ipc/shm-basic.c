/* SysV shared memory: shmat/shmdt, writes seen through two attachments
 * and across fork, shm_nattch (fork adds one, exit and exec take theirs
 * away), IPC_RMID while attached (the segment lives on with key 0 and
 * SHM_DEST until the last detach), SHM_RDONLY (a write faults), SHM_RND,
 * SHM_REMAP, a fixed address that is taken (EINVAL), SHM_LOCK. */
#include "ipc.h"
#include "../fault.h"
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

static int id;

static void nattch(const char *label)
{
    struct shmid_ds ds;
    if (shmctl(id, IPC_STAT, &ds) < 0)
        out("%s: %s", label, errname(errno));
    else
        out("%s: nattch %lu size %zu mode %o key %d", label, (unsigned long)ds.shm_nattch,
            ds.shm_segsz, ds.shm_perm.mode, ds.shm_perm.key);
}

int main(void)
{
    key_t key = 0x4b455603;
    shmctl(shmget(key, 1, 0), IPC_RMID, 0);
    id = shmget(key, 10000, IPC_CREAT | 0600);
    check("shmget", id);
    nattch("new");
    char *a = shmat(id, 0, 0);
    out("shmat: %s", a == (void *)-1 ? errname(errno) : "ok");
    out("zero filled: %s", yesno(a[0] == 0 && a[9999] == 0));
    char *b = shmat(id, 0, 0);
    out("second attach elsewhere: %s", yesno(b != a && b != (void *)-1));
    strcpy(a, "hello");
    out("seen through the other: %s", b);
    nattch("two attached");
    /* /proc/self/maps names the attach /SYSV<key> with the id as inode. */
    char maps[8192];
    int mfd = open("/proc/self/maps", O_RDONLY);
    ssize_t mn = read(mfd, maps, sizeof maps - 1);
    close(mfd);
    maps[mn > 0 ? mn : 0] = 0;
    char want[32];
    snprintf(want, sizeof want, "%lx-", (unsigned long)a);
    char *ml = strstr(maps, want);
    if (ml) {
        char *end = strchr(ml, '\n');
        if (end)
            *end = 0;
        unsigned long ino = 0;
        char perms[8], name[64] = "";
        sscanf(ml, "%*s %7s %*s %*s %lu %63[^\n]", perms, &ino, name);
        char *n = name;
        while (*n == ' ')
            n++;
        out("maps: %s ino is the id %s name %s", perms, yesno(ino == (unsigned long)id), n);
    } else {
        out("maps: no line");
    }
    out("last page past the size: %s", try_read(a + 12287));

    pid_t pid = fork();
    if (pid == 0) {
        nattch("in the child");
        strcpy(b + 100, "from child");
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    out("child wrote: %s", a + 100);
    nattch("child gone");
    check("shmdt b", shmdt(b));
    check("shmdt b again", shmdt(b));
    check("shmdt unaligned", shmdt(a + 1));
    check("shmdt inside", shmdt(a + 4096));
    nattch("one attached");

    /* Removed while attached. */
    check("rmid", shmctl(id, IPC_RMID, 0));
    nattch("removed");
    check("shmget key now", shmget(key, 1, 0));
    strcpy(a, "still here");
    out("still usable: %s", a);
    char *c = shmat(id, 0, 0);
    out("attach after rmid: %s", c == (void *)-1 ? errname(errno) : "ok");
    if (c != (void *)-1)
        out("reads: %s", c);
    nattch("attached again");
    shmdt(c);
    check("last shmdt", shmdt(a));
    nattch("gone");

    /* Read-only attachments, SHM_RND, SHM_REMAP. */
    id = shmget(IPC_PRIVATE, 4096, 0600);
    char *r = shmat(id, 0, SHM_RDONLY);
    out("read-only attach: %s", r == (void *)-1 ? errname(errno) : "ok");
    out("read: %s", try_read(r));
    out("write: %s", try_write(r, 'y'));
    check("mprotect read-only attach writable", mprotect(r, 4096, PROT_READ | PROT_WRITE));
    check("mprotect read-only attach read-only", mprotect(r, 4096, PROT_READ));
    char *w = shmat(id, 0, 0);
    w[0] = 'x';
    out("read-only sees writes: %s", yesno(r[0] == 'x'));
    char *area = mmap(0, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out("fixed address taken: %s", shmat(id, area, 0) == (void *)-1 ? errname(errno) : "attached");
    out("unaligned without SHM_RND: %s", shmat(id, area + 4096 + 5, 0) == (void *)-1 ? errname(errno) : "attached");
    char *rnd = shmat(id, area + 4096 + 5, SHM_RND | SHM_REMAP);
    out("SHM_RND|SHM_REMAP: %s", rnd == area + 4096 ? "rounded down" : rnd == (void *)-1 ? errname(errno) : "elsewhere");
    out("remapped page shows the segment: %s", yesno(rnd != (void *)-1 && rnd[0] == 'x'));
    out("SHM_REMAP without address: %s", shmat(id, 0, SHM_REMAP) == (void *)-1 ? errname(errno) : "attached");
    check("SHM_HUGETLB", shmget(IPC_PRIVATE, 4096, SHM_HUGETLB | 0600));
    out("bad id: %s", shmat(-1, 0, 0) == (void *)-1 ? errname(errno) : "attached");
    nattch("three attached");

    /* exec detaches. */
    pid = fork();
    if (pid == 0) {
        execl("/contracts/helpers/exit-with", "exit-with", "0", (char *)0);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    nattch("after a child's exec");

    check("SHM_LOCK", shmctl(id, SHM_LOCK, 0));
    nattch("locked");
    check("SHM_UNLOCK", shmctl(id, SHM_UNLOCK, 0));
    nattch("unlocked");
    shmctl(id, IPC_RMID, 0);
    nattch("removed with attachments");
    return 0;
}
