#!/bin/sh
# Here-documents larger than a pipe buffer: the shell must feed all of it
# (it needs a helper or a temporary file beyond 64 KiB), and an expanded
# one as well.
seq 1 20000 > expect
body=$(cat expect)
cat > script <<E
cat <<'X'
$body
X
E
sh script | cmp - expect && echo "100 KiB here-document intact"
sh script | wc -l
big=$(printf '%070000d' 0)
cat <<E | wc -c
$big
E
exit 0
