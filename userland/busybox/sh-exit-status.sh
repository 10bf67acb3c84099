#!/bin/sh
# Exit statuses: true/false, !, && and ||, sh -c exit N, missing command, not executable.
true; echo "true: $?"
false; echo "false: $?"
! true; echo "! true: $?"
true && echo "&& ran"
false && echo "not printed"
false || echo "|| ran"
sh -c 'exit 42'; echo "exit 42: $?"
sh -c 'exit 256'; echo "exit 256: $?"
sh -c 'exit 255'; echo "exit 255: $?"
no-such-command 2>/dev/null; echo "missing command: $?"
echo 'echo hi' > noexec.sh
./noexec.sh 2>/dev/null; echo "not executable: $?"
chmod +x noexec.sh
./noexec.sh; echo "executable without #!: $?"
printf '#!/bin/sh\nexit 9\n' > nine.sh; chmod 755 nine.sh
./nine.sh; echo "script: $?"
if false; then :; else echo "if-else status $?"; fi
f() { return 5; }; f; echo "function return: $?"
exit 0
