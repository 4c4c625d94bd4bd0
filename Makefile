# SPDX-License-Identifier: GPL-2.0
#
# gotrace: top-level targets.
#
#   make                 module (against KDIR) and the gotrace command
#   make module          only the module: kmod/gotrace.ko
#   make module ARCH=arm64 KDIR=<an arm64 kernel's build dir>
#                        cross-build the module for an arm64 kernel
#                        (Debian's gcc-aarch64-linux-gnu; CROSS_COMPILE=
#                        names another cross compiler)
#   make user            only the gotrace command: user/gotrace
#   make deps            install what a fresh Debian 12 machine needs
#   make check           host tests, and beside them VM tests on every
#                        Debian kernel and boot configuration, the debug
#                        kernel and arm64's 6.12 included
#   make check KERNELS=6.12       narrow the VM tests to some kernels
#                        (6.1 6.12 6.12-rt newest newest-rt debug, each
#                        with @8cpus, @maxcpus64, @mttcg or @icount for
#                        those boots)
#   make check-host      host unit tests (ASan/UBSan) only, and
#                        selftests/pkg (make install, the units)
#   make check-vm        VM tests only
#   make check-debug     VM tests on the debug kernel only (lockdep, KASAN,
#                        UBSAN...; built once, then cached)
#   make check-arm64     VM tests on every Debian arm64 kernel (6.1-arm64,
#                        6.12-arm64, 6.12-rt-arm64, newest-arm64,
#                        newest-rt-arm64), booted by qemu-system-aarch64
#                        under TCG (make check runs 6.12-arm64)
#   make checkpatch      checkpatch.pl --strict on kmod/, model/ and include/
#   make fuzz-model      the model checker (user/tests/model_check.c), for
#                        FUZZ_SECONDS (600) over FUZZ_SEEDS (FIRST:COUNT)
#   make install         the command, its man page, the systemd units and
#                        the module's source for DKMS (PREFIX=/usr/local,
#                        DESTDIR, BINDIR, MANDIR, LIBEXECDIR, UNITDIR,
#                        DKMSDIR=/usr/src); builds the command first
#   make deb             Debian packages gotrace and gotrace-dkms into
#                        .cache/deb/ (dpkg-buildpackage, debian/)
#   make demo            record a demo workload in the VM into ./trace.out
#                        (Debian's 6.12 kernel; KERNELS=6.1 picks another,
#                        ARCH=arm64 Debian's arm64 6.12, 6.12-arm64)
#   make bench           benchmarks on 6.12 (never part of make check),
#                        after make bench-check; ARCH=arm64 or KERNELS as
#                        for make demo
#   make bench-memory    the memory curve of a 5-minute go 1.23 session
#                        under task churn, in the VM on 6.12 (BENCH_MEM_S;
#                        ARCH=arm64 or KERNELS as for make demo)
#   make bench-check     host only: MB/s and peak RSS of gotrace check and
#                        stat on a 50 M-event trace, next to Go's parsers
#   make bench-host      host only, as root: the BPF capture backend on the
#                        real CPU against no tracing and ftrace
#   make bench-unwind    host only, as root: the cost of one walk of a
#                        user stack by frame pointers and by unwind tables
#   make fuzz-readers    fuzz the trace readers with clang's libFuzzer,
#                        each target for FUZZ_SECONDS (default 60); make
#                        -C user fuzz-diff compares gotrace check with
#                        Go on damaged traces (Documentation/testing.rst)
#
# The kernel build itself is driven by ./Kbuild, so that
# "make -C <kernel build dir> M=$(CURDIR) modules" works on its own, as
# DKMS and packagers call it.

KDIR ?= /lib/modules/$(shell uname -r)/build
# Empty: every kernel and boot configuration (selftests/vm/lib.sh).
KERNELS ?=
# The kernel the demo and the benchmark boot unless KERNELS names one:
# 6.12, or with ARCH=arm64 Debian's arm64 6.12.
DEMO_KERNEL = $(if $(filter command line,$(origin KERNELS)),$(firstword $(KERNELS)),$(if $(filter arm64,$(ARCH)),6.12-arm64,6.12))

.PHONY: all module user deps check check-host check-vm check-debug check-arm64 \
	checkpatch fuzz-model demo bench bench-memory bench-check bench-host \
	bench-unwind \
	fuzz-readers clean install deb

# make install.  The DKMS source goes to /usr/src whatever PREFIX is:
# that is where DKMS looks.  The units name the installed command.
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBEXECDIR ?= $(PREFIX)/libexec/gotrace
UNITDIR ?= $(PREFIX)/lib/systemd/system
DKMSDIR ?= /usr/src
DESTDIR ?=
INSTALL ?= install
# The module's source as DKMS builds it: ./Kbuild, kmod/, model/, the uapi
# headers.
DKMS_SRCS := Kbuild $(filter-out kmod/syscall_names.h kmod/%.mod.c,\
	$(wildcard kmod/*.c kmod/*.h)) kmod/Kbuild kmod/gen_syscall_names.sh \
	$(filter-out model/%.mod.c,$(wildcard model/*.c model/*.h \
	model/env/*.h)) $(wildcard include/uapi/linux/*.h)
UNITS := gotrace-module.service gotrace-boot.service \
	gotrace-boot-done.service gotrace@.service gotrace.service

all: module user

# ARCH=arm64 on another machine: cross-built with Debian's cross
# compiler unless CROSS_COMPILE names one.  ARCH reaches the kernel's
# Makefile from the command line; CROSS_COMPILE is passed on.
ifeq ($(ARCH),arm64)
ifneq ($(shell uname -m),aarch64)
CROSS_COMPILE ?= aarch64-linux-gnu-
endif
endif

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) \
		$(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE)) modules

user:
	$(MAKE) -C user

deps:
	@scripts/deps.sh

check: deps
	KERNELS="$(KERNELS)" scripts/check.sh

fuzz-model:
	$(MAKE) -C user fuzz-model

check-host:
	$(MAKE) -C selftests/host run
	$(MAKE) -C user check
	selftests/pkg/install_test.sh

check-vm:
	selftests/vm/run-kernels.sh $(KERNELS)

check-debug:
	selftests/vm/run-kernels.sh debug

# The arm64 kernels: selftests/vm/lib.sh's GT_KERNELS_ARM64 (a bash
# file), or KERNELS.
check-arm64: deps
	selftests/vm/run-kernels.sh $(if $(KERNELS),$(KERNELS),$$(bash -c \
		'. selftests/vm/lib.sh && echo $$GT_KERNELS_ARM64'))

checkpatch:
	selftests/vm/checkpatch.sh

demo: deps
	selftests/vm/run-kernel.sh --demo $(CURDIR)/trace.out $(DEMO_KERNEL)

bench: deps bench-check
	bench/run.sh $(DEMO_KERNEL)

bench-memory: deps
	bench/run.sh --memory $(DEMO_KERNEL)

bench-check:
	bench/check.sh

bench-host:
	bench/host-bench.sh

bench-unwind:
	bench/unwind-bench.sh

fuzz-readers: deps
	$(MAKE) -C user fuzz

# Type=notify where the command speaks sd_notify (built with libsystemd),
# else Type=exec: systemd would wait in vain for READY=1.
install: user
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DKMSDIR)/gotrace-$(VERSION)
	$(INSTALL) -m 0755 user/gotrace $(DESTDIR)$(BINDIR)/gotrace
	$(INSTALL) -m 0644 Documentation/gotrace.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0755 systemd/gotrace-keep-boots $(DESTDIR)$(LIBEXECDIR)/
	type=$$(user/gotrace --version | grep -q sd_notify && echo notify || \
		echo exec); \
	for u in $(UNITS); do \
		sed -e "s|@BINDIR@|$(BINDIR)|g" \
		    -e "s|@LIBEXECDIR@|$(LIBEXECDIR)|g" \
		    -e "s|@TYPE@|$$type|g" systemd/$$u.in \
			>$(DESTDIR)$(UNITDIR)/$$u.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || \
		exit 1; \
	done
	for f in $(DKMS_SRCS); do \
		$(INSTALL) -D -m 0644 $$f \
			$(DESTDIR)$(DKMSDIR)/gotrace-$(VERSION)/$$f || exit 1; \
	done
	sed "s|@VERSION@|$(VERSION)|" dkms.conf.in \
		>$(DESTDIR)$(DKMSDIR)/gotrace-$(VERSION)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMSDIR)/gotrace-$(VERSION)/dkms.conf

# Debian packages, built outside the sources' parent directory (which
# dpkg-buildpackage writes its results to): a copy of the tree in
# .cache/deb/src.
DEB_OUT := $(CURDIR)/.cache/deb
deb:
	scripts/build-deb.sh $(DEB_OUT)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	-$(MAKE) -C user clean
	-$(MAKE) -C selftests/host clean
