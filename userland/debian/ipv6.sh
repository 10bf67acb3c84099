#!/bin/bash
# IPv6 on lo: ip -6 addr shows ::1/128 once lo is up; python3 echoes over
# TCP on ::1 (getaddrinfo for ::1, names with sockaddr_in6's four fields),
# over UDP on ::1, and a dual-stack server on :: (IPV6_V6ONLY 0, as
# net.ipv6.bindv6only) takes an IPv4 client, seen as ::ffff:127.0.0.1,
# and an IPv6 one; with IPV6_V6ONLY an IPv4 client is refused.
ip link set lo up
ip -6 addr show dev lo
python3 - <<'PY'
import socket, threading

def echo_server(srv):
    c, peer = srv.accept()
    with c:
        data = c.recv(100)
        c.sendall(data.upper())
    return peer

info = socket.getaddrinfo("::1", 0, socket.AF_INET6, socket.SOCK_STREAM)
print("getaddrinfo ::1:", info[0][0].name, info[0][4][0])
srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
srv.bind(("::1", 0)); srv.listen()
host, port, flow, scope = srv.getsockname()
print("listening on", host, "flowinfo", flow, "scope", scope)
t = threading.Thread(target=echo_server, args=(srv,)); t.start()
c = socket.create_connection(("::1", port))
c.sendall(b"hello over ipv6")
print("echo:", c.recv(100).decode())
print("client peer:", c.getpeername()[0], c.getpeername()[1] == port)
c.close(); t.join(); srv.close()

u1 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u1.bind(("::1", 0))
u2 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u2.bind(("::1", 0))
u1.sendto(b"datagram6", u2.getsockname())
data, addr = u2.recvfrom(100)
print("udp:", data.decode(), "from", addr[0], addr[1] == u1.getsockname()[1])
u1.close(); u2.close()

dual = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
print("IPV6_V6ONLY:", dual.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY))
dual.bind(("::", 0)); dual.listen()
port = dual.getsockname()[1]
for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    c = socket.socket(family, socket.SOCK_STREAM)
    c.connect((host, port))
    s, peer = dual.accept()
    c.sendall(b"x"); s.recv(1)
    print("dual-stack accepted", family.name, "client as", peer[0], "server side", s.getsockname()[0])
    s.close(); c.close()
dual.close()

only = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
only.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
only.bind(("::", 0)); only.listen()
try:
    socket.create_connection(("127.0.0.1", only.getsockname()[1]), timeout=10)
    print("v6only: IPv4 connected")
except OSError as e:
    print("v6only: IPv4 client:", type(e).__name__)
only.close()
PY
exit 0
