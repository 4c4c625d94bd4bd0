#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--memory] [KERNEL] - the gotrace benchmark on one Debian kernel ("6.1",
# "6.12" (the default), "6.12-rt", or an arm64 one: "6.12-arm64"...) in
# QEMU: builds gotrace.ko and the empty-probe module against that
# kernel's headers, the workloads as static programs, a busybox
# initramfs; boots it (same QEMU options as selftests/vm/run-kernel.sh:
# one host thread for all vCPUs; qemu-system-aarch64's virt machine for
# an arm64 kernel, everything cross-built for it); the guest
# prints raw numbers (bench/guest-bench.sh), this script turns them into
# one table (bench/report.awk).  Never part of "make check".
#
# With --memory, the memory curve of one long "go 1.23 trace" session
# under a load that creates and ends tasks (bench/guest-memory.sh, table
# by bench/memory.awk) instead, in .cache/bench/KERNEL-memory/.
#
# Results: .cache/bench/KERNEL/{results.txt,table.txt,console.log.txt}.
#
# Environment: BENCH_MS (one run, default 1000), BENCH_ROUNDS (5),
# BENCH_WORKLOADS (getppid,pingpong,hackbench), BENCH_CONFIGS
# (none,empty,gotrace,nostacks,ftrace,bpf), BENCH_RAMP_GETPPID (getppid processes:
# 1,2,4,8,16,32,64), BENCH_RAMP (hackbench groups: 1,2,4,8,16,32),
# BENCH_RAMP_STARVED (getppid processes, reader at nice 19:
# 1,2,4,8,16,32,64,128; "none" skips a ramp), BENCH_RAMP_FORMATS
# (go1.11,go1.23: each ramp runs in each),
# BENCH_VM_TIMEOUT (seconds, 840), BENCH_VM_CPUS (2), BENCH_VM_MEM (MiB,
# 3072: ftrace's files fill tmpfs fast), BENCH_VM_ACCEL (tcg,thread=single).
# BENCH_BASE (a commit): its module too, as /bench/base.ko, for the
# configurations NAME@base (guest-bench.sh), and the table of
# bench/ab.awk after the report; BENCH_ICOUNT=1: QEMU -icount shift=0,
# the guest's clock counting instructions (Documentation/performance.rst,
# "The hot path: measured changes"); bench/ab.sh sets both.
# --memory: BENCH_MEM_S (seconds of load, 300), BENCH_MEM_STEP (seconds
# between samples, 10), BENCH_MEM_GEN_MS (generation_ms; the module's
# default), BENCH_MEM_PROCS (churning processes; one per vCPU); the
# timeout is then BENCH_MEM_S + 600 unless BENCH_VM_TIMEOUT says.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../selftests/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../selftests/vm/lib.sh"
BENCH=$GT_ROOT/bench

mode=bench
if [ "${1:-}" = --memory ]; then
	mode=memory
	shift
fi
name=${1:-6.12}
gt_kernel_fetch "$name"

# Our own build and work tree: the test harness's (.cache/build,
# .cache/vm) may be in use by a parallel "make check".
work=$GT_CACHE/bench/$name
[ "$mode" = memory ] && work=$work-memory
rm -rf "$work"
mkdir -p "$work/gotrace" "$work/emptyprobe"
cp -r "$GT_ROOT/Kbuild" "$GT_ROOT/kmod" "$GT_ROOT/model" "$GT_ROOT/include" \
	"$work/gotrace/"
cp "$BENCH"/emptyprobe/Kbuild "$BENCH"/emptyprobe/*.c "$work/emptyprobe/"
mods="gotrace emptyprobe"
if [ -n "${BENCH_BASE:-}" ]; then
	mkdir -p "$work/base"
	git -C "$GT_ROOT" archive "$BENCH_BASE" Kbuild kmod include \
		$(git -C "$GT_ROOT" cat-file -e "$BENCH_BASE:model" 2>/dev/null && echo model) |
		tar -x -C "$work/base" || gt_die "no commit $BENCH_BASE"
	mods="$mods base"
fi
# The harness's module build (cross for an arm64 kernel, in the trixie
# chroot for a compiler the host lacks), without its W=1 and sparse.
for m in $mods; do
	gt_kbuild "$work/$m" "$work/$m.log" ||
		{ cat "$work/$m.log" >&2; gt_die "cannot build $m for $KREL"; }
done
# The workloads and gotrace itself (static, for the bpf configuration):
# for an arm64 kernel cross-built as the harness builds its arm64 guest's
# programs, gotrace from a copy of user/ with the BPF object compiled
# against that kernel's BTF, and the guest's busybox the arm64 one.
if [ "$(gt_kernel_arch "$KREL")" = arm64 ]; then
	gt_arm64_gotrace "$work/src" "$work/progs"
	nice make -s -C "$BENCH" O="$work/progs" CC="${GT_ARM64_CROSS}gcc" >&2
	export GT_GUEST_BUSYBOX=$GT_ARM64_SYSROOT/bin/busybox
else
	make -s -C "$BENCH" O="$work/progs" >&2
	make -s -C "$GT_ROOT/user" static O="$work/progs" >&2
fi

root=$work/rootfs
gt_initramfs_base "$root" "$BENCH/guest-init"
mkdir -p "$root/bench"
cp "$work/gotrace/kmod/gotrace.ko" "$root/gotrace.ko"
[ -z "${BENCH_BASE:-}" ] || cp "$work/base/kmod/gotrace.ko" "$root/bench/base.ko"
cp "$work/emptyprobe/emptyprobe.ko" "$BENCH/guest-bench.sh" \
	"$BENCH/guest-memory.sh" \
	"$work"/progs/* "$root/bench/"
gt_initramfs_pack "$root" "$work/initramfs.gz"

knobs=
timeout=${BENCH_VM_TIMEOUT:-840}
report=$BENCH/report.awk
vars="BENCH_MS BENCH_ROUNDS BENCH_WORKLOADS BENCH_CONFIGS BENCH_RAMP
	BENCH_RAMP_GETPPID BENCH_RAMP_STARVED BENCH_RAMP_FORMATS"
if [ "$mode" = memory ]; then
	knobs=" BENCH_GUEST=memory"
	timeout=${BENCH_VM_TIMEOUT:-$((${BENCH_MEM_S:-300} + 600))}
	report=$BENCH/memory.awk
	vars="BENCH_MEM_S BENCH_MEM_STEP BENCH_MEM_GEN_MS BENCH_MEM_PROCS"
fi
for v in $vars; do
	[ -n "${!v:-}" ] && knobs="$knobs $v=${!v}"
done

# -accel tcg,thread=single is required, not a speed choice: see
# run-kernel.sh (multi-threaded TCG and tracepoint text patching).
log=$work/console.log
gt_log "booting $KREL (bench:${knobs:- defaults})"
[ "${BENCH_ICOUNT:-0}" = 1 ] && export GT_QEMU_EXTRA="-icount shift=0"
gt_qemu "$timeout" "${BENCH_VM_ACCEL:-tcg,thread=single}" \
	"${BENCH_VM_CPUS:-2}" "${BENCH_VM_MEM:-3072}" "$work" "${knobs# }"
rc=$GT_QEMU_RC
results=$work/out/results.txt
if [ "$rc" -ne 1 ] || [ ! -s "$results" ]; then
	tail -n 60 "$log.txt" >&2
	gt_die "the benchmark on $KREL did not finish (qemu exit $rc)"
fi
cp "$results" "$work/results.txt"
awk -f "$BENCH/lib.awk" -f "$report" "$work/results.txt" | tee "$work/table.txt"
if [ -n "${BENCH_BASE:-}" ] && [ "$mode" = bench ]; then
	awk -f "$BENCH/lib.awk" -f "$BENCH/ab.awk" "$work/results.txt" | tee "$work/ab.txt"
fi
gt_log "raw numbers: $work/results.txt; table: $work/table.txt"
