#!/bin/bash
# inotifywait (inotify-tools) watching a directory: the create, modify,
# close, move and delete events of a file and a directory, as it prints
# them. Each step waits for its events to be printed before the next, so
# no two identical events can merge in the queue.
d=$(mktemp -d -p .)
: > iw.out; : > iw.err
inotifywait -m -e create,modify,close_write,moved_from,moved_to,delete --format '%e %f' "$d" > iw.out 2> iw.err &
w=$!
waitfor() { # waitfor N FILE: until FILE has N lines (bash builtins only), up to 120 s
    local end=$((SECONDS + 120)) lines
    while [ $SECONDS -lt $end ]; do
        mapfile -t lines < "$2"
        [ ${#lines[@]} -ge "$1" ] && return 0
        sleep 0.2
    done
    echo "timed out waiting for line $1 of $2"
}
waitfor 2 iw.err
touch "$d/a"; waitfor 2 iw.out
printf x >> "$d/a"; waitfor 4 iw.out
mkdir "$d/sub"; waitfor 5 iw.out
mv "$d/a" "$d/b"; waitfor 7 iw.out
rm "$d/b"; waitfor 8 iw.out
rmdir "$d/sub"; waitfor 9 iw.out
kill $w; wait $w 2>/dev/null
cat iw.out
cat iw.err
rm -rf "$d" iw.out iw.err
exit 0
