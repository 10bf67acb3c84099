#!/bin/sh
# exec redirections: opening, duplicating and closing numbered fds in the shell itself.
exec 3> out3
echo "to fd 3" >&3
echo "again" >&3
exec 3>&-
cat out3
echo "write to closed fd: $(sh -c 'echo x >&3' 2>/dev/null; echo $?)"
exec 4< out3
read first <&4
read second <&4
echo "read: $first / $second"
exec 4<&-
exec 5>> out3
echo appended >&5
exec 5>&-
tail -n 1 out3
exec 6>&1
exec > redirected
echo "this goes to a file"
exec 1>&6 6>&-
echo "back on stdout: $(cat redirected)"
exec 7<> rw
echo "read-write fd" >&7
exec 7>&-
cat rw
exec 3>&2 2>/dev/null
ls missing
exec 2>&3 3>&-
echo "stderr restored"
exit 0
