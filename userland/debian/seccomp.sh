#!/bin/bash
# seccomp and no_new_privs through Debian's programs: setpriv
# --no-new-privs (the flag in /proc/PID/status, kept across exec and by
# children, set-user-id bits then ignored), and strace --seccomp-bpf, which
# installs a classic BPF filter returning SECCOMP_RET_TRACE for the traced
# calls and SECCOMP_RET_ALLOW for the rest, and stops only at
# PTRACE_EVENT_SECCOMP (so untraced calls never stop the tracee).
show() { grep -E '^(NoNewPrivs|Seccomp|Seccomp_filters):' "$1" | tr '\t' ' '; }
show /proc/self/status
setpriv --no-new-privs cat /proc/self/status > /tmp/n
echo "setpriv status: $?"
show /tmp/n
# Inherited by a child of the child, and a set-user-id program (su) gains
# nothing under it: it fails as the user it was started by.
setpriv --no-new-privs bash -c 'cat /proc/self/status' > /tmp/n
show /tmp/n
setpriv --no-new-privs --reuid=65534 --regid=65534 --clear-groups su -c true root </dev/null >/dev/null 2>&1
echo "su under no_new_privs as nobody: $?"
# strace with the filter: only mkdir and rmdir are traced (signals are
# not shown: their siginfo has pids and times).
strace -f --seccomp-bpf -qq -e signal=none -e trace=mkdir,rmdir -o /tmp/s bash -c 'mkdir /tmp/sc-dir; rmdir /tmp/sc-dir; ls /tmp/sc-dir 2>/dev/null; grep -E "^(NoNewPrivs|Seccomp)" /proc/self/status | tr "\t" " "'
echo "strace status: $?"
sed -e 's/^[0-9]* *//' /tmp/s
# The same without the filter: the same calls are reported.
strace -f -qq -e signal=none -e trace=mkdir,rmdir -o /tmp/t bash -c 'mkdir /tmp/sc-dir; rmdir /tmp/sc-dir'
echo "strace status: $?"
sed -e 's/^[0-9]* *//' /tmp/t
# One process, no -f: the filter is not used, the calls are.
strace -qq -e signal=none -e trace=mkdir,rmdir -o /tmp/u mkdir /tmp/sc-dir2
echo "strace status: $?"
sed -e 's/^[0-9]* *//' /tmp/u
rmdir /tmp/sc-dir2
rm -f /tmp/s /tmp/t /tmp/u /tmp/n
exit 0
