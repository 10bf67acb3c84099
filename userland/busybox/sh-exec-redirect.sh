#!/bin/sh
# exec with redirections only: stdout sent to a file and restored through
# a saved fd, reading through an fd opened with exec 3<, closing with
# 3<&- (later use fails), moving fds, and exec in a subshell.
exec 4>&1
exec > captured
echo "into the file"
ls missing-file 2>&1
exec 1>&4 4>&-
echo "back on stdout"; cat captured | sed 's/:.*//'
printf 'l1\nl2\nl3\n' > src
exec 3< src
read -r a <&3; read -r b <&3; echo "$a $b"
exec 3<&-
read -r c <&3 2>/dev/null; echo "closed fd: $?"
exec 5> five; echo to-five >&5; exec 5>&-; cat five
exec 6< src 7<&6 6<&-; read -r m <&7; echo "moved: [$m]"; exec 7<&-
( exec > sub-out; echo "subshell exec" ); echo "after subshell"; cat sub-out
exec 2>/dev/null; ls missing-file; echo "stderr silenced: $?"
exit 0
