/* kfuzz's structured surfaces (docs/fuzzing.md, "Surfaces"): included by
 * kfuzz.c, whose generators, pool and ring these use.
 *
 * A random call rarely gets deep into a subsystem that wants well-formed
 * input (a netlink message, a BPF program, a partition table, a cgroup
 * file's syntax, a stopped tracee). So a share of each batch's steps is a
 * "surface action" instead: a short sequence of calls built to be nearly
 * right and then bent (a wrong length, a random field, a bad pointer):
 *
 *   netlink   NETLINK_ROUTE and NETLINK_KOBJECT_UEVENT sockets, random
 *             messages with attribute chains, dumps, recv with odd sizes
 *   cgroup    cgroup v2 under /sys/fs/cgroup/kf: mkdir/rmdir, random
 *             strings written to its files, a child moved in, frozen,
 *             killed with cgroup.kill
 *   seccomp   a random but mostly valid classic BPF filter installed in a
 *             forked child, which then makes random calls under it
 *   block     a random MBR or GPT (with extended partitions, overlaps,
 *             loops) written to /dev/vda, BLKRRPART, BLK* ioctls and I/O
 *             on the disk and its partitions
 *   ext4      file operations on the ext4 scratch disk mounted at
 *             /mnt/ext4 (sparse writes, truncate, fallocate, rename,
 *             links, xattrs, fsync, directories)
 *   ptrace    a forked child traced with random requests: peeks and pokes
 *             (FOLL_FORCE on read-only pages), register sets, debug
 *             registers watching the buffers the child's own system calls
 *             read and write, single steps, signals
 *   procsys   random walks of /proc and /sys reading files with odd sizes
 *             and offsets, writing random strings (a short list of files
 *             that would end or blind the run is left out)
 *
 * Every value comes from the batch's random stream, so a batch replays the
 * same actions; each call is recorded in the batch's ring (and printed in
 * verbose mode) as the random calls are.
 */

/* Linux's ABI values (this program uses no kernel headers). */
#define NL_ROUTE 0
#define NL_KOBJECT_UEVENT 15
#define NLM_F_REQUEST 0x1
#define NLM_F_ACK 0x4
#define NLM_F_DUMP 0x300
#define NLM_F_CREATE 0x400
#define NLM_F_EXCL 0x200
#define NLM_F_REPLACE 0x100
#define SOL_NETLINK_ 270

#define BPF_LD_ 0x00
#define BPF_LDX_ 0x01
#define BPF_ST_ 0x02
#define BPF_STX_ 0x03
#define BPF_ALU_ 0x04
#define BPF_JMP_ 0x05
#define BPF_RET_ 0x06
#define BPF_MISC_ 0x07
#define BPF_W_ 0x00
#define BPF_H_ 0x08
#define BPF_B_ 0x10
#define BPF_IMM_ 0x00
#define BPF_ABS_ 0x20
#define BPF_IND_ 0x40
#define BPF_MEM_ 0x60
#define BPF_LEN_ 0x80
#define BPF_K_ 0x00
#define BPF_X_ 0x08
#define SECCOMP_RET_KILL_PROCESS_ 0x80000000U
#define SECCOMP_RET_KILL_THREAD_ 0x00000000U
#define SECCOMP_RET_TRAP_ 0x00030000U
#define SECCOMP_RET_ERRNO_ 0x00050000U
#define SECCOMP_RET_USER_NOTIF_ 0x7fc00000U
#define SECCOMP_RET_TRACE_ 0x7ff00000U
#define SECCOMP_RET_LOG_ 0x7ffc0000U
#define SECCOMP_RET_ALLOW_ 0x7fff0000U

#define BLKROSET_ 0x125d
#define BLKROGET_ 0x125e
#define BLKRRPART_ 0x125f
#define BLKGETSIZE_ 0x1260
#define BLKFLSBUF_ 0x1261
#define BLKRASET_ 0x1262
#define BLKRAGET_ 0x1263
#define BLKSSZGET_ 0x1268
#define BLKBSZGET_ 0x80081270
#define BLKBSZSET_ 0x40081271
#define BLKGETSIZE64_ 0x80081272
#define BLKDISCARD_ 0x1277
#define BLKIOMIN_ 0x1278
#define BLKIOOPT_ 0x1279
#define BLKALIGNOFF_ 0x127a
#define BLKPBSZGET_ 0x127b
#define BLKDISCARDZEROES_ 0x127c
#define BLKSECDISCARD_ 0x127d
#define BLKZEROOUT_ 0x127f
#define BLKSECTGET_ 0x1267
#define BLKGETDISKSEQ_ 0x80081280

#define DISK_SECTORS (16 * 1024 * 1024 / 512) /* the fuzz image's /dev/vda */

static uint64_t surf_idx;     /* the step's call index, for the ring */

/* One system call of a surface action: recorded in the ring, printed when
   verbose, made with syscall(2). */
static long sc(long nr, unsigned long a, unsigned long b, unsigned long c, unsigned long d,
               unsigned long e, unsigned long f)
{
    struct callrec *r = NULL;
    if (!is_copy && my_slot) {
        r = &my_slot->ring[my_slot->head % RING];
        r->idx = surf_idx;
        r->nr = nr;
        r->a[0] = a; r->a[1] = b; r->a[2] = c; r->a[3] = d; r->a[4] = e; r->a[5] = f;
        r->done = 0;
        my_slot->head++;
    }
    if (opt_verbose) {
        struct call cl = {nr, {a, b, c, d, e, f}};
        char line[400];
        fmt_call(line, sizeof line, surf_idx, &cl);
        say("%s [surface]", line);
    }
    long ret = syscall(nr, a, b, c, d, e, f);
    if (ret < 0)
        ret = -errno;
    if (r) {
        r->ret = ret;
        r->done = 1;
        my_slot->calls++;
    } else if (is_copy) {
        __atomic_fetch_add(&shm->extra_calls, 1, __ATOMIC_RELAXED);
    }
    if (opt_verbose)
        say("kfuzz:   -> %ld", ret);
    return ret;
}
#define SC0(n) sc(n, 0, 0, 0, 0, 0, 0)
#define SC1(n, a) sc(n, (unsigned long)(a), 0, 0, 0, 0, 0)
#define SC2(n, a, b) sc(n, (unsigned long)(a), (unsigned long)(b), 0, 0, 0, 0)
#define SC3(n, a, b, c) sc(n, (unsigned long)(a), (unsigned long)(b), (unsigned long)(c), 0, 0, 0)
#define SC4(n, a, b, c, d) \
    sc(n, (unsigned long)(a), (unsigned long)(b), (unsigned long)(c), (unsigned long)(d), 0, 0)
#define SC5(n, a, b, c, d, e) \
    sc(n, (unsigned long)(a), (unsigned long)(b), (unsigned long)(c), (unsigned long)(d), \
       (unsigned long)(e), 0)
#define SC6(n, a, b, c, d, e, f) \
    sc(n, (unsigned long)(a), (unsigned long)(b), (unsigned long)(c), (unsigned long)(d), \
       (unsigned long)(e), (unsigned long)(f))

static long sopen(const char *path, long flags, long mode)
{
    return SC4(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void sclose(long fd)
{
    if (fd >= 0)
        SC1(SYS_close, fd);
}

/* A string a file might be written with: numbers, keywords, lists, junk. */
static const char *gen_value(char *out, size_t n)
{
    static const char *const words[] = {
        "max", "0", "1", "-1", "2", "+memory", "-memory", "+pids", "-pids", "+cpu", "+io",
        "+cpuset", "+memory +pids", "+bogus", "threaded", "domain", "domain threaded",
        "100000 1000", "max 100000", "1000 0", "18446744073709551615", "9223372036854775807",
        "-9223372036854775808", "4294967296", "1M", "1G", "64k", "0-1", "0,1", "1-0", "",
        "\n", " ", "1 2 3", "default", "none", "8:0 rbps=1", "253:0 wbps=max", "nice",
        "on", "off", "Y", "N", "0x10", "010", "1e9", "99999999999999999999999",
    };
    switch (below(8)) {
    case 0: snprintf(out, n, "%llu", (unsigned long long)below(1 << 20)); break;
    case 1: snprintf(out, n, "%lld", (long long)(int64_t)interesting[below(NINTERESTING)]); break;
    case 2: snprintf(out, n, "%d", is_copy ? my_pid : (int)getpid()); break;
    case 3: {
        size_t len = below(n - 1);
        for (size_t i = 0; i < len; i++)
            out[i] = (char)(chance(80) ? 32 + below(95) : rnd());
        out[len] = 0;
        break;
    }
    default: snprintf(out, n, "%s%s", words[below(sizeof words / sizeof words[0])],
                      chance(30) ? "\n" : ""); break;
    }
    return out;
}

/* Wait up to ms for child pid; then SIGKILL it and reap it. */
static void reap_child(int pid, int ms)
{
    long long until = now_ms() + ms;
    int st;
    for (;;) {
        int r = waitpid(pid, &st, WNOHANG | __WALL);
        if (r == pid || (r < 0 && errno == ECHILD))
            return;
        if (now_ms() > until)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    /* A killed child goes at once; the parent's watchdog reports it if not. */
    until = now_ms() + 2000;
    while (now_ms() < until) {
        int r = waitpid(pid, &st, WNOHANG | __WALL);
        if (r == pid || (r < 0 && errno == ECHILD))
            return;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* A child that sleeps in short naps until killed (a target to move, freeze,
   trace). It makes calls that read and write a buffer, so watchpoints set
   on that buffer fire inside the kernel's user copies. */
static int spawn_sleeper(void)
{
    int pid = fork();
    if (pid != 0)
        return pid;
    is_copy = 1;
    my_pid = getpid();
    int z = open("/dev/zero", O_RDONLY);
    int nul = open("/dev/null", O_WRONLY);
    for (int i = 0; i < 2000; i++) {
        read(z, buf, 64);
        write(nul, buf + 8, 64);
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        getpid();
    }
    syscall(SYS_exit_group, 0);
    return 0;
}

/* ---- netlink ---------------------------------------------------------- */

static void surf_netlink(void)
{
    int family = chance(60) ? NL_ROUTE : (chance(80) ? NL_KOBJECT_UEVENT : (int)below(32));
    int type = chance(70) ? SOCK_RAW : (chance(70) ? SOCK_DGRAM : (int)below(8));
    long fd = SC3(SYS_socket, AF_NETLINK, type | (chance(70) ? SOCK_NONBLOCK : 0), family);
    if (fd < 0)
        return;
    if (chance(60)) {
        struct { uint16_t family, pad; uint32_t pid, groups; } *sa = arena_alloc(16);
        sa->family = AF_NETLINK;
        sa->pad = 0;
        sa->pid = chance(70) ? 0 : (uint32_t)rnd();
        sa->groups = chance(50) ? (uint32_t)rnd() : 1u << below(32);
        SC3(SYS_bind, fd, sa, chance(90) ? 12 : gen_len());
    }
    for (int i = below(3); i > 0; i--) {
        int opt = 1 + below(12); /* ADD_MEMBERSHIP, DROP, PKTINFO, ... EXT_ACK, GET_STRICT_CHK */
        int *v = arena_alloc(8);
        v[0] = chance(50) ? (int)below(64) : (int)rnd();
        SC5(SYS_setsockopt, fd, chance(90) ? SOL_NETLINK_ : below(300), opt,
            chance(90) ? (uint64_t)v : gen_ptr(), chance(90) ? 4 : gen_len());
    }
    for (int m = 1 + below(3); m > 0; m--) {
        size_t cap = 1024;
        unsigned char *msg = arena_alloc(cap);
        /* nlmsghdr: len, type, flags, seq, pid; then a family header and
           an attribute chain. */
        size_t body = 16 + below(32);
        uint16_t mtype;
        static const uint16_t types[] = {16, 17, 18, 19, 20, 21, 22, 24, 25, 26, 28, 29, 30,
                                         32, 33, 34, 36, 37, 38, 40, 41, 42, 44, 45, 46,
                                         88, 90, 92, 1, 2, 3, 4};
        mtype = chance(85) ? types[below(sizeof types / sizeof types[0])] : (uint16_t)rnd();
        uint16_t flags = NLM_F_REQUEST;
        if (chance(50)) flags |= NLM_F_DUMP;
        if (chance(40)) flags |= NLM_F_ACK;
        if (chance(30)) flags |= NLM_F_CREATE | (chance(50) ? NLM_F_EXCL : NLM_F_REPLACE);
        if (chance(10)) flags = (uint16_t)rnd();
        for (size_t i = 16; i < 16 + body; i++)
            msg[i] = chance(70) ? 0 : (unsigned char)rnd();
        msg[16] = chance(50) ? AF_INET : (chance(50) ? AF_UNSPEC : (unsigned char)rnd());
        if (chance(60))
            ((uint32_t *)msg)[5] = (uint32_t)below(4); /* an ifindex-ish field */
        size_t off = 16 + ((body + 3) & ~3UL);
        for (int a = below(6); a > 0 && off + 4 < cap - 64; a--) {
            uint16_t alen = chance(80) ? (uint16_t)(4 + below(24)) : (uint16_t)rnd();
            uint16_t atype = chance(80) ? (uint16_t)below(40) : (uint16_t)rnd();
            if (chance(10)) atype |= 0x8000; /* NLA_F_NESTED */
            memcpy(msg + off, &alen, 2);
            memcpy(msg + off + 2, &atype, 2);
            size_t pay = alen > 4 ? alen - 4 : 0;
            if (pay > 40) pay = 40;
            for (size_t k = 0; k < pay; k++)
                msg[off + 4 + k] = chance(50) ? (unsigned char)below(4) : (unsigned char)rnd();
            if (chance(20) && pay >= 4) {
                const char *n = chance(50) ? "lo" : "eth0";
                memcpy(msg + off + 4, n, strlen(n) + 1);
            }
            off += (4 + pay + 3) & ~3UL;
        }
        uint32_t len = (uint32_t)off;
        if (chance(15)) len = (uint32_t)below(cap);
        if (chance(5)) len = (uint32_t)rnd();
        uint32_t seq = (uint32_t)rnd(), pid = chance(80) ? 0 : (uint32_t)rnd();
        memcpy(msg, &len, 4);
        memcpy(msg + 4, &mtype, 2);
        memcpy(msg + 6, &flags, 2);
        memcpy(msg + 8, &seq, 4);
        memcpy(msg + 12, &pid, 4);
        size_t slen = chance(85) ? off : (chance(50) ? below(cap) : gen_len());
        if (chance(50)) {
            SC6(SYS_sendto, fd, msg, slen, chance(80) ? MSG_DONTWAIT : gen_flags(), 0, 0);
        } else {
            struct iovec *iov = arena_alloc(2 * sizeof *iov);
            size_t cut = below(off + 1);
            iov[0].iov_base = msg;
            iov[0].iov_len = cut;
            iov[1].iov_base = msg + cut;
            iov[1].iov_len = slen > cut ? slen - cut : 0;
            struct msghdr *mh = arena_alloc(sizeof *mh);
            memset(mh, 0, sizeof *mh);
            mh->msg_iov = iov;
            mh->msg_iovlen = 2;
            SC3(SYS_sendmsg, fd, mh, MSG_DONTWAIT);
        }
        for (int r = below(4); r > 0; r--) {
            static const int sizes[] = {0, 1, 15, 16, 17, 64, 100, 4096, 32768};
            size_t n = sizes[below(9)];
            int fl = MSG_DONTWAIT | (chance(30) ? MSG_PEEK : 0) | (chance(30) ? MSG_TRUNC : 0);
            SC6(SYS_recvfrom, fd, chance(90) ? (uint64_t)buf : gen_ptr(), n, fl, 0, 0);
        }
    }
    if (chance(30)) {
        uint32_t *l = arena_alloc(8);
        *l = 12;
        SC3(SYS_getsockname, fd, arena_alloc(16), l);
    }
    if (chance(40))
        pool_add(fd);
    else
        sclose(fd);
}

/* ---- cgroup v2 -------------------------------------------------------- */

static char cg_base[64];  /* /sys/fs/cgroup/kf/b<N> */

static void cg_dir(char *out, size_t n)
{
    /* The batch's cgroup or one of its children (depth up to 3). */
    int depth = below(4);
    size_t off = snprintf(out, n, "%s", cg_base);
    for (int i = 0; i < depth && off < n - 8; i++)
        off += snprintf(out + off, n - off, "/c%d", (int)below(3));
}

static void surf_cgroup(void)
{
    static const char *const files[] = {
        "cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "cgroup.freeze",
        "cgroup.kill", "cgroup.max.depth", "cgroup.max.descendants", "cgroup.type",
        "cgroup.events", "cgroup.stat", "cgroup.controllers", "memory.max", "memory.high",
        "memory.low", "memory.min", "memory.swap.max", "memory.oom.group", "memory.current",
        "memory.stat", "memory.events", "memory.peak", "pids.max", "pids.current", "pids.events",
        "cpu.max", "cpu.weight", "cpu.weight.nice", "cpu.stat", "io.max", "io.stat",
        "cpuset.cpus", "cpuset.mems", "cpuset.cpus.effective", "cgroup.pressure", "bogus",
    };
    char dir[160], path[200], val[256];
    cg_dir(dir, sizeof dir);
    switch (below(8)) {
    case 0: /* make the directories down to it */
    {
        char p[160];
        size_t n = strlen(cg_base);
        for (size_t i = n; ; i++) {
            if (dir[i] == '/' || dir[i] == 0) {
                memcpy(p, dir, i);
                p[i] = 0;
                SC3(SYS_mkdirat, AT_FDCWD, p, 0755);
            }
            if (!dir[i])
                break;
        }
        break;
    }
    case 1:
        SC3(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
        break;
    case 2: case 3: { /* write a value to a file */
        snprintf(path, sizeof path, "%s/%s", dir, files[below(sizeof files / sizeof files[0])]);
        long fd = sopen(path, O_WRONLY | (chance(20) ? O_TRUNC : 0), 0);
        if (fd < 0)
            break;
        gen_value(val, sizeof val);
        /* cgroup.procs and friends: only our own pids (not the fuzzer's). */
        if (strstr(path, "procs") || strstr(path, "threads"))
            snprintf(val, sizeof val, "%d", chance(70) ? (int)getpid() : (int)below(2) - 1);
        size_t len = strlen(val);
        if (chance(10)) len = gen_len();
        SC3(SYS_write, fd, val, len);
        if (chance(30))
            SC3(SYS_write, fd, "max\n", 4);
        sclose(fd);
        break;
    }
    case 4: { /* read files */
        snprintf(path, sizeof path, "%s/%s", dir, files[below(sizeof files / sizeof files[0])]);
        long fd = sopen(path, O_RDONLY, 0);
        if (fd < 0)
            break;
        for (int i = 1 + below(3); i > 0; i--) {
            if (chance(30))
                SC3(SYS_lseek, fd, below(64), SEEK_SET);
            SC3(SYS_read, fd, buf, chance(80) ? below(4096) : gen_len());
        }
        if (chance(30)) {
            struct pollfd *p = arena_alloc(sizeof *p);
            p->fd = fd;
            p->events = POLLPRI | POLLIN;
            SC3(SYS_poll, p, 1, 0);
        }
        if (chance(40))
            pool_add(fd);
        else
            sclose(fd);
        break;
    }
    case 5: case 6: { /* a child moved in, frozen, thawed, killed by the cgroup */
        int pid = spawn_sleeper();
        if (pid < 0)
            break;
        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        long fd = sopen(path, O_WRONLY, 0);
        if (fd >= 0) {
            snprintf(val, sizeof val, "%d", pid);
            SC3(SYS_write, fd, val, strlen(val));
            sclose(fd);
        }
        static const char *const ctl[] = {"cgroup.freeze", "cgroup.kill", "pids.max",
                                          "memory.max", "cgroup.freeze"};
        for (int i = 1 + below(4); i > 0; i--) {
            snprintf(path, sizeof path, "%s/%s", dir, ctl[below(5)]);
            fd = sopen(path, O_WRONLY, 0);
            if (fd < 0)
                continue;
            const char *v = chance(50) ? "1" : (chance(50) ? "0" : gen_value(val, sizeof val));
            SC3(SYS_write, fd, v, strlen(v));
            sclose(fd);
            if (chance(50))
                SC2(SYS_kill, pid, chance(50) ? SIGSTOP : SIGCONT);
        }
        if (chance(50)) {
            /* Kill it while it may be frozen: it must go. */
            SC2(SYS_kill, pid, SIGKILL);
        }
        reap_child(pid, 100);
        if (chance(50))
            SC3(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
        break;
    }
    default: { /* clone3 into a cgroup by its fd */
        long dfd = sopen(dir, O_RDONLY | O_DIRECTORY, 0);
        if (dfd < 0)
            break;
        int keep = chance(40);
        int pid = spawn_sleeper();
        if (pid > 0) {
            snprintf(path, sizeof path, "cgroup.procs");
            long fd = SC4(SYS_openat, dfd, path, O_WRONLY, 0);
            if (fd >= 0) {
                snprintf(val, sizeof val, "%d", pid);
                SC3(SYS_write, fd, val, strlen(val));
                sclose(fd);
            }
            reap_child(pid, below(20));
        }
        if (keep)
            pool_add(dfd);
        else
            sclose(dfd);
        break;
    }
    }
}

/* ---- seccomp ---------------------------------------------------------- */

struct sock_filter_ { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct sock_fprog_ { uint16_t len; struct sock_filter_ *filter; };

static uint32_t gen_seccomp_ret(void)
{
    static const uint32_t acts[] = {SECCOMP_RET_ALLOW_, SECCOMP_RET_ALLOW_, SECCOMP_RET_ALLOW_,
                                    SECCOMP_RET_ERRNO_, SECCOMP_RET_TRAP_, SECCOMP_RET_LOG_,
                                    SECCOMP_RET_TRACE_, SECCOMP_RET_KILL_THREAD_,
                                    SECCOMP_RET_KILL_PROCESS_, SECCOMP_RET_USER_NOTIF_};
    uint32_t a = chance(95) ? acts[below(10)] : (uint32_t)rnd();
    return a | (chance(70) ? (uint32_t)below(4096) : (uint32_t)(rnd() & 0xffff));
}

static int gen_bpf(struct sock_filter_ *f, int max)
{
    int n = 1 + below(max - 1);
    for (int i = 0; i < n - 1; i++) {
        int left = n - 1 - i - 1; /* instructions after this one, before the last */
        struct sock_filter_ *p = &f[i];
        p->jt = p->jf = 0;
        p->k = 0;
        switch (below(10)) {
        case 0: case 1: case 2: /* A = seccomp_data word: nr, arch, ip, args */
            p->code = BPF_LD_ | BPF_W_ | BPF_ABS_;
            p->k = chance(90) ? 4 * below(16) : (uint32_t)below(128);
            break;
        case 3: case 4: case 5: { /* a conditional jump inside the program */
            static const uint16_t ops[] = {0x10, 0x20, 0x30, 0x40}; /* JEQ JGT JGE JSET */
            p->code = BPF_JMP_ | ops[below(4)] | (chance(20) ? BPF_X_ : BPF_K_);
            p->k = chance(50) ? (uint32_t)below(480) : (uint32_t)rnd();
            p->jt = left > 0 ? below(left + 1) : 0;
            p->jf = left > 0 ? below(left + 1) : 0;
            if (chance(3)) p->jt = (uint8_t)rnd();
            break;
        }
        case 6: { /* ALU */
            static const uint16_t ops[] = {0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70,
                                           0x80, 0x90, 0xa0};
            p->code = BPF_ALU_ | ops[below(11)] | (chance(20) ? BPF_X_ : BPF_K_);
            p->k = chance(80) ? (uint32_t)below(64) : (uint32_t)rnd();
            break;
        }
        case 7: /* scratch memory */
            p->code = chance(50) ? (BPF_ST_) : (chance(50) ? BPF_LD_ | BPF_MEM_ : BPF_LDX_ | BPF_MEM_);
            if (chance(30)) p->code = BPF_STX_;
            p->k = chance(95) ? below(16) : (uint32_t)rnd();
            break;
        case 8: /* misc, length, immediates */
            switch (below(5)) {
            case 0: p->code = BPF_MISC_ | 0x00; break;                    /* TAX */
            case 1: p->code = BPF_MISC_ | 0x80; break;                    /* TXA */
            case 2: p->code = BPF_LD_ | BPF_W_ | BPF_LEN_; break;
            case 3: p->code = BPF_LDX_ | BPF_W_ | BPF_LEN_; break;
            default: p->code = BPF_LD_ | BPF_IMM_; p->k = (uint32_t)rnd(); break;
            }
            break;
        default: /* anything, or an early return */
            if (chance(50)) {
                p->code = BPF_RET_ | BPF_K_;
                p->k = gen_seccomp_ret();
            } else {
                p->code = (uint16_t)rnd();
                p->jt = (uint8_t)rnd();
                p->jf = (uint8_t)rnd();
                p->k = (uint32_t)rnd();
            }
            break;
        }
    }
    f[n - 1].code = chance(95) ? BPF_RET_ | BPF_K_ : (chance(50) ? BPF_RET_ | 0x10 : (uint16_t)rnd());
    f[n - 1].jt = f[n - 1].jf = 0;
    f[n - 1].k = gen_seccomp_ret();
    return n;
}

static void surf_seccomp(void)
{
    int pid = fork();
    if (pid < 0 || pid > 0) {
        if (pid > 0)
            reap_child(pid, 150);
        return;
    }
    is_copy = 1;
    my_pid = getpid();
    rng = mix64(rng ^ 0x5ecc0b9ULL);
    /* Most installs need no_new_privs (or CAP_SYS_ADMIN). */
    if (chance(85))
        SC5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    for (int f = 1 + below(3); f > 0; f--) {
        struct sock_filter_ *prog = (struct sock_filter_ *)(buf + BUF_SIZE - 64 * 8 - 64);
        int n = gen_bpf(prog, 64);
        struct sock_fprog_ *fp = arena_alloc(sizeof *fp);
        fp->len = chance(95) ? n : (uint16_t)rnd();
        fp->filter = chance(95) ? prog : (struct sock_filter_ *)gen_ptr();
        if (chance(70)) {
            /* TSYNC 1, LOG 2, SPEC_ALLOW 4, NEW_LISTENER 8, TSYNC_ESRCH 16 */
            unsigned long flags = chance(60) ? 0 : (chance(80) ? below(32) : gen_flags());
            SC3(SYS_seccomp, chance(95) ? 1 : below(5), flags, fp);
        } else {
            SC5(SYS_prctl, PR_SET_SECCOMP, chance(90) ? 2 : below(4), fp, 0, 0);
        }
    }
    if (chance(20)) {
        uint32_t *act = arena_alloc(4);
        *act = gen_seccomp_ret() & 0xffff0000U;
        SC3(SYS_seccomp, 2 /* GET_ACTION_AVAIL */, 0, act);
    }
    /* Calls under the filter: some fixed, then random ones. */
    SC0(SYS_getpid);
    SC3(SYS_read, 0, buf, 1);
    SC2(SYS_kill, my_pid, 0);
    for (int i = 0; i < 30; i++) {
        struct call c;
        arena_used = 0;
        draw(&c);
        c.a[0] = c.nr == SYS_kill ? (unsigned long)my_pid : c.a[0];
        long ret = raw6(c.nr, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5], shares_vm(&c));
        (void)ret;
        __atomic_fetch_add(&shm->extra_calls, 1, __ATOMIC_RELAXED);
    }
    syscall(SYS_exit_group, 0);
}

/* ---- block devices ---------------------------------------------------- */

static uint32_t crc32_le(const unsigned char *p, size_t n)
{
    uint32_t c = ~0U;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320U & -(c & 1));
    }
    return ~c;
}

static uint32_t gen_lba(void)
{
    switch (below(6)) {
    case 0: return 0;
    case 1: return 1 + below(64);
    case 2: return below(DISK_SECTORS);
    case 3: return DISK_SECTORS - below(8);
    case 4: return (uint32_t)rnd();
    default: return 2048 * below(DISK_SECTORS / 2048);
    }
}

static void put_mbr_entry(unsigned char *e, int type)
{
    e[0] = chance(80) ? 0 : (chance(50) ? 0x80 : (unsigned char)rnd());
    e[4] = (unsigned char)type;
    uint32_t start = gen_lba(), size = chance(60) ? below(DISK_SECTORS / 4) + 1 : gen_lba();
    memcpy(e + 8, &start, 4);
    memcpy(e + 12, &size, 4);
}

/* A partition table: MBR (with extended partitions, whose chain may loop or
   leave the disk) or a GPT behind a protective MBR, in a 64 KiB image of
   the start of the disk. */
static size_t gen_table(unsigned char *img, size_t cap)
{
    memset(img, 0, cap);
    static const unsigned char types[] = {0x83, 0x83, 0x05, 0x0f, 0x85, 0x82, 0x07, 0xee, 0x00, 0xa5};
    if (chance(60)) {
        for (int i = 0; i < 4; i++)
            if (chance(70))
                put_mbr_entry(img + 446 + 16 * i, chance(90) ? types[below(10)] : (int)rnd());
        img[510] = 0x55;
        img[511] = chance(95) ? 0xaa : (unsigned char)rnd();
        /* EBRs inside the first 64 KiB, linked by their second entry. */
        for (int k = below(6); k > 0; k--) {
            uint32_t at = 1 + below(cap / 512 - 1);
            unsigned char *ebr = img + 512 * at;
            put_mbr_entry(ebr + 446, chance(80) ? 0x83 : (int)rnd());
            put_mbr_entry(ebr + 462, 0x05);
            uint32_t next = chance(60) ? below(cap / 512) : gen_lba(); /* maybe itself */
            memcpy(ebr + 462 + 8, &next, 4);
            ebr[510] = 0x55;
            ebr[511] = 0xaa;
            if (chance(50)) { /* the first extended entry points at it */
                uint32_t s = at;
                img[446 + 4] = 0x05;
                memcpy(img + 446 + 8, &s, 4);
            }
        }
        return cap;
    }
    /* GPT: protective MBR, header at LBA 1, entries at LBA 2. */
    img[446 + 4] = 0xee;
    uint32_t one = 1, all = DISK_SECTORS - 1;
    memcpy(img + 446 + 8, &one, 4);
    memcpy(img + 446 + 12, &all, 4);
    img[510] = 0x55;
    img[511] = 0xaa;
    unsigned char *h = img + 512;
    unsigned char *ents = img + 1024;
    uint32_t nents = chance(80) ? 128 : (chance(50) ? below(200) : (uint32_t)rnd());
    uint32_t esz = chance(90) ? 128 : (chance(50) ? 64 * below(5) : (uint32_t)rnd());
    size_t ebytes = 0;
    if (esz >= 56 && esz <= 512 && nents <= 256)
        ebytes = (size_t)nents * esz;
    if (ebytes > cap - 1024)
        ebytes = cap - 1024;
    for (uint32_t i = 0; esz >= 56 && i < 8 && (size_t)(i + 1) * esz <= ebytes; i++) {
        unsigned char *e = ents + (size_t)i * esz;
        if (!chance(60))
            continue;
        for (int k = 0; k < 16; k++)
            e[k] = (unsigned char)(chance(90) ? 0x11 * (k + 1) : rnd()); /* type guid */
        for (int k = 16; k < 32; k++)
            e[k] = (unsigned char)rnd();
        uint64_t first = chance(70) ? 34 + below(DISK_SECTORS) : rnd();
        uint64_t last = chance(70) ? first + below(DISK_SECTORS / 2) : rnd();
        memcpy(e + 32, &first, 8);
        memcpy(e + 40, &last, 8);
        for (int k = 56; k < 56 + 20 && k < (int)esz; k += 2)
            e[k] = chance(80) ? 'p' : (unsigned char)rnd();
    }
    memcpy(h, "EFI PART", 8);
    uint32_t rev = 0x10000, hsz = chance(90) ? 92 : (uint32_t)below(600);
    memcpy(h + 8, &rev, 4);
    memcpy(h + 12, &hsz, 4);
    uint64_t my = 1, alt = chance(80) ? DISK_SECTORS - 1 : rnd();
    uint64_t first = 34, last = chance(80) ? DISK_SECTORS - 34 : rnd();
    uint64_t elba = chance(90) ? 2 : gen_lba();
    memcpy(h + 24, &my, 8);
    memcpy(h + 32, &alt, 8);
    memcpy(h + 40, &first, 8);
    memcpy(h + 48, &last, 8);
    for (int k = 56; k < 72; k++)
        h[k] = (unsigned char)rnd();
    memcpy(h + 72, &elba, 8);
    memcpy(h + 80, &nents, 4);
    memcpy(h + 84, &esz, 4);
    uint32_t ecrc = chance(90) && ebytes ? crc32_le(ents, ebytes) : (uint32_t)rnd();
    memcpy(h + 88, &ecrc, 4);
    uint32_t hcrc = 0;
    memcpy(h + 16, &hcrc, 4);
    if (hsz >= 92 && hsz <= 512)
        hcrc = crc32_le(h, hsz);
    if (chance(10))
        hcrc = (uint32_t)rnd();
    memcpy(h + 16, &hcrc, 4);
    return cap;
}

static const char *blk_name(char *out, size_t n)
{
    int part = chance(40) ? 0 : 1 + below(8);
    if (part)
        snprintf(out, n, "/dev/vda%d", part);
    else
        snprintf(out, n, "/dev/vda");
    return out;
}

static void surf_block(void)
{
    char name[32];
    if (chance(40)) {
        long fd = sopen("/dev/vda", O_RDWR | (chance(30) ? O_SYNC : 0), 0);
        if (fd >= 0) {
            size_t cap = 64 * 1024;
            unsigned char *img = buf; /* the random buffer: 64 KiB */
            gen_table(img, cap);
            SC4(SYS_pwrite64, fd, img, chance(50) ? 1024 + 16 * 1024 : cap, 0);
            if (chance(30))
                SC1(SYS_fsync, fd);
            if (chance(70))
                SC3(SYS_ioctl, fd, BLKRRPART_, 0);
            if (chance(20))
                SC3(SYS_ioctl, fd, BLKFLSBUF_, 0);
            sclose(fd);
            /* buf must stay random for the other calls: new bytes. */
            for (size_t i = 0; i < cap; i += 8)
                *(uint64_t *)(buf + i) = rnd();
        }
    }
    long fd = sopen(blk_name(name, sizeof name),
                    (chance(50) ? O_RDWR : O_RDONLY) | (chance(20) ? O_DIRECT : 0) |
                    (chance(20) ? O_EXCL : 0) | (chance(30) ? O_NONBLOCK : 0), 0);
    if (fd < 0)
        return;
    static const unsigned long reqs[] = {
        BLKROSET_, BLKROGET_, BLKRRPART_, BLKGETSIZE_, BLKFLSBUF_, BLKRASET_, BLKRAGET_,
        BLKSSZGET_, BLKBSZGET_, BLKBSZSET_, BLKGETSIZE64_, BLKDISCARD_, BLKIOMIN_, BLKIOOPT_,
        BLKALIGNOFF_, BLKPBSZGET_, BLKDISCARDZEROES_, BLKSECDISCARD_, BLKZEROOUT_, BLKSECTGET_,
        BLKGETDISKSEQ_, 0x5331 /* CDROM_GET_CAPABILITY */, 0x2285 /* SG_IO */, 0x301 /* HDIO_GETGEO */,
    };
    for (int i = 1 + below(5); i > 0; i--) {
        unsigned long req = chance(90) ? reqs[below(sizeof reqs / sizeof reqs[0])]
                                       : (0x1200 | below(256)) | (chance(50) ? 0x80080000UL : 0);
        uint64_t *arg = arena_alloc(16);
        arg[0] = chance(50) ? below(DISK_SECTORS) * 512 : gen_len();
        arg[1] = chance(50) ? below(64) * 512 : gen_len();
        if (req == BLKROSET_) {
            int *v = (int *)arg;
            *v = chance(70) ? 0 : 1;
        }
        SC3(SYS_ioctl, fd, req, chance(90) ? (uint64_t)arg : gen_ptr());
        if (req == BLKROSET_)
            SC3(SYS_ioctl, fd, BLKROSET_, "\0\0\0\0"); /* back to read-write, mostly */
    }
    for (int i = below(4); i > 0; i--) {
        uint64_t off = chance(60) ? below(DISK_SECTORS) * 512 : gen_len();
        size_t len = chance(70) ? 512 * (1 + below(16)) : gen_len();
        if (len > BUF_SIZE && chance(80))
            len = BUF_SIZE;
        if (chance(50))
            SC4(SYS_pread64, fd, buf, len, off);
        else
            SC4(SYS_pwrite64, fd, buf, len, off);
    }
    if (chance(20))
        SC4(SYS_fallocate, fd, chance(50) ? 0x10 | 0x01 : 0x03, below(DISK_SECTORS) * 512,
            512 * below(64));
    if (chance(20)) {
        void *m = (void *)SC6(SYS_mmap, 0, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if ((long)m > 0) {
            ((volatile char *)m)[0] = 1;
            SC3(SYS_msync, m, 8 * PAGE, MS_SYNC);
            SC2(SYS_munmap, m, 8 * PAGE);
        }
    }
    if (chance(30))
        pool_add(fd);
    else
        sclose(fd);
}

/* ---- ext4 ------------------------------------------------------------- */

static char ext_dir[64];   /* /mnt/ext4/kf/b<N> */

static const char *ext_path(char *out, size_t n)
{
    static const char *const names[] = {"e0", "e1", "e2", "ed", "ed/e3", "ed/sub", "ed/sub/e4",
                                        "el", "ex"};
    snprintf(out, n, "%s/%s", ext_dir, names[below(sizeof names / sizeof names[0])]);
    return out;
}

static void surf_ext4(void)
{
    char p[128], q[128];
    for (int step = 1 + below(6); step > 0; step--) {
        switch (below(14)) {
        case 0: case 1: case 2: { /* write somewhere, maybe far out */
            long fd = sopen(ext_path(p, sizeof p), O_RDWR | O_CREAT | (chance(20) ? O_APPEND : 0) |
                                                     (chance(10) ? O_TRUNC : 0) |
                                                     (chance(10) ? O_DIRECT : 0) |
                                                     (chance(10) ? O_SYNC : 0), 0644);
            if (fd < 0)
                break;
            for (int i = 1 + below(4); i > 0; i--) {
                uint64_t off;
                switch (below(5)) {
                case 0: off = 0; break;
                case 1: off = below(1 << 20); break;
                case 2: off = (uint64_t)below(1 << 16) << 12; break;    /* up to 256 MiB */
                case 3: off = (uint64_t)below(1 << 12) << 30; break;    /* up to 4 TiB */
                default: off = gen_len(); break;
                }
                size_t len = chance(80) ? below(3 * PAGE) : below(BUF_SIZE);
                SC4(SYS_pwrite64, fd, buf + below(64), len, off);
            }
            if (chance(30))
                SC4(SYS_pread64, fd, buf, below(BUF_SIZE), below(1 << 20));
            if (chance(30))
                SC1(chance(50) ? SYS_fsync : SYS_fdatasync, fd);
            if (chance(40))
                pool_add(fd);
            else
                sclose(fd);
            break;
        }
        case 3: /* truncate */
            SC2(SYS_truncate, ext_path(p, sizeof p),
                chance(70) ? below(1 << 22) : (chance(50) ? (uint64_t)below(1 << 12) << 30 : gen_len()));
            break;
        case 4: { /* fallocate, every mode */
            long fd = sopen(ext_path(p, sizeof p), O_RDWR | O_CREAT, 0644);
            if (fd < 0)
                break;
            static const int modes[] = {0, 1, 3, 0x10, 0x11, 0x08, 0x20, 0x02, 0x04};
            SC4(SYS_fallocate, fd, chance(90) ? modes[below(9)] : (int)below(128),
                chance(80) ? below(1 << 20) : gen_len(), chance(80) ? 1 + below(1 << 20) : gen_len());
            sclose(fd);
            break;
        }
        case 5:
            SC4(SYS_renameat2, AT_FDCWD, ext_path(p, sizeof p), AT_FDCWD, ext_path(q, sizeof q));
            if (chance(20))
                SC5(SYS_renameat2, AT_FDCWD, ext_path(p, sizeof p), AT_FDCWD, ext_path(q, sizeof q),
                    chance(50) ? 1 /* NOREPLACE */ : 2 /* EXCHANGE */);
            break;
        case 6:
            SC5(SYS_linkat, AT_FDCWD, ext_path(p, sizeof p), AT_FDCWD, ext_path(q, sizeof q), 0);
            break;
        case 7:
            SC3(SYS_unlinkat, AT_FDCWD, ext_path(p, sizeof p), chance(30) ? AT_REMOVEDIR : 0);
            break;
        case 8:
            SC3(SYS_mkdirat, AT_FDCWD, ext_path(p, sizeof p), 0755);
            break;
        case 9: { /* symlinks, short (inline) and long */
            char *t = arena_alloc(600);
            size_t n = chance(50) ? 1 + below(59) : 60 + below(500);
            for (size_t i = 0; i < n; i++)
                t[i] = 'a' + i % 26;
            t[n] = 0;
            SC3(SYS_symlinkat, t, AT_FDCWD, ext_path(p, sizeof p));
            SC4(SYS_readlinkat, AT_FDCWD, p, buf, below(700));
            break;
        }
        case 10: { /* xattrs */
            static const char *const names[] = {"user.a", "user.b", "trusted.t", "security.s",
                                                "user.", "system.posix_acl_access", "bogus.x"};
            const char *nm = names[below(7)];
            size_t vlen = chance(70) ? below(256) : (chance(50) ? 4096 + below(100) : gen_len());
            if (chance(60))
                SC5(SYS_setxattr, ext_path(p, sizeof p), nm, buf, vlen, below(3));
            else if (chance(50))
                SC4(SYS_getxattr, ext_path(p, sizeof p), nm, buf, below(8192));
            else if (chance(50))
                SC3(SYS_listxattr, ext_path(p, sizeof p), buf, below(8192));
            else
                SC2(SYS_removexattr, ext_path(p, sizeof p), nm);
            break;
        }
        case 11: { /* a directory read */
            long fd = sopen(chance(70) ? ext_dir : ext_path(p, sizeof p), O_RDONLY | O_DIRECTORY, 0);
            if (fd < 0)
                break;
            SC3(SYS_getdents64, fd, buf, chance(80) ? below(4096) : gen_len());
            if (chance(30))
                SC3(SYS_lseek, fd, chance(50) ? rnd() : below(64), SEEK_SET);
            SC3(SYS_getdents64, fd, buf, below(4096));
            sclose(fd);
            break;
        }
        case 12: { /* many small files in a directory (htree growth) */
            snprintf(q, sizeof q, "%s/ed", ext_dir);
            SC3(SYS_mkdirat, AT_FDCWD, q, 0755);
            for (int i = 0; i < 40; i++) {
                snprintf(p, sizeof p, "%s/ed/n%03d-%llx", ext_dir, i, (unsigned long long)below(1 << 20));
                long fd = sopen(p, O_WRONLY | O_CREAT, 0644);
                sclose(fd);
            }
            break;
        }
        default: /* metadata */
            SC4(SYS_fchmodat, AT_FDCWD, ext_path(p, sizeof p), gen_mode(), 0);
            SC5(SYS_fchownat, AT_FDCWD, p, chance(50) ? 65534 : -1, chance(50) ? 65534 : -1, 0);
            SC4(SYS_utimensat, AT_FDCWD, p, gen_timespec_ptr(), 0);
            SC5(SYS_statx, AT_FDCWD, p, 0, 0xfff, buf);
            break;
        }
    }
    if (chance(5))
        SC0(SYS_sync);
    if (chance(5)) {
        long fd = sopen(ext_dir, O_RDONLY | O_DIRECTORY, 0);
        if (fd >= 0) {
            SC1(SYS_syncfs, fd);
            sclose(fd);
        }
    }
}

/* ---- ptrace ----------------------------------------------------------- */

#define PT_TRACEME 0
#define PT_PEEKDATA 2
#define PT_PEEKUSER 3
#define PT_POKEDATA 5
#define PT_POKEUSER 6
#define PT_CONT 7
#define PT_KILL 8
#define PT_SINGLESTEP 9
#define PT_GETREGS 12
#define PT_SETREGS 13
#define PT_GETFPREGS 14
#define PT_SETFPREGS 15
#define PT_ATTACH 16
#define PT_DETACH 17
#define PT_SYSCALL 24
#define PT_SETOPTIONS 0x4200
#define PT_GETEVENTMSG 0x4201
#define PT_GETSIGINFO 0x4202
#define PT_SETSIGINFO 0x4203
#define PT_GETREGSET 0x4204
#define PT_SETREGSET 0x4205
#define PT_SEIZE 0x4206
#define PT_INTERRUPT 0x4207
#define PT_LISTEN 0x4208
#define PT_PEEKSIGINFO 0x4209
#define PT_GETSIGMASK 0x420a
#define PT_SETSIGMASK 0x420b
#define PT_SECCOMP_GET_FILTER 0x420c
#define PT_GET_SYSCALL_INFO 0x420e
#define USER_REGS_SIZE 216   /* struct user_regs_struct */
#define USER_DEBUGREG 848    /* offsetof(struct user, u_debugreg) */

static uint64_t gen_dr_value(int reg)
{
    if (reg == 7) {
        switch (below(4)) {
        case 0: return 0;
        case 1: return 1 | (1UL << 16) | (3UL << 18);             /* DR0 rw, 4 bytes */
        case 2: return 0x55 | (rnd() & 0xffff0000UL);           /* all local, random kinds */
        default: return rnd();
        }
    }
    if (reg == 6)
        return chance(50) ? 0 : rnd();
    switch (below(5)) {
    case 0: return (uint64_t)(buf + 8 * below(16));          /* the buffer read() fills */
    case 1: return (uint64_t)(buf + 8);
    case 2: return (uint64_t)&spawn_sleeper;                  /* code the child runs */
    case 3: return gen_ptr();                                 /* kernel, non-canonical... */
    default: return rnd();
    }
}

static void surf_ptrace(void)
{
    int pid = spawn_sleeper();
    if (pid < 0)
        return;
    int st;
    if (chance(60)) {
        SC4(SYS_ptrace, PT_SEIZE, pid, 0, chance(50) ? below(0x80) : gen_flags());
        SC4(SYS_ptrace, PT_INTERRUPT, pid, 0, 0);
    } else {
        SC4(SYS_ptrace, PT_ATTACH, pid, 0, 0);
    }
    /* Wait for the stop (briefly). */
    for (int i = 0; i < 50; i++) {
        if (waitpid(pid, &st, WNOHANG | __WALL) == pid)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    for (int i = 2 + below(12); i > 0; i--) {
        unsigned long req;
        uint64_t addr = 0, data = 0;
        switch (below(16)) {
        case 0: req = PT_PEEKDATA; addr = chance(70) ? (uint64_t)(buf + below(BUF_SIZE)) : gen_ptr();
            data = (uint64_t)arena_alloc(8); break;
        case 1: req = PT_POKEDATA;
            addr = chance(30) ? (uint64_t)(ro + 8 * below(PAGE / 8))          /* FOLL_FORCE */
                 : chance(30) ? (uint64_t)&gen_bpf                            /* text */
                 : chance(50) ? (uint64_t)(buf + below(BUF_SIZE)) : gen_ptr();
            data = rnd(); break;
        case 2: req = PT_PEEKUSER; addr = chance(60) ? USER_DEBUGREG + 8 * below(8)
                                        : (chance(50) ? 8 * below(120) : gen_len());
            data = (uint64_t)arena_alloc(8); break;
        case 3: case 4: case 5: { /* debug registers */
            int reg = chance(70) ? (int)below(4) : (chance(50) ? 7 : (int)below(8));
            req = PT_POKEUSER;
            addr = USER_DEBUGREG + 8 * reg;
            data = gen_dr_value(reg);
            if (chance(10)) addr = chance(50) ? 8 * below(120) : gen_len();
            break;
        }
        case 6: req = PT_GETREGS; data = (uint64_t)arena_alloc(USER_REGS_SIZE); break;
        case 7: { /* registers read, one changed, written back */
            uint64_t *r = arena_alloc(USER_REGS_SIZE);
            SC4(SYS_ptrace, PT_GETREGS, pid, 0, r);
            r[below(USER_REGS_SIZE / 8)] = chance(50) ? rnd() : interesting[below(NINTERESTING)];
            req = PT_SETREGS; data = (uint64_t)r; break;
        }
        case 8: req = chance(50) ? PT_GETFPREGS : PT_SETFPREGS; data = (uint64_t)buf; break;
        case 9: { /* regsets */
            struct iovec *v = arena_alloc(sizeof *v);
            v->iov_base = buf;
            v->iov_len = chance(70) ? below(4096) : gen_len();
            static const uint64_t nt[] = {1 /* PRSTATUS */, 2 /* FPREG */, 0x202 /* X86_XSTATE */,
                                          0x200 /* 386_TLS */, 0x4711, 6};
            req = chance(60) ? PT_GETREGSET : PT_SETREGSET;
            addr = nt[below(6)];
            data = chance(90) ? (uint64_t)v : gen_ptr();
            break;
        }
        case 10: req = chance(50) ? PT_GETSIGINFO : PT_SETSIGINFO; data = (uint64_t)buf; break;
        case 11: req = PT_SETOPTIONS; data = chance(80) ? below(0x200) : gen_flags(); break;
        case 12: req = chance(40) ? PT_SINGLESTEP : (chance(50) ? PT_CONT : PT_SYSCALL);
            data = chance(70) ? 0 : gen_signal(); break;
        case 13: {
            static const unsigned long r2[] = {PT_GETEVENTMSG, PT_PEEKSIGINFO, PT_GETSIGMASK,
                                               PT_SETSIGMASK, PT_SECCOMP_GET_FILTER,
                                               PT_GET_SYSCALL_INFO, PT_LISTEN, PT_INTERRUPT};
            req = r2[below(8)];
            addr = chance(50) ? below(512) : gen_len();
            data = (uint64_t)buf;
            if (req == PT_PEEKSIGINFO) {
                uint64_t *a = arena_alloc(16);
                a[0] = below(4); a[1] = below(8) | ((uint64_t)below(2) << 32);
                addr = (uint64_t)a;
            }
            break;
        }
        case 14: req = below(0x4220); addr = gen_any(); data = gen_any(); break;
        default:
            req = 0; /* let it run: watchpoints and steps fire */
            SC4(SYS_ptrace, PT_CONT, pid, 0, 0);
            {
                struct timespec ts = {0, 1000000 * below(3)};
                nanosleep(&ts, NULL);
            }
            if (chance(50))
                SC3(SYS_tgkill, pid, pid, SIGSTOP);
            for (int k = 0; k < 5; k++)
                if (waitpid(pid, &st, WNOHANG | __WALL) == pid && WIFEXITED(st))
                    break;
            continue;
        }
        SC4(SYS_ptrace, req, pid, addr, data);
        if (chance(30))
            waitpid(pid, &st, WNOHANG | __WALL);
    }
    if (chance(30))
        SC4(SYS_ptrace, PT_DETACH, pid, 0, chance(80) ? 0 : gen_signal());
    else if (chance(20))
        SC4(SYS_ptrace, PT_KILL, pid, 0, 0);
    reap_child(pid, 2);
}

/* ---- /proc and /sys --------------------------------------------------- */

static int ps_skipped(const char *path, int writing)
{
    /* Files whose purpose is to end or blind the run, or that reach beyond
       the batch: the machine (sysrq, power, kexec), the console's log
       level, panics on purpose, the fuzzer's own processes' memory. */
    static const char *const never[] = {"sysrq", "/power", "kexec", "/reboot", "printk",
                                        "panic", "/kcore", "/kmsg", "/cgroup", "core_pattern",
                                        "/unbind", "/bind", "/remove", "/delete", "/rescan"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(path, never[i]))
            return 1;
    if (writing) {
        static const char *const nowrite[] = {"overcommit", "pid_max", "threads-max",
                                              "max_map_count", "hung_task", "/sys/kernel",
                                              "/sys/devices/system/cpu", "min_free_kbytes",
                                              "oom_kill_allocating", "/fs/nr_open", "file-max",
                                              "/proc/sys/kernel/ns_last_pid"};
        for (size_t i = 0; i < sizeof nowrite / sizeof nowrite[0]; i++)
            if (strstr(path, nowrite[i]))
                return 1;
    }
    /* /proc/<pid>: only ourselves (self, thread-self) and our children. */
    if (!strncmp(path, "/proc/", 6) && path[6] >= '1' && path[6] <= '9') {
        int pid = atoi(path + 6);
        if (pid <= 1 || pid == parent_pid)
            return 1;
    }
    return 0;
}

static void surf_procsys(void)
{
    static const char *const roots[] = {"/proc", "/proc/self", "/proc/self/task", "/proc/sys",
                                        "/proc/sys/kernel", "/proc/sys/vm", "/proc/sys/net",
                                        "/proc/sys/fs", "/proc/net", "/sys", "/sys/block",
                                        "/sys/class", "/sys/devices", "/sys/fs", "/proc/thread-self",
                                        "/sys/block/vda", "/proc/self/fdinfo", "/proc/self/ns"};
    char path[512];
    int kid = chance(20) ? spawn_sleeper() : 0;
    if (kid > 0 && chance(60))
        snprintf(path, sizeof path, "/proc/%d", kid);
    else
        snprintf(path, sizeof path, "%s", roots[below(sizeof roots / sizeof roots[0])]);
    for (int depth = 0; depth < 6; depth++) {
        long fd = sopen(path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
            break;
        long n = SC3(SYS_getdents64, fd, buf, 16384);
        sclose(fd);
        if (n <= 0)
            break;
        /* Count the entries, pick one. */
        int count = 0;
        for (long off = 0; off < n;) {
            uint16_t reclen;
            memcpy(&reclen, buf + off + 16, 2);
            if (!reclen)
                break;
            count++;
            off += reclen;
        }
        int pick = below(count), k = 0;
        const char *name = NULL;
        unsigned char type = 0;
        for (long off = 0; off < n;) {
            uint16_t reclen;
            memcpy(&reclen, buf + off + 16, 2);
            if (!reclen)
                break;
            if (k++ == pick) {
                type = buf[off + 18];
                name = (const char *)buf + off + 19;
                break;
            }
            off += reclen;
        }
        if (!name || !strcmp(name, ".") || !strcmp(name, ".."))
            break;
        size_t len = strlen(path);
        if (len + strlen(name) + 2 >= sizeof path)
            break;
        snprintf(path + len, sizeof path - len, "/%s", name);
        if (ps_skipped(path, 0))
            break;
        if (type == DT_DIR && chance(85))
            continue;
        if (type == DT_LNK && chance(50)) {
            SC4(SYS_readlinkat, AT_FDCWD, path, buf, below(PATH_MAX));
            break;
        }
        /* A file: read it, or write to it. */
        int writing = chance(25) && !ps_skipped(path, 1);
        fd = sopen(path, (writing ? O_WRONLY : O_RDONLY) | O_NONBLOCK, 0);
        if (fd < 0)
            break;
        if (writing) {
            char val[256];
            gen_value(val, sizeof val);
            SC3(SYS_write, fd, val, chance(90) ? strlen(val) : gen_len());
        } else {
            for (int i = 1 + below(4); i > 0; i--) {
                static const size_t sizes[] = {0, 1, 7, 64, 100, 4095, 4096, 4097, 65536};
                size_t sz = chance(90) ? sizes[below(9)] : gen_len();
                if (sz > BUF_SIZE && chance(90))
                    sz = BUF_SIZE;
                if (chance(40))
                    SC4(SYS_pread64, fd, buf, sz, chance(70) ? below(8192) : gen_len());
                else
                    SC3(SYS_read, fd, buf, sz);
                if (chance(20))
                    SC3(SYS_lseek, fd, chance(50) ? 0 : (int64_t)rnd(), below(5));
            }
            if (chance(20)) {
                struct pollfd *p = arena_alloc(sizeof *p);
                p->fd = fd;
                p->events = POLLIN | POLLPRI;
                SC3(SYS_poll, p, 1, 0);
            }
        }
        if (chance(20))
            pool_add(fd);
        else
            sclose(fd);
        break;
    }
    if (kid > 0)
        reap_child(kid, 0);
}

/* ---- the parent's part ------------------------------------------------ */

/* Mounts for the surfaces, once, as PID 1: sysfs, cgroup2 with a kf group
   whose subtree has every controller, the ext4 scratch disk (vdb). Each is
   optional: a kernel or an image without it just makes those actions fail. */
static void surfaces_setup(void)
{
    struct stat st;
    if (stat("/sys/fs/cgroup/kf/cgroup.procs", &st) == 0 && stat("/mnt/ext4/kf", &st) == 0)
        return;
    mkdir("/sys", 0555);
    if (stat("/sys/block", &st) != 0)
        mount("sysfs", "/sys", "sysfs", 0, NULL);
    if (stat("/sys/fs/cgroup/cgroup.controllers", &st) != 0)
        mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
    mkdir("/sys/fs/cgroup/kf", 0755);
    char ctl[256] = "";
    int fd = open("/sys/fs/cgroup/cgroup.controllers", O_RDONLY);
    if (fd >= 0) {
        long n = read(fd, ctl, sizeof ctl - 1);
        close(fd);
        ctl[n > 0 ? n : 0] = 0;
        char *save = NULL;
        for (char *w = strtok_r(ctl, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
            char plus[64];
            snprintf(plus, sizeof plus, "+%s", w);
            static const char *const where[] = {"/sys/fs/cgroup/cgroup.subtree_control",
                                                "/sys/fs/cgroup/kf/cgroup.subtree_control"};
            for (int i = 0; i < 2; i++) {
                int c = open(where[i], O_WRONLY);
                if (c >= 0) {
                    write(c, plus, strlen(plus));
                    close(c);
                }
            }
        }
    }
    chmod("/sys/fs/cgroup/kf", 0777);
    mkdir("/mnt", 0755);
    mkdir("/mnt/ext4", 0755);
    if (stat("/mnt/ext4/kf", &st) != 0 &&
        mount("/dev/vdb", "/mnt/ext4", "ext4", 0, NULL) != 0)
        say("kfuzz: no ext4 scratch disk (mount /dev/vdb: %s); ext4 actions will fail",
            strerror(errno));
    mkdir("/mnt/ext4/kf", 01777);
    chmod("/mnt/ext4/kf", 01777);
}

/* The batch's own directories, made by the parent before the fork so an
   unprivileged batch can use them. */
static void surfaces_prepare(long b, int nobody)
{
    char p[64];
    snprintf(p, sizeof p, "/sys/fs/cgroup/kf/b%ld", b);
    mkdir(p, 0755);
    if (nobody) {
        /* Delegation as systemd does it: the directory and its
           cgroup.procs, subtree_control and threads files. */
        static const char *const own[] = {"", "/cgroup.procs", "/cgroup.subtree_control",
                                          "/cgroup.threads"};
        for (int i = 0; i < 4; i++) {
            char q[96];
            snprintf(q, sizeof q, "%s%s", p, own[i]);
            chown(q, NOBODY, NOBODY);
        }
    }
    snprintf(p, sizeof p, "/mnt/ext4/kf/b%ld", b);
    mkdir(p, 0777);
    if (nobody)
        chown(p, NOBODY, NOBODY);
}

static void cg_remove(const char *dir, int depth)
{
    if (depth > 6)
        return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char sub[600];
        while ((e = readdir(d))) {
            if (e->d_type != DT_DIR || e->d_name[0] == '.')
                continue;
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            cg_remove(sub, depth + 1);
        }
        closedir(d);
    }
    /* Whatever is left in it dies first (a frozen batch child too). */
    char k[640];
    snprintf(k, sizeof k, "%s/cgroup.kill", dir);
    int fd = open(k, O_WRONLY);
    if (fd >= 0) {
        write(fd, "1", 1);
        close(fd);
    }
    for (int i = 0; i < 100 && rmdir(dir) != 0 && errno == EBUSY; i++)
        usleep(1000);
}

/* After a batch: its cgroups and its ext4 directory go. */
static void surfaces_cleanup(long b)
{
    char p[64];
    snprintf(p, sizeof p, "/sys/fs/cgroup/kf/b%ld", b);
    cg_remove(p, 0);
    snprintf(p, sizeof p, "/mnt/ext4/kf/b%ld", b);
    remove_tree(p);
}

/* In the batch child, after setup_world: its paths and descriptors. */
static void surfaces_world(long b)
{
    snprintf(cg_base, sizeof cg_base, "/sys/fs/cgroup/kf/b%ld", b);
    snprintf(ext_dir, sizeof ext_dir, "/mnt/ext4/kf/b%ld", b);
    if (!surf_enabled)
        return;
    char p[96];
    snprintf(p, sizeof p, "%s/e0", ext_dir);
    int fd = open(p, O_RDWR | O_CREAT, 0644);
    if (fd >= 0) {
        write(fd, buf, 5000);
        pool_add(fd);
    }
    pool_add(open(ext_dir, O_RDONLY | O_DIRECTORY));
    if (ndirfds < 4) {
        fd = open(ext_dir, O_RDONLY | O_DIRECTORY);
        if (fd >= 0) {
            pool_add(fd);
            dirfds[ndirfds++] = fd;
        }
    }
    pool_add(open(cg_base, O_RDONLY | O_DIRECTORY));
    /* Paths the random calls draw: on ext4, in the cgroup tree, the disk. */
    static const char *const extra[] = {"/dev/vda", "/dev/vda1", "/sys/fs/cgroup/kf",
                                        "/proc/self/cgroup", "/sys/block/vda/size"};
    arena_used = 0;
    unsigned char *save = arena;
    arena += ARENA_SIZE + 16 * 1024; /* past setup_world's path strings */
    add_path(ext_dir);
    add_path(p);
    add_path(cg_base);
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (strcmp(extra[i], "/dev/vda")) /* already there */
            add_path(extra[i]);
    arena = save;
    arena_used = 0;
}

#include "focus.c"

static void surface_action(uint64_t idx)
{
    surf_idx = idx;
    if (opt_focus) {
        focus_action();
        return;
    }
    switch (below(7)) {
    case 0: surf_netlink(); break;
    case 1: surf_cgroup(); break;
    case 2: surf_seccomp(); break;
    case 3: surf_block(); break;
    case 4: surf_ext4(); break;
    case 5: surf_ptrace(); break;
    default: surf_procsys(); break;
    }
}
