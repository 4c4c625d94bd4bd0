#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# User stacks without frame pointers (issue 41, Documentation/unwind.rst)
# on this guest's kernel: the host's ground truth (user/tests/
# unwind_test.sh) again, dynamically linked as Debian builds programs.
# unwind_prog (user/tests/unwind_prog.c) and its library libgtunwind.so,
# both -O2 -fomit-frame-pointer, run with Debian's C library of the
# guest's architecture (the initramfs holds its libc.so.6 and dynamic
# loader: selftests/vm/lib.sh, gt_initramfs_libc; x86-64's has no frame
# pointers either), and block ROUNDS times each in a read(), a
# pthread_mutex_lock() (a futex) and a nanosleep() at the end of
#
#   main -> prog_outer -> lib_middle (the library) -> prog_inner_MODE
#
# Recorded with --user-stacks twice, the frames named here (the guest's
# own files) with gotrace symbolize:
#
#   unwind-eh    --unwind=eh-frame
#   unwind-fp    --unwind=fp
#
# The host checks each trace's blocks (selftests/check-unwind.sh, with
# the host test's definition of a whole stack, selftests/
# unwind-chains.sh): in unwind-eh, ROUNDS at least of each MODE have the
# whole chain, from the C library's wrapper to __libc_start_main and
# _start, and none through prog_inner_MODE another (but those walked
# before the tables were there, below); in unwind-fp, ROUNDS blocks of
# each MODE and none reaching main: the workload has no frame pointers
# to walk, so the first check can fail.  Here: each recording ran,
# counted its walks and had its frames named; not that the fp walks
# were cut at a bad frame pointer, as the host test asks: arm64's C
# library keeps frame records, and its walk goes from prog_inner_MODE,
# its caller by the link register, to __libc_start_main and ends at
# _start without an error, lib_middle, prog_outer and main skipped.
# The default (--unwind=auto) is the command's choice of a walk, the
# same code on every kernel, which the host test records; a recording
# here costs some 5 s of guest time, most of it gotrace record's start
# under emulation.
#
# The recorder builds the tables in a thread of its own once it runs,
# first those of every process running (busybox's, gotrace's), then
# those of the program's files, once it sees its first stack: under
# emulation some 0.6 s, where the program waits 200 ms before it first
# blocks.  So unwind_prog runs a round at a time, again and again,
# until the trace written so far holds a frame of libgtunwind.so (a walk
# got through lib_middle: its tables are there), then ROUNDS rounds.
# The blocks walked before, without tables, the walker marks so ("no
# unwind table"), and check-unwind.sh leaves them out.
#
# Both backends: a walker that takes --unwind=eh-frame and walks frame
# pointers all the same fails here (no walk gets through) and on the
# host.
. ./lib.sh

if [ "$GT_BACKEND" = kmod ]; then
	backend=
else
	backend="--backend bpf $GT_BPF_OPTS"
fi
# Blocks of about 20 ms, after the 200 ms the program waits first: some
# 0.6 s, after the rounds that wait for the tables.  The last program is
# a process of its own, whose maps the recorder loads once it sees its
# first stack: a slow guest walks its first blocks before that, without
# tables (6.12-rt, 4 of 8 read blocks in one run).  Of its ROUNDS
# rounds, NEED whole ones of each kind are asked for.
rounds=8
need=5

# The C library is there: a usage error (2), not the loader's 127.
./unwind_prog -hold none 2> /tmp/unwind-run.err
rc=$?
[ "$rc" = 2 ] ||
	fail "unwind_prog does not run (exit $rc): $(cat /tmp/unwind-run.err)"

# rec NAME ARGS...: record unwind_prog with user stacks and ARGS, its
# frames named into $GT_OUT/NAME.trace; the summary in /tmp/NAME.err;
# $gated 0 once a walk got through libgtunwind.so (at once for
# unwind-fp, whose walks cannot: no waiting for tables).  The raw trace
# goes to a file through standard output, where it grows as the
# recorder writes it (its -o FILE is a temporary file until the end),
# and is named afterwards.
rec() {
	rec_name=$1
	shift
	rm -f /tmp/unwind.go
	[ "$rec_name" = unwind-fp ] && : > /tmp/unwind.go
	: > "/tmp/$rec_name.raw"
	# shellcheck disable=SC2086 # $backend: options, split
	./gotrace record $backend --user-stacks "$@" --no-symbolize \
		--children -o - -- sh -c "until [ -e /tmp/unwind.go ]; do
			./unwind_prog 1 || exit; done; exec ./unwind_prog $rounds" \
		> "/tmp/$rec_name.raw" 2> "/tmp/$rec_name.err" &
	rec_pid=$!
	cleanup_on_exit $rec_pid
	wait_until "[ -e /tmp/unwind.go ] ||
		trace_has /tmp/$rec_name.raw libgtunwind.so+0x ||
		! kill -0 $rec_pid 2>/dev/null" 300
	gated=$?
	: > /tmp/unwind.go
	wait_gone $rec_pid 300 || fail "$rec_name: gotrace record did not end"
	wait $rec_pid || return 1
	./gotrace symbolize "/tmp/$rec_name.raw" "$GT_OUT/$rec_name.trace" \
		2>> "/tmp/$rec_name.err" ||
		fail "$rec_name: gotrace symbolize failed: $(cat "/tmp/$rec_name.err")"
	# The host's check-unwind.sh: whole stacks, or cut ones by frame
	# pointers.
	for m in read futex sleep; do
		case $rec_name in
		unwind-fp) echo "cut $m $need" ;;
		*) echo "whole $m $need" ;;
		esac
	done > "$GT_OUT/$rec_name.unwind" ||
		fail "cannot write $GT_OUT/$rec_name.unwind"
}

if ! rec unwind-eh --unwind=eh-frame; then
	fail "gotrace record --unwind=eh-frame failed: $(cat /tmp/unwind-eh.err)"
fi
gated_eh=$gated
rec unwind-fp --unwind=fp ||
	fail "gotrace record --unwind=fp failed: $(cat /tmp/unwind-fp.err)"

for t in unwind-eh unwind-fp; do
	cat "/tmp/$t.err"
	check_header "$GT_OUT/$t.trace"
	grep -q "user stacks: [1-9][0-9]* walked" "/tmp/$t.err" ||
		fail "$t: the summary counts no user stack walked"
	named=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9]* user frames named.*/\1/p' \
		"/tmp/$t.err")
	[ "${named:-0}" -gt 0 ] || fail "$t: gotrace symbolize named no frame"
done
[ "$gated_eh" = 0 ] ||
	fail "unwind-eh: no walk got through libgtunwind.so in $((30 * ${GT_TIME_SCALE:-1})) s: no tables?"
trace_has "$GT_OUT/unwind-eh.trace" prog_inner_read ||
	fail "unwind-eh: no frame named prog_inner_read"
exit 0
