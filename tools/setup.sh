#!/usr/bin/env bash
# Installs what building, running and testing Kevlar needs, and nothing that is
# already there. Idempotent: a second run does no work and prints nothing but
# the final line.
set -euo pipefail

# Debian package -> a file it installs, so the check is a cheap `test -e`.
declare -A wanted=(
  [rustc-web]=/usr/bin/rustc
  [cargo-web]=/usr/bin/cargo
  [rust-web-src]=/usr/lib/rustlib/src/rust/library/core/Cargo.toml
  [lld]=/usr/bin/ld.lld
  [qemu-system-x86]=/usr/bin/qemu-system-x86_64
  [musl-tools]=/usr/bin/musl-gcc
  [gcc]=/usr/bin/gcc
  [g++]=/usr/bin/g++
  [busybox-static]=/bin/busybox
  [cpio]=/usr/bin/cpio
  [e2fsprogs]=/sbin/mke2fs
  [dpkg]=/usr/bin/dpkg-deb
  [python3]=/usr/bin/python3
  [binutils]=/usr/bin/objdump
  [gdb]=/usr/bin/gdb
  [python3-matplotlib]=/usr/lib/python3/dist-packages/matplotlib/__init__.py
  # Loads the host for the clock test (tools/run-tests.py, layer clock).
  [stress-ng]=/usr/bin/stress-ng
)

missing=()
for pkg in "${!wanted[@]}"; do
  [ -e "${wanted[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi
echo "setup: toolchain ready"
