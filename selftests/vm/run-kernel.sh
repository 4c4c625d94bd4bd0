#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kernel.sh [--demo OUT] KERNEL[@BOOT] - build gotrace.ko for a kernel
# ("6.1", "6.12", "6.12-rt", "newest", "newest-rt", "debug", and Debian's
# arm64 kernels "6.12-arm64"...: lib.sh), boot that kernel in QEMU
# (qemu-system-aarch64's virt machine for arm64) with a busybox initramfs
# holding the module and the tests, run the tests (TAP on the console),
# copy the traces out and put each through both Go parsers.
#
# BOOT picks a boot configuration other than the default two vCPUs:
#   8cpus      eight vCPUs; the tests whose load spreads over the CPUs
#              ($GT_8CPUS_TESTS)
#   maxcpus64  two vCPUs online, 64 possible (-smp 2,maxcpus=64, and
#              possible_cpus=64: SeaBIOS lists only present CPUs); the
#              guest's online_cpus_test.sh then must see 64 possible;
#              only the tests where the CPU count matters
#              ($GT_MAXCPUS_TESTS)
#   mttcg      four vCPUs on as many host threads (multi-threaded TCG),
#              so that CPUs really run at once; only the tests that hammer
#              cross-CPU paths ($GT_MTTCG_TESTS); an x86-64 kernel
#              under trixie's QEMU (10), run in the trixie chroot
#              (GT_MTTCG_QEMU=host: the host's, bookworm's 7.2): it
#              loses the race below less often.  A guest that dies of
#              an int3 oops at a text-patching site (int3-at-patch-site.sh),
#              which multi-threaded TCG causes by itself, is booted again,
#              at most GT_MTTCG_RETRIES (3; 10 under the host's QEMU)
#              times, and the retries are counted in the output
#   icount     two vCPUs whose clock counts their instructions (QEMU
#              -icount shift=2: 4 ns each), so that a timer is never late
#              because the other vCPU had its turn on the host thread:
#              the CPU-sample tests ($GT_ICOUNT_TESTS), which hold the
#              samples of a task to its CPU time (GT_EXACT_TIME=1)
#   isolated   two vCPUs, CPU 1 isolated (isolcpus=nohz,domain,1
#              nohz_full=1 rcu_nocbs=1): the CPU-sample timers leave it
#              alone unless asked ($GT_ISOLATED_TESTS)
#   systemd    a Debian system with systemd as PID 1 and gotrace
#              installed from its packages: run-systemd.sh
#
# Exit status 0 only if every guest test passed, every trace is valid and
# the kernel reported nothing (kernel-reports.sh).  With --demo, records
# the demo workload instead and writes it to OUT.
#
# Environment: GT_VM_TIMEOUT (seconds, default 900; 1500 on the debug
# kernel), GT_TEST_TIMEOUT (seconds one guest test may take before the
# guest shows its blocked tasks and kills it: 240; 600 on the debug
# kernel; the tests' own waits are bounded 4 times longer there,
# GT_TIME_SCALE), GT_BPF_TESTS (1 runs the BPF backend's guest tests:
# the default on 6.1, newest, their arm64 twins and 6.12-arm64, and
# with GT_TESTS), GT_GO111_TESTS (all: the default on 6.12-arm64 and with
# GT_TESTS; kernel: only the go1.11 runs that drive that format's
# kernel paths, the default on 6.12, debug and the 6.12-rt of both
# architectures; none: the default elsewhere),
# GT_STRESS_TESTS (1 runs stress_go123_test.sh: the default on 6.12,
# @mttcg and with GT_TESTS; 0 skips it),
# GT_VM_CPUS (2, or as BOOT says),
# GT_VM_ACCEL (QEMU -accel, default tcg,thread=single),
# GT_VM_MEM (1024, MiB), GT_VM_APPEND (extra kernel command line words),
# GT_TESTS (comma-separated names from selftests/gotrace: run only those).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

demo_out=
if [ "${1:-}" = --demo ]; then
	demo_out=$2
	shift 2
fi
[ $# -eq 1 ] || gt_die "usage: $0 [--demo OUT] KERNEL[@BOOT]"
name=$1
kernel=${name%%@*}
# An arm64 kernel (6.12-arm64...) boots on QEMU's arm64 virt machine
# with a cross-built userland (arm64-userland.sh).
arch=$(gt_kernel_arch "$kernel")
# The systemd guest is another kind of guest altogether.
case $name in
*@systemd) exec "$GT_VM/run-systemd.sh" "$name" ;;
esac
cpus=2
boot_append=
accel=${GT_VM_ACCEL:-tcg,thread=single}
retries=0
# Whose QEMU boots the guest: the host's, or the trixie chroot's
# (gt_qemu).
qemu_from=host
case $name in
*@8cpus)	cpus=8
		GT_TESTS=${GT_TESTS:-$GT_8CPUS_TESTS} ;;
*@maxcpus64)	[ "$arch" = amd64 ] ||
			gt_die "@maxcpus64 is an x86-64 boot (possible_cpus=)"
		cpus=2,maxcpus=64
		boot_append="possible_cpus=64 GT_WANT_POSSIBLE=64"
		GT_TESTS=${GT_TESTS:-$GT_MAXCPUS_TESTS} ;;
*@mttcg)	cpus=4
		accel=tcg,thread=multi
		# QEMU 7.2 loses the int3 race below several times as often
		# as QEMU 10 (testing.rst).  The race is x86-64's: arm64
		# patches its text without int3.
		[ "$arch" = amd64 ] && qemu_from=${GT_MTTCG_QEMU:-trixie}
		# Retries for that race only, as few as QEMU 10's rate of
		# it allows; six were once not enough under QEMU 7.2
		# (testing.rst).
		case $qemu_from in
		trixie)	retries=${GT_MTTCG_RETRIES:-3} ;;
		host)	retries=${GT_MTTCG_RETRIES:-10} ;;
		*)	gt_die "GT_MTTCG_QEMU is trixie or host, not '$qemu_from'" ;;
		esac
		GT_TESTS=${GT_TESTS:-$GT_MTTCG_TESTS} ;;
*@icount)	export GT_QEMU_EXTRA="-icount shift=2"
		boot_append="GT_EXACT_TIME=1"
		GT_TESTS=${GT_TESTS:-$GT_ICOUNT_TESTS} ;;
*@isolated)	boot_append="isolcpus=nohz,domain,1 nohz_full=1 rcu_nocbs=1"
		GT_TESTS=${GT_TESTS:-$GT_ISOLATED_TESTS} ;;
*@*)		gt_die "unknown boot configuration in '$name' (8cpus, maxcpus64, mttcg, icount, isolated, systemd)" ;;
esac
cpus=${GT_VM_CPUS:-$cpus}
# The whole guest: 6.12-arm64 runs every test in both formats and
# backends, 470 s or so (x86-64's 6.12 did, in 400 s, and reached 600
# on a host loaded with two more guests).  A hung test is stopped
# sooner by its own limit.
timeout=900
test_timeout=240
# KASAN and lockdep under emulation: everything takes several times
# longer (a whole debug run takes 400-550 s).
time_scale=1
if [ "$kernel" = debug ]; then
	timeout=1500
	test_timeout=600
	time_scale=4
fi
timeout=${GT_VM_TIMEOUT:-$timeout}
test_timeout=${GT_TEST_TIMEOUT:-$test_timeout}
time_scale=${GT_TIME_SCALE:-$time_scale}
# The BPF backend's guest tests (bpf:NAME, backends_test.sh) on the
# kernels with BTF that users run most: 6.1 and newest on both
# architectures, and 6.12 on arm64 only; the other boots skip them.
# x86-64's 6.12 ran them too until make check ran 6.12-arm64: the
# backend is the same code on both but for its syscall tables, which
# 6.1 and newest check on x86-64, and its CO-RE relocations, which a
# kernel changes, not an architecture.
bpf_tests=0
case $name in
6.1|newest|6.1-arm64|6.12-arm64|newest-arm64|*@icount) bpf_tests=1 ;;
esac
# The go1.11 runs (go111:NAME): all of them on 6.12-arm64, which checks
# that format's ground truth in full (x86-64's 6.12 did, until make
# check ran 6.12-arm64 with the same tests: the format is the same code
# on both, and what the architecture changes, its syscall table and
# stacks, the go1.23 runs check on every kernel); on 6.12, the debug
# kernel (KASAN, lockdep) and one PREEMPT_RT kernel (sleeping locks)
# those that drive the format's own kernel paths (guest-init); none on
# the others.  The encoder, the model and the chunk pool of that format
# are the same code on every kernel; what a kernel adds is in the
# tracepoints and the compat layer, which the go1.23 runs drive on
# every kernel.  On newest the go1.11 runs were 74 s of its 440 s of
# guest time and 41 of its 141 traces, and a fresh machine's make check
# did not fit 80 minutes with them on 6.1, newest and newest-rt.
go111_tests=none
case $kernel in
6.12-arm64) go111_tests=all ;;
6.12 | debug | 6.12-rt | 6.12-rt-arm64) go111_tests=kernel ;;
esac
# The stress run of many short recordings (stress_go123_test.sh, 60 to 90 s
# of guest time) on the reference boot, 6.12, and on @mttcg, whose CPUs
# really run at once, as the races it looks for need; the model and the
# writer it drives are the same code on every kernel, and on each of the
# seven others of make check it would add its minute and a half.
stress_tests=0
case $name in
6.12|*@mttcg) stress_tests=1 ;;
esac
# The merge of a Go program's own trace (gomerge_test.sh, about 30 s of
# guest time, its host checks with Go's web UI) on the reference boot
# and the newest kernel, x86-64: the merge is user-space code, the same
# on every kernel; what a kernel changes is what the backends record,
# which the other tests check everywhere.  Those boots get a disk
# (GT_QEMU_DISK, 64 MiB of zeros) for its reads with O_DIRECT, which
# sleep in the kernel's block I/O as a file the page cache does not
# hold would.
merge_tests=0
case $name in
6.12|newest) merge_tests=1 ;;
esac
# A list of tests (a boot configuration's, or the caller's) is run as
# it is, its BPF, go1.11, stress and merge entries included.
if [ -n "${GT_TESTS:-}" ]; then
	bpf_tests=1
	go111_tests=all
	stress_tests=1
	merge_tests=1
fi
bpf_tests=${GT_BPF_TESTS:-$bpf_tests}
go111_tests=${GT_GO111_TESTS:-$go111_tests}
stress_tests=${GT_STRESS_TESTS:-$stress_tests}
merge_tests=${GT_MERGE_TESTS:-$merge_tests}
[ "$arch" = arm64 ] && merge_tests=0
# The virtio disk of the merge boots is read by irq_test.sh too, for its
# interrupts (a disk without a file system, of zeros): every boot whose
# list has that test gets one.
disk_tests=$merge_tests
case ,${GT_TESTS:-irq_test.sh}, in
*[,:]irq_test.sh,*) disk_tests=1 ;;
esac

# Where a boot's time goes, printed at its end: preparing (downloads,
# builds, the initramfs), the guest, the host's checks of its traces.
t_start=$SECONDS
work=$GT_CACHE/vm/$name
rm -rf "$work"
mkdir -p "$work"

# The debug kernel's first build (minutes: see build-debug-kernel.sh) is
# made before the preparation lock below, under a lock of its own: held
# there, it kept the other slot from preparing any kernel, and a fresh
# machine's VM tests waited for it with one slot idle.
if [ "$kernel" = debug ]; then
	gt_kernel_fetch debug
fi

# Preparing (downloads, the trixie chroot, builds) is done by one run at a
# time: run-kernels.sh boots several kernels at once, and they share the
# apt state, the chroot and user/.
exec 8> "$GT_CACHE/vm/.prepare.lock"
flock 8
gt_build_module "$kernel"
gt_linux_source
[ "$qemu_from" = host ] || gt_chroot_qemu
make -s -C "$GT_ROOT/user" >/dev/null || gt_die "cannot build user/gotrace"

# The tests: static binaries but unwind_test.sh's workload, which runs
# with Debian's C library (gt_initramfs_libc).  Built
# once for every boot of the run (make rebuilds what changed); an arm64
# guest's cross-built, its busybox the arm64 package's.
if [ "$arch" = arm64 ]; then
	tests=$GT_CACHE/vm/tests-arm64
	gt_arm64_userland "$tests"
	export GT_GUEST_BUSYBOX=$GT_ARM64_SYSROOT/bin/busybox
else
	tests=$GT_CACHE/vm/tests
	make -s -C "$GT_ROOT/selftests/gotrace" O="$tests" \
		KSFT_DIR="$LSRC/tools/testing/selftests" >&2
fi

# The initramfs: busybox, the virtio drivers, the module, the tests and
# the C library of the one dynamic one.
root=$work/rootfs
gt_initramfs_base "$root" "$GT_VM/guest-init"
cp "$KMOD" "$root/gotrace.ko"
cp -r "$tests" "$root/tests"
gt_initramfs_libc "$root" "$tests/unwind_prog"
gt_initramfs_pack "$root" "$work/initramfs.gz"
flock -u 8
exec 8>&-

# Which QEMU, when it is not the host's.
qemu_version=
[ "$qemu_from" = host ] ||
	qemu_version="$qemu_from's $(gt_chroot_run -- qemu-system-x86_64 --version |
		sed -n '1s/^QEMU emulator version \([^ ]*\).*/QEMU \1/p')"
t_prepared=$SECONDS
mode=test
[ -n "$demo_out" ] && mode=demo
log=$work/console.log
# Boots retried for what emulation causes by itself, counted: see the
# two cases below.
retried=0
acpi_retried=0
while :; do
	gt_log "booting $KREL ($mode, -smp $cpus, $accel${qemu_version:+, $qemu_version})"
	rm -rf "$work/out"
	disk=
	if [ "$disk_tests" = 1 ]; then
		disk=$work/disk.img
		rm -f "$disk"
		truncate -s 64M "$disk"
	fi
	GT_QEMU_DISK=$disk GT_QEMU_FROM=$qemu_from gt_qemu "$timeout" "$accel" "$cpus" "${GT_VM_MEM:-1024}" "$work" \
		"GT_MODE=$mode GT_TEST_TIMEOUT=$test_timeout GT_TIME_SCALE=$time_scale GT_BPF_TESTS=$bpf_tests GT_GO111_TESTS=$go111_tests GT_STRESS_TESTS=$stress_tests GT_MERGE_TESTS=$merge_tests ${GT_TESTS:+GT_TESTS=$GT_TESTS} $boot_append ${GT_VM_APPEND:-}"
	rc=$GT_QEMU_RC
	# The debug kernel on a loaded host: so slow that ACPI's interpreter
	# gave up on the PCI interrupt routing method (AE_AML_LOOP_TIMEOUT in
	# \_SB.PCI0._PRT) and virtio-pci, which that build has no MSI for,
	# got no interrupt: no trace can come out.  Once more.
	if [ "$kernel" = debug ] && [ "$acpi_retried" -lt 1 ] &&
	   grep -q 'AE_AML_LOOP_TIMEOUT' "$log.txt"; then
		acpi_retried=$((acpi_retried + 1))
		echo "[$name] # retry: ACPI's interpreter timed out at boot (host too slow)"
		cp "$log.txt" "$work/console-acpi-timeout.txt"
		continue
	fi
	# A guest that did not finish, killed by multi-threaded TCG itself.
	case $rc in 1|3|5|7|9|124) break ;; esac
	[ "$retried" -lt "$retries" ] || break
	"$GT_VM/int3-at-patch-site.sh" "$log.txt" || break
	retried=$((retried + 1))
	echo "[$name] # retry $retried: $(grep -m1 -A 12 'Oops: int3' "$log.txt" |
		grep -m1 'RIP:')"
	cp "$log.txt" "$work/console-int3-$retried.txt"
done
[ "$retries" -eq 0 ] ||
	echo "[$name] # multi-threaded TCG: $retried boots retried after an int3 oops at a text-patching site${qemu_version:+ ($qemu_version)}"

t_guest=$SECONDS
# The guest's verdict: it writes 0 (pass) or 1 to the exit port, which
# QEMU turns into (N << 1) | 1.  Anything else is a crash or a hang.
case $rc in
1) guest=pass ;;
3|5|7|9) guest=fail ;;
124) guest="timed out after $timeout s" ;;
*) guest="did not finish (qemu exit $rc)" ;;
esac

if [ -n "$demo_out" ]; then
	cat "$log.txt" >&2
	[ "$guest" = pass ] || gt_die "demo on $KREL: $guest"
	cp "$work/out/trace.out" "$demo_out"
	"$GT_ROOT/selftests/check-trace.sh" "$demo_out"
	exit 0
fi

# Print the guest's TAP with the kernel name, then one line per trace.
sed -n '/^TAP version/,$p' "$log.txt" | sed "s/^/[$name] /"
if [ "$guest" != pass ] && [ "$guest" != fail ]; then
	gt_log "[$name] the guest $guest; its console:"
	tail -n 60 "$log.txt" | sed "s/^/[$name] console: /" >&2
fi
passed=$(grep -c '^ok ' "$log.txt" || true)
failed=$(grep -c '^not ok ' "$log.txt" || true)
[ "$guest" = pass ] || [ "$failed" -gt 0 ] || failed=1

# Any report of the kernel's checkers (lockdep, KASAN, UBSAN, sleeping in
# atomic context, WARN, oops...) during the whole run fails it, whether
# or not a test noticed.
if gt_kernel_reports "$name" "$log.txt" "$work/out/dmesg.txt" \
	"$work/reports.txt"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

# host_test WHAT LOG COMMAND...: one TAP line for a host-side check of a
# trace, with the check's output as comments; $last: 0 if it passed, else 1.
host_test() {
	local what=$1 log=$2
	shift 2
	last=0
	if "$@" > "$log" 2>&1; then
		passed=$((passed + 1))
		echo "[$name] ok - $what"
	else
		last=1
		failed=$((failed + 1))
		echo "[$name] not ok - $what"
	fi
	sed "s/^/[$name] #   /" "$log"
}

# check_agrees TRACE GO: 'gotrace check' gives the verdict the Go
# parsers gave (GO: 0 accepted, 1 rejected).
check_agrees() {
	local ours=0
	"$GT_ROOT/user/gotrace" check -q "$1" || ours=1
	[ "$ours" = "$2" ] && return 0
	echo "gotrace check says $ours, the Go checker $2 (0: accepted)"
	return 1
}

# readers TRACE: the Go versions check-trace.sh reads TRACE with, by its
# header.
readers() {
	case $(head -c 16 "$1" | tr -d '\0') in
	"go 1.22 trace" | "go 1.23 trace") echo "Go 1.23 and 1.27" ;;
	"go 1.25 trace" | "go 1.26 trace") echo "Go 1.27" ;;
	*) echo "Go 1.21 and 1.23" ;;
	esac
}

# The checker of record on every trace, every reader of its format; the
# profiles of every kind and reader on every trace of the reference boot
# (plain 6.12), and on those of the go1.11 runs and the BPF backend of
# 6.12-arm64, which 6.12 no longer makes in full; the web UIs on
# the first workload's, the units' and the CPU samples'; the ground
# truth where the guest wrote one, whose "pprof" lines build the
# profiles they name on every boot.  A profile is built from the trace Go has parsed already, and
# what it adds, the same on every kernel, is proved on the reference
# boot: newest's 141 traces took 207 CPU-s to check with every profile,
# 83 without, and on a fresh machine each boot's host checks took as
# long as its guest.
# The BPF backend's traces are in out/bpf/, named bpf/NAME; those of the
# go1.11 runs (go111:NAME) in out/go111/, go111/NAME (go111/bpf/NAME for bpf:go111:).
# A run of only bpf: or go111: tests has traces there alone.
traces=0
for t in "$work"/out/*.trace "$work"/out/bpf/*.trace "$work"/out/go111/*.trace \
	"$work"/out/go111/bpf/*.trace; do
	case $t in
	*/\*.trace) continue ;;
	esac
	traces=$((traces + 1))
	base=${t#"$work"/out/}
	base=${base%.trace}
	case $name/$base in
	6.12/* | 6.12-arm64/go111/* | 6.12-arm64/bpf/*) opts=--pprof ;;
	*) opts= ;;
	esac
	# units: the user task and region pages of its systemd unit;
	# cpusample: the timelines that draw CPU samples.
	case $base in
	pingpong | units | cpusample) opts="--web --pprof" ;;
	# The merged traces: the kernel's regions on every page (their
	# inputs, gomerge*-prog and -kernel, are read as any trace).
	gomerge12[37] | bpf/gomerge12[37]) opts="--web" ;;
	esac
	# shellcheck disable=SC2086
	host_test "$base.trace accepted by $(readers "$t")${opts:+ ($opts)}" \
		"$t.check" "$GT_ROOT/selftests/check-trace.sh" $opts "$t"
	host_test "$base.trace: gotrace check agrees" "$t.gtcheck" \
		check_agrees "$t" "$last"
	[ -f "${t%.trace}.expect" ] &&
		host_test "$base.trace matches its ground truth" "$t.verify" \
			"$GT_ROOT/selftests/verify-trace.sh" "$t" "${t%.trace}.expect"
	[ -f "${t%.trace}.merge" ] &&
		host_test "$base.trace: the kernel's view of its ground truth" "$t.merge-check" \
			"$GT_ROOT/selftests/check-merge.sh" "$t" "${t%.trace}.merge"
	[ -f "${t%.trace}.irq" ] &&
		host_test "$base.trace: its interrupts are /proc's" "$t.irq-check" \
			"$GT_ROOT/selftests/check-irq.sh" "$t" "${t%.trace}.irq"
	[ -f "${t%.trace}.unwind" ] &&
		host_test "$base.trace: unwind_prog's stacks walked as they should" "$t.unwind-check" \
			"$GT_ROOT/selftests/check-unwind.sh" "$t" "${t%.trace}.unwind"
done
# The stress run's files (stress_go123_test.sh), over a hundred small
# ones: every one read by Go 1.23 and 1.27 and gotrace check's verdict
# compared, in one line, which names the refused.
if [ -d "$work/out/stress" ]; then
	traces=$((traces + 1))
	host_test "stress/*.trace accepted by Go 1.23 and 1.27, gotrace check agrees" \
		"$work/out/stress.check" "$GT_ROOT/selftests/check-stress.sh" \
		"$work/out/stress"
fi
if [ "$traces" -eq 0 ]; then
	failed=$((failed + 1))
	gt_log "[$name] no trace came out"
fi
# The storm's figures, in each format: the event rate it reached and the
# bytes per event.
for storm in "$work"/out/storm.trace "$work"/out/go111/storm.trace; do
	[ -s "$storm" ] || continue
	"$GT_ROOT/user/gotrace" check "$storm" 2>/dev/null |
	awk -v size="$(stat -c %s "$storm")" -v k="$name" \
		-v fmt="$(head -c 13 "$storm")" \
		-v how="$(cat "${storm%.trace}.result" 2>/dev/null)" '
		$1 == "duration" { d = $2 }
		$1 == "events" && $2 ~ /^[0-9]+$/ { e = $2 }
		END { if (d > 0 && e > 0)
			printf "[%s] storm (%s): %d events in %.2f s: %.0f events/s, %.2f bytes/event, %s\n",
				k, fmt, e, d, e / d, size / e, how }'
done
echo "[$name] $KREL: $passed passed, $failed failed"
echo "[$name] seconds: preparing $((t_prepared - t_start)), guest $((t_guest - t_prepared)), host checks $((SECONDS - t_guest))"
echo "$passed $failed" > "$work/counts"
[ "$failed" -eq 0 ]
