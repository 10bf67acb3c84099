#!/bin/bash
# nginx (Debian's nginx-light) with Debian's default configuration
# (/etc/nginx/nginx.conf: a master as root, `worker_processes auto` workers
# as www-data, epoll, sendfile, gzip; the default site on port 80, IPv4 and
# IPv6) on loopback: it daemonizes, curl fetches static files of several
# sizes (checksums compared), a 404, a range, a gzip'd page, 100 requests
# on one keepalive connection and 100 more from four clients at once;
# `nginx -s reload` with a new server in conf.d (new workers, the old ones
# leave), `nginx -s quit`. Prints statuses, sizes and counts only.
set -u
ip link set lo up
# Process substitution needs /dev/fd (udev makes it on a running system).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# The root is read-only: where nginx writes (its pid file in /run, logs,
# temporary files in /var/lib/nginx), the document root and conf.d get
# tmpfs mounts, unmounted at the end.
MOUNTS="/run /var/log/nginx /var/lib/nginx /var/www/html /etc/nginx/conf.d"
for d in $MOUNTS; do mount -t tmpfs -o mode=755 tmpfs "$d"; done
cleanup() { for d in $MOUNTS; do umount "$d"; done; }
trap cleanup EXIT
cp /usr/share/nginx/html/index.html /var/www/html/index.nginx-debian.html
: > /var/www/html/empty
printf x > /var/www/html/one
seq 1 1000 > /var/www/html/small.txt
head -c 65536 /dev/zero | tr '\0' 'a' > /var/www/html/64k.bin
seq 1 200000 > /var/www/html/big.txt
mkdir /var/www/html/dir && echo inner > /var/www/html/dir/index.html

nginx -t 2>&1 | sed 's/^nginx: //'
nginx; echo "nginx started: $?"
for i in $(seq 100); do [ -s /run/nginx.pid ] && break; sleep 0.1; done
master=$(cat /run/nginx.pid)
workers() { ps --ppid "$master" -o user=,args= | sort | uniq -c | sed 's/^ *//'; }
ps -o user=,args= -p "$master"
[ "$(ps -o ppid= -p "$master" | tr -d ' ')" = 1 ] && echo "master's parent is init (daemonized)"
[ "$(ps -o sid= -p "$master" | tr -d ' ')" = "$master" ] && echo "master leads its session"
n=$(nproc)
w=$(ps --ppid "$master" -o args= | grep -c 'worker process')
for i in $(seq 100); do [ "$w" -ge "$n" ] && break; sleep 0.1
    w=$(ps --ppid "$master" -o args= | grep -c 'worker process'); done
[ "$w" = "$n" ] && echo "one worker per CPU"
[ "$(ps --ppid "$master" -o user=,args= | grep -c '^www-data *nginx: worker process$')" = "$n" ] &&
    echo "workers run as www-data"

cd /tmp && rm -rf nginx && mkdir nginx && cd nginx
get() { curl -s -o "$2" -w '%{http_code} %{size_download} %{content_type}\n' "http://127.0.0.1$1"; }
for f in empty one small.txt 64k.bin big.txt; do
    echo "$f: $(get /$f $f) $(cmp -s $f /var/www/html/$f && echo same)"
done
echo "index: $(get / index.html) $(cmp -s index.html /var/www/html/index.nginx-debian.html && echo same)"
echo "dir: $(get /dir/ dir.html) $(cat dir.html)"
echo "dir without slash: $(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' http://127.0.0.1/dir)"
echo "missing: $(get /missing missing.html)" | awk '{ print $1, $2, $4 }'
grep -o '<title>.*</title>' missing.html
echo "range: $(curl -s -r 10-19 -o range -w '%{http_code} %{size_download}' http://127.0.0.1/big.txt) $(cat range | tr '\n' ' ')"
curl -s -D headers -o /dev/null http://127.0.0.1/small.txt
grep -iE '^(HTTP|content-type|content-length|accept-ranges|connection)' headers | tr -d '\r'
curl -s -D headers --compressed -o gz.html http://127.0.0.1/
grep -i '^content-encoding' headers | tr -d '\r'
cmp -s gz.html /var/www/html/index.nginx-debian.html && echo "gzip'd page decompressed same"
echo "ipv6: $(curl -s -o v6 -w '%{http_code}' 'http://[::1]/small.txt') $(cmp -s v6 small.txt && echo same)"
echo "HEAD: $(curl -s -I -o /dev/null -w '%{http_code} %{size_download}' http://127.0.0.1/big.txt)"
echo "POST to a file: $(curl -s -o /dev/null -w '%{http_code}' -d a=b http://127.0.0.1/small.txt)"

# 100 requests on one connection: curl reuses it (keepalive), one connect.
urls=(); for i in $(seq 100); do urls+=(-o /dev/null "http://127.0.0.1/$([ $((i % 10)) = 0 ] && echo nope || echo small.txt)"); done
curl -s -w '%{http_code} %{num_connects}\n' "${urls[@]}" | sort | uniq -c | sed 's/^ *//'
# 100 more from four clients at once, each on its own keepalive connection.
for c in 1 2 3 4; do
    curl -s -w '%{http_code} %{size_download}\n' $(for i in $(seq 25); do echo -n "-o out$c.$i http://127.0.0.1/64k.bin "; done) > res$c &
done
wait
cat res1 res2 res3 res4 | sort | uniq -c | sed 's/^ *//'
cat out*.* | cmp -s - <(for i in $(seq 100); do cat /var/www/html/64k.bin; done) && echo "parallel bodies same"

# The access log has a line per request (written when each ends).
log=/var/log/nginx/access.log
echo "access log: $(wc -l < $log) lines, $(grep -c '" 200 ' $log) 200, $(grep -c '" 404 ' $log) 404, $(grep -c '" 206 ' $log) 206, $(grep -c '" 301 ' $log) 301"

# Reload: a new server on 8080 from conf.d; new workers replace the old.
old=$(ps --ppid "$master" -o pid= | sort)
echo "8080 before reload: $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/)"
cat > /etc/nginx/conf.d/kevlar.conf <<'EOF'
server {
	listen 127.0.0.1:8080;
	location / { return 200 "reloaded\n"; }
}
EOF
nginx -s reload 2>&1 | sed -E 's/^[0-9\/]+ [0-9:]+ //; s/[0-9]+#[0-9]+: //'; echo "reload: ${PIPESTATUS[0]}"
for i in $(seq 300); do
    left=$(comm -12 <(echo "$old") <(ps --ppid "$master" -o pid= | sort) | wc -l)
    now=$(ps --ppid "$master" -o args= | grep -c 'worker process')
    [ "$left" = 0 ] && [ "$now" = "$n" ] && break; sleep 0.1
done
echo "old workers left: $left, workers now one per CPU: $([ "$now" = "$n" ] && echo yes)"
[ "$(cat /run/nginx.pid)" = "$master" ] && echo "same master"
echo "8080 after reload: $(curl -s http://127.0.0.1:8080/)"
echo "80 after reload: $(get /small.txt s2)"

nginx -s quit 2>&1 | sed -E 's/^[0-9\/]+ [0-9:]+ //; s/[0-9]+#[0-9]+: //'; echo "quit: ${PIPESTATUS[0]}"
# The master is init's child: a zombie until the suite's init reaps it.
gone() { local s; s=$(ps -o stat= -p "$1"); [ -z "$s" ] || [ "${s:0:1}" = Z ]; }
for i in $(seq 300); do gone "$master" && break; sleep 0.1; done
gone "$master" && echo "master exited" || echo "master still running"
[ -e /run/nginx.pid ] && echo "pid file left" || echo "pid file removed"
echo "after quit: $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1/; echo " curl $?")"
# Errors nginx logged (none expected), without times and pids.
sed -E 's/^[0-9\/]+ [0-9:]+ //; s/[0-9]+#[0-9]+: //; s/\*[0-9]+ //' /var/log/nginx/error.log
exit 0
