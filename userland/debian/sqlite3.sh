#!/bin/bash
# sqlite3 on a disk file system (the scratch disk on /mnt): a WAL database
# written by two processes at once (shared-memory index through a
# MAP_SHARED mapping of the -shm file, fcntl locks, fsync), then read
# back; a rollback-journal database; integrity checks. Only results are
# printed (counts, sums, pragma answers), never timings.
set -u
d=/mnt/sqlite3; rm -rf $d; mkdir -p $d; cd $d
sqlite3 wal.db 'PRAGMA journal_mode=WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, who TEXT, n INTEGER);'
writer() {
    for i in $(seq 1 40); do
        echo "BEGIN; INSERT INTO t(who, n) VALUES('$1', $i); INSERT INTO t(who, n) VALUES('$1', $((i * 2))); COMMIT;"
    done | sqlite3 -cmd '.timeout 20000' wal.db
    echo "writer $1 status $?"
}
writer a > a.out 2>&1 & pa=$!
writer b > b.out 2>&1 & pb=$!
wait $pa $pb
cat a.out b.out
sqlite3 wal.db "SELECT who, count(*), sum(n) FROM t GROUP BY who ORDER BY who;"
sqlite3 wal.db "PRAGMA journal_mode; PRAGMA integrity_check; PRAGMA wal_checkpoint(TRUNCATE);" | sed 's/^0|.*/checkpoint ok/'
ls wal.db-shm >/dev/null 2>&1 && echo "wal index file present"
# A reader sees a consistent snapshot while a writer commits.
sqlite3 wal.db "SELECT count(*) FROM t;" 
sqlite3 rb.db 'PRAGMA journal_mode=DELETE; CREATE TABLE k(v); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<5000) INSERT INTO k SELECT x*x FROM c;'
sqlite3 rb.db "SELECT count(*), sum(v), max(v) FROM k; CREATE INDEX ki ON k(v); SELECT v FROM k WHERE v BETWEEN 100 AND 200; PRAGMA integrity_check;"
sqlite3 rb.db "BEGIN; DELETE FROM k WHERE v % 2 = 0; ROLLBACK; SELECT count(*) FROM k; VACUUM; PRAGMA integrity_check;"
stat -c '%s' rb.db
sync && echo synced
exit 0
