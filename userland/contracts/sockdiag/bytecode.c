/* inet_diag's socket filter (INET_DIAG_REQ_BYTECODE, what ss sends for
 * an expression): TCP listeners on 127.0.0.1:4840-4842 and a connection
 * to 4840 (client on an ephemeral port). Programs: a port comparison, an
 * address condition with a prefix and a port, AUTO (ports the stack
 * picked), an OR made with jumps, a program that ends by jumping past
 * its end (takes nothing); and the audit's refusals: empty, unknown
 * operation, unaligned or too long jumps, a jump into an operand,
 * truncated conditions, a bad address family or prefix (EINVAL), and a
 * mark condition without CAP_NET_ADMIN (EPERM). */
#include "sockdiag.h"

enum { NOP, JMP, S_GE, S_LE, D_GE, D_LE, AUTO, S_COND, D_COND, DEV_COND, MARK_COND, S_EQ, D_EQ, CGROUP_COND };
struct op {
    uint8_t code, yes;
    uint16_t no;
};
struct hostcond {
    uint8_t family, prefix_len;
    uint16_t pad;
    int port;
    uint32_t addr[4];
};

static const char *names[] = {"l4840", "l4841", "l4842", "client", "server"};
static int fds[5];

static void run(int d, const char *label, const void *code, size_t len)
{
    char body[512];
    struct inet_diag_req_v2 req = {.family = AF_INET, .protocol = IPPROTO_TCP, .states = 0xfff};
    memcpy(body, &req, sizeof req);
    size_t blen = sizeof req;
    nl_attr(body, &blen, INET_DIAG_REQ_BYTECODE, code, len);
    struct replies r;
    ask(d, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, body, blen, &r);
    char *lines[16];
    int n = 0;
    for (int i = 0; i < r.n; i++) {
        int k = which_fd(((struct inet_diag_msg *)(r.msg[i] + 1))->inode, fds, 5);
        if (k >= 0 && n < 16)
            lines[n++] = strdup(names[k]);
    }
    qsort(lines, n, sizeof *lines, cmp_lines);
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        snprintf(list + strlen(list), sizeof list - strlen(list), " %s", lines[i]);
        free(lines[i]);
    }
    out("%s: %s;%s", label, ending(&r), n ? list : " none");
    replies_free(&r);
}

int main(void)
{
    diag_setup();
    for (int i = 0; i < 3; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = loopback(4840 + i);
        check("bind", bind(fds[i], (struct sockaddr *)&a, sizeof a));
        check("listen", listen(fds[i], 2));
    }
    fds[3] = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4840);
    check("connect", connect(fds[3], (struct sockaddr *)&a, sizeof a));
    fds[4] = accept(fds[0], NULL, NULL);
    int d = diag_open();

    struct op ge[2] = {{S_GE, 8, 12}, {0, 0, 4841}};
    run(d, "sport >= 4841", ge, sizeof ge);
    struct op le[2] = {{S_LE, 8, 12}, {0, 0, 4841}};
    run(d, "sport <= 4841", le, sizeof le);
    struct op eq[2] = {{D_EQ, 8, 12}, {0, 0, 4840}};
    run(d, "dport == 4840", eq, sizeof eq);
    struct op autoport[1] = {{AUTO, 4, 8}};
    run(d, "auto", autoport, sizeof autoport);
    struct {
        struct op op;
        struct hostcond c;
    } dst = {{D_COND, 4 + 8 + 4, 4 + 8 + 4 + 4}, {AF_INET, 32, 0, -1, {htonl(INADDR_LOOPBACK)}}};
    run(d, "dst 127.0.0.1/32", &dst, 4 + 8 + 4);
    dst.c.addr[0] = htonl(0x7f000000);
    dst.c.prefix_len = 8;
    dst.c.port = 4840;
    run(d, "dst 127/8 port 4840", &dst, 4 + 8 + 4);
    dst.op = (struct op){S_COND, 4 + 8, 4 + 8 + 4};
    dst.c.family = AF_UNSPEC;
    dst.c.prefix_len = 0;
    dst.c.port = 4842;
    run(d, "src any port 4842", &dst, 4 + 8);
    /* sport == 4840 || sport == 4842, as ss lays out an OR: the first
     * test, a JMP to the end (its yes), the second test (its no). */
    struct op or[5] = {{S_EQ, 8, 12}, {0, 0, 4840}, {JMP, 4, 12}, {S_EQ, 8, 12}, {0, 0, 4842}};
    run(d, "sport 4840 or 4842", or, sizeof or);
    /* A program ending 4 bytes past its end takes nothing when run; the
     * audit refuses one whose last step goes there. */
    struct op never[2] = {{S_GE, 8, 12}, {0, 0, 65535}};
    run(d, "sport >= 65535", never, sizeof never);
    struct op past[2] = {{NOP, 8, 8}, {NOP, 4, 4}};
    run(d, "last step past the end", past, 4);
    struct op nop[1] = {{NOP, 4, 0}};
    run(d, "nop", nop, sizeof nop);

    run(d, "empty", "", 0);
    struct op bad[1] = {{99, 4, 8}};
    run(d, "code 99", bad, sizeof bad);
    struct op unaligned[2] = {{S_GE, 6, 12}, {0, 0, 1}};
    run(d, "yes 6", unaligned, sizeof unaligned);
    struct op far[2] = {{S_GE, 8, 40}, {0, 0, 1}};
    run(d, "no 40", far, sizeof far);
    struct op into[4] = {{S_GE, 12, 4}, {0, 0, 1}, {NOP, 4, 4}, {NOP, 4, 4}};
    run(d, "no 4 (short of the operand)", into, sizeof into);
    struct op mid[5] = {{S_GE, 8, 12}, {0, 0, 1}, {S_LE, 8, 8}, {0, 0, 9}, {NOP, 4, 4}};
    run(d, "no into an operand", mid, sizeof mid);
    struct op cut[1] = {{S_GE, 4, 8}};
    run(d, "port test without its operand", cut, sizeof cut);
    dst.op = (struct op){D_COND, 4 + 8 + 4, 4 + 8 + 4 + 4};
    dst.c.family = AF_INET;
    dst.c.prefix_len = 33;
    run(d, "prefix 33", &dst, 4 + 8 + 4);
    dst.c.family = 7;
    dst.c.prefix_len = 0;
    run(d, "family 7", &dst, 4 + 8 + 4);
    dst.c.family = AF_INET6;
    run(d, "inet6 condition cut short", &dst, 4 + 8 + 4);
    struct {
        struct op op;
        uint32_t mark, mask;
    } mark = {{MARK_COND, 12, 16}, 0, 0};
    run(d, "mark 0/0 as root", &mark, sizeof mark);
    pid_t child = fork();
    if (child == 0) {
        if (setresuid(1234, 1234, 1234) < 0)
            _exit(1);
        int d2 = diag_open();
        run(d2, "mark 0/0 as uid 1234", &mark, sizeof mark);
        run(d2, "auto as uid 1234", autoport, sizeof autoport);
        _exit(0);
    }
    reap("child", child);
    return 0;
}
