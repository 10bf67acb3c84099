#!/bin/bash
# redis-server with Debian's /etc/redis/redis.conf (daemonized, listening
# on 127.0.0.1 and ::1, jemalloc's background thread, its process title in
# /proc/PID/cmdline), its directory, pid and log files moved to the scratch
# disk (the root is read-only); redis-cli: strings, lists (a blocked BLPOP
# woken by another client), expiry, MULTI/EXEC and WATCH, pub/sub between
# two clients; BGSAVE (a forked child writes the RDB file) and a restart
# that reads it back; AOF switched on (a forked rewrite), a restart from
# the AOF; redis-benchmark -q with a small request count (which tests ran,
# not their rates); SHUTDOWN. Prints replies and facts, no times or pids.
set -u
ip link set lo up
d=/mnt/redis
rm -rf $d && mkdir $d && cd $d
start() {
    redis-server /etc/redis/redis.conf --dir $d --pidfile $d/redis.pid --logfile $d/redis.log "$@"
    echo "redis-server: $?"
    for i in $(seq 100); do [ "$(redis-cli ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    redis-cli ping
}
stopped() {
    for i in $(seq 100); do redis-cli ping >/dev/null 2>&1 || break; sleep 0.1; done
    redis-cli ping >/dev/null 2>&1 && echo "still answering" || echo "stopped"
}
r() { redis-cli "$@"; }
start
pid=$(cat redis.pid)
ps -o user=,args= -p "$pid"
[ "$(ps -o ppid= -p "$pid" | tr -d ' ')" = 1 ] && echo "daemonized: parent is init"
echo "threads: more than one: $([ "$(ls /proc/$pid/task | wc -l)" -gt 1 ] && echo yes)"
echo "ipv6: $(redis-cli -h ::1 ping)"
r INFO server | grep -E '^(redis_version|redis_mode|os|arch_bits|multiplexing_api|tcp_port)' | tr -d '\r' | sed 's/:Linux .*/:Linux/'

echo "-- strings"
r SET greeting hello; r GET greeting; r APPEND greeting ", world"; r GET greeting
r STRLEN greeting; r INCR counter; r INCRBY counter 41; r GET missing; r EXISTS greeting missing
r SET big "$(head -c 100000 /dev/zero | tr '\0' z)" >/dev/null; r STRLEN big
echo "-- lists"
r RPUSH l a b c; r LPUSH l z; r LRANGE l 0 -1; r LPOP l; r LLEN l; r LINDEX l -1
( redis-cli BLPOP waiting 10 > blpop.out ) & b=$!
for i in $(seq 100); do [ "$(r INFO clients | tr -d '\r' | sed -n 's/^blocked_clients://p')" = 1 ] && break; sleep 0.1; done
echo "blocked clients: $(r INFO clients | tr -d '\r' | sed -n 's/^blocked_clients://p')"
r RPUSH waiting woken >/dev/null; wait $b; echo "BLPOP got: $(tr '\n' ' ' < blpop.out)"
echo "-- expiry"
r SET short v PX 1500; r GET short
ttl=$(r PTTL short); [ "$ttl" -gt 0 ] && [ "$ttl" -le 1500 ] && echo "PTTL within 1500"
sleep 2; r GET short; r EXISTS short
r SET k v EX 100 >/dev/null; r TTL k | awk '{ print ($1 > 90 && $1 <= 100) ? "TTL about 100" : "TTL " $1 }'
r PERSIST k; r TTL k
echo "-- transactions"
printf 'MULTI\nINCR tx\nINCR tx\nSET txs done\nEXEC\n' | redis-cli
printf 'WATCH w\nSET w mine\nMULTI\nSET w theirs\nEXEC\nGET w\n' | redis-cli
# WATCH, then another client changes the key: EXEC gives nil.
mkfifo cmds; redis-cli < cmds > watch.out & w=$!
exec 3> cmds; echo 'WATCH w2' >&3
for i in $(seq 100); do r CLIENT LIST | grep -q 'cmd=watch' && break; sleep 0.1; done
r SET w2 other >/dev/null
printf 'MULTI\nSET w2 first\nEXEC\nGET w2\n' >&3; exec 3>&-; wait $w; cat watch.out
echo "-- pub/sub"
redis-cli SUBSCRIBE news > sub.out & s=$!
for i in $(seq 100); do [ "$(r PUBSUB NUMSUB news | tail -1)" = 1 ] && break; sleep 0.1; done
r PUBSUB NUMSUB news | tr '\n' ' '; echo
r PUBLISH news "first message"; r PUBLISH news second; r PUBLISH nobody-listens x
for i in $(seq 100); do [ "$(grep -c second sub.out)" = 1 ] && break; sleep 0.1; done
kill $s; wait $s 2>/dev/null
cat sub.out
echo "-- BGSAVE"
r DBSIZE
r BGSAVE
for i in $(seq 200); do r INFO persistence | grep -q '^rdb_bgsave_in_progress:0' && break; sleep 0.1; done
r INFO persistence | tr -d '\r' | grep -E '^(rdb_bgsave_in_progress|rdb_last_bgsave_status|rdb_changes_since_last_save)'
[ -s dump.rdb ] && echo "dump.rdb written: $(head -c 5 dump.rdb)"
redis-check-rdb dump.rdb 2>&1 | grep -o 'RDB looks OK!'
r SET after-save x
r SHUTDOWN NOSAVE; stopped
start
r DBSIZE; r GET greeting; r LRANGE l 0 -1; r GET txs; r EXISTS after-save
echo "-- AOF"
r CONFIG SET appendonly yes
for i in $(seq 200); do r INFO persistence | tr -d '\r' | grep -q '^aof_rewrite_in_progress:0' && \
    r INFO persistence | tr -d '\r' | grep -q '^aof_rewrite_scheduled:0' && \
    r INFO persistence | tr -d '\r' | grep -q '^aof_enabled:1' && break; sleep 0.1; done
r INFO persistence | tr -d '\r' | grep -E '^(aof_enabled|aof_rewrite_in_progress|aof_last_bgrewrite_status|aof_last_write_status)'
r SET in-aof 1; r RPUSH l from-aof; r DEL counter
ls appendonlydir
r SHUTDOWN NOSAVE; stopped
grep -c 'in-aof' appendonlydir/*.incr.aof
start --appendonly yes
r DBSIZE; r GET in-aof; r LRANGE l 0 -1; r EXISTS counter
echo "-- redis-benchmark"
redis-benchmark -q -n 200 -c 4 -t set,get,incr,lpush,lpop 2>&1 | tr '\r' '\n' | grep 'requests per second' | cut -d: -f1
r DBSIZE
r SHUTDOWN; stopped
[ -e redis.pid ] && echo "pid file left" || echo "pid file removed"
grep -cE '# (Redis is now ready|Ready to accept connections)' redis.log
exit 0
