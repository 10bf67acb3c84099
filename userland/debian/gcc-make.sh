#!/bin/bash
# Debian's gcc and make on the scratch disk: a small C project of several
# files built by make -j2 (cc1, as and collect2/ld as child processes,
# temporary files, pipes), run; then rebuilt after touching one file (make
# compares mtimes); a static and a shared library; a C++-free build only
# (g++ is not in the root).
set -u
cd /mnt && rm -rf cc && mkdir cc && cd cc
cat > util.h <<'C'
int fib(int n);
unsigned hash(const char *s);
C
cat > util.c <<'C'
#include "util.h"
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
unsigned hash(const char *s) { unsigned h = 5381; while (*s) h = h * 33 + (unsigned char)*s++; return h; }
C
cat > main.c <<'C'
#include <stdio.h>
#include <pthread.h>
#include "util.h"
static void *run(void *arg) { return (void *)(long)fib((int)(long)arg); }
int main(void) {
    pthread_t t[4];
    for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, run, (void *)(20 + i));
    for (int i = 0; i < 4; i++) { void *r; pthread_join(t[i], &r); printf("fib %d = %ld\n", 20 + i, (long)r); }
    printf("hash %u\n", hash("kevlar"));
    return 0;
}
C
cat > Makefile <<'M'
CFLAGS = -O2 -Wall
prog: main.o util.o
	$(CC) -o $@ $^ -lpthread
libutil.a: util.o
	ar rcs $@ $^
libutil.so: util.c
	$(CC) -O2 -shared -fPIC -o $@ $<
prog-static: main.o libutil.a
	$(CC) -static -o $@ main.o -L. -lutil -lpthread
prog-shared: main.o libutil.so
	$(CC) -o $@ main.o -L. -lutil -lpthread -Wl,-rpath,$(CURDIR)
clean:
	rm -f *.o *.a *.so prog prog-static prog-shared
M
# -j2 starts the two compiles in either order: sorted.
make -j2 prog 2>&1 | sort | sed 's/^/  /'; echo "make status ${PIPESTATUS[0]}"
./prog
sleep 1; touch util.c
make prog 2>&1 | sed 's/^/  /'
make prog | sed 's/^/  /'
make -j2 prog-static prog-shared >/dev/null 2>&1; echo "libraries status $?"
./prog-static | tail -1; ./prog-shared | tail -1
file_type() { head -c 4 "$1" | od -An -c | tr -d ' '; }
echo "elf: $(file_type prog)"
gcc -E -dM - </dev/null | grep -c __x86_64__
echo 'int main(void){return 42;}' | gcc -x c -o ret - && ./ret; echo "ret status $?"
exit 0
