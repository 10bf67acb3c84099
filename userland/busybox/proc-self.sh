#!/bin/sh
# The shell's own /proc entries: the executable, command line, name,
# working directory and open files, and /proc/self.
readlink /proc/$$/exe
cat /proc/$$/comm
tr '\0' ' ' < /proc/$$/cmdline; echo
[ "$(readlink /proc/self/cwd)" = "$(pwd)" ] && echo "cwd link is pwd"
cd /tmp && readlink /proc/$$/cwd && cd - >/dev/null
exec 3> out.txt
echo hello >&3
[ "$(readlink /proc/$$/fd/3)" = "$(pwd)/out.txt" ] && echo "fd 3 link is the file"
echo "via proc" > /proc/self/fd/3
exec 3>&-
cat out.txt
echo piped | cat /proc/self/fd/0
# No pipeline here: the shell would hold the pipe's fds while ls looks.
ls /proc/$$/fd > fds.txt
sort -n fds.txt | head -3 | tr '\n' ' '; echo
[ -d /proc/self ] && [ -L /proc/self ] && echo "/proc/self is a link to a directory"
grep -c '^Name:' /proc/$$/status
awk '{ print NF }' /proc/$$/stat
exit 0
