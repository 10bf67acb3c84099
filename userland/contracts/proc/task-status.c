/* /proc/PID/task/TID/status and stat show the thread's own figures: its
 * id, state (asleep in a futex wait: S), signal mask, pending signals,
 * no_new_privs and seccomp filters (installed by that thread alone), not
 * the main thread's. */
#include "../common.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <stdint.h>
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1

struct insn { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct fprog { unsigned short len; struct insn *filter; };

static volatile int tid_of_worker, ready;
static int futex_word;

static void *worker(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    struct insn allow = { 0x06, 0, 0, 0x7fff0000u };  /* ret ALLOW */
    struct fprog prog = { 1, &allow };
    prctl(38, 1, 0, 0, 0);  /* PR_SET_NO_NEW_PRIVS */
    syscall(SYS_seccomp, 1, 0, &prog);
    syscall(SYS_seccomp, 1, 0, &prog);
    tid_of_worker = gettid();
    __atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&futex_word, __ATOMIC_SEQ_CST) == 0)
        syscall(SYS_futex, &futex_word, FUTEX_WAIT, 0, NULL, NULL, 0);
    return NULL;
}

/* The value of "key:" in a status file, or "" */
static const char *field(const char *text, const char *key)
{
    static char v[128];
    v[0] = 0;
    const char *p = text;
    size_t k = strlen(key);
    while (p && *p) {
        if (strncmp(p, key, k) == 0 && p[k] == ':') {
            p += k + 1;
            while (*p == '\t' || *p == ' ')
                p++;
            size_t n = strcspn(p, "\n");
            if (n >= sizeof v)
                n = sizeof v - 1;
            memcpy(v, p, n);
            v[n] = 0;
            return v;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return v;
}

static void slurp(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY);
    ssize_t r = fd >= 0 ? read_full(fd, buf, n - 1) : -1;
    buf[r > 0 ? r : 0] = 0;
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST))
        sched_yield();
    int tid = tid_of_worker;
    syscall(SYS_tgkill, getpid(), tid, SIGUSR1);  /* pending for it alone, blocked */
    char path[96], buf[8192], statbuf[1024];
    /* Wait until it sleeps in the futex wait. */
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    char state = '?';
    for (int i = 0; i < 20000; i++) {
        slurp(path, statbuf, sizeof statbuf);
        char *rp = strrchr(statbuf, ')');
        state = rp ? rp[2] : '?';
        if (state == 'S')
            break;
        sched_yield();
    }
    out("task stat state: %c", state);
    out("task stat id is tid: %s", yesno(atoi(statbuf) == tid));
    snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
    slurp(path, buf, sizeof buf);
    out("task State: %s", field(buf, "State"));
    out("task Pid is tid: %s", yesno(atoi(field(buf, "Pid")) == tid));
    out("task Tgid is pid: %s", yesno(atoi(field(buf, "Tgid")) == getpid()));
    out("task SigBlk: %s", field(buf, "SigBlk"));
    out("task SigPnd: %s", field(buf, "SigPnd"));
    out("task NoNewPrivs: %s", field(buf, "NoNewPrivs"));
    out("task Seccomp: %s", field(buf, "Seccomp"));
    out("task Seccomp_filters: %s", field(buf, "Seccomp_filters"));

    snprintf(path, sizeof path, "/proc/self/task/%d/status", getpid());
    slurp(path, buf, sizeof buf);
    out("main task State: %s", field(buf, "State"));
    out("main task SigBlk: %s", field(buf, "SigBlk"));
    out("main task SigPnd: %s", field(buf, "SigPnd"));
    out("main task Seccomp_filters: %s", field(buf, "Seccomp_filters"));
    slurp("/proc/self/status", buf, sizeof buf);
    out("process State: %s", field(buf, "State"));
    out("process SigBlk: %s", field(buf, "SigBlk"));
    out("process Seccomp_filters: %s", field(buf, "Seccomp_filters"));
    out("process Pid is pid: %s", yesno(atoi(field(buf, "Pid")) == getpid()));

    __atomic_store_n(&futex_word, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
    pthread_join(t, NULL);
    return 0;
}
