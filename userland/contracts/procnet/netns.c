/* /proc/net is a link to self/net, and /proc/PID/net shows the network
 * namespace of that process: a listener made in the first namespace is
 * in its /proc/net/tcp and not in the /proc/net/tcp of a child that
 * moved to a new namespace, which sees it through /proc/PARENT/net/tcp;
 * the child's own listener is only in its namespace's. */
#include "procnet.h"

static int has_port(const char *path, int port)
{
    char want[8];
    snprintf(want, sizeof want, ":%04X ", port);
    if (slurp(path) < 0)
        return -1;
    return strstr(text, want) != NULL;
}

int main(void)
{
    char link[64];
    ssize_t n = readlink("/proc/net", link, sizeof link - 1);
    link[n < 0 ? 0 : n] = 0;
    out("readlink /proc/net: %s", n < 0 ? errname(errno) : link);
    struct stat st;
    out("lstat /proc/net is a link: %s", yesno(lstat("/proc/net", &st) == 0 && S_ISLNK(st.st_mode)));
    out("stat /proc/self/net is a directory: %s", yesno(stat("/proc/self/net", &st) == 0 && S_ISDIR(st.st_mode)));

    fresh_net();
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(4690);
    check("bind 127.0.0.1:4690", bind(l, (struct sockaddr *)&a, sizeof a));
    check("listen", listen(l, 4));
    out("parent sees its listener: %d", has_port("/proc/net/tcp", 4690));
    int to_child[2], to_parent[2];
    check("pipe", pipe(to_child));
    check("pipe", pipe(to_parent));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        check("child unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
        link_set_up(1, 1);
        int m = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in b = loopback(4691);
        check("child bind 127.0.0.1:4691", bind(m, (struct sockaddr *)&b, sizeof b));
        check("child listen", listen(m, 4));
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/net/tcp", (int)parent);
        out("child: /proc/net/tcp has 4690 %d, 4691 %d", has_port("/proc/net/tcp", 4690), has_port("/proc/net/tcp", 4691));
        out("child: /proc/self/net/tcp has 4690 %d, 4691 %d", has_port("/proc/self/net/tcp", 4690), has_port("/proc/self/net/tcp", 4691));
        out("child: /proc/PARENT/net/tcp has 4690 %d, 4691 %d", has_port(path, 4690), has_port(path, 4691));
        if (write(to_parent[1], "x", 1) != 1)
            _exit(1);
        char c;
        if (read(to_child[0], &c, 1) != 1)
            _exit(1);
        _exit(0);
    }
    char c;
    if (read(to_parent[0], &c, 1) != 1)
        out("child failed");
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/net/tcp", (int)pid);
    out("parent: /proc/net/tcp has 4690 %d, 4691 %d", has_port("/proc/net/tcp", 4690), has_port("/proc/net/tcp", 4691));
    out("parent: /proc/CHILD/net/tcp has 4690 %d, 4691 %d", has_port(path, 4690), has_port(path, 4691));
    snprintf(path, sizeof path, "/proc/%d/task/%d/net/tcp", (int)pid, (int)pid);
    out("parent: /proc/CHILD/task/CHILD/net/tcp has 4690 %d, 4691 %d", has_port(path, 4690), has_port(path, 4691));
    if (write(to_child[1], "x", 1) != 1)
        out("write failed");
    int status;
    waitpid(pid, &status, 0);
    out("child exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
