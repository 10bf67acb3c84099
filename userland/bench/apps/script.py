"""app_python_script: a little of what Python programs do (docs/benchmarks.md).
json round trips, regular expressions, hashing and a few threads sharing a
queue. Deterministic: the same work and the same output on every run; exits
non-zero if a check fails."""
import hashlib
import json
import queue
import re
import sys
import threading

SCALE = int(sys.argv[1]) if len(sys.argv) > 1 else 1

records = [{"id": i, "name": f"user{i:05d}", "tags": ["a", "b", str(i % 7)],
            "score": (i * 7919) % 1000 / 10.0} for i in range(2000 * SCALE)]
text = json.dumps(records)
back = json.loads(text)
assert back == records

pattern = re.compile(r'"name": "user(\d+)", "tags": \["a", "b", "([0-6])"\]')
found = sum(1 for m in pattern.finditer(text) if int(m.group(1)) % 7 == int(m.group(2)))
assert found == len(records), found

digest = hashlib.sha256()
for i in range(200 * SCALE):
    digest.update(hashlib.md5(text[i * 100:(i + 1) * 100].encode()).digest())

work = queue.Queue()
results = []
lock = threading.Lock()


def worker():
    while True:
        item = work.get()
        if item is None:
            return
        h = hashlib.sha1(item).hexdigest()
        with lock:
            results.append(h)


threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads:
    t.start()
for i in range(4000 * SCALE):
    work.put(f"item {i}".encode())
for t in threads:
    work.put(None)
for t in threads:
    t.join()
assert len(results) == 4000 * SCALE
print(digest.hexdigest(), len(set(results)))
