/* kfuzz's surfaces for the newest interfaces (--focus new, docs/fuzzing.md
 * "Focused runs"): included by surfaces.c, whose helpers (sc, spawn_sleeper,
 * reap_child, gen_value) these use. With --focus new a surface action is
 * one of these or the ptrace surface:
 *
 *   packet    AF_PACKET sockets (raw and datagram, any protocol), bound to
 *             lo or a random index, SOL_PACKET options (memberships,
 *             rings, fanout, version, statistics) with bent structures,
 *             frames sent to lo and read back
 *   mountapi  fsopen of a file system type, fsconfig commands (flags,
 *             strings, binary values, paths, fds, create, reconfigure),
 *             fsmount with attributes, move_mount into the batch's own
 *             directory, open_tree clones, mount_setattr, fspick, and a
 *             lazy unmount of what was made
 *   pidfd     a sleeper's pidfd (pidfd_open, or clone3 with CLONE_PIDFD):
 *             poll, pidfd_send_signal with bent siginfo, pidfd_getfd,
 *             waitid(P_PIDFD), process_madvise, process_mrelease
 *   ns        in a forked child: unshare of random namespace sets, then
 *             uid/gid maps, sethostname, a tmpfs mount, a socket in the
 *             new network namespace, setns to /proc/self/ns files and to
 *             a pidfd, a child in a new PID namespace
 *
 * Values come from the batch's stream, so actions replay with the batch.
 */

#define AF_PACKET_ 17
#define SOL_PACKET_ 263
#define ETH_P_ALL_BE 0x0300
#define ETH_P_IP_BE 0x0008

#define FSCONFIG_SET_FLAG_ 0
#define FSCONFIG_SET_STRING_ 1
#define FSCONFIG_SET_BINARY_ 2
#define FSCONFIG_SET_PATH_ 3
#define FSCONFIG_SET_PATH_EMPTY_ 4
#define FSCONFIG_SET_FD_ 5
#define FSCONFIG_CMD_CREATE_ 6
#define FSCONFIG_CMD_RECONFIGURE_ 7
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4
#define OPEN_TREE_CLONE_ 1
#define AT_RECURSIVE_ 0x8000
#define AT_EMPTY_PATH_ 0x1000
#define MNT_DETACH_ 2

#define P_PIDFD_ 3
#define CLONE_PIDFD_ 0x1000

#define CLONE_NEWTIME_ 0x80
#define CLONE_NEWNS_ 0x20000
#define CLONE_NEWCGROUP_ 0x02000000
#define CLONE_NEWUTS_ 0x04000000
#define CLONE_NEWIPC_ 0x08000000
#define CLONE_NEWUSER_ 0x10000000
#define CLONE_NEWPID_ 0x20000000
#define CLONE_NEWNET_ 0x40000000

/* A small structure in the arena, its bytes random, then some set. */
static unsigned char *focus_struct(size_t n)
{
    unsigned char *p = arena + 8192 + below(64) * 8;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
    return p;
}

/* A length for a structure of size n: right most of the time. */
static unsigned long focus_len(unsigned long n)
{
    if (chance(75))
        return n;
    static const unsigned long odd[] = {0, 1, 3, 4, 8, 15, 16, 32, 64, 4096, ~0UL, 0x80000000UL};
    return chance(50) ? odd[below(12)] : n + below(9) - 4;
}

/* ---- packet ------------------------------------------------------------ */

static void surf_packet(void)
{
    long type = chance(60) ? SOCK_RAW : chance(80) ? SOCK_DGRAM : (long)below(8);
    long proto = chance(50) ? ETH_P_ALL_BE : chance(50) ? ETH_P_IP_BE : (long)(chance(50) ? below(0x10000) : rnd());
    if (chance(30))
        type |= chance(50) ? SOCK_NONBLOCK : SOCK_CLOEXEC;
    long fd = SC3(SYS_socket, AF_PACKET_, type, proto);
    if (fd < 0)
        return;
    int nb = 1;
    ioctl((int)fd, FIONBIO, &nb);
    /* sockaddr_ll: family, protocol, ifindex, hatype, pkttype, halen, addr[8]. */
    unsigned char *ll = focus_struct(20);
    *(uint16_t *)ll = chance(90) ? AF_PACKET_ : (uint16_t)rnd();
    *(uint16_t *)(ll + 2) = chance(70) ? (uint16_t)proto : (uint16_t)rnd();
    *(int32_t *)(ll + 4) = chance(70) ? 1 : chance(50) ? 0 : (int32_t)(chance(50) ? below(8) : rnd());
    ll[11] = chance(80) ? 6 : (unsigned char)rnd();
    if (chance(70))
        SC3(SYS_bind, fd, ll, focus_len(20));
    for (int i = 1 + below(6); i > 0; i--) {
        long opt = chance(85) ? (long)below(24) : (long)rnd() & 0xff;
        unsigned char *v = focus_struct(64);
        unsigned long len = 4;
        switch (opt) {
        case 1: case 2: /* PACKET_ADD/DROP_MEMBERSHIP: struct packet_mreq */
            *(int32_t *)v = chance(70) ? 1 : (int32_t)below(4);
            *(uint16_t *)(v + 4) = (uint16_t)below(5);
            *(uint16_t *)(v + 6) = chance(70) ? 6 : (uint16_t)rnd();
            len = 16;
            break;
        case 5: case 13: { /* PACKET_RX_RING, PACKET_TX_RING: tpacket_req(3) */
            uint32_t *r = (uint32_t *)v;
            r[0] = chance(60) ? 4096u << below(4) : (uint32_t)rnd();
            r[1] = chance(60) ? (uint32_t)below(8) : (uint32_t)rnd();
            r[2] = chance(60) ? 2048u >> below(3) : (uint32_t)rnd();
            r[3] = chance(60) ? r[0] / (r[2] ? r[2] : 1) * r[1] : (uint32_t)rnd();
            len = chance(50) ? 16 : 28;
            break;
        }
        case 10: /* PACKET_VERSION */
            *(int32_t *)v = chance(80) ? (int32_t)below(3) : (int32_t)rnd();
            break;
        case 18: /* PACKET_FANOUT: id | type << 16 */
            *(int32_t *)v = (int32_t)(below(4) | (below(8) << 16) | (chance(20) ? rnd() & 0xf0000000 : 0));
            break;
        default:
            *(int32_t *)v = chance(60) ? (int32_t)below(4) : (int32_t)rnd();
            break;
        }
        if (chance(70))
            SC5(SYS_setsockopt, fd, SOL_PACKET_, opt, chance(95) ? (uint64_t)v : gen_ptr(), focus_len(len));
        else {
            uint32_t *lp = (uint32_t *)(v + 48);
            *lp = (uint32_t)focus_len(chance(50) ? 4 : 16);
            SC5(SYS_getsockopt, fd, chance(85) ? SOL_PACKET_ : (long)(chance(50) ? SOL_SOCKET : rnd() & 0xfff), opt, v, lp);
        }
    }
    /* A frame to lo (sockaddr_ll again), then read what comes back. */
    for (int i = below(4); i > 0; i--) {
        unsigned char *frame = focus_struct(128);
        memset(frame, 0, 12);
        frame[12] = 0x08;
        frame[13] = 0x00;
        SC6(SYS_sendto, fd, frame, chance(80) ? 14 + below(114) : gen_len(), chance(80) ? 0 : gen_flags(),
            chance(60) ? (uint64_t)ll : 0, focus_len(20));
    }
    for (int i = below(3); i > 0; i--) {
        uint32_t *alen = (uint32_t *)(arena + 4096);
        *alen = 20;
        SC6(SYS_recvfrom, fd, buf, chance(70) ? 2048 : gen_len(), MSG_DONTWAIT | (chance(20) ? MSG_TRUNC : 0),
            arena + 4100, alen);
    }
    if (chance(30))
        SC6(SYS_mmap, 0, 4096u << below(4), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    sclose(fd);
}

/* ---- mount API ----------------------------------------------------------- */

static const char *const fs_types[] = {"tmpfs", "proc", "sysfs", "ext4", "cgroup2", "devpts",
                                       "mqueue", "ramfs", "devtmpfs", "ext2", "", "nosuchfs"};
static const char *const fs_keys[] = {"size", "mode", "uid", "gid", "nr_inodes", "source", "ro", "rw",
                                      "hidepid", "subset", "noexec", "nsdelegate", "errors", "x"};

static void focus_mount_dir(char *out, size_t n)
{
    snprintf(out, n, "/tmp/kf/b%ld/m%d", cur_batch, (int)below(3));
    mkdir(out, 0777);
}

static void surf_mountapi(void)
{
    char target[64];
    focus_mount_dir(target, sizeof target);
    long fsfd = -1, mfd = -1;
    if (chance(70)) {
        const char *type = fs_types[below(sizeof fs_types / sizeof fs_types[0])];
        fsfd = SC2(SYS_fsopen, chance(95) ? (uint64_t)type : gen_ptr(), chance(80) ? below(2) : gen_flags());
    } else {
        fsfd = SC3(SYS_fspick, AT_FDCWD, chance(70) ? (uint64_t)target : gen_path(), chance(80) ? below(16) : gen_flags());
    }
    for (int i = below(6); i > 0 && fsfd >= 0; i--) {
        long cmd = chance(90) ? (long)below(8) : (long)rnd() & 0xff;
        const char *key = fs_keys[below(sizeof fs_keys / sizeof fs_keys[0])];
        char *val = (char *)arena + 2048;
        uint64_t value = 0, aux = 0;
        switch (cmd) {
        case FSCONFIG_SET_STRING_: gen_value(val, 64); value = (uint64_t)val; break;
        case FSCONFIG_SET_BINARY_: value = (uint64_t)buf; aux = chance(70) ? 1 + below(64) : gen_len(); break;
        case FSCONFIG_SET_PATH_: case FSCONFIG_SET_PATH_EMPTY_:
            value = chance(70) ? (uint64_t)target : gen_path(); aux = chance(70) ? AT_FDCWD : gen_fd(); break;
        case FSCONFIG_SET_FD_: aux = gen_fd(); break;
        default: value = chance(90) ? 0 : gen_ptr(); aux = chance(90) ? 0 : gen_any(); break;
        }
        SC5(SYS_fsconfig, fsfd, cmd, chance(90) ? (uint64_t)key : (chance(50) ? 0 : gen_ptr()), value, aux);
    }
    if (fsfd >= 0 && chance(70)) {
        if (chance(80))
            SC5(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE_, 0, 0, 0);
        mfd = SC3(SYS_fsmount, fsfd, chance(80) ? below(2) : gen_flags(),
                  chance(60) ? 0 : chance(70) ? (below(0x100) & ~0x30) : gen_flags());
    }
    if (mfd < 0 && chance(50))
        mfd = SC3(SYS_open_tree, AT_FDCWD, chance(60) ? (uint64_t)"/tmp/kf" : gen_path(),
                  chance(80) ? OPEN_TREE_CLONE_ | (chance(50) ? AT_RECURSIVE_ : 0) : gen_flags());
    if (mfd >= 0) {
        if (chance(50)) {
            /* struct mount_attr: attr_set, attr_clr, propagation, userns_fd */
            uint64_t *ma = (uint64_t *)focus_struct(32);
            ma[0] = chance(60) ? below(16) : rnd();
            ma[1] = chance(60) ? below(16) : rnd();
            ma[2] = chance(50) ? 0 : chance(70) ? 1u << (17 + below(4)) : rnd();
            ma[3] = chance(80) ? 0 : gen_fd();
            SC5(SYS_mount_setattr, mfd, chance(70) ? (uint64_t)"" : gen_path(),
                chance(70) ? AT_EMPTY_PATH_ | (chance(50) ? AT_RECURSIVE_ : 0) : gen_flags(), ma, focus_len(32));
        }
        if (chance(70))
            SC5(SYS_move_mount, mfd, "", AT_FDCWD, chance(90) ? (uint64_t)target : gen_path(),
                chance(80) ? MOVE_MOUNT_F_EMPTY_PATH_ : gen_flags());
    }
    if (chance(30)) {
        /* The old call on the same target: a bind of the batch's directory. */
        SC5(SYS_mount, chance(70) ? (uint64_t)"/tmp/kf" : gen_path(), target, 0,
            chance(70) ? MS_BIND | (chance(50) ? MS_REC : 0) : gen_flags(), 0);
    }
    if (chance(30))
        SC2(SYS_statfs, target, arena + 1024);
    sclose(mfd);
    sclose(fsfd);
    /* Whatever got mounted there goes (a few layers). */
    for (int i = 0; i < 4; i++)
        if (SC2(SYS_umount2, target, MNT_DETACH_) != 0)
            break;
}

/* ---- pidfd --------------------------------------------------------------- */

static void surf_pidfd(void)
{
    long pidfd = -1;
    int pid;
    if (chance(30)) {
        /* clone3 with CLONE_PIDFD: struct clone_args, flags, pidfd, ..., exit_signal */
        uint64_t *ca = (uint64_t *)focus_struct(88);
        memset(ca, 0, 88);
        int *slot = (int *)(arena + 6000);
        *slot = -1;
        ca[0] = CLONE_PIDFD_;
        ca[1] = (uint64_t)slot;
        ca[4] = SIGCHLD;
        long r = syscall(SYS_clone3, ca, 88);
        if (r == 0) {
            struct timespec ts = {0, 20000000};
            nanosleep(&ts, NULL);
            syscall(SYS_exit_group, 0);
        }
        if (r < 0)
            return;
        pid = (int)r;
        pidfd = *slot;
    } else {
        pid = spawn_sleeper();
        if (pid < 0)
            return;
        pidfd = SC2(SYS_pidfd_open, chance(90) ? pid : gen_pid(), chance(70) ? (chance(50) ? O_NONBLOCK : 0) : gen_flags());
    }
    for (int i = 1 + below(6); i > 0 && pidfd >= 0; i--) {
        switch (below(7)) {
        case 0: {
            struct pollfd *p = (struct pollfd *)(arena + 512);
            p->fd = (int)pidfd;
            p->events = POLLIN;
            SC3(SYS_poll, p, 1, below(3));
            break;
        }
        case 1: {
            unsigned char *si = focus_struct(128);
            if (chance(50))
                memset(si, 0, 128);
            *(int32_t *)si = (int32_t)gen_signal();
            *(int32_t *)(si + 8) = chance(50) ? -1 /* SI_QUEUE */ : (int32_t)rnd();
            SC4(SYS_pidfd_send_signal, pidfd, chance(80) ? below(32) : gen_signal(),
                chance(60) ? 0 : (uint64_t)si, chance(80) ? 0 : gen_flags());
            break;
        }
        case 2: {
            long fd = SC3(SYS_pidfd_getfd, pidfd, chance(70) ? below(6) : gen_fd(), chance(80) ? 0 : gen_flags());
            sclose(fd);
            break;
        }
        case 3:
            SC5(SYS_waitid, chance(85) ? P_PIDFD_ : below(4), chance(85) ? (uint64_t)pidfd : gen_fd(),
                arena + 1024, chance(70) ? (WEXITED | WNOHANG) | (chance(30) ? WSTOPPED | WCONTINUED : 0) : gen_flags(),
                chance(50) ? 0 : (uint64_t)arena + 2048);
            break;
        case 4: {
            struct iovec *iov = (struct iovec *)(arena + 3072);
            iov[0].iov_base = (void *)(chance(50) ? (uint64_t)buf : gen_addr());
            iov[0].iov_len = chance(50) ? 4096 : gen_len();
            SC5(SYS_process_madvise, pidfd, iov, chance(80) ? 1 : gen_len(), chance(70) ? below(24) : rnd() & 0xff,
                chance(80) ? 0 : gen_flags());
            break;
        }
        case 5:
            SC2(SYS_process_mrelease, pidfd, chance(80) ? 0 : gen_flags());
            break;
        default:
            SC3(SYS_kcmp, my_pid, pid, below(8));
            break;
        }
    }
    if (chance(50))
        SC4(SYS_pidfd_send_signal, pidfd, SIGKILL, 0, 0);
    reap_child(pid, 20);
    if (pidfd >= 0 && chance(50))
        SC5(SYS_waitid, P_PIDFD_, pidfd, arena + 1024, WEXITED | WNOHANG, 0);
    sclose(pidfd);
}

/* ---- namespaces ---------------------------------------------------------- */

static void ns_child(uint64_t flags)
{
    long unshared = SC1(SYS_unshare, flags);
    /* Mounts only in a mount namespace of its own (none are left behind). */
    int own_mnt = unshared == 0 && (flags & CLONE_NEWNS_);
    if (unshared == 0 && (flags & CLONE_NEWUSER_)) {
        char m[32];
        snprintf(m, sizeof m, "0 %d 1", (int)getuid());
        int fd = open("/proc/self/setgroups", O_WRONLY);
        if (fd >= 0) { write(fd, "deny", 4); close(fd); }
        fd = open("/proc/self/uid_map", O_WRONLY);
        if (fd >= 0) { SC3(SYS_write, fd, m, chance(90) ? strlen(m) : below(32)); close(fd); }
        snprintf(m, sizeof m, "0 %d 1", (int)getgid());
        fd = open("/proc/self/gid_map", O_WRONLY);
        if (fd >= 0) { SC3(SYS_write, fd, m, strlen(m)); close(fd); }
    }
    static const char *const nsf[] = {"/proc/self/ns/mnt", "/proc/self/ns/uts", "/proc/self/ns/ipc",
                                      "/proc/self/ns/net", "/proc/self/ns/pid", "/proc/self/ns/user",
                                      "/proc/self/ns/cgroup", "/proc/self/ns/time", "/proc/1/ns/net",
                                      "/proc/self/ns/pid_for_children"};
    for (int i = 1 + below(8); i > 0; i--) {
        switch (below(7)) {
        case 0: SC2(SYS_sethostname, "kf-ns", chance(80) ? 5 : gen_len()); break;
        case 1: {
            if (!own_mnt)
                break;
            char d[64];
            snprintf(d, sizeof d, "/tmp/kf/b%ld", cur_batch);
            SC5(SYS_mount, "none", d, "tmpfs", chance(80) ? 0 : gen_flags(), chance(50) ? (uint64_t)"size=64k" : 0);
            break;
        }
        case 2: {
            long s = SC3(SYS_socket, chance(50) ? AF_INET : chance(50) ? AF_NETLINK : AF_PACKET_,
                    chance(70) ? SOCK_RAW : SOCK_DGRAM, chance(50) ? 1 /* ICMP */ : 0);
            if (s >= 0 && chance(50))
                SC3(SYS_bind, s, arena, 16);
            sclose(s);
            break;
        }
        case 3: {
            long fd = sopen(nsf[below(sizeof nsf / sizeof nsf[0])], O_RDONLY, 0);
            if (fd >= 0)
                SC2(SYS_setns, fd, chance(60) ? 0 : chance(60) ? (uint64_t)(1ull << (below(32))) : gen_flags());
            if (fd >= 0 && chance(30))
                SC3(SYS_ioctl, fd, 0xb701 + below(4), 0); /* NS_GET_USERNS... */
            sclose(fd);
            break;
        }
        case 4: {
            int pid = fork();
            if (pid == 0) {
                syscall(SYS_getpid);
                syscall(SYS_exit_group, 0);
            }
            if (pid > 0) {
                long pfd = SC2(SYS_pidfd_open, pid, 0);
                if (pfd >= 0)
                    SC2(SYS_setns, pfd, chance(70) ? (flags & (CLONE_NEWUTS_ | CLONE_NEWNET_ | CLONE_NEWNS_ | CLONE_NEWIPC_)) : gen_flags());
                sclose(pfd);
                reap_child(pid, 50);
            }
            break;
        }
        case 5: SC1(SYS_unshare, chance(70) ? (1ull << (7 + below(25))) & 0xfc000080ull : gen_flags()); break;
        default: {
            long fd = sopen("/proc/self/uid_map", O_RDONLY, 0);
            if (fd >= 0)
                SC3(SYS_read, fd, buf, 256);
            sclose(fd);
            break;
        }
        }
    }
}

static void surf_ns(void)
{
    int pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        is_copy = 1;
        my_pid = getpid();
        static const uint64_t all[] = {CLONE_NEWNS_, CLONE_NEWUTS_, CLONE_NEWIPC_, CLONE_NEWNET_,
                                       CLONE_NEWPID_, CLONE_NEWUSER_, CLONE_NEWCGROUP_, CLONE_NEWTIME_};
        uint64_t flags = 0;
        for (int i = 1 + below(4); i > 0; i--)
            flags |= all[below(8)];
        if (chance(10))
            flags |= gen_flags();
        ns_child(flags);
        syscall(SYS_exit_group, 0);
    }
    reap_child(pid, 300);
}

static void focus_action(void)
{
    switch (below(5)) {
    case 0: surf_packet(); break;
    case 1: surf_mountapi(); break;
    case 2: surf_pidfd(); break;
    case 3: surf_ns(); break;
    default: surf_ptrace(); break;
    }
}
