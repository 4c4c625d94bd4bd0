#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh OUT - record a few seconds of a small mixed workload into OUT:
# pipelines, sleepers, a compressor, a file walker, short-lived processes
# and the ping-pong and mutex workloads, so that every view of
# `go tool trace` has something to show.
. ./lib.sh

workload() {
	jobs=
	(for i in 1 2 3 4 5 6; do seq 1 4000 | sort -r | md5sum > /dev/null; done) &
	jobs="$jobs $!"
	(for i in $(seq 1 20); do sleep 0.05; done) &
	jobs="$jobs $!"
	(yes gotrace | head -c 4000000 | gzip -c > /dev/null) &
	jobs="$jobs $!"
	(find / -xdev > /dev/null 2>&1) &
	jobs="$jobs $!"
	(for i in $(seq 1 30); do true; /bin/true; done) &
	jobs="$jobs $!"
	./workload pingpong 300 &
	jobs="$jobs $!"
	./workload mutex 3 20 &
	jobs="$jobs $!"
	for p in $jobs; do
		wait "$p" || return 1
	done
}

record_while "${1:-$GT_OUT/trace.out}" workload
