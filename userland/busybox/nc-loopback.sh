#!/bin/sh
# nc over TCP on 127.0.0.1: an echo server (nc -l -e cat) and a client
# whose stdin ends (nc shuts down its sending side), getting every line
# back before the server closes. lo is brought up first (Linux boots with
# it down). The client retries until the server listens.
ifconfig lo up
echo "lo up: $?"
nc -l -p 34567 -e /bin/cat &
server=$!
i=0
while [ $i -lt 100 ]; do
    if printf 'hello over tcp\nsecond line\n' | nc 127.0.0.1 34567 > answer 2>/dev/null; then
        break
    fi
    i=$((i + 1))
    sleep 0.1
done
wait $server
echo "server status: $?"
cat answer
wc -c < answer
exit 0
