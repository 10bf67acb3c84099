#!/bin/bash
# Network namespaces with util-linux's unshare and iproute2: a new
# namespace (unshare -n) has only lo, down and without an address; `ip
# link set lo up` in it gives it 127.0.0.1/8 and ::1/128 and nothing
# changes outside; `ip netns add` keeps a namespace by bind-mounting its
# nsfs file on /run/netns/NAME, `ip netns exec` runs commands in it
# (with its own sysfs), `ip netns del` removes it.
ip link set lo up
unshare -n ip link show
unshare -n ip addr show
unshare -n sh -c 'ip link set lo up && ip link show lo && ip addr show lo'
unshare -n sh -c 'ip link set lo up; ip route show table local'
ip -4 addr show dev lo | grep -c 127.0.0.1
unshare -n sh -c 'readlink /proc/self/ns/net' | grep -c '^net:\['
[ "$(unshare -n readlink /proc/self/ns/net)" != "$(readlink /proc/self/ns/net)" ] && echo "a new namespace"
ip netns add kx || exit 1
ip netns list
ip netns exec kx ip link show
ip netns exec kx ip link set lo up
ip netns exec kx ip -4 addr show
ip netns exec kx cat /sys/class/net/lo/operstate /sys/class/net/lo/flags
ip netns exec kx ls /sys/class/net
ip netns del kx
ip netns list | grep -c kx
echo done
