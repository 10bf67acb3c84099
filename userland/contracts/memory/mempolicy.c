/* set_mempolicy/get_mempolicy/mbind on a machine with one memory node:
 * each mode with node 0 is kept and reported (with its mode flags and,
 * for STATIC/RELATIVE, the mask as given), a mask without node 0 is
 * EINVAL (except RELATIVE, folded onto it), MPOL_DEFAULT and MPOL_LOCAL
 * take no nodes, bad modes, flags and masks are EINVAL, children inherit
 * the policy; get_mempolicy's MPOL_F_MEMS_ALLOWED, MPOL_F_NODE and
 * MPOL_F_ADDR; mbind's argument checks and holes (EFAULT). */
#include "common.h"
#include <sys/mman.h>
#include <sys/wait.h>

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2
#define MPOL_F_MEMS_ALLOWED 4
#define MPOL_MF_STRICT 1
#define MPOL_MF_MOVE 2
#define MPOL_MF_MOVE_ALL 4

static long setp(int mode, unsigned long *mask, unsigned long maxnode) { return syscall(SYS_set_mempolicy, mode, mask, maxnode); }

static void report(const char *label)
{
    int mode = -1;
    unsigned long mask[2] = { ~0UL, ~0UL };
    long r = syscall(SYS_get_mempolicy, &mode, mask, 128, 0, 0);
    if (r < 0)
        out("%s: get_mempolicy %s", label, errname(errno));
    else
        out("%s: mode %#x mask %#lx %#lx", label, mode, mask[0], mask[1]);
}

int main(void)
{
    report("initial");
    unsigned long node0 = 1, node1 = 2, nodes01 = 3, none = 0;
    check("BIND node 0", setp(MPOL_BIND, &node0, 64));
    report("BIND");
    check("INTERLEAVE nodes 0,1", setp(MPOL_INTERLEAVE, &nodes01, 64));
    report("INTERLEAVE");
    int node = -1;
    check("MPOL_F_NODE (next interleave node)", syscall(SYS_get_mempolicy, &node, NULL, 0, 0, MPOL_F_NODE));
    out("node: %d", node);
    check("PREFERRED node 0", setp(MPOL_PREFERRED, &node0, 64));
    report("PREFERRED");
    check("MPOL_F_NODE without interleave", syscall(SYS_get_mempolicy, &node, NULL, 0, 0, MPOL_F_NODE));
    check("PREFERRED empty (local)", setp(MPOL_PREFERRED, &none, 64));
    report("PREFERRED empty");
    check("PREFERRED_MANY node 0", setp(MPOL_PREFERRED_MANY, &node0, 64));
    report("PREFERRED_MANY");
    check("LOCAL", setp(MPOL_LOCAL, NULL, 0));
    report("LOCAL");
    check("LOCAL with a node", setp(MPOL_LOCAL, &node0, 64));
    check("BIND | STATIC node 0,1", setp(MPOL_BIND | MPOL_F_STATIC_NODES, &nodes01, 64));
    report("BIND | STATIC");
    check("BIND | RELATIVE node 1", setp(MPOL_BIND | MPOL_F_RELATIVE_NODES, &node1, 64));
    report("BIND | RELATIVE");
    check("BIND | NUMA_BALANCING", setp(MPOL_BIND | MPOL_F_NUMA_BALANCING, &node0, 64));
    report("BIND | NUMA_BALANCING");
    check("INTERLEAVE | NUMA_BALANCING", setp(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, &node0, 64));
    check("STATIC | RELATIVE", setp(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, &node0, 64));
    check("BIND node 1 only", setp(MPOL_BIND, &node1, 64));
    check("BIND no nodes", setp(MPOL_BIND, &none, 64));
    check("BIND NULL mask", setp(MPOL_BIND, NULL, 64));
    check("BIND maxnode 1 (no bits)", setp(MPOL_BIND, &node0, 1));
    check("BIND maxnode 0", setp(MPOL_BIND, &node0, 0));
    check("PREFERRED | STATIC empty", setp(MPOL_PREFERRED | MPOL_F_STATIC_NODES, &none, 64));
    check("mode 6", setp(6, &node0, 64));
    check("mode -1", setp(-1, &node0, 64));
    check("DEFAULT with a node", setp(MPOL_DEFAULT, &node0, 64));
    check("maxnode past a page of bits", setp(MPOL_BIND, &node0, 4096 * 8 + 2));
    static unsigned long big[32];
    big[0] = 1;
    check("maxnode 2048, zeros past node 1023", setp(MPOL_BIND, big, 2048));
    big[20] = 1;
    check("maxnode 2048, a node past 1023", setp(MPOL_BIND, big, 2048));
    check("bad mask pointer", setp(MPOL_BIND, (void *)8, 64));
    check("BIND node 0 again", setp(MPOL_BIND, &node0, 64));

    pid_t child = fork();
    if (child == 0) {
        report("child inherits");
        _exit(0);
    }
    reap("child", child);
    check("DEFAULT", setp(MPOL_DEFAULT, NULL, 0));
    report("DEFAULT");

    int mode = -1;
    unsigned long mask[3] = { ~0UL, ~0UL, ~0UL };
    check("MEMS_ALLOWED", syscall(SYS_get_mempolicy, &mode, mask, 192, 0, MPOL_F_MEMS_ALLOWED));
    out("mode %d mask %#lx %#lx %#lx", mode, mask[0], mask[1], mask[2]);
    check("MEMS_ALLOWED | NODE", syscall(SYS_get_mempolicy, &mode, NULL, 0, 0, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE));
    mask[0] = mask[1] = ~0UL;
    check("maxnode 1", syscall(SYS_get_mempolicy, &mode, mask, 1, 0, 0));
    out("mask untouched: %s", yesno(mask[0] == ~0UL));
    check("maxnode 0 with a mask", syscall(SYS_get_mempolicy, &mode, mask, 0, 0, 0));
    check("maxnode past a page", syscall(SYS_get_mempolicy, &mode, mask, 4096 * 8 + 66, 0, 0));
    check("flags 8", syscall(SYS_get_mempolicy, &mode, NULL, 0, 0, 8));
    check("address without MPOL_F_ADDR", syscall(SYS_get_mempolicy, &mode, NULL, 0, 4096, 0));
    check("bad policy pointer", syscall(SYS_get_mempolicy, (void *)8, NULL, 0, 0, 0));

    char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 1;
    mode = -1;
    check("MPOL_F_ADDR", syscall(SYS_get_mempolicy, &mode, NULL, 0, p, MPOL_F_ADDR));
    out("mode: %d", mode);
    node = -1;
    check("MPOL_F_ADDR | MPOL_F_NODE", syscall(SYS_get_mempolicy, &node, NULL, 0, p, MPOL_F_ADDR | MPOL_F_NODE));
    out("node: %d", node);
    munmap(p + 2 * 4096, 4096);
    check("MPOL_F_ADDR unmapped", syscall(SYS_get_mempolicy, &mode, NULL, 0, p + 2 * 4096, MPOL_F_ADDR));

    check("mbind BIND node 0", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, 0));
    check("mbind STRICT", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, MPOL_MF_STRICT));
    check("mbind MOVE", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, MPOL_MF_MOVE));
    check("mbind MOVE_ALL (root)", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, MPOL_MF_MOVE_ALL));
    check("mbind flags 8", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, 8));
    check("mbind unaligned", syscall(SYS_mbind, p + 1, 4096, MPOL_BIND, &node0, 64, 0));
    check("mbind length 0", syscall(SYS_mbind, p, 0, MPOL_BIND, &node1, 64, 0));
    check("mbind node 1", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node1, 64, 0));
    check("mbind over a hole", syscall(SYS_mbind, p, 4 * 4096, MPOL_BIND, &node0, 64, 0));
    check("mbind DEFAULT over a hole", syscall(SYS_mbind, p, 4 * 4096, MPOL_DEFAULT, NULL, 0, 0));
    check("mbind only the hole", syscall(SYS_mbind, p + 2 * 4096, 4096, MPOL_DEFAULT, NULL, 0, 0));
    check("mbind wrapping length", syscall(SYS_mbind, p, -4096L, MPOL_BIND, &node0, 64, 0));
    check("mbind bad mode", syscall(SYS_mbind, p, 4096, 9, &node0, 64, 0));

    child = fork();
    if (child == 0) {
        if (setresuid(65534, 65534, 65534) != 0)
            _exit(9);
        check("unprivileged mbind MOVE_ALL", syscall(SYS_mbind, p, 4096, MPOL_BIND, &node0, 64, MPOL_MF_MOVE_ALL));
        check("unprivileged set_mempolicy", setp(MPOL_BIND, &node0, 64));
        _exit(0);
    }
    reap("unprivileged", child);
    return 0;
}
