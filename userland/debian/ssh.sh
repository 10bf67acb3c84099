#!/bin/bash
# OpenSSH on loopback with Debian's /etc/ssh/sshd_config (UsePAM, the sftp
# subsystem, privilege separation with its seccomp sandbox): host and
# client keys made at run time with ssh-keygen, sshd daemonized on port
# 2222; ssh with the key runs commands (output, exit status, stdin, a
# pty); a connection stopped after the version exchange shows the
# pre-authentication child: user sshd, chrooted to /run/sshd, seccomp
# filter mode; scp (SFTP and the old protocol) and an sftp batch; -L port
# forwarding to sshd itself, and ssh through that tunnel. Prints output
# and facts, no keys, pids or times.
set -u
ip link set lo up
d=/mnt/ssh
rm -rf $d && mkdir -m 700 $d && cd $d
ssh-keygen -q -t ed25519 -N '' -C host -f $d/host_ed25519; echo "host key: $?"
ssh-keygen -q -t ed25519 -N '' -C client -f $d/id_ed25519; echo "client key: $?"
cp id_ed25519.pub authorized_keys && chmod 600 authorized_keys
ssh-keygen -l -f host_ed25519.pub | awk '{ print "fingerprint:", $1, substr($2, 1, 7), $NF }'
SSHD=(-f /etc/ssh/sshd_config -o Port=2222 -o ListenAddress=127.0.0.1 -o HostKey=$d/host_ed25519
      -o PidFile=$d/sshd.pid -o AuthorizedKeysFile=$d/authorized_keys)
/usr/sbin/sshd -t "${SSHD[@]}"; echo "sshd -t: $?"
/usr/sbin/sshd -T "${SSHD[@]}" | grep -E '^(usepam|permitrootlogin|pubkeyauthentication|subsystem|port|x11forwarding) '
/usr/sbin/sshd "${SSHD[@]}"; echo "sshd: $?"
for i in $(seq 100); do [ -s sshd.pid ] && break; sleep 0.1; done
master=$(cat sshd.pid)
ps -o user=,args= -p "$master"
[ "$(ps -o ppid= -p "$master" | tr -d ' ')" = 1 ] && echo "daemonized: parent is init"
S=(-F /dev/null -i $d/id_ed25519 -o UserKnownHostsFile=$d/known_hosts -o StrictHostKeyChecking=accept-new
   -o BatchMode=yes -o LogLevel=ERROR)
s() { ssh "${S[@]}" -p 2222 root@127.0.0.1 "$@"; }

echo "-- commands"
s 'echo hello from $(id -un) uid $(id -u); echo "SSH_CONNECTION set: ${SSH_CONNECTION:+yes}"; tty'
echo "remote exit: $(s 'exit 7'; echo $?)"
echo "stdin: $(seq 1000 | s 'cat > /tmp/in; wc -l < /tmp/in; md5sum < /tmp/in; rm /tmp/in' | tr '\n' ' ')"
echo "local: $(seq 1000 | md5sum)"
s 'echo to stderr >&2' 2>&1
s -tt 'tty | sed "s/[0-9]*$/N/"; stty size' | tr -d '\r'
echo "known_hosts: $(wc -l < known_hosts) line, $(cut -d' ' -f1,2 known_hosts)"

echo "-- privilege separation"
exec 5<>/dev/tcp/127.0.0.1/2222
read -r banner <&5; echo "banner: ${banner%$'\r'}"
printf 'SSH-2.0-kevlar-probe\r\n' >&5
net=
for i in $(seq 100); do
    net=$(ps -e -o pid=,args= | awk '$2 == "sshd:" && $3 == "[net]" { print $1 }')
    [ -n "$net" ] && break; sleep 0.1
done
ps -o user=,args= -p "$net"
ps -o user=,args= -p "$(ps -o ppid= -p "$net" | tr -d ' ')"
# Its root directory is /run/sshd (the same inode; empty seen through it).
[ "$(stat -L -c %d:%i /proc/$net/root)" = "$(stat -c %d:%i /run/sshd)" ] && echo "net child's root is /run/sshd"
echo "entries in its root: $(ls -A /proc/$net/root | wc -l)"
grep -E '^(Seccomp|NoNewPrivs):' /proc/$net/status | tr -d '\t' | sed 's/:/: /'
exec 5>&-

echo "-- scp and sftp"
seq 1 50000 > local.txt
scp "${S[@]}" -P 2222 local.txt root@127.0.0.1:$d/remote.txt; echo "scp put: $?"
scp "${S[@]}" -P 2222 root@127.0.0.1:$d/remote.txt back.txt; echo "scp get: $?"
cmp local.txt back.txt && echo "scp round trip same"
scp -O "${S[@]}" -P 2222 local.txt root@127.0.0.1:$d/legacy.txt; echo "scp -O: $?"
cmp local.txt legacy.txt && echo "scp -O same"
cat > batch <<EOF
mkdir $d/sftpdir
put local.txt $d/sftpdir/a.txt
rename $d/sftpdir/a.txt $d/sftpdir/b.txt
ls -1 $d/sftpdir
get $d/sftpdir/b.txt sftp-back.txt
rm $d/sftpdir/b.txt
rmdir $d/sftpdir
EOF
sftp "${S[@]}" -P 2222 -b batch root@127.0.0.1 2>&1 | sed "s|$d|DIR|g"; echo "sftp: ${PIPESTATUS[0]}"
cmp local.txt sftp-back.txt && echo "sftp round trip same"
[ -e sftpdir ] && echo "sftpdir left" || echo "sftpdir removed"

echo "-- port forwarding"
ssh "${S[@]}" -p 2222 -N -o ExitOnForwardFailure=yes -L 127.0.0.1:2200:127.0.0.1:2222 root@127.0.0.1 & fwd=$!
for i in $(seq 100); do (exec 6<>/dev/tcp/127.0.0.1/2200) 2>/dev/null && break; sleep 0.1; done
exec 6<>/dev/tcp/127.0.0.1/2200; read -r banner <&6; exec 6>&-
echo "banner through the tunnel: ${banner%$'\r'}"
echo "ssh through the tunnel: $(ssh "${S[@]}" -p 2200 -o HostKeyAlias=127.0.0.1 root@127.0.0.1 'echo inner as $(id -un)')"
kill $fwd; wait $fwd 2>/dev/null
(exec 6<>/dev/tcp/127.0.0.1/2200) 2>/dev/null && echo "tunnel still open" || echo "tunnel closed"

kill "$master"
gone() { local st; st=$(ps -o stat= -p "$1"); [ -z "$st" ] || [ "${st:0:1}" = Z ]; }
for i in $(seq 100); do gone "$master" && break; sleep 0.1; done
gone "$master" && echo "sshd stopped" || echo "sshd still running"
exit 0
