#!/bin/sh
# xargs options: -n, -I with several uses, -t (the command on stderr),
# -r on empty input, -E end marker, -a input file, quotes in input, and the
# statuses 123/124/126/127.
printf 'a b c\nd e\nf\n' > in
xargs -n 2 echo < in
xargs -I {} echo '<{}>' '{}!' < in
echo x y | xargs -t echo 2>&1
: | xargs -r echo never; echo "-r: $?"
: | xargs echo "empty input runs once"
printf 'one two STOP three\n' | xargs -E STOP echo
xargs -a in echo from file:
printf '"quoted arg" plain '"'single q'"'\n' | xargs -n 1 echo
printf '1\n2\n' | xargs sh -c 'exit 1'; echo "failing command: $?"
echo 1 | xargs sh -c 'exit 255' 2>/dev/null; echo "status 255: $?"
echo 1 | xargs ./not-there 2>/dev/null; echo "missing command: $?"
touch noexec; echo 1 | xargs ./noexec 2>/dev/null; echo "not executable: $?"
exit 0
