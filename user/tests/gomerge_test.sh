#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gomerge_test.sh - a Go program's own trace merged with gotrace's, on
# this host with the BPF backend (the guest's, with the module and the
# BPF backend: selftests/gotrace/gomerge_test.sh, whose ground truth this
# is, each capture path with the other Go)
#
#   --go URL     build/gomerge_app127 (Go 1.27: "go 1.26 trace", clock
#                snapshots) serves net/http/pprof; the spin on CPU 0
#                starts once the fetch has begun, and build/fifo_hog takes
#                CPU 0 for 200 ms and, 500 ms later, 300 ms;
#   --go-trace   build/gomerge_app (Go 1.23) writes its own trace as
#                record's COMMAND, the same workload, recorded with CPU
#                samples and user stacks: the merge adds the spin's
#                samples, in main.spinKnown; gotrace merge of the two
#                files it leaves writes the same bytes.
#
# Each merged trace: Go 1.27 (and Go 1.23 for its format) parses it and
# serves its pages (selftests/check-trace.sh --web), and
# selftests/check-merge.sh finds the spinning goroutine's two "runnable"
# regions lasting the hog's runs +-5% and naming it, the reader's
# O_DIRECT syscalls (a file of $GT_MERGE_DIR, /var/tmp: on a disk where
# the host has one) asleep in the kernel with a kernel stack, and every
# event of the program's own trace.  Then what a user gets wrong: a
# program that does not serve pprof, a recording that filtered the
# program out, a program trace in the go 1.11 format, the options
# --go and --go-trace refuse.
#
# The checks of options and formats run anywhere; the recordings skip
# where this host cannot run BPF (not root, no BTF, no backend), and
# fail where Go 1.23 or 1.27 is missing (skip with GT_ALLOW_NO_GO=1).

. "$(dirname "$0")/lib.sh"

go_env

# --- Options and formats: no recording. ---
run record --go http://127.0.0.1:1 -o "$T/x.trace"
check "--go without -d is refused" \
	'[ "$rc" = 2 ] && has "needs -d TIME" "$T/err"'
run record --go http://127.0.0.1:1 -d 1 -o "$T/x.trace" -- true
check "--go with a COMMAND is refused" \
	'[ "$rc" = 2 ] && has "no COMMAND" "$T/err"'
run record --go http://127.0.0.1:1 --go-trace "$T/p" -d 1 -o "$T/x.trace"
check "--go with --go-trace is refused" \
	'[ "$rc" = 2 ] && has "one of them" "$T/err"'
run record --go-trace "$T/p" --rotate 1s -o "$T/dir"
check "--go-trace with --rotate is refused" \
	'[ "$rc" = 2 ] && has "not with --rotate" "$T/err"'
run record --go-trace "$T/p" -o - -- true
check "--go-trace to stdout is refused" \
	'[ "$rc" = 2 ] && has "name a file with -o" "$T/err"'
run merge "$T/a" "$T/b"
check "merge without -o is refused" '[ "$rc" = 2 ] && has "needs -o OUT" "$T/err"'
"$B/min_trace" > "$T/go111.trace"
run merge -o "$T/m.trace" "$T/go111.trace" "$T/go111.trace"
check "merge refuses a go 1.11 program trace, writes nothing" \
	'[ "$rc" = 1 ] && has "Go 1.22 or newer" "$T/err" && [ ! -e "$T/m.trace" ]'

if [ ! -x "$GO123" ] || [ ! -x "$GO127" ]; then
	no_go "Go 1.23 ($GO123) or Go 1.27 ($GO127)"
	done_testing
	exit
fi
if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ] ||
   ! "$GOTRACE" bpf-dump -h >/dev/null 2>&1; then
	ok "# SKIP the recordings: this host cannot run the BPF backend"
	done_testing
	exit
fi

DIR=${GT_MERGE_DIR:-/var/tmp}
READ=$(mktemp "$DIR/gotrace-merge.XXXXXX")
trap 'rm -rf "$T" "$READ"' EXIT
dd if=/dev/zero of="$READ" bs=1M count=32 status=none

# hog APPOUT HOGOUT: once APPOUT says the spin began, fifo_hog on CPU 0.
hog() {
	i=0
	until grep -q '^spin tid=' "$1"; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.1
	done
	"$B/fifo_hog" 0 300 200 500 300 > "$2"
}

# keep NAME FILE...: on a failure, FILE... kept for a look, and where said.
keep() {
	k=$(mktemp -d "${TMPDIR:-/tmp}/gotrace-gomerge-$1.XXXXXX")
	shift
	cp "$@" "$k/" 2>/dev/null
	echo "# kept in $k"
}

# expect APPOUT HOGOUT PROGRAM OUT: check-merge.sh's ground truth.
expect() {
	spin=$(sed -n 's/^spin tid=\([0-9]*\) .*/\1/p' "$1")
	rd=$(sed -n 's/^read tid=\([0-9]*\) .*/\1/p' "$1")
	sed -n 's/^hog tid=[0-9]* start=\([0-9]*\) end=\([0-9]*\)$/\1 \2/p' "$2" |
		while read -r s e; do
			ms=$(((e - s) / 1000000))
			echo "runnable $spin $((ms * 95 / 100)) $((ms * 105 / 100)) fifo_hog"
		done > "$4"
	# Where the file is on tmpfs, no read waits for a disk.
	grep -q "odirect unsupported" "$1" ||
		echo "syscall $rd sys_(p)?read(64)? (io_schedule|submit_bio_wait|blkdev_direct|folio_wait)" >> "$4"
	echo "program $3" >> "$4"
}

# --go URL, Go 1.27.
rm -f "$T/start"
"$B/gomerge_app127" -http 127.0.0.1:0 -ready "$T/ready" -start-when "$T/start" \
	-spin 2s -read "$READ" -linger 60s > "$T/app127" 2>&1 &
app=$!
i=0
while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
addr=$(sed -n 's/^listening //p' "$T/app127")
"$GOTRACE" record --backend bpf --go "http://$addr" -d 4 -o "$T/m127.trace" \
	> "$T/rec127" 2>&1 &
rec=$!
i=0
while [ "$(stat -c %s "$T/m127.trace.go" 2>/dev/null || echo 0)" -lt 16 ] &&
      [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
touch "$T/start"
hog "$T/app127" "$T/hog127"
wait $rec
rc=$?
kill $app 2>/dev/null
wait $app
cp "$T/rec127" "$T/err"
check "record --go: the recording ends with the fetch, the merge reports" \
	'[ "$rc" = 0 ] && has "stopped: the fetch of the program.s trace ended" "$T/rec127" &&
	 has "^merged: go 1.26 trace, " "$T/rec127" &&
	 [ "$(head -c 13 "$T/m127.trace")" = "go 1.26 trace" ]'
# The snapshot's two reads are one clock: they differ by the time
# between them (tens of ns here, us under emulation), never by 1 ms.
check "record --go: a Go 1.27 trace's clock snapshot says CLOCK_MONOTONIC" \
	'awk "/clock snapshot is/ { v = \$7; if (v < 0) v = -v; ok = v < 1000000 } END { exit !ok }" "$T/rec127"'
check "record --go: the syscalls the reader slept in bound the clocks' offset, 0 within" \
	'has "syscalls seen by both bound the offset to \[-\?[0-9]*, -\?[0-9]*\] ns: 0 ns taken" "$T/rec127"'
sed -n 's/^  clock: /# clock: /p' "$T/rec127"
expect "$T/app127" "$T/hog127" m127.trace.go "$T/m127.merge"
sh "$ROOT/selftests/check-merge.sh" "$T/m127.trace" \
	"$T/m127.merge" > "$T/out" 2>&1
cm=$?
check "record --go: the kernel's view of the ground truth (check-merge.sh)" '[ $cm = 0 ]'
[ $cm = 0 ] || keep go "$T"/m127.* "$T/app127" "$T/hog127" "$T/rec127"
sed 's/^/# /' "$T/out"
bash "$ROOT/selftests/check-trace.sh" --web "$T/m127.trace" > "$T/out" 2>&1
check "record --go: Go 1.27 reads the merged trace and serves its pages" '[ $? = 0 ]'

# --go-trace FILE -- COMMAND, Go 1.23; then gotrace merge of its files.
"$GOTRACE" record --backend bpf --cpu-hz=199 --user-stacks --go-trace "$T/p123.trace" \
	-o "$T/m123.trace" -- \
	"$B/gomerge_app" -trace "$T/p123.trace" -spin-after 500ms -spin 2s \
	-read "$READ" > "$T/app123" 2> "$T/rec123" &
rec=$!
hog "$T/app123" "$T/hog123"
wait $rec
rc=$?
cp "$T/rec123" "$T/err"
check "record --go-trace: the merged trace is the program's format" \
	'[ "$rc" = 0 ] && has "^merged: go 1.23 trace, " "$T/rec123" &&
	 [ "$(head -c 13 "$T/m123.trace")" = "go 1.23 trace" ]'
grep -q "odirect unsupported" "$T/app123" ||
	check "record --go-trace: without a snapshot (Go 1.23), the syscalls bound the offset, 0 within" \
		'has "syscalls seen by both bound the offset to \[-\?[0-9]*, -\?[0-9]*\] ns: 0 ns taken" "$T/rec123"'
sed -n 's/^  clock: /# clock: /p' "$T/rec123"
run merge -q -o "$T/offline.trace" "$T/p123.trace" "$T/m123.trace.kernel"
check "gotrace merge of the same files writes the same bytes" \
	'[ "$rc" = 0 ] && cmp -s "$T/offline.trace" "$T/m123.trace"'
expect "$T/app123" "$T/hog123" p123.trace "$T/m123.merge"
echo "samples $spin main.spinKnown 100" >> "$T/m123.merge"
sh "$ROOT/selftests/check-merge.sh" "$T/m123.trace" "$T/m123.merge" > "$T/out" 2>&1
cm=$?
check "record --go-trace: the kernel's view of the ground truth (check-merge.sh)" '[ $cm = 0 ]'
[ $cm = 0 ] || keep go-trace "$T"/m123.* "$T/p123.trace" "$T/app123" "$T/hog123" \
	"$T/rec123"
sed 's/^/# /' "$T/out"
bash "$ROOT/selftests/check-trace.sh" "$T/m123.trace" > "$T/out" 2>&1
check "record --go-trace: Go 1.23 and 1.27 read the merged trace" '[ $? = 0 ]'
# The merges' inputs, as every trace the tests write: the recordings
# (go 1.23 trace) and the programs' own (go 1.26, go 1.23).
bash "$ROOT/selftests/check-trace.sh" "$T/m127.trace.kernel" "$T/m127.trace.go" \
	"$T/m123.trace.kernel" "$T/p123.trace" > "$T/out" 2>&1
check "the merges' inputs: every Go reader of their formats reads them" '[ $? = 0 ]'

# What a user gets wrong.
run record --backend bpf --go http://127.0.0.1:1 -d 1 -o "$T/nogo.trace"
check "--go to a port nobody serves: a clear error, the recording kept" \
	'[ "$rc" = 1 ] && has "cannot connect to 127.0.0.1:1" "$T/err" &&
	 has "the recording is in $T/nogo.trace.kernel" "$T/err" &&
	 [ -s "$T/nogo.trace.kernel" ] && [ ! -e "$T/nogo.trace" ]'
# Only sleep recorded, which sleeps while the program runs.
"$GOTRACE" record --backend bpf -q -c sleep -o "$T/none.kernel" -- sh -c \
	"sleep 0.3 & '$B/gomerge_app' -trace '$T/pnone.trace' -spin 0 -linger 500ms; wait" \
	> /dev/null 2>&1
run merge -o "$T/none.trace" "$T/pnone.trace" "$T/none.kernel"
check "merge with a recording that filtered the program out says so" \
	'[ "$rc" = 1 ] && has "none of the program.s .* threads is in gotrace.s trace" "$T/err"'
run merge -o "$T/far.trace" "$T/p123.trace" "$T/none.kernel"
check "merge of traces of two times says they do not overlap" \
	'[ "$rc" = 1 ] && has "the traces do not overlap" "$T/err"'
done_testing
