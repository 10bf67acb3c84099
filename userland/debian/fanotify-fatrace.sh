#!/bin/bash
# fatrace (Debian's, over fanotify: with -c a file-system mark on the ext4
# scratch disk, FAN_REPORT_DFID_NAME events whose directory handles it
# opens with open_by_handle_at and names through /proc/self/fd, the disk
# found by its statfs f_fsid) while commands open, read, write, create,
# rename and delete files there. Each command's lines: which command it
# was (by the event's pid), the event letters and the path. Not the name
# fatrace prints: it reads /proc/PID/comm when it gets to the event, and
# a command that has exited by then is "unknown" (seen at -smp 2 on a
# loaded host). Linux merges
# identical queued events as the reader's timing lets it, so a file's
# letters from one command are merged into one line, in a fixed order.
# Also `stat -f` of the disk: f_fsid folded from the superblock's UUID.
stat -f -c 'scratch: type %T id %i' /mnt
uuid=$(tune2fs -l /dev/vdb 2>/dev/null | sed -n 's/^Filesystem UUID: *//p' | tr -d -)
if [ -n "$uuid" ]; then
    # Linux's uuid_to_fsid: the two little-endian 64-bit halves xor'd;
    # stat prints val[0] then val[1], eight hex digits each.
    le() { local h=$1 out= i; for ((i = 14; i >= 0; i -= 2)); do out+=${h:i:2}; done; echo $((16#$out)); }
    x=$(( $(le ${uuid:0:16}) ^ $(le ${uuid:16:16}) ))
    want=$(printf '%08x%08x' $((x & 0xffffffff)) $(((x >> 32) & 0xffffffff)))
    got=$(stat -f -c %i /mnt)
    [ "$got" = "$want" ] && echo "id from the UUID: yes" || echo "id from the UUID: no ($got, $want)"
fi
d=/mnt/fatrace-dir
rm -rf $d; mkdir $d
: > ft.out; : > ft.err
(cd $d && exec stdbuf -oL fatrace -c) > ft.out 2> ft.err &
f=$!
seen() { # seen PATTERN: until ft.out has a line matching it, touching $d/$2 meanwhile, up to 120 s
    local end=$((SECONDS + 120))
    while [ $SECONDS -lt $end ]; do
        grep -q -- "$1" ft.out && return 0
        [ -n "$2" ] && : >> "$d/$2"
        sleep 0.1
    done
    echo "timed out waiting for $1"; cat ft.err
}
seen " $d/ready\$" ready
sh -c 'echo $$ > pids; exec cp /etc/hostname '$d'/a'
sh -c 'echo $$ >> pids; exec cat '$d'/a' > /dev/null
sh -c 'echo $$ >> pids; exec mv '$d'/a '$d'/b'
sh -c 'echo $$ >> pids; exec rm '$d'/b'
sh -c 'echo $$ >> pids; exec mkdir '$d'/sub'
sh -c 'echo $$ >> pids; exec rmdir '$d'/sub'
sh -c 'echo $$ >> pids; exec dd if=/dev/zero of='$d'/c bs=512 count=2 status=none'
seen " $d/end\$" end
kill $f; wait $f 2>/dev/null
echo "fatrace status $?"
mapfile -t pids < pids
# comm(pid): EVENTS path -> one line per command and path, its letters merged.
awk -v d="$d" -v pids="${pids[*]}" '
    BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) ours[p[i]] = i }
    {
        i = index($0, "("); if (i == 0) next
        comm = substr($0, 1, i - 1); rest = substr($0, i + 1)
        j = index(rest, "): "); if (j == 0) next
        pid = substr(rest, 1, j - 1); rest = substr(rest, j + 3)
        sub(/^ +/, "", rest)
        k = index(rest, " "); if (k == 0) next
        ev = substr(rest, 1, k - 1); path = substr(rest, k + 1)
        sub(/^ +/, "", path)
        if (!(pid in ours)) next
        if (index(path, d) == 1) path = "D" substr(path, length(d) + 1)
        key = ours[pid] " " path
        letters[key] = letters[key] ev
    }
    END {
        order = "+D<>ORWC"
        for (key in letters) {
            s = ""
            for (i = 1; i <= length(order); i++) { c = substr(order, i, 1); if (index(letters[key], c)) s = s c }
            print key ": " s
        }
    }' ft.out | sort -n
echo "errors:"; cat ft.err
rm -rf $d ft.out ft.err pids
exit 0
