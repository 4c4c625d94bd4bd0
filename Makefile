# SPDX-License-Identifier: GPL-2.0
#
# gotrace: top-level targets.
#
#   make                 module (against KDIR) and the gotrace command
#   make module          only the module: kmod/gotrace.ko
#   make user            only the gotrace command: user/gotrace
#   make deps            install what a fresh Debian 12 machine needs
#   make check           host tests, then VM tests on every Debian kernel
#                        and boot configuration (not yet the debug kernel)
#   make check KERNELS=6.12       narrow the VM tests to some kernels
#                        (6.1 6.12 6.12-rt newest newest-rt debug, each
#                        with @8cpus or @maxcpus64 for those boots)
#   make check-host      host unit tests (ASan/UBSan) only
#   make check-vm        VM tests only
#   make check-debug     VM tests on the debug kernel only (lockdep, KASAN,
#                        UBSAN...; built once, then cached)
#   make checkpatch      checkpatch.pl --strict on kmod/ and include/
#   make demo            record a demo workload in the VM into ./trace.out
#                        (Debian's 6.12 kernel; KERNELS=6.1 picks another)
#   make bench           benchmarks on 6.12 (never part of make check),
#                        after make bench-check
#   make bench-check     host only: MB/s and peak RSS of gotrace check and
#                        stat on a 50 M-event trace, next to Go's parsers
#   make bench-host      host only, as root: the BPF capture backend on the
#                        real CPU against no tracing and ftrace
#
# The kernel build itself is driven by ./Kbuild, so that
# "make -C <kernel build dir> M=$(CURDIR) modules" works on its own, as
# DKMS and packagers call it.

KDIR ?= /lib/modules/$(shell uname -r)/build
# Empty: every kernel and boot configuration (selftests/vm/lib.sh).
KERNELS ?=
# The kernel the demo and the benchmark boot unless KERNELS names one.
DEMO_KERNEL = $(if $(filter command line,$(origin KERNELS)),$(firstword $(KERNELS)),6.12)

.PHONY: all module user deps check check-host check-vm check-debug \
	checkpatch demo bench bench-check bench-host clean

all: module user

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user:
	$(MAKE) -C user

deps:
	@scripts/deps.sh

check: deps
	$(MAKE) check-host
	$(MAKE) checkpatch
	$(MAKE) check-vm

check-host:
	$(MAKE) -C selftests/host run
	$(MAKE) -C user check

check-vm:
	selftests/vm/run-kernels.sh $(KERNELS)

check-debug:
	selftests/vm/run-kernels.sh debug

checkpatch:
	selftests/vm/checkpatch.sh

demo: deps
	selftests/vm/run-kernel.sh --demo $(CURDIR)/trace.out $(DEMO_KERNEL)

bench: deps bench-check
	bench/run.sh $(DEMO_KERNEL)

bench-check:
	bench/check.sh

bench-host:
	bench/host-bench.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	-$(MAKE) -C user clean
	-$(MAKE) -C selftests/host clean
