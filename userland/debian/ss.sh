#!/bin/bash
# iproute2's ss lists the sockets a script made: a TCP listener on
# 127.0.0.1:4711 and a unix stream listener (python3, after bringing lo
# up), with the owning process (-p, found through /proc/PID/fd's
# socket:[N]); ss under `unshare -n` (a new network namespace) does not
# list them. Both kernels answer ss over NETLINK_SOCK_DIAG (Linux with
# its diag modules, which debian-init loads): the listener's Send-Q is
# its backlog (inet_diag's idiag_wqueue). Queues of connections, inodes
# and pids are left out; so is stderr.
ss() { command ss "$@" 2>/dev/null; }
ip link set lo up
rm -f /tmp/ss-ready /tmp/ss-test.sock
python3 -c '
import socket, time
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("127.0.0.1", 4711)); t.listen(5)
u = socket.socket(socket.AF_UNIX); u.bind("/tmp/ss-test.sock"); u.listen(5)
c = socket.create_connection(("127.0.0.1", 4711)); a, _ = t.accept()
open("/tmp/ss-ready", "w").close()
time.sleep(60)
' &
py=$!
for i in $(seq 100); do [ -e /tmp/ss-ready ] && break; sleep 0.1; done
echo "listening TCP:"
ss -tln | awk '$4 == "127.0.0.1:4711" { print $1, $4, $5 }'
echo "its backlog:"
ss -tln | awk '$4 == "127.0.0.1:4711" { print "Send-Q", $3 }'
echo "with the process:"
ss -tlnp | awk '$4 == "127.0.0.1:4711" { print $1, $4, $6 }' | sed 's/pid=[0-9]*,//'
echo "the connection, both ends:"
ss -tn state established | awk '$3 == "127.0.0.1:4711" || $4 == "127.0.0.1:4711" { n++ } END { print n, "lines" }'
echo "unix listener:"
ss -xl | awk '$5 == "/tmp/ss-test.sock" { print $1, $2, $5 }'
echo "in a new network namespace:"
unshare -n ss -tan 2>/dev/null | awk '$4 == "127.0.0.1:4711" { n++ } END { print n + 0, "lines for 4711" }'
unshare -n ss -xl 2>/dev/null | awk '$5 == "/tmp/ss-test.sock" { n++ } END { print n + 0, "lines for the unix listener" }'
kill $py
wait $py 2>/dev/null
rm -f /tmp/ss-ready /tmp/ss-test.sock
exit 0
