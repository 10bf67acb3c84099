/* timer_create's checks in Linux's order and the ids it hands out (0, 1,
 * 2..., one taken by a create that fails after the clock check, never
 * reused); the argument errors of timer_settime/gettime/getoverrun/delete. */
#include "timers.h"
#include <sys/prctl.h>

int main(void)
{
    int id = -1;
    struct ksigevent ev = {0};
    ev.notify = SIGEV_SIGNAL;
    ev.signo = SIGUSR1;
    long r = tcreate(CLOCK_MONOTONIC, &ev, &id);
    out("first create: %ld, id %d", r, id);
    r = tcreate(CLOCK_MONOTONIC, NULL, &id);
    out("NULL sigevent: %ld, id %d", r, id);
    rcheck("clock 10 (SGI_CYCLE)", tcreate(10, &ev, &id));
    rcheck("clock 16", tcreate(16, &ev, &id));
    rcheck("clock -1", tcreate(-1, &ev, &id));
    rcheck("CLOCK_MONOTONIC_RAW", tcreate(CLOCK_MONOTONIC_RAW, &ev, &id));
    rcheck("CLOCK_REALTIME_COARSE", tcreate(CLOCK_REALTIME_COARSE, &ev, &id));
    rcheck("CLOCK_MONOTONIC_COARSE", tcreate(CLOCK_MONOTONIC_COARSE, &ev, &id));
    rcheck("fd clock id (low bits 3)", tcreate(CPUCLOCK(5, 3), &ev, &id));
    rcheck("bad sigevent pointer", tcreate(CLOCK_MONOTONIC, (void *)8, &id));
    struct ksigevent bad = ev;
    bad.notify = 3;
    rcheck("notify 3", tcreate(CLOCK_MONOTONIC, &bad, &id));
    bad.notify = SIGEV_SIGNAL;
    bad.signo = 0;
    rcheck("signo 0", tcreate(CLOCK_MONOTONIC, &bad, &id));
    bad.signo = 65;
    rcheck("signo 65", tcreate(CLOCK_MONOTONIC, &bad, &id));
    bad.notify = SIGEV_NONE;
    rcheck("SIGEV_NONE with signo 65", tcreate(CLOCK_MONOTONIC, &bad, &id));
    out("  id %d", id);
    bad = ev;
    bad.notify = SIGEV_THREAD_ID;
    bad.tid = getppid();
    rcheck("SIGEV_THREAD_ID of another process", tcreate(CLOCK_MONOTONIC, &bad, &id));
    bad.tid = 0x3fffffff;
    rcheck("SIGEV_THREAD_ID of no thread", tcreate(CLOCK_MONOTONIC, &bad, &id));
    bad.tid = gettid();
    rcheck("SIGEV_THREAD_ID of this thread", tcreate(CLOCK_MONOTONIC, &bad, &id));
    out("  id %d", id);
    rcheck("bad id pointer", tcreate(CLOCK_MONOTONIC, &ev, (int *)8));
    r = tcreate(CLOCK_REALTIME, &ev, &id);
    out("after the failures: %ld, id %d", r, id);
    rcheck("process clock of no process", tcreate(CPUCLOCK(0x3ffffff, 2), &ev, &id));
    rcheck("thread clock of another process", tcreate(CPUCLOCK(getppid(), 6), &ev, &id));
    rcheck("cpu clock kind 3", tcreate(CPUCLOCK(0, 7), &ev, &id));
    rcheck("process clock of pid 1", tcreate(CPUCLOCK(1, 2), &ev, &id));
    rcheck("process clock kind 0 (prof)", tcreate(CPUCLOCK(0, 0), &ev, &id));
    rcheck("process clock kind 1 (virt)", tcreate(CPUCLOCK(0, 1), &ev, &id));
    r = tcreate(CPUCLOCK(0, 2), &ev, &id);
    out("own process clock (pid 0): %ld, id %d", r, id);
    r = tcreate(CPUCLOCK(getpid(), 2), &ev, &id);
    out("own process clock (pid): %ld, id %d", r, id);
    r = tcreate(CPUCLOCK(gettid(), 6), &ev, &id);
    out("own thread clock: %ld, id %d", r, id);
    rcheck("CLOCK_TAI", tcreate(CLOCK_TAI, &ev, &id));
    rcheck("CLOCK_BOOTTIME", tcreate(CLOCK_BOOTTIME, &ev, &id));
    rcheck("CLOCK_PROCESS_CPUTIME_ID", tcreate(CLOCK_PROCESS_CPUTIME_ID, &ev, &id));
    rcheck("CLOCK_THREAD_CPUTIME_ID", tcreate(CLOCK_THREAD_CPUTIME_ID, &ev, &id));
    out("  id %d", id);

    struct kitimerspec its = {{0, 0}, {1, 0}}, cur;
    rcheck("settime NULL", rawsys(SYS_timer_settime, 0, 0, 0, 0, 0, 0));
    rcheck("settime bad pointer", rawsys(SYS_timer_settime, 0, 0, 8, 0, 0, 0));
    rcheck("settime unknown id", rawsys(SYS_timer_settime, 999, 0, (long)&its, 0, 0, 0));
    rcheck("settime negative id", rawsys(SYS_timer_settime, -1, 0, (long)&its, 0, 0, 0));
    its.value.tv_nsec = 1000000000;
    rcheck("settime nsec 1e9 (unknown id)", rawsys(SYS_timer_settime, 999, 0, (long)&its, 0, 0, 0));
    rcheck("settime nsec 1e9", rawsys(SYS_timer_settime, 0, 0, (long)&its, 0, 0, 0));
    its.value.tv_nsec = 0;
    its.interval.tv_sec = -1;
    rcheck("settime negative interval", rawsys(SYS_timer_settime, 0, 0, (long)&its, 0, 0, 0));
    its.interval.tv_sec = 0;
    rcheck("settime flags 0xfe", rawsys(SYS_timer_settime, 0, 0xfe, (long)&its, 0, 0, 0));
    rcheck("settime bad old pointer (timer still set)", rawsys(SYS_timer_settime, 0, 0, (long)&its, 8, 0, 0));
    rcheck("gettime", tget(0, &cur));
    out("  armed: %s", yesno(ts_ns(cur.value) > 0));
    rcheck("gettime bad pointer", rawsys(SYS_timer_gettime, 0, 8, 0, 0, 0, 0));
    rcheck("gettime unknown id", tget(999, &cur));
    rcheck("getoverrun", rawsys(SYS_timer_getoverrun, 0, 0, 0, 0, 0, 0));
    rcheck("getoverrun unknown id", rawsys(SYS_timer_getoverrun, 999, 0, 0, 0, 0, 0));
    rcheck("delete 0", rawsys(SYS_timer_delete, 0, 0, 0, 0, 0, 0));
    rcheck("delete 0 again", rawsys(SYS_timer_delete, 0, 0, 0, 0, 0, 0));
    rcheck("gettime deleted", tget(0, &cur));
    r = tcreate(CLOCK_MONOTONIC, &ev, &id);
    out("create after delete: %ld, id %d (ids are not reused)", r, id);

    /* The alarm clocks need CAP_WAKE_ALARM. */
    r = tcreate(CLOCK_REALTIME_ALARM, &ev, &id);
    out("CLOCK_REALTIME_ALARM as root: %s", r < 0 ? errname(-r) : "ok");
    r = tcreate(CLOCK_BOOTTIME_ALARM, &ev, &id);
    out("CLOCK_BOOTTIME_ALARM as root: %s", r < 0 ? errname(-r) : "ok");
    pid_t pid = fork();
    if (pid == 0) {
        if (setuid(65534) != 0)
            _exit(9);
        rcheck("CLOCK_REALTIME_ALARM as nobody", tcreate(CLOCK_REALTIME_ALARM, &ev, &id));
        rcheck("CLOCK_BOOTTIME_ALARM as nobody", tcreate(CLOCK_BOOTTIME_ALARM, &ev, &id));
        rcheck("CLOCK_REALTIME_ALARM bad clock check first", tcreate(CLOCK_REALTIME_ALARM, &ev, (int *)8));
        r = tcreate(CLOCK_MONOTONIC, &ev, &id);
        out("nobody's next id: %ld, id %d", r, id);
        _exit(0);
    }
    reap("nobody child", pid);
    return 0;
}
