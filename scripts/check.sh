#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - the steps of `make check` after `make deps`: the host tests
# and checkpatch, and beside them the VM tests on $KERNELS (default:
# every kernel and boot of selftests/vm/lib.sh's GT_KERNELS_DEFAULT),
# one boot at a time until the host checks pass, then two (below).
#
# On a machine whose GT_STORE has no debug kernel yet, building it is the
# longest single step of the VM tests (27 minutes on a fresh 2-CPU host,
# Documentation/measurements.rst).  It is started here, in the background,
# before the host tests: the build runs at nice 10, so the host tests
# keep their CPU and the build takes what they leave idle.  run-kernel.sh
# waits for it under the same lock when the debug kernel's turn comes,
# and builds it itself if this build failed.  Where the kernel is
# cached, the background step only finds it ready.
set -uo pipefail
cd "$(dirname "$0")/.." || exit

# shellcheck source-path=SCRIPTDIR/..
# shellcheck source=selftests/vm/lib.sh
. selftests/vm/lib.sh

# One kernel per word, on one line: the default list spans two lines of
# lib.sh, and a newline passed on in KERNELS= would end the check-vm
# recipe early and run the rest of the list as a command.
# shellcheck disable=SC2086
set -- ${KERNELS:-$GT_KERNELS_DEFAULT}
kernels=$*
early=
log=$GT_CACHE/vm/debug-kernel-early.log
case " $kernels " in
*" debug "*)
	mkdir -p "$GT_CACHE/vm"
	# A process group of its own, so that an early end of the checks
	# stops the whole build, make and compilers included.
	setsid bash -c '. selftests/vm/lib.sh && gt_kernel_fetch debug' \
		> "$log" 2>&1 &
	early=$!
	echo "debug kernel: prepared in the background (log: $log)"
	;;
esac

# The VM tests start at once, one kernel at a time until the host tests
# and checkpatch have passed (run-kernels.sh's GT_VM_GATE): those keep
# one CPU busy, and the first boot, the longest, takes the other.  They
# share user/'s generated files (the BPF skeleton, the syscall tables)
# with the VM harness's builds, so the command is built first, alone.
gate=$GT_CACHE/vm/host-checks-done
vm=

# stop PID: end the process group PID leads (setsid), if it still runs.
stop() {
	[ -n "$1" ] || return 0
	kill -0 "$1" 2>/dev/null || return 0
	kill -- -"$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
trap 'stop "$vm"; stop "$early"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

make -s -C user > /dev/null || exit
mkdir -p "$GT_CACHE/vm"
rm -f "$gate"
GT_VM_GATE=$gate setsid make check-vm KERNELS="$kernels" &
vm=$!
make check-host && make checkpatch
host=$?
touch "$gate"
if [ "$host" -ne 0 ]; then
	echo "host checks failed: the VM tests are stopped"
	exit "$host"
fi
wait "$vm"
vm_rc=$?
# A test that ran a tool with output "/dev/null" through a temporary file
# and a rename, as root, would have made /dev/null a regular file: every
# later "> /dev/null" on the machine then writes to disk, and compilers
# that read it as an empty source (Kbuild's cc-option) fail.  Fail too.
if [ ! -c /dev/null ]; then
	echo "error: /dev/null is no longer the null device: a test replaced it (restore it: rm /dev/null; mknod -m 666 /dev/null c 1 3)"
	exit 1
fi
exit "$vm_rc"
