#!/bin/bash
# The application benchmarks (docs/benchmarks.md, "Application benchmarks"):
# real Debian programs from the ext2 root on the virtio disk, run by
# bench-init in disk mode as `bash /bench/apps.sh [quick] [NAME ...]`.
#
# Each row: untimed set-up, then one `timeit NAME -- command` (fork to wait
# in the guest, CLOCK_MONOTONIC), which prints `BENCH NAME <ns>` or
# `BENCH NAME unsupported <why>` with a `BENCH-WHY` line, then untimed
# clean-up. A row whose set-up fails is reported the same way: no row is
# ever left out. Work files live on the disk, under /var/tmp/bench.
# `quick` shrinks every count (make test); its figures mean nothing.

T=/bench/timeit
W=/var/tmp/bench
QUICK=0
if [ "$1" = quick ]; then QUICK=1; shift; fi
WANT=" $* "

want() { [ "$WANT" = "  " ] || [[ "$WANT" == *" $1 "* ]]; }
# q QUICK_VALUE FULL_VALUE
q() { if [ $QUICK = 1 ]; then echo "$1"; else echo "$2"; fi; }
# A row that could not start: reported, with the reason.
setup_failed() {
    echo "BENCH $1 unsupported setup-failed"
    echo "BENCH-WHY $1 $2"
}
# Wait (bounded) until a TCP port on 127.0.0.1 accepts connections.
wait_port() {
    local i
    for ((i = 0; i < 300; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

mkdir -p "$W"
cd "$W" || exit 1
echo "BENCH-APPS start quick=$QUICK"

if want app_gcc_static_hello; then
    printf '#include <stdio.h>\nint main(void)\n{\n    puts("hello");\n    return 0;\n}\n' > hello.c
    $T app_gcc_static_hello -- gcc -static -O2 -o hello hello.c
    [ -x hello ] && ./hello > /dev/null || echo "BENCH-NOTE app_gcc_static_hello: the program did not run"
    rm -f hello hello.c
fi

if want app_gcc_make; then
    rm -rf proj && cp -r /bench/proj proj
    # Bounded: on a kernel where make's job server stalls this is reported
    # as a timeout instead of holding the other rows up.
    $T app_gcc_make --timeout 240 -- make -C proj -j2
    rm -rf proj
fi


if want app_git; then
    N=$(q 20 200)
    rm -rf repo && mkdir repo
    for ((i = 0; i < N; i++)); do
        printf 'file %d\nline two of %d\n%s\n' $i $i "$(printf '%0*d' $((i % 50 + 10)) $i)" > repo/f$i.txt
    done
    cat > git-work.sh <<'GIT'
set -e
cd repo
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench
export GIT_COMMITTER_EMAIL=bench@localhost GIT_AUTHOR_DATE='2026-01-01T00:00:00Z'
export GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
git init -q -b main .
git add .
git commit -q -m initial
git checkout -q -b topic
echo change >> f1.txt
git commit -q -am topic
git checkout -q main
echo other >> f2.txt
git commit -q -am main
git merge -q --no-edit topic
git gc -q
git fsck --no-progress
GIT
    $T app_git -- bash git-work.sh
    rm -rf repo git-work.sh
fi

if want app_python_startup; then
    N=$(q 2 20)
    $T app_python_startup -- bash -c "for ((i = 0; i < $N; i++)); do python3 -c pass || exit 1; done"
fi

if want app_python_script; then
    $T app_python_script -- python3 /bench/script.py $(q 1 3)
fi

if want app_sqlite_wal; then
    N=$(q 200 10000)
    rm -f bench.db bench.db-wal bench.db-shm
    {
        echo "PRAGMA journal_mode=WAL;"
        echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v TEXT);"
        echo "CREATE INDEX t_k ON t(k);"
        echo "BEGIN;"
        seq $N | mawk '{ printf "INSERT INTO t(k, v) VALUES(\047k%05d\047, \047value %d\047);\n", ($1 * 7919) % 10007, $1 }'
        echo "COMMIT;"
        echo "SELECT count(*) FROM t;"
    } > inserts.sql
    cat > sqlite-work.sh <<SQL
out=\$(sqlite3 -bail bench.db < inserts.sql 2>&1)
[ "\$(echo "\$out" | tail -1)" = $N ] && exit 0
echo "\$out" | tr '\n' ' ' >&2
exit 1
SQL
    $T app_sqlite_wal -- bash sqlite-work.sh
    rm -f bench.db bench.db-wal bench.db-shm inserts.sql sqlite-work.sh
fi

if want app_redis_1c || want app_redis_50c; then
    redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --logfile /tmp/redis.log --dir /tmp > /tmp/redis.out 2>&1
    if wait_port 6379; then
        N1=$(q 200 4000)
        N50=$(q 500 10000)
        # -t set,get: N SETs then N GETs; the rate is both over the time.
        want app_redis_1c && $T app_redis_1c --ops $((2 * N1)) -- redis-benchmark -h 127.0.0.1 -p 6379 -q -n $N1 -c 1 -t set,get
        want app_redis_50c && $T app_redis_50c --ops $((2 * N50)) -- redis-benchmark -h 127.0.0.1 -p 6379 -q -n $N50 -c 50 -t set,get
        redis-cli -h 127.0.0.1 -p 6379 shutdown nosave > /dev/null 2>&1
    else
        why="redis-server did not listen on 6379: $(tail -1 /tmp/redis.log /tmp/redis.out 2>/dev/null | tr '\n' ' ')"
        want app_redis_1c && setup_failed app_redis_1c "$why"
        want app_redis_50c && setup_failed app_redis_50c "$why"
    fi
fi

# nginx_row NAME: start nginx with the configuration in place, time the
# load client, stop it.
nginx_row() {
    nginx > /tmp/nginx.out 2>&1
    local st=$?
    if [ $st = 0 ] && wait_port 80; then
        local n=$(q 100 2000)
        $T $1 --ops $n -- /bench/httpload 80 /index.nginx-debian.html $n 8
        nginx -s quit > /dev/null 2>&1
        for ((i = 0; i < 100; i++)); do [ -e /run/nginx.pid ] || break; sleep 0.1; done
    else
        setup_failed $1 "nginx did not start (status $st): $(cat /tmp/nginx.out 2>/dev/null | tail -1)"
    fi
}

if want app_nginx; then
    # Debian's default configuration: a master and `worker_processes auto`
    # workers serving the default site, which listens on 0.0.0.0:80 and
    # [::]:80.
    nginx_row app_nginx
fi

if want app_nginx_v4; then
    # The same with the default site's `listen [::]:80` line left out: the
    # IPv4 half of the default, for a kernel without IPv6.
    sed -i '/listen \[::\]:80/d' /etc/nginx/sites-available/default
    nginx_row app_nginx_v4
fi

if want app_ssh_login; then
    K=/etc/dropbear/dropbear_ed25519_host_key
    if { [ -f $K ] || dropbearkey -t ed25519 -f $K > /dev/null 2>&1; } &&
       { [ -f /root/.ssh/id_dropbear ] || dropbearkey -t ed25519 -f /root/.ssh/id_dropbear > /dev/null 2>&1; } &&
       dropbearkey -y -f /root/.ssh/id_dropbear 2>/dev/null | grep '^ssh-' > /root/.ssh/authorized_keys &&
       chmod 600 /root/.ssh/authorized_keys &&
       dropbear -r $K -p 127.0.0.1:22 -P /run/dropbear.pid > /tmp/dropbear.out 2>&1 && wait_port 22; then
        rm -f /root/.ssh/known_hosts
        N=$(q 1 5)
        $T app_ssh_login -- bash -c "for ((i = 0; i < $N; i++)); do dbclient -y -i /root/.ssh/id_dropbear -p 22 root@127.0.0.1 true || exit 1; done"
        [ -f /run/dropbear.pid ] && kill "$(cat /run/dropbear.pid)" 2> /dev/null
    else
        setup_failed app_ssh_login "dropbear did not start: $(tail -1 /tmp/dropbear.out 2>/dev/null)"
    fi
fi

if want app_tar_xz; then
    # The tree: real files from this root, 65 MiB in about 5,000
    # files: Python's standard library, Perl's modules, the C headers and
    # the packages' documentation (quick: the glibc headers' arch directory).
    rm -rf tree && mkdir tree
    if [ $QUICK = 1 ]; then DIRS=/usr/include/x86_64-linux-gnu
    else DIRS="/usr/lib/python3.11 /usr/share/perl /usr/include /usr/share/doc"; fi
    for d in $DIRS; do cp -a "$d" "tree/$(echo "${d#/}" | tr / _)" || break; done
    echo "BENCH-NOTE app_tar_xz tree $(du -sk --apparent-size tree | cut -f1) KiB $(find tree -type f | wc -l) files"
    cat > tarxz.sh <<'TXZ'
set -e
tar -cf tree.tar tree
xz -0 -T1 tree.tar
xz -d tree.tar.xz
mkdir back
tar -xf tree.tar -C back
TXZ
    $T app_tar_xz -- bash tarxz.sh
    rm -rf tree back tree.tar tree.tar.xz tarxz.sh
fi

# The disk's page cache emptied (dirty data written first): the next
# reads go to the disk.
drop_caches() {
    sync
    echo 3 > /proc/sys/vm/drop_caches
}

# fio: 4 KiB reads and writes of one file on the disk (ext4 through the
# kernel's page cache: buffered psync I/O, one job, as a program sees
# the disk), sequential and random, cold (after drop_caches) and warm
# (the file read through once, untimed; --invalidate=0, or fio would
# drop the file's cached pages first). Writes overwrite the laid-out
# file and end with an fsync, so the data reaches the disk.
FIO_ROWS=""
for rw in read randread write randwrite; do
    for t in cold warm; do FIO_ROWS="$FIO_ROWS app_fio_${rw}_$t"; done
done
fio_wanted=0
for r in $FIO_ROWS; do want $r && fio_wanted=1; done
if [ $fio_wanted = 1 ]; then
    MB=$(q 4 64)
    if dd if=/dev/zero of=fio.dat bs=1M count=$MB 2> /tmp/fio-setup.err && sync; then
        for rw in read randread write randwrite; do
            for t in cold warm; do
                name=app_fio_${rw}_$t
                want $name || continue
                if [ $t = cold ]; then drop_caches; else cat fio.dat > /dev/null; fi
                extra=""
                case $rw in *write) extra="--end_fsync=1 --overwrite=1" ;; esac
                # The figure is fio's own: the job's run time (ms), from
                # its first request to its last (the fsync included),
                # without fio's start-up (it loads some 60 libraries,
                # which would otherwise be most of a warm row).
                rm -f /tmp/fio.json
                timeout 900 fio --name=$name --filename=fio.dat --size=${MB}M --bs=4k --rw=$rw \
                    --ioengine=psync --thread --randrepeat=1 --invalidate=0 \
                    --output-format=json --output=/tmp/fio.json $extra > /dev/null 2> /tmp/fio.err
                st=$?
                ms=$(python3 -c 'import json; print(int(json.load(open("/tmp/fio.json"))["jobs"][0]["job_runtime"]))' 2>> /tmp/fio.err)
                if [ $st = 0 ] && [ -n "$ms" ]; then
                    echo "BENCH $name $((ms * 1000000))"
                else
                    echo "BENCH $name unsupported exit-$st"
                    echo "BENCH-WHY $name $(tail -1 /tmp/fio.err)"
                fi
            done
        done
    else
        for r in $FIO_ROWS; do want $r && setup_failed $r "the ${MB} MiB file: $(tail -1 /tmp/fio-setup.err)"; done
    fi
    rm -f fio.dat
fi

# A source tree (the C headers, Python's standard library and Perl's
# modules: about 50 MiB) untarred onto the disk from a tarball in tmpfs, then synced
# (app_untar_src); then, cold, every file read back (app_readback_src).
if want app_untar_src || want app_readback_src; then
    if [ $QUICK = 1 ]; then DIRS="usr/include/x86_64-linux-gnu"
    else DIRS="usr/include usr/lib/python3.11 usr/share/perl"; fi
    if tar -cf /tmp/src.tar -C / $DIRS 2> /tmp/src-setup.err; then
        echo "BENCH-NOTE app_untar_src tarball $(( $(stat -c %s /tmp/src.tar) / 1024 )) KiB $(tar -tf /tmp/src.tar | grep -vc '/$') files"
        rm -rf src && mkdir src
        drop_caches
        $T app_untar_src -- bash -c "tar -xf /tmp/src.tar -C src && sync"
        drop_caches
        $T app_readback_src -- bash -c "find src -type f -print0 | xargs -0 cat > /dev/null"
        rm -rf src
    else
        why="tar of the tree: $(tail -1 /tmp/src-setup.err)"
        want app_untar_src && setup_failed app_untar_src "$why"
        want app_readback_src && setup_failed app_readback_src "$why"
    fi
    rm -f /tmp/src.tar
fi

cd /
rm -rf "$W"
sync
echo "BENCH-END apps"
