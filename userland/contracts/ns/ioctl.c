/* The nsfs ioctls on the fds of /proc/self/ns: NS_GET_NSTYPE gives each one's
 * CLONE_NEW* flag, NS_GET_USERNS an fd of the owning (initial) user
 * namespace, close-on-exec, and EPERM on the user namespace itself,
 * NS_GET_PARENT EPERM for the initial PID and user namespaces and EINVAL
 * for the kinds without parents, NS_GET_OWNER_UID root for the initial
 * user namespace and EINVAL for other kinds; an unknown request is
 * ENOTTY. */
#include "../common.h"
#include <sched.h>
#include <sys/ioctl.h>

#define NSIO 0xb7
#define NS_GET_USERNS _IO(NSIO, 0x1)
#define NS_GET_PARENT _IO(NSIO, 0x2)
#define NS_GET_NSTYPE _IO(NSIO, 0x3)
#define NS_GET_OWNER_UID _IO(NSIO, 0x4)

static const char *flag_name(long f)
{
    switch (f) {
    case CLONE_NEWNS: return "CLONE_NEWNS";
    case CLONE_NEWUTS: return "CLONE_NEWUTS";
    case CLONE_NEWIPC: return "CLONE_NEWIPC";
    case CLONE_NEWNET: return "CLONE_NEWNET";
    case CLONE_NEWPID: return "CLONE_NEWPID";
    case CLONE_NEWCGROUP: return "CLONE_NEWCGROUP";
    case CLONE_NEWUSER: return "CLONE_NEWUSER";
    case 0x80: return "CLONE_NEWTIME";
    }
    return "?";
}

static const char *names[] = {"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children", "user", "uts"};

int main(void)
{
    struct stat user_st;
    stat("/proc/self/ns/user", &user_st);
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/ns/%s", names[i]);
        int fd = open(path, O_RDONLY);
        long type = ioctl(fd, NS_GET_NSTYPE);
        out("%s: NS_GET_NSTYPE %s", names[i], type < 0 ? errname(errno) : flag_name(type));
        int u = ioctl(fd, NS_GET_USERNS);
        if (u < 0) {
            out("%s: NS_GET_USERNS %s", names[i], errname(errno));
        } else {
            struct stat st;
            fstat(u, &st);
            out("%s: NS_GET_USERNS the user namespace: %s, cloexec: %s", names[i], yesno(st.st_ino == user_st.st_ino && st.st_dev == user_st.st_dev), yesno(fcntl(u, F_GETFD) & FD_CLOEXEC));
            close(u);
        }
        int p = ioctl(fd, NS_GET_PARENT);
        out("%s: NS_GET_PARENT %s", names[i], p < 0 ? errname(errno) : "an fd");
        unsigned uid = 12345;
        int r = ioctl(fd, NS_GET_OWNER_UID, &uid);
        if (r < 0)
            out("%s: NS_GET_OWNER_UID %s", names[i], errname(errno));
        else
            out("%s: NS_GET_OWNER_UID %u", names[i], uid);
        out("%s: unknown request %s", names[i], ioctl(fd, _IO(NSIO, 0x40)) < 0 ? errname(errno) : "ok");
        close(fd);
    }
    return 0;
}
