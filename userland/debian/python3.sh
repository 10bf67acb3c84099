#!/bin/bash
# Debian's python3 and its standard library: threads, fork and
# multiprocessing (POSIX semaphores in /dev/shm), subprocess pipes,
# selectors, sockets, mmap, signals, sqlite3, hashlib, zlib, json. Prints
# results only.
set -u
# multiprocessing's semaphores live in /dev/shm, a tmpfs on Debian.
mkdir -p /dev/shm && { mountpoint -q /dev/shm || mount -t tmpfs -o mode=1777 shm /dev/shm; }
cd /mnt && rm -rf py && mkdir py && cd py
cat > t.py <<'PY'
import errno, fcntl, hashlib, json, mmap, os, queue, selectors, signal, socket, sqlite3
import struct, subprocess, sys, tempfile, threading, time, zlib
import multiprocessing as mp

def square(x):
    return x * x

def main():
    print("python", sys.version_info[:2] >= (3, 11))
    data = json.dumps({"a": [1, 2, 3], "b": {"c": None}}, sort_keys=True)
    print("json", data, json.loads(data)["a"])
    print("sha256", hashlib.sha256(b"kevlar" * 1000).hexdigest()[:16])
    print("zlib", len(zlib.compress(bytes(range(256)) * 64, 9)), zlib.crc32(b"abc"))

    q = queue.Queue()
    def worker(n):
        q.put(sum(range(n)))
    ts = [threading.Thread(target=worker, args=(10000 * i,)) for i in range(1, 9)]
    for t in ts: t.start()
    for t in ts: t.join()
    print("threads", sorted(q.get() for _ in ts)[:3])

    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    print("fork exit", os.waitstatus_to_exitcode(status))

    with mp.Pool(3) as pool:
        print("pool", pool.map(square, range(10)))
    lock = mp.Lock()
    with lock:
        print("mp lock held")

    out = subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True, text=True)
    print("subprocess", out.returncode, out.stdout.strip(), out.stderr.strip())
    p = subprocess.Popen(["sort", "-n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    print("pipe", p.communicate("3\n1\n2\n")[0].split())

    a, b = socket.socketpair()
    sel = selectors.DefaultSelector()
    sel.register(b, selectors.EVENT_READ)
    a.sendall(b"ping")
    ready = sel.select(timeout=5)
    print("selector", len(ready), b.recv(4))
    # lo is down after boot, as on Linux: connecting fails until it is up.
    probe = socket.socket(); probe.bind(("127.0.0.1", 0)); probe.listen()
    try:
        socket.create_connection(probe.getsockname())
        print("lo down: connected")
    except OSError as e:
        print("lo down:", errno.errorcode[e.errno])
    probe.close()
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack("16sH", fcntl.ioctl(ctl, 0x8913, struct.pack("16sH22x", b"lo", 0))[:18])[1]
    fcntl.ioctl(ctl, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))
    ctl.close()
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
    c = socket.create_connection(srv.getsockname()); s, _ = srv.accept()
    c.sendall(b"x" * 100000); c.close()
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: break
        got += chunk
    print("tcp loopback", len(got))

    with tempfile.NamedTemporaryFile(dir=".", delete=False) as f:
        f.write(b"\0" * 8192)
        name = f.name
    with open(name, "r+b") as f:
        m = mmap.mmap(f.fileno(), 8192)
        m[100:104] = b"abcd"; m.flush(); m.close()
    with open(name, "rb") as f:
        f.seek(100); print("mmap", f.read(4))
    os.unlink(name)

    hits = []
    signal.signal(signal.SIGALRM, lambda *a: hits.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    t0 = time.monotonic()
    while not hits and time.monotonic() - t0 < 10:
        time.sleep(0.01)
    print("alarm", len(hits))

    db = sqlite3.connect("py.db")
    db.execute("CREATE TABLE IF NOT EXISTS t(x)")
    db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    db.commit()
    print("sqlite3", db.execute("SELECT count(*), sum(x) FROM t").fetchone())
    print("struct", struct.pack("<IhQ", 1, -2, 3).hex())

if __name__ == "__main__":
    main()
PY
python3 -u t.py
echo "status $?"
cp -r /usr/lib/python3.11/json json
python3 -m compileall -q json; echo "compileall status $?"
ls json/__pycache__ | wc -l
python3 -c 'import sys; sys.path.insert(0, "."); import json as j; print("imported", j.__file__.startswith("/mnt/py/json"))'

exit 0
