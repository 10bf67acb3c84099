/* Copy-on-write after fork: private memory (heap, globals, stack, private
 * mappings) is copied; writes on either side are invisible to the other. */
#include "common.h"
#include <sys/mman.h>

static int global = 1;

int main(void)
{
    int stack_var = 2;
    char *heap = malloc(100000);
    memset(heap, 'h', 100000);
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    m[0] = 'm';
    int pfd[2], back[2];
    pipe(pfd);
    pipe(back);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        read(pfd[0], &c, 1); /* parent has written */
        char r[5] = {(char)('0' + global), (char)('0' + stack_var), heap[50000], m[0], m[4096] ? 'x' : '0'};
        global = 10;
        stack_var = 20;
        heap[50000] = 'H';
        m[0] = 'M';
        write(back[1], r, 5);
        _exit(0);
    }
    global = 3;
    stack_var = 4;
    heap[50000] = 'p';
    m[0] = 'P';
    m[4096] = 'P';
    write(pfd[1], "g", 1);
    char r[5];
    read_full(back[0], r, 5);
    reap("child", pid);
    out("child saw pre-fork values: global=%c stack=%c heap=%c map=%c map2=%c", r[0], r[1], r[2], r[3], r[4]);
    out("parent keeps its own: global=%d stack=%d heap=%c map=%c", global, stack_var, heap[50000], m[0]);
    return 0;
}
