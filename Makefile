# Kevlar: `make run` boots the kernel in QEMU; `make test` runs every test
# layer and ends with one line "N passed, N failed".

# Debian's toolchain (rustup's, first in PATH here, has no rust-src).
CARGO   ?= /usr/bin/cargo
RUSTC   ?= /usr/bin/rustc
PYTHON  ?= python3
PROFILE ?= release
SMP     ?= 1
MEM     ?= 512M
KVM     ?=
CMDLINE ?=

export RUSTC
export RUSTC_BOOTSTRAP := 1
export RUSTDOC ?= /usr/bin/rustdoc

TARGET     := x86_64-unknown-none
BUILD_STD  := -Zbuild-std=core,alloc,compiler_builtins -Zbuild-std-features=compiler-builtins-mem
KERNEL_ELF := build/kevlar.elf
CARGO_OUT  := target/$(TARGET)/$(PROFILE)/kevlar
ACCEL      := $(if $(KVM),--kvm,)

.PHONY: all setup kernel run debug test test-host contracts interactive bench check clean fuzz fuzz-trinity powercut run-debian test-debian-boot debian-boot-image

all: kernel

setup:
	@bash tools/setup.sh

kernel: setup
	$(CARGO) build -p kevlar_kernel --target $(TARGET) $(BUILD_STD) --profile $(PROFILE)
	@mkdir -p build
	cp $(CARGO_OUT) $(KERNEL_ELF)
	$(PYTHON) tools/embed-symbols.py $(KERNEL_ELF)

# The interactive image: a BusyBox shell on the console (tools/build-interactive.py).
INTERACTIVE_CPIO := build/interactive.cpio
INTERACTIVE_DEPS := userland/init/interactive-init.c $(wildcard userland/interactive/*/*) tools/build-interactive.py tools/build-initramfs.py

$(INTERACTIVE_CPIO): $(INTERACTIVE_DEPS) | setup
	$(PYTHON) tools/build-interactive.py --out $@

interactive: $(INTERACTIVE_CPIO)

run: kernel $(INTERACTIVE_CPIO)
	$(PYTHON) tools/run-qemu.py --kernel $(KERNEL_ELF) --initrd $(INTERACTIVE_CPIO) --interactive --smp $(SMP) --mem $(MEM) $(ACCEL) --append "$(CMDLINE)"

# Debian 12 with systemd as PID 1 (docs/debian-boot.md): KERNEL=linux boots
# the same image under Debian's Linux 6.1; root's password is `kevlar`,
# host port $(SSH_PORT) reaches the guest's sshd.
KERNEL  ?= kevlar
SSH_PORT ?= 2222
run-debian: $(if $(filter kevlar,$(KERNEL)),kernel)
	$(PYTHON) tools/debian-boot.py run --kernel $(KERNEL) --elf $(KERNEL_ELF) --port $(SSH_PORT) --smp $(SMP) --append "$(CMDLINE)"

# The Debian boot test alone (make test runs it as its debian-boot layer, at
# -smp 1 and 2).
test-debian-boot: kernel
	$(PYTHON) tools/debian-boot-test.py --elf $(KERNEL_ELF) --smp $(SMP)

# The bootable Debian image (cached; rebuilt when its packages or
# configuration change).
debian-boot-image: setup
	$(PYTHON) tools/build-debian-root.py --systemd image

debug: kernel $(INTERACTIVE_CPIO)
	@echo "QEMU waits for gdb on :1234; in another terminal: gdb $(KERNEL_ELF) -ex 'target remote :1234'"
	$(PYTHON) tools/run-qemu.py --kernel $(KERNEL_ELF) --initrd $(INTERACTIVE_CPIO) --interactive --gdb --smp $(SMP) --mem $(MEM) --append "$(CMDLINE)"

contracts: setup
	$(PYTHON) tools/contracts.py build
	$(PYTHON) tools/contracts.py build --suite busybox
	$(PYTHON) tools/contracts.py build --suite debian

# Kevlar-only user-space tests (no Linux oracle): leak checks and the like.
build/kernel-tests.cpio: userland/kernel-tests/leak.c userland/kernel-tests/reboot.c userland/kernel-tests/net.c userland/kernel-tests/oom.c userland/kernel-tests/clock.c userland/kernel-tests/objects.c userland/kernel-tests/mounts.c userland/kernel-tests/memcheck.h tools/build-initramfs.py | setup
	@mkdir -p build/kernel-tests
	musl-gcc -static -O2 -Wall -o build/kernel-tests/leak userland/kernel-tests/leak.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/reboot userland/kernel-tests/reboot.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/net userland/kernel-tests/net.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/oom userland/kernel-tests/oom.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/clock userland/kernel-tests/clock.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/objects userland/kernel-tests/objects.c
	musl-gcc -static -O2 -Wall -o build/kernel-tests/mounts userland/kernel-tests/mounts.c
	$(PYTHON) tools/build-initramfs.py --out $@ --file /init=build/kernel-tests/leak:755 --file /reboot=build/kernel-tests/reboot:755 --file /net=build/kernel-tests/net:755 --file /oom=build/kernel-tests/oom:755 --file /clock=build/kernel-tests/clock:755 --file /objects=build/kernel-tests/objects:755 --file /mounts=build/kernel-tests/mounts:755 --dir /proc

# Benchmarks against Linux (docs/benchmarks.md): both modes (icount, then
# wall-clock with 5 alternating boots per kernel) of the microbenchmarks,
# BusyBox workloads, the Debian application benchmarks and the boot of
# Debian with systemd to its login prompt, against Linux on
# -cpu max,-erms,-fsrm (the headline) and on -cpu max; both write
# build/bench/summary.tsv. MODE=icount or MODE=wallclock runs one mode,
# SUITE=micro, SUITE=apps or SUITE=boot one suite, RUNS=N sets the wall-clock boots;
# QUICK=1 runs Kevlar only, briefly (make test does, so the benchmarks never
# rot); KVM=1 measures under KVM, reported separately.
bench: kernel
	$(PYTHON) tools/bench.py $(if $(QUICK),--quick,) $(if $(KVM),--kvm,$(if $(MODE),--mode $(MODE),)) \
		$(if $(SUITE),--suite $(SUITE),) $(if $(RUNS),--runs $(RUNS),)

# Power cuts on ext4 (tools/powercut.py, docs/ext4.md): QEMU killed at 12
# points of a write-heavy workload and 4 of sqlite3 (from the Debian root);
# Kevlar recovers (and Linux, at 2 more), e2fsck -fn is clean. make test runs a bounded version
# (layer powercut).
powercut: kernel
	$(PYTHON) tools/powercut.py --points $(or $(POINTS),12) --sqlite-points $(or $(SQLITE_POINTS),4) \
		--linux-points $(or $(LINUX_POINTS),2) --smp $(or $(SMP),1)

# The system-call fuzzer (docs/fuzzing.md): `make fuzz` runs kfuzz for 30
# minutes from a random seed; MINUTES=N or HOURS=N, SEED=S, SMP=N,
# FUZZ_USER=root|nobody|both, FUZZER=trinity (Debian's trinity, as nobody).
FUZZ_CPIO := build/fuzz/kfuzz.cpio
FUZZER    ?= kfuzz
FUZZ_USER ?= both
FUZZ_TIME  = $(if $(HOURS),--hours $(HOURS),--minutes $(if $(MINUTES),$(MINUTES),30))

$(FUZZ_CPIO): userland/fuzz/kfuzz.c userland/fuzz/surfaces.c userland/fuzz/focus.c tools/fuzz.py tools/build-initramfs.py | setup
	$(PYTHON) tools/fuzz.py build

fuzz: kernel $(FUZZ_CPIO)
	$(PYTHON) tools/fuzz.py $(FUZZ_TIME) --smp $(SMP) --user $(FUZZ_USER) --fuzzer $(FUZZER) $(if $(SEED),--seed $(SEED),)

fuzz-trinity:
	$(MAKE) fuzz FUZZER=trinity

# A partitioned disk booted with root=/dev/vda1 (the rootdev checks).
build/rootdev.img: userland/kernel-tests/rootdev.c tools/build-rootdev.py | setup
	@mkdir -p build/kernel-tests
	musl-gcc -static -O2 -Wall -o build/kernel-tests/rootdev userland/kernel-tests/rootdev.c
	$(PYTHON) tools/build-rootdev.py $@ build/kernel-tests/rootdev

# The power-cut workload's initramfs (make test's powercut layer).
build/powercut.cpio: userland/powercut/workload.c tools/powercut.py tools/build-initramfs.py | setup
	$(PYTHON) tools/powercut.py --build

test: kernel contracts build/kernel-tests.cpio build/rootdev.img build/powercut.cpio $(INTERACTIVE_CPIO) $(FUZZ_CPIO) debian-boot-image
	$(PYTHON) tools/gen-syscall-table.py --check
	$(PYTHON) tools/bench.py --quick
	$(PYTHON) tools/run-tests.py --kernel $(KERNEL_ELF)

test-host: setup
	$(CARGO) test

clean:
	$(CARGO) clean
	rm -rf build
