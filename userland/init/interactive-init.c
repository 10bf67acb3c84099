/* interactive-init: PID 1 of the interactive image (build/interactive.cpio,
 * what `make run` boots).
 *
 * Mounts proc, sysfs, devtmpfs, devpts, and tmpfs on /tmp and /run (a
 * filesystem the kernel does not have yet is skipped quietly), names the
 * machine, brings the loopback interface up (it starts down, as on
 * Linux: a distribution's init does this), and keeps a login-free BusyBox shell on the serial console:
 * the shell leads its own session with the console as its controlling
 * terminal, so job control (Ctrl-C, Ctrl-Z, fg, bg) works. When the shell
 * exits, a new one starts.
 *
 * BusyBox's poweroff, halt and reboot (without -f) signal PID 1: SIGUSR2,
 * SIGUSR1 and SIGTERM. Then every process gets SIGTERM, then SIGKILL, and
 * the machine stops with reboot(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOSTNAME "kevlar"

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void say(const char *text)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(2, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

static void mount_quietly(const char *source, const char *target, const char *type,
                          unsigned long flags, const char *data)
{
    mkdir(target, 0755);
    (void)mount(source, target, type, flags, data);
}

/* The shell's terminal: the serial port itself, so that the shell gets job
 * control (files opened as /dev/console are exempt from it, as on Linux). */
static int open_terminal(void)
{
    int fd = open("/dev/ttyS0", O_RDWR);
    if (fd < 0)
        fd = open("/dev/console", O_RDWR);
    return fd;
}

static pid_t start_shell(void)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL);
    setsid();
    /* A session leader opening a terminal without O_NOCTTY makes it the
     * session's controlling terminal; TIOCSCTTY covers /dev/console. */
    int fd = open_terminal();
    if (fd < 0)
        _exit(127);
    ioctl(fd, TIOCSCTTY, 0);
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2)
        close(fd);
    if (chdir("/root") != 0)
        chdir("/");
    char *argv[] = { "-sh", NULL };
    char *envp[] = {
        "HOME=/root", "PATH=/sbin:/usr/sbin:/bin:/usr/bin", "SHELL=/bin/sh",
        "TERM=vt100", "USER=root", "LOGNAME=root", NULL,
    };
    execve("/bin/sh", argv, envp);
    _exit(127);
}

/* Reaps children for up to `ms` milliseconds, or until none is left. */
static void reap_for(int ms)
{
    struct timespec tick = { 0, 20 * 1000 * 1000 };
    for (int waited = 0; waited < ms; waited += 20) {
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
            return;
        nanosleep(&tick, NULL);
    }
}

static void stop_machine(int sig)
{
    say("\ninit: stopping all processes\n");
    kill(-1, SIGTERM);
    reap_for(1000);
    kill(-1, SIGKILL);
    reap_for(1000);
    sync();
    int how = sig == SIGTERM ? RB_AUTOBOOT : sig == SIGUSR1 ? RB_HALT_SYSTEM : RB_POWER_OFF;
    reboot(how);
    say("init: reboot failed\n");
}

/* ifconfig lo up. */
static void loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP;
        ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    close(s);
}

int main(void)
{
    umask(022);
    mount_quietly("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
    mount_quietly("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
    mount_quietly("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=755");
    mount_quietly("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "mode=620,ptmxmode=666");
    mount_quietly("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
    mount_quietly("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755");
    sethostname(HOSTNAME, strlen(HOSTNAME));
    loopback_up();

    struct sigaction stop = { .sa_handler = on_stop_signal };
    sigemptyset(&stop.sa_mask);
    /* No SA_RESTART: a stop request interrupts wait(). */
    sigaction(SIGUSR1, &stop, NULL);
    sigaction(SIGUSR2, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGINT, &stop, NULL);

    say("\nKevlar: a BusyBox shell on the console. `poweroff` stops the machine.\n\n");
    while (!stop_signal) {
        time_t started = time(NULL);
        pid_t shell = start_shell();
        if (shell < 0) {
            say("init: cannot fork a shell\n");
            break;
        }
        while (!stop_signal) {
            pid_t done = wait(NULL);
            if (done == shell || (done < 0 && errno == ECHILD))
                break;
        }
        if (!stop_signal && time(NULL) - started < 2)
            sleep(1); /* a shell that cannot start must not spin */
    }
    stop_machine(stop_signal ? stop_signal : SIGUSR2);
    return 1;
}
