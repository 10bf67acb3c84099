/* adjtimex/clock_adjtime: what an unsynchronized clock reports (TIME_ERROR,
 * STA_UNSYNC, the fixed fields), the checks of the modes (EINVAL, EPERM
 * without CAP_SYS_TIME, reading allowed to everyone), values set and read
 * back, ADJ_SETOFFSET stepping the wall clock and ADJ_FREQUENCY making it
 * run faster; clock_settime on CPU-time clocks. */
#include "common.h"
#include <sys/timex.h>

static long adj(struct timex *t) { return rawsys(SYS_adjtimex, (long)t, 0, 0, 0, 0, 0); }
static long cadj(long clock, struct timex *t) { return rawsys(SYS_clock_adjtime, clock, (long)t, 0, 0, 0, 0); }

static void report(const char *label, long r, struct timex *t)
{
    if (r < 0) {
        out("%s: %s", label, errname(-r));
        return;
    }
    out("%s: %ld offset %ld freq %ld esterror %ld status %#x constant %ld precision %ld tolerance %ld tick %ld tai %d",
        label, r, t->offset, t->freq, t->esterror, t->status, t->constant, t->precision, t->tolerance, t->tick, t->tai);
}

static long long tv_ns(struct timex *t) { return t->time.tv_sec * 1000000000LL + t->time.tv_usec * 1000LL; }

static void modes(const char *label, unsigned m)
{
    struct timex t = {0};
    t.modes = m;
    rcheck(label, adj(&t));
}

/* Reads the wall clock and the raw clock at (nearly) the same moment: the
 * raw clock on both sides of the wall clock's read, the tightest of a few
 * tries. Two plain reads in a row can be tens of ms apart when the host
 * deschedules the guest, far more than the 1 ms the test measures. */
static void clock_pair(long long *real, long long *raw)
{
    long long best = -1;
    for (int i = 0; i < 50; i++) {
        long long a = now_ns(CLOCK_MONOTONIC_RAW);
        long long r = now_ns(CLOCK_REALTIME);
        long long b = now_ns(CLOCK_MONOTONIC_RAW);
        if (best < 0 || b - a < best) {
            best = b - a;
            *real = r;
            *raw = a + (b - a) / 2;
        }
        if (best < 20000)
            break;
    }
}

int main(void)
{
    struct timex t = {0};
    long r = adj(&t);
    report("adjtimex read", r, &t);
    long long now = now_ns(CLOCK_REALTIME);
    out("  time is now: %s, maxerror <= 16 s: %s", yesno(llabs(tv_ns(&t) - now) < 1000000000LL), yesno(t.maxerror <= 16000000));
    memset(&t, 0, sizeof t);
    report("clock_adjtime(REALTIME) read", cadj(CLOCK_REALTIME, &t), &t);
    int clocks[] = {CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, CLOCK_TAI, 8, 10, 16, -6};
    for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "clock_adjtime(%d)", clocks[i]);
        memset(&t, 0, sizeof t);
        rcheck(label, cadj(clocks[i], &t) < 0 ? cadj(clocks[i], &t) : 0);
    }
    rcheck("adjtimex bad pointer", adj((void *)8));
    rcheck("clock_adjtime bad pointer", cadj(CLOCK_REALTIME, (void *)8));
    rcheck("clock_adjtime(10) bad pointer", cadj(10, (void *)8));

    modes("ADJ_ADJTIME alone (0x8000)", 0x8000);
    t = (struct timex){0};
    t.modes = ADJ_TICK;
    t.tick = 5000;
    rcheck("ADJ_TICK 5000", adj(&t));
    t.tick = 12000;
    rcheck("ADJ_TICK 12000", adj(&t));
    t = (struct timex){0};
    t.modes = ADJ_SETOFFSET;
    t.time.tv_usec = 1000000;
    rcheck("ADJ_SETOFFSET usec 1000000", adj(&t));
    t.time.tv_usec = -1;
    rcheck("ADJ_SETOFFSET usec -1", adj(&t));
    t.modes = ADJ_SETOFFSET | ADJ_NANO;
    t.time.tv_usec = 1000000000;
    rcheck("ADJ_SETOFFSET|ADJ_NANO nsec 1e9", adj(&t));
    t = (struct timex){0};
    t.modes = ADJ_FREQUENCY;
    t.freq = 0x7fffffffffffffffL;
    rcheck("ADJ_FREQUENCY LLONG_MAX", adj(&t));
    modes("unknown mode bit 0x0800", 0x0800);

    /* Values set and read back. */
    t = (struct timex){0};
    t.modes = ADJ_FREQUENCY;
    t.freq = 100 << 16;
    report("freq 100 ppm", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_FREQUENCY;
    t.freq = 1000 << 16;
    report("freq 1000 ppm (clamped)", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_FREQUENCY;
    t.freq = -(123 << 16) - 7;
    report("freq -123 ppm", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_TIMECONST;
    t.constant = 3;
    report("constant 3", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_TAI;
    t.constant = 37;
    report("tai 37", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_ESTERROR;
    t.esterror = 1234;
    report("esterror 1234", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_STATUS;
    t.status = STA_PLL | STA_PPSSIGNAL;
    report("status STA_PLL|STA_PPSSIGNAL (read-only bit ignored)", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_STATUS;
    t.status = STA_UNSYNC;
    report("status STA_UNSYNC (PLL off)", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_NANO;
    report("ADJ_NANO", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_MICRO | ADJ_TIMECONST | ADJ_TAI | ADJ_FREQUENCY | ADJ_ESTERROR;
    t.constant = 0;
    t.freq = 0;
    t.esterror = 16000000;
    report("back to defaults", adj(&t), &t);
    t = (struct timex){0};
    t.modes = ADJ_TIMECONST;
    t.constant = -2;
    report("constant -2 (+4 without STA_NANO)", adj(&t), &t);
    t.modes = ADJ_TIMECONST;
    t.constant = 2 - 4;
    adj(&t);

    /* ADJ_SETOFFSET steps the wall clock. */
    long long before = now_ns(CLOCK_REALTIME);
    t = (struct timex){0};
    t.modes = ADJ_SETOFFSET;
    t.time.tv_sec = 5;
    rcheck("ADJ_SETOFFSET +5 s", adj(&t));
    long long jump = now_ns(CLOCK_REALTIME) - before;
    out("  wall clock moved 5 s: %s", yesno(jump >= 4900000000LL && jump < 6000000000LL));
    t.time.tv_sec = -5;
    rcheck("ADJ_SETOFFSET -5 s", adj(&t));
    jump = now_ns(CLOCK_REALTIME) - before;
    out("  back: %s", yesno(jump >= -100000000LL && jump < 1000000000LL));

    /* ADJ_FREQUENCY: +500 ppm makes the wall clock gain 0.5 ms a second
     * over the raw clock. Up to three tries of 2 s (a busy host can
     * still spoil one); a kernel without the frequency adjustment misses
     * all three. */
    int gained_ok = 0;
    for (int attempt = 0; attempt < 3 && !gained_ok; attempt++) {
        t = (struct timex){0};
        t.modes = ADJ_FREQUENCY;
        t.freq = 500 << 16;
        adj(&t);
        long long r0, m0, r1, m1;
        clock_pair(&r0, &m0);
        msleep(2000);
        clock_pair(&r1, &m1);
        t.freq = 0;
        adj(&t);
        long long gained = (r1 - r0) - (m1 - m0), span = m1 - m0;
        long long expect = span / 2000;
        gained_ok = gained > expect * 7 / 10 && gained < expect * 13 / 10;
    }
    out("wall clock gained 500 ppm over the raw clock: %s", yesno(gained_ok));

    /* As nobody: reading is allowed, setting is not. */
    pid_t pid = fork();
    if (pid == 0) {
        setuid(65534);
        t = (struct timex){0};
        r = adj(&t);
        out("nobody: read: %ld", r);
        modes("nobody: ADJ_FREQUENCY", ADJ_FREQUENCY);
        modes("nobody: ADJ_STATUS", ADJ_STATUS);
        modes("nobody: ADJ_OFFSET_SINGLESHOT", 0x8001);
        modes("nobody: ADJ_OFFSET_SS_READ", 0xa001);
        modes("nobody: ADJ_ADJTIME alone", 0x8000);
        modes("nobody: ADJ_SETOFFSET", ADJ_SETOFFSET);
        modes("nobody: ADJ_TICK 5000 (EPERM first)", ADJ_TICK);
        modes("nobody: unknown bit 0x0800", 0x0800);
        struct timespec ts = {0, 0};
        check("nobody: clock_settime(PROCESS_CPUTIME_ID)", clock_settime(CLOCK_PROCESS_CPUTIME_ID, &ts));
        _exit(0);
    }
    reap("nobody", pid);

    struct timespec ts = {0, 0};
    check("clock_settime(PROCESS_CPUTIME_ID)", clock_settime(CLOCK_PROCESS_CPUTIME_ID, &ts));
    check("clock_settime(THREAD_CPUTIME_ID)", clock_settime(CLOCK_THREAD_CPUTIME_ID, &ts));
    rcheck("clock_settime(PROCESS_CPUTIME_ID, bad pointer)", rawsys(SYS_clock_settime, CLOCK_PROCESS_CPUTIME_ID, 8, 0, 0, 0, 0));
    rcheck("clock_settime(own process clock by id)", rawsys(SYS_clock_settime, (long)(int)((~(unsigned)getpid()) << 3 | 2), (long)&ts, 0, 0, 0, 0));
    rcheck("clock_settime(own process clock by id, bad pointer)", rawsys(SYS_clock_settime, (long)(int)((~(unsigned)getpid()) << 3 | 2), 8, 0, 0, 0, 0));
    rcheck("clock_settime(own thread clock by id)", rawsys(SYS_clock_settime, (long)(int)((~(unsigned)gettid()) << 3 | 6), (long)&ts, 0, 0, 0, 0));
    rcheck("clock_settime(cpu clock of no process)", rawsys(SYS_clock_settime, (long)(int)((~(unsigned)0x3ffffff) << 3 | 2), (long)&ts, 0, 0, 0, 0));
    check("clock_settime(MONOTONIC)", clock_settime(CLOCK_MONOTONIC, &ts));
    rcheck("clock_settime(MONOTONIC, bad pointer)", rawsys(SYS_clock_settime, CLOCK_MONOTONIC, 8, 0, 0, 0, 0));
    check("clock_settime(BOOTTIME)", clock_settime(CLOCK_BOOTTIME, &ts));
    check("clock_settime(TAI)", clock_settime(CLOCK_TAI, &ts));
    return 0;
}
