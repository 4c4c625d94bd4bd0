#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ab.sh [BASE [KERNEL]] - the module of the work tree against the one of
# commit BASE (default HEAD), in one boot of KERNEL (default 6.12) under
# QEMU -icount shift=0: the guest's clock counts emulated instructions,
# so the figures do not move with the host's load, and both modules run
# under the same conditions, swapped between runs (configurations
# NAME@base, bench/guest-bench.sh).  Prints bench/ab.awk's table (in
# .cache/bench/KERNEL/ab.txt).  The environment of bench/run.sh applies;
# by default 3 rounds of 500 ms of getppid and the ping-pong (hackbench's
# schedule is not deterministic, and varies by tens of percent), in the
# configurations none, empty, gotrace, nostacks, gotrace-v2, and
# ustacks-v2 where BASE has user stacks (kmod/ustack.c), and each
# NAME@base, no ramp.  Documentation/performance.rst, "The hot path:
# measured changes".
set -euo pipefail

base=${1:-HEAD}
name=${2:-6.12}
cfg=none,empty,gotrace,gotrace@base,nostacks,nostacks@base
cfg=$cfg,gotrace-v2,gotrace-v2@base
if git -C "$(dirname "${BASH_SOURCE[0]}")" cat-file -e "$base:kmod/ustack.c" \
	2>/dev/null; then
	cfg=$cfg,ustacks-v2,ustacks-v2@base
fi
export BENCH_BASE=$base BENCH_ICOUNT=1
export BENCH_MS=${BENCH_MS:-500} BENCH_ROUNDS=${BENCH_ROUNDS:-3}
export BENCH_WORKLOADS=${BENCH_WORKLOADS:-getppid,pingpong}
export BENCH_CONFIGS=${BENCH_CONFIGS:-$cfg}
export BENCH_RAMP_GETPPID=${BENCH_RAMP_GETPPID:-none}
export BENCH_RAMP=${BENCH_RAMP:-none}
export BENCH_RAMP_STARVED=${BENCH_RAMP_STARVED:-none}
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" "$name"
