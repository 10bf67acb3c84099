/* Threads leaving while their process ends: in each round a child starts
 * threads that exit at once (exit(2)) while its main thread ends the
 * process (exit_group), so the process's page tables are freed while
 * another CPU may still be leaving a thread of it. Then memory is churned
 * so freed tables get reused. A kernel that frees a table some CPU still
 * has loaded crashes here at -smp 2. */
#include "common.h"
#include <pthread.h>
#include <sys/mman.h>

#define ROUNDS 150

static void *leave_now(void *arg)
{
    (void)arg;
    syscall(SYS_exit, 0);
    return NULL;
}

int main(void)
{
    int ok = 0;
    for (int round = 0; round < ROUNDS; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            pthread_t t;
            for (int i = 0; i < 3; i++)
                pthread_create(&t, NULL, leave_now, NULL);
            syscall(SYS_exit_group, 5);
        }
        /* Reuse freed frames: map, touch and unmap some pages. */
        char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (int i = 0; i < 16; i++)
            p[i * 4096] = (char)i;
        munmap(p, 16 * 4096);
        int st;
        if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 5)
            ok++;
    }
    out("rounds ended with status 5: %d of %d", ok, ROUNDS);
    return 0;
}
