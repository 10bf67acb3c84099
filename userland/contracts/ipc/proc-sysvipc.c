/* The IPC files of procfs: the /proc/sys/kernel limits (their defaults,
 * root writing them, the limits then applying: msgmax to msgsnd, msgmni
 * and shmmni to new objects, sem's SEMOPM to semop), and
 * /proc/sysvipc/{msg,sem,shm} (header lines, one line per object with
 * its key, id, mode and counters in Linux's columns). */
#include "ipc.h"
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

static void show_file(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        out("%s: %s", path, errname(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *save, *line = strtok_r(buf, "\n", &save);
    while (line) {
        out("%s: [%s]", path, line);
        line = strtok_r(0, "\n", &save);
    }
}

static int put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

int main(void)
{
    const char *names[] = {"msgmax", "msgmnb", "msgmni", "sem", "shmall", "shmmax", "shmmni"};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/sys/kernel/%s", names[i]);
        show_file(path);
    }
    /* Lines of objects made here (the columns after ctime are sizes; the
     * times and pids vary, so the lines are cut before them). */
    int q = msgget(0x4b455611, IPC_CREAT | 0640);
    struct { long t; char x[8]; } m = {1, "abcde"};
    msgsnd(q, &m, 5, 0);
    int s = semget(0x4b455612, 3, IPC_CREAT | 0604);
    int h = shmget(0x4b455613, 5000, IPC_CREAT | 0660);
    char line[256];
    const char *files[] = {"/proc/sysvipc/msg", "/proc/sysvipc/sem", "/proc/sysvipc/shm"};
    int ids[] = {q, s, h};
    for (int f = 0; f < 3; f++) {
        char buf[8192];
        int fd = open(files[f], O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        if (n < 0) {
            out("%s: %s", files[f], errname(errno));
            continue;
        }
        buf[n] = 0;
        char *save, *l = strtok_r(buf, "\n", &save);
        out("%s header: [%s]", files[f], l ? l : "");
        int found = 0;
        for (l = strtok_r(0, "\n", &save); l; l = strtok_r(0, "\n", &save)) {
            int key, id;
            if (sscanf(l, "%d %d", &key, &id) == 2 && id == ids[f]) {
                found = 1;
                /* key and id replaced, the rest up to the pids kept. */
                char *rest = l;
                for (int col = 0; col < 2; col++) {
                    while (*rest == ' ') rest++;
                    while (*rest && *rest != ' ') rest++;
                }
                snprintf(line, sizeof line, "%s", rest);
                int keep = f == 0 ? 29 : f == 1 ? 41 : 28;
                if ((int)strlen(line) > keep)
                    line[keep] = 0;
                out("%s line: key ok %s [%s]", files[f], yesno(key == 0x4b455611 + f), line);
            }
        }
        out("%s has the object: %s", files[f], yesno(found));
    }
    msgctl(q, IPC_RMID, 0);
    semctl(s, 0, IPC_RMID);
    shmctl(h, IPC_RMID, 0);

    /* Root changes the limits; they apply. */
    check("msgmax 100", put("/proc/sys/kernel/msgmax", "100\n"));
    show_file("/proc/sys/kernel/msgmax");
    q = msgget(IPC_PRIVATE, 0600);
    char big[200] = {0};
    *(long *)big = 1;
    check("send 101 bytes", msgsnd(q, big, 101, IPC_NOWAIT));
    check("send 100 bytes", msgsnd(q, big, 100, IPC_NOWAIT));
    msgctl(q, IPC_RMID, 0);
    check("msgmax junk", put("/proc/sys/kernel/msgmax", "abc\n"));
    check("msgmni past IPCMNI", put("/proc/sys/kernel/msgmni", "32769\n"));
    check("msgmax back", put("/proc/sys/kernel/msgmax", "8192\n"));
    check("sem opm 2", put("/proc/sys/kernel/sem", "32000 1024000000 2 32000\n"));
    show_file("/proc/sys/kernel/sem");
    s = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf ops[3] = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
    check("semop of 3", semop(s, ops, 3));
    check("semop of 2", semop(s, ops, 2));
    semctl(s, 0, IPC_RMID);
    check("sem back", put("/proc/sys/kernel/sem", "32000\t1024000000\t500\t32000\n"));
    show_file("/proc/sys/kernel/sem");
    check("shmmax 4096", put("/proc/sys/kernel/shmmax", "4096"));
    check("shmget 4097", shmget(IPC_PRIVATE, 4097, 0600));
    h = shmget(IPC_PRIVATE, 4096, 0600);
    check("shmget 4096", h);
    shmctl(h, IPC_RMID, 0);
    check("shmmax back", put("/proc/sys/kernel/shmmax", "18446744073692774399"));
    show_file("/proc/sys/kernel/shmmax");
    return 0;
}
