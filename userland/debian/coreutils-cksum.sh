#!/bin/bash
# cksum's CRC: coreutils 9.1 picks its PCLMUL/AVX version by the CPUID
# bits alone (not asking whether the kernel enabled AVX state in XCR0), so
# this needs a kernel that enables and switches AVX state.
seq 1 1000 > n
cksum n
printf '' | cksum
head -c 100000 /dev/zero | cksum
exit 0
