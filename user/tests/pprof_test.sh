#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pprof_test.sh - gotrace pprof against Go 1.27's own profiles
#
# Go 1.27's trace tool is the checker of record.  Three small go 1.23
# traces, made here in under a second:
#
#   small   gen-trace-go123's small kind (Go's runtime's shape: creations,
#           chan/select/mutex blocks, preemptions, syscalls);
#   units   gen-trace-go123's units kind: small with its goroutines in the
#           systemd units a.service and b.scope as gotrace writes them
#           (user regions; main's a.service region begun before the
#           trace), "network" blocks, and its three Ms stepping at the
#           same times (the profiles depend on Go's order of equal
#           times: go123_walk.c's old order failed all four);
#   v126    gen-trace-go123's small in the "go 1.26 trace" format (its
#           Sync batch: Go times a generation's start by its batches');
#   classify_all, units.cut, exec_rename
#           model_test's cases, through the module's model and encoder:
#           kernel stacks, every wait reason class, and units in a trace
#           cut after their regions began; a task that execs and
#           renames itself (--tid takes its every goroutine).
#
# For each trace and KIND, 'gotrace pprof KIND' and Go's 'trace
# -pprof=KIND' are read back by Go's 'pprof -raw' and must be the same:
# every stack (function, file and line of each frame) with the same count
# and the same nanoseconds.  The filters are held to Go's web UI, which
# a 'trace -http' server per trace answers: --unit U to /regionKIND?
# type=U (the unit's regions), --comm N to /KIND?name=N; --tid to the
# name of the one task so named.  Then the errors (usage, cpu without
# samples, a go1.11 trace, no trace, a truncated one, an OUT that cannot
# be made) and OUT's temporary file: made beside OUT, renamed over it
# when whole, removed and OUT untouched on failure.
#
# The CPU profile is held to Go's own CPU samples: tests/cpuburn_go.go,
# built with Go 1.23 and with Go 1.27, spins in main.burnA 75% and
# main.burnB 25% of its CPU time with runtime/pprof's profile and
# runtime/trace on, and Go's runtime writes the samples into its trace.
# 'gotrace pprof cpu' must give the samples Go 1.27's dump (-d=parsed)
# lists, stack for stack and count for count, the shares within 5 points
# of 75 and 25 and within 2 of the profile Go wrote itself.
#
# The Go tools run as the binaries of GOTOOLDIR, not 'go tool X' (one
# process less each).  Go 1.27 is $GO127, else the one scripts/go127.sh
# unpacked into $GT_STORE; without it the test fails (no_go, lib.sh).
# $MODEL_TEST, $GEN_TRACE_GO123 and $GO123_MUTATE are the generators (make
# check builds them).

. "$(dirname "$0")/lib.sh"

B=$(dirname "$0")/../build
MODEL_TEST=${MODEL_TEST:-$B/model_test}
GEN_TRACE_GO123=${GEN_TRACE_GO123:-$B/gen-trace-go123}
GO123_MUTATE=${GO123_MUTATE:-$B/go123_mutate}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; rm -rf "$T"' EXIT

# ---- the traces ---------------------------------------------------------
"$GEN_TRACE_GO123" small "$T/small.trace" 2>"$T/err" &&
	"$GEN_TRACE_GO123" units "$T/units.trace" 2>"$T/err" &&
	"$GEN_TRACE_GO123" v126 "$T/v126.trace" 2>"$T/err"
grc=$?
check "gen-trace-go123 writes the small, units and v126 traces" '[ $grc -eq 0 ]'
mkdir "$T/m"
"$MODEL_TEST" "$T/m" classify_all units exec_rename >"$T/out" 2>"$T/err"
grc=$?
check "model_test writes classify_all, units and exec_rename (go 1.11 and go 1.23)" \
	'[ $grc -eq 0 ] && [ -s "$T/m/classify_all.go123.trace" ] && [ -s "$T/m/units.cut.go123.trace" ] && [ -s "$T/m/classify_all.trace" ] && [ -s "$T/m/exec_rename.go123.trace" ]'
cp "$T/m/classify_all.go123.trace" "$T/classify_all.trace"
cp "$T/m/exec_rename.go123.trace" "$T/exec_rename.trace"
cp "$T/m/units.cut.go123.trace" "$T/units_cut.trace"
old=$T/m/classify_all.trace

# ---- errors and OUT -----------------------------------------------------
run pprof
check "no arguments: usage error naming -o" '[ $rc -eq 2 ] && has "needs -o OUT" "$T/err"'
run pprof sched "$T/small.trace"
check "no -o: usage error" '[ $rc -eq 2 ] && has "needs -o OUT" "$T/err"'
run pprof bogus -o "$T/x.pb.gz" "$T/small.trace"
check "an unknown KIND: usage error naming the kinds" \
	'[ $rc -eq 2 ] && has "unknown profile .bogus. (sched, sync, syscall, net, cpu)" "$T/err" && [ ! -e "$T/x.pb.gz" ]'
run pprof sched -o "$T/x.pb.gz" --tid 12x "$T/small.trace"
check "--tid wants a number" '[ $rc -eq 2 ] && has "invalid thread id .12x." "$T/err"'
run pprof sched -o "$T/x.pb.gz" "$T/small.trace" extra
check "one FILE only" '[ $rc -eq 2 ] && has "takes KIND and FILE" "$T/err"'
run pprof cpu -o "$T/x.pb.gz" "$T/small.trace"
check "cpu of a trace without samples: no CPU samples in this trace, no OUT" \
	'[ $rc -eq 1 ] && has "no CPU samples in this trace" "$T/err" && [ ! -e "$T/x.pb.gz" ]'
run pprof cpu -o "$T/x.pb.gz" "$old"
check "cpu of a go1.11 trace: that format has no CPU samples, no OUT" \
	'[ $rc -eq 1 ] && has "\"go 1.11 trace\" has no CPU samples" "$T/err" && has "record with --format go1.23" "$T/err" && [ ! -e "$T/x.pb.gz" ]'
run pprof sched -o "$T/x.pb.gz" "$old"
check "a go1.11 trace: one line naming its format and the way out" \
	'[ $rc -eq 1 ] && has "\"go 1.11 trace\": pprof reads generational traces" "$T/err" && has "record with --format go1.23" "$T/err" && [ $(wc -l <"$T/err") -eq 1 ]'
printf 'PK\003\004 not a trace at all' >"$T/zip"
run pprof sched -o "$T/x.pb.gz" "$T/zip"
check "not a trace: said so" '[ $rc -eq 1 ] && has "not a Go execution trace" "$T/err"'
run pprof sched -o "$T/x.pb.gz" "$T/none.trace"
check "a missing FILE fails, naming it" '[ $rc -eq 1 ] && has "none.trace" "$T/err"'

# OUT exists; a trace cut inside its second generation fails with the
# offset, leaves OUT as it was and no temporary file.
echo old >"$T/keep.pb.gz"
size=$(wc -c <"$T/units.trace")
head -c $((size * 2 / 3)) "$T/units.trace" >"$T/cut.trace"
run pprof sched -o "$T/keep.pb.gz" "$T/cut.trace"
check "a truncated trace: exit 1, the offset, OUT kept, no temporary file" \
	'[ $rc -eq 1 ] && has "cut.trace: offset [0-9]* (0x[0-9a-f]*): " "$T/err" && has "keep.pb.gz left as it was" "$T/err" && [ "$(cat "$T/keep.pb.gz")" = old ] && [ -z "$(ls "$T" | grep "\.tmp-")" ]'
run pprof sched -o "$T/nodir/x.pb.gz" "$T/cut.trace"
check "OUT in a missing directory: exit 1, said before the (truncated) trace is read" \
	'[ $rc -eq 1 ] && has "cannot create .*nodir/x.pb.gz.tmp-[0-9]*, where the profile is written until it replaces .*nodir/x.pb.gz: No such file or directory" "$T/err" && [ $(wc -l <"$T/err") -eq 1 ]'
run pprof sched -o "$T/zip/x.pb.gz" "$T/small.trace"
check "OUT under a file: exit 1, Not a directory" \
	'[ $rc -eq 1 ] && has "Not a directory" "$T/err"'
run pprof sched -o "$T/keep.pb.gz" "$T/small.trace"
check "a good trace replaces OUT (gzip, mode 0600), no OUT.old, no temporary file left" \
	'[ $rc -eq 0 ] && [ ! -s "$T/err" ] && gzip -t "$T/keep.pb.gz" && [ "$(stat -c %a "$T/keep.pb.gz")" = 600 ] && [ -z "$(ls "$T" | grep "\.tmp-")" ] && [ ! -e "$T/keep.pb.gz.old" ]'
# A device or a FIFO as OUT is written in place: a file renamed over
# it would replace the device (as root, /dev/null for the whole machine).
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.out" &
run pprof sched -o "$T/fifo" "$T/small.trace"
wait
check "a FIFO as OUT is written through and stays a FIFO" \
	'[ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.out" "$T/keep.pb.gz"'
if mknod -m 666 "$T/null" c 1 3 2>/dev/null; then
	run pprof sched -o "$T/null" "$T/small.trace"
	check "a copy of /dev/null as OUT stays the null device" \
		'[ $rc -eq 0 ] && [ -c "$T/null" ]'
else
	ok "# SKIP a copy of /dev/null as OUT stays the null device (mknod needs root)"
fi
run pprof sched -o "$T" "$T/small.trace"
check "a directory as OUT: exit 1, named" \
	'[ $rc -eq 1 ] && has "$T is a directory: the profile needs a file name" "$T/err"'
"$GOTRACE" pprof sched -o - - <"$T/small.trace" >"$T/stdout.pb.gz" 2>"$T/err"
grc=$?
check "-o - and FILE -: stdin to stdout, the same bytes as the file's" \
	'[ $grc -eq 0 ] && cmp -s "$T/stdout.pb.gz" "$T/keep.pb.gz"'

# ---- Go 1.27 ------------------------------------------------------------
if ! "$GO127" version 2>/dev/null | grep -q go1.27; then
	no_go "Go 1.27 ($GO127) checks the profiles"
	done_testing
	exit
fi
TOOLS=$("$GO127" env GOTOOLDIR)

# raw PROFILE: "count ns frame;frame;..." per stack, a frame being its
# function, file and line as Go's pprof -raw prints them (innermost
# first), sorted; samples of the same stack summed (Go keys them so).
raw() {
	"$TOOLS/pprof" -raw "$1" 2>/dev/null | awk '
		/^Samples:/ { s = 1; getline; next }
		/^Locations/ { s = 0; l = 1; next }
		/^Mappings/ { l = 0; next }
		s { n++; c[n] = $1; t[n] = $2; sub(/:$/, "", t[n])
			st[n] = ""; for (i = 3; i <= NF; i++) st[n] = st[n] " " $i
			next }
		l && /^ *[0-9]+: / { id = $1; sub(/:/, "", id)
			sub(/^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ /, ""); sub(/ s=0$/, "")
			fn[id] = $0 }
		END { for (k = 1; k <= n; k++) {
				m = split(st[k], a, " "); f = ""
				for (i = 1; i <= m; i++) f = f (i > 1 ? ";" : "") fn[a[i]]
				if (f == "") f = "(none)"
				C[f] += c[k]; N[f] += t[k] }
			for (f in C) printf "%.0f %.0f %s\n", C[f], N[f], f }' |
		sort -k 3
}

# addrs PROFILE: "address function" of each Location as pprof -raw
# prints it, sorted (raw() leaves the addresses out).
addrs() {
	"$TOOLS/pprof" -raw "$1" 2>/dev/null | awk '/^Locations/ { l = 1; next }
		/^Mappings/ { l = 0 } l && /^ *[0-9]+: / { print $2, $4 }' |
		sort -u
}

# same GO GOTRACE: raw listings, identical; $samples counts GOTRACE's.
same() {
	raw "$1" >"$T/go.txt"
	raw "$2" >"$T/gt.txt"
	samples=$(awk '{ n += $1 } END { print n + 0 }' "$T/gt.txt")
	diff "$T/go.txt" "$T/gt.txt" >"$T/out"
}

# The web UI of one trace, started now and parsing while the CLI runs.
serve() {
	BROWSER=true "$TOOLS/trace" -http=127.0.0.1:0 "$1" 2>"$T/srv.$2" &
	spid="$spid $!"
}
url() {
	for _ in $(seq 100); do
		u=$(sed -n 's/.*listening on //p' "$T/srv.$1")
		[ -n "$u" ] && echo "$u" && return
		sleep 0.1
	done
}
# units with generation 1's frames left without functions: Go's summary
# names a goroutine by the first stack whose root frame has one.
"$GO123_MUTATE" gen1-frames-unnamed "$T/units.trace" "$T/unnamed.trace" 2>"$T/err"
grc=$?
check "go123_mutate writes units with generation 1's frames unnamed" '[ $grc -eq 0 ]'
have_curl=$(command -v curl)
[ -n "$have_curl" ] && serve "$T/units.trace" units && serve "$T/units_cut.trace" cut &&
	serve "$T/unnamed.trace" unnamed

# small has no network waits; v126 is small.
for t in small units classify_all v126; do
	kinds="sched sync syscall net"
	[ $t = small ] && kinds="sched sync syscall"
	[ $t = v126 ] && kinds="sched sync"
	for kind in $kinds; do
		"$TOOLS/trace" -pprof=$kind "$T/$t.trace" >"$T/go.pb" 2>"$T/err"
		grc=$?
		run pprof $kind -o "$T/$t.$kind.pb.gz" "$T/$t.trace"
		[ $rc -eq 0 ] && [ $grc -eq 0 ] && same "$T/go.pb" "$T/$t.$kind.pb.gz"
		check "$t $kind: Go 1.27's stacks, counts and nanoseconds ($samples samples)" \
			'[ $rc -eq 0 ] && [ $grc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
		addrs "$T/go.pb" >"$T/go.addr"
		addrs "$T/$t.$kind.pb.gz" >"$T/gt.addr"
		check "$t $kind: Go 1.27's addresses, location for location ($(wc -l <"$T/gt.addr") locations)" \
			'[ -s "$T/go.addr" ] && cmp -s "$T/go.addr" "$T/gt.addr"'
	done
done
# --tid takes every life of the thread: model_test's exec_rename is one
# task, tid 400, whose exec and renames start goroutines of new ids with
# the tid in their low 32 bits, each with syscalls of its own (--comm ls,
# the exec's, is not empty): its profile is the whole trace's.
run pprof syscall -o "$T/all.pb.gz" "$T/exec_rename.trace"
raw "$T/all.pb.gz" >"$T/all.txt"
run pprof syscall --comm ls -o "$T/c.pb.gz" "$T/exec_rename.trace"
raw "$T/c.pb.gz" >"$T/c.txt"
run pprof syscall --tid 400 -o "$T/t.pb.gz" "$T/exec_rename.trace"
raw "$T/t.pb.gz" >"$T/gt.txt"
check "exec_rename syscall --tid 400: the syscalls of all its goroutines, the whole trace's ($(awk '{ n += $1 } END { print n + 0 }' "$T/gt.txt") samples)" \
	'[ $rc -eq 0 ] && [ -s "$T/c.txt" ] && [ -s "$T/all.txt" ] && cmp -s "$T/all.txt" "$T/gt.txt"'

"$TOOLS/pprof" -top "$T/classify_all.sched.pb.gz" >"$T/out" 2>"$T/err"
grc=$?
check "pprof -top reads the .pb.gz: delay in nanoseconds" \
	'[ $grc -eq 0 ] && has "^Type: delay" "$T/out" && has "flat%" "$T/out"'

# ---- CPU samples, from Go's own runtime ---------------------------------
# tests/cpuburn_go.go spins in main.burnA 75% and main.burnB 25% of its
# CPU time under runtime/pprof's CPU profile and runtime/trace: Go's
# runtime writes the samples into the trace (CPU samples batches).  Its
# build with Go 1.23 writes "go 1.23 trace", with Go 1.27 "go 1.26
# trace".  Go 1.27's dump of the trace (-d=parsed) lists every sample
# with its goroutine and stack: gotrace's profile must hold the same
# stacks with the same counts, and each sample 10 ms (runtime/pprof's
# 100 Hz: the trace states no rate).

# dumped TRACE [G]: Go 1.27's samples of TRACE (of goroutine G), as
# raw() lists a CPU profile: "count ns frame;frame;...", sorted.
dumped() {
	"$TOOLS/trace" -d=parsed "$1" 2>/dev/null | awk -v want="$2" '
		function done_sample() {
			if (ok)
				C[key == "" ? "(none)" : key]++
			in_s = 0
		}
		/ StackSample / { if (in_s) done_sample()
			g = $3; sub(/^G=/, "", g)
			in_s = 1; ok = want == "" || g == want; key = ""; next }
		in_s && /^Stack=/ { next }
		in_s && /^\t\t/ { l = $0; sub(/^\t\t/, "", l)
			key = key (key == "" ? "" : ";") fn " " l ":0"; next }
		in_s && /^\t/ { fn = $0; sub(/^\t/, "", fn)
			sub(/ @ 0x[0-9a-f]+$/, "", fn); next }
		in_s { done_sample() }
		END { if (in_s) done_sample()
			for (k in C) printf "%d %.0f %s\n", C[k], C[k] * 10000000, k }' |
		sort -k 3
}

# share PROFILE FUNC: FUNC's cumulative share of PROFILE's samples, in
# percent, as 'pprof -top' prints it.
share() {
	"$TOOLS/pprof" -top -nodefraction=0 "$1" 2>/dev/null |
		awk -v f="$2" '$6 == f { sub(/%/, "", $5); print $5; exit }'
}
within() {
	awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; exit !(a != "" && x <= d && x >= -d) }'
}

GO123=${GO123:-/usr/lib/go-1.23/bin/go}
for v in 123 127; do
	if [ $v = 123 ] && [ ! -x "$GO123" ]; then
		no_go "Go 1.23 ($GO123) writes the go 1.23 trace with samples"
		continue
	fi
	gocmd=$GO127
	[ $v = 123 ] && gocmd=$GO123
	cpuburn "$gocmd" "$T/burn$v" 3 >"$T/out" 2>"$T/err"
	grc=$?
	check "go$v: cpuburn writes its trace and its CPU profile (3 s of CPU)" \
		'[ $grc -eq 0 ] && [ -s "$T/burn$v/burn.trace" ] && [ -s "$T/burn$v/prof.pb" ] || { cat "$T/burn$v/build.log"; false; }'
	tr=$T/burn$v/burn.trace
	dumped "$tr" >"$T/want.txt"
	nwant=$(awk '{ n += $1 } END { print n + 0 }' "$T/want.txt")
	run check "$tr"
	check "go$v: gotrace check accepts it: $nwant CPU samples, as Go 1.27's dump" \
		'[ $rc -eq 0 ] && [ "$nwant" -gt 100 ] && has "^  CPU samples $nwant$" "$T/out"'
	run stat "$tr"
	check "go$v: gotrace stat: $nwant CPU samples, Go's 100 Hz assumed, the tasks they hit" \
		'[ $rc -eq 0 ] && has "^  CPU samples $nwant (.*Go.s 100 Hz assumed)" "$T/out" && has "^top tasks by CPU samples:" "$T/out" && has "^ *1  .* [0-9][0-9]* *[0-9.]*%$" "$T/out"'
	run pprof cpu -o "$T/cpu$v.pb.gz" "$tr"
	raw "$T/cpu$v.pb.gz" >"$T/gt.txt"
	diff "$T/want.txt" "$T/gt.txt" >"$T/out"
	check "go$v: pprof cpu: Go 1.27's samples, stack for stack, count for count, 10 ms each ($(wc -l <"$T/gt.txt") stacks)" \
		'[ $rc -eq 0 ] && [ -s "$T/gt.txt" ] && [ ! -s "$T/out" ]'
	a=$(share "$T/cpu$v.pb.gz" main.burnA)
	b=$(share "$T/cpu$v.pb.gz" main.burnB)
	goa=$(share "$T/burn$v/prof.pb" main.burnA)
	gob=$(share "$T/burn$v/prof.pb" main.burnB)
	check "go$v: burnA $a% and burnB $b% of the samples: 75 and 25 within 5 points" \
		'within "$a" 75 5 && within "$b" 25 5'
	check "go$v: the same within 2 points as the CPU profile Go wrote itself (burnA $goa%, burnB $gob%)" \
		'within "$a" "$goa" 2 && within "$b" "$gob" 2'
	# The burn's 3 s are the process's CPU time, which its other threads
	# (the runtime's, the trace's writer, the profiler's signals) add
	# to on another CPU: the trace spans most of them (once 2.98 s of a
	# run whose samples made 2.99 s), and whatever else the machine ran
	# meanwhile.
	dur=$("$GOTRACE" check "$tr" 2>/dev/null | awk '$1 == "duration" { print $2; exit }')
	"$TOOLS/pprof" -top "$T/cpu$v.pb.gz" >"$T/out" 2>"$T/err"
	grc=$?
	d=$(awk '/^Duration: [0-9.]*s,/ { sub(/^Duration: /, ""); sub(/s,.*/, ""); print; exit }' "$T/out")
	check "go$v: pprof -top reads it: Type cpu, the trace's duration ($d s of $dur s, at least 2.5), 10 ms a sample" \
		'[ $grc -eq 0 ] && has "^Type: cpu$" "$T/out" && within "$d" "$dur" 0.005 && awk -v d="$d" "BEGIN { exit !(d >= 2.5) }" && "$TOOLS/pprof" -raw "$T/cpu$v.pb.gz" 2>/dev/null | grep -q "^Period: 10000000$"'
	# The burn runs on the main goroutine, G 1.  Go names a goroutine by
	# the root frame of the first stack of its transitions whose root
	# frame has a function (not the one frame of PC 0 Go's runtime
	# writes for some): often a preemption in burnA or burnB, whose
	# stack Go's runtime cuts there.
	dumped "$tr" 1 >"$T/want.txt"
	gname=$("$TOOLS/trace" -d=parsed "$tr" 2>/dev/null | awk '
		/ StateTransition .* GoID=1 / { t = 1; s = 0; next }
		t && /^TransitionStack=/ { s = 1; fn = ""; next }
		s && /^\t\t/ { next }
		s && /^\t/ { fn = substr($0, 2); sub(/ @ 0x[0-9a-f]*$/, "", fn); next }
		s && fn != "" { print fn; exit }
		{ t = 0; s = 0 }')
	run pprof cpu --tid 1 -o "$T/t.pb.gz" "$tr"
	raw "$T/t.pb.gz" >"$T/gt.txt"
	diff "$T/want.txt" "$T/gt.txt" >"$T/out"
	check "go$v: pprof cpu --tid 1: Go 1.27's samples of G 1 ($(awk '{ n += $1 } END { print n + 0 }' "$T/gt.txt"))" \
		'[ $rc -eq 0 ] && [ -s "$T/gt.txt" ] && [ ! -s "$T/out" ]'
	run pprof cpu --comm "$gname" -o "$T/c.pb.gz" "$tr"
	raw "$T/c.pb.gz" >"$T/gt.txt"
	diff "$T/want.txt" "$T/gt.txt" >"$T/out"
	check "go$v: pprof cpu --comm $gname (G 1's name in Go 1.27's dump): the same samples" \
		'[ $rc -eq 0 ] && [ -n "$gname" ] && [ ! -s "$T/out" ]'
	run pprof cpu --comm runtime.bgsweep -o "$T/c.pb.gz" "$tr"
	check "go$v: pprof cpu --comm of a task that never ran hot: no samples" \
		'[ $rc -eq 0 ] && [ -z "$(raw "$T/c.pb.gz")" ]'
	run pprof cpu --tid 4000000000 -o "$T/t.pb.gz" "$tr"
	check "go$v: pprof cpu --tid of no task: a profile without samples" \
		'[ $rc -eq 0 ] && [ -z "$(raw "$T/t.pb.gz")" ]'
	# The time profiles of a real Go program's trace, samples and all:
	# Go's reader gives the samples between the events and moves each
	# event and sample to 1 ns after the one before where it is not later.
	# Go's runtime writes some GoUnblock stacks as one frame of PC 0,
	# which Go's profiles key with the empty stack (by PCs, zero-padded)
	# under whichever of the two came last; gotrace keeps them apart
	# (Documentation/gotrace.rst): the two are summed on both sides.
	for kind in sched sync syscall; do
		"$TOOLS/trace" -pprof=$kind "$tr" >"$T/go.pb" 2>"$T/err"
		grc=$?
		run pprof $kind -o "$T/k.pb.gz" "$tr"
		[ $rc -eq 0 ] && [ $grc -eq 0 ] && same "$T/go.pb" "$T/k.pb.gz"
		for f in go gt; do
			awk '{ c = $1; t = $2; $1 = $2 = ""; sub(/^  /, "")
				if ($0 == " :0:0" || $0 == ":0:0") $0 = "(none)"
				C[$0] += c; N[$0] += t }
				END { for (k in C) printf "%.0f %.0f %s\n", C[k], N[k], k }' \
				"$T/$f.txt" | sort -k 3 >"$T/$f.merged"
		done
		diff "$T/go.merged" "$T/gt.merged" >"$T/out"
		check "go$v: pprof $kind of the trace with samples: Go 1.27's ($samples samples)" \
			'[ $rc -eq 0 ] && [ $grc -eq 0 ] && [ -s "$T/go.merged" ] && [ ! -s "$T/out" ]'
	done
	run symbolize "$tr" "$T/sym.trace"
	check "go$v: symbolize keeps the samples: a trace with nothing to name comes out identical" \
		'[ $rc -eq 0 ] && cmp -s "$tr" "$T/sym.trace"'
done

# A recorder may state its rate (a string of each generation's table):
# then each sample is worth its period, 1e9 / 999 ns.
if [ -s "$T/burn123/burn.trace" ]; then
	"$GO123_MUTATE" cpu-hz-999 "$T/burn123/burn.trace" "$T/hz.trace" 2>"$T/err"
	run pprof cpu -o "$T/hz.pb.gz" "$T/hz.trace"
	"$TOOLS/pprof" -raw "$T/hz.pb.gz" >"$T/out" 2>"$T/err"
	check "a trace stating 999 Hz: pprof cpu's period is 1001001 ns, each sample worth it" \
		'[ $rc -eq 0 ] && has "^Period: 1001001$" "$T/out" && awk "/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 } s && \$2 + 0 != \$1 * 1001001 { bad = 1 } s { n++ } END { exit bad || !n }" "$T/out"'
	run stat "$T/hz.trace"
	check "a trace stating 999 Hz: gotrace stat says so" \
		'[ $rc -eq 0 ] && has "^  CPU samples [0-9]* (.*; 999 Hz, as the trace says)" "$T/out"'
	run check -q "$T/hz.trace"
	check "a trace stating 999 Hz: gotrace check accepts the string" '[ $rc -eq 0 ]'
fi

# pprof cpu --unit: Go has no view of samples by region to compare with,
# so the samples' order and the regions come from Go 1.27's dump of the
# units trace with a sample one tick after every GoStart (go123_mutate
# samples-at-starts), and the count is gotrace's rule applied to it in
# awk: a sample counts when its goroutine is in the unit's region; one
# of a goroutine whose first region event is still to come waits for it
# (an end of the unit's region: it was in it).
"$GO123_MUTATE" samples-at-starts "$T/units.trace" "$T/us.trace" 2>"$T/err"
dumped "$T/us.trace" >"$T/want.txt"
run pprof cpu -o "$T/us.pb.gz" "$T/us.trace"
raw "$T/us.pb.gz" >"$T/gt.txt"
diff "$T/want.txt" "$T/gt.txt" >"$T/out"
check "units with samples at every start: pprof cpu is Go 1.27's samples ($(awk '{ n += $1 } END { print n + 0 }' "$T/gt.txt"))" \
	'[ $rc -eq 0 ] && [ -s "$T/gt.txt" ] && [ ! -s "$T/out" ]'
"$TOOLS/trace" -d=parsed "$T/us.trace" >"$T/us.dump" 2>/dev/null
for u in a.service b.scope; do
	want=$(awk -v unit=$u '
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
/ StackSample / {
	g = field("G")
	if (g == "-1")
		next
	if (!(g in st) || st[g] == -1)
		pend[g]++
	else if (st[g] == 1)
		n++
	next
}
/ StateTransition / {
	g = field("GoID")
	for (i = 1; i <= NF; i++)
		if ($i ~ /->/) { split($i, ab, "->"); break }
	if (ab[1] == "NotExist") { st[g] = 0; pend[g] = 0 }
	else if (ab[1] == "Undetermined" && !(g in st)) st[g] = -1
	if (ab[2] == "NotExist") pend[g] = 0
	next
}
/ RegionBegin / || / RegionEnd / {
	g = field("G")
	m = field("Type") == "\"" unit "\""
	if (!(g in st) || st[g] == -1) {
		if (/ RegionEnd / && m) n += pend[g]
		pend[g] = 0
	}
	st[g] = / RegionBegin / && m
}
END { print n + 0 }
' "$T/us.dump")
	run pprof cpu --unit $u -o "$T/u.pb.gz" "$T/us.trace"
	got=$(raw "$T/u.pb.gz" | awk '{ n += $1 } END { print n + 0 }')
	check "units with samples: pprof cpu --unit $u: $got samples, $want by Go's order of events" \
		'[ $rc -eq 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]'
done

# ---- the filters, against Go's web UI -----------------------------------
if [ -z "$have_curl" ]; then
	ok "# SKIP no curl to ask Go's web UI: the filters are not compared"
	done_testing
	exit
fi
# web TRACE PATH OUT: Go's raw profile at PATH (KIND in the web UI's words)
web() {
	curl -sf -o "$3" "$(url "$1")$2&raw=1"
}
ep() {
	case $1 in sched) echo sched ;; sync) echo block ;;
		syscall) echo syscall ;; net) echo io ;; esac
}
for kind in sched sync syscall net; do
	web units "/region$(ep $kind)?type=a.service" "$T/go.pb"
	run pprof $kind --unit a.service -o "$T/u.pb.gz" "$T/units.trace"
	same "$T/go.pb" "$T/u.pb.gz"
	check "units $kind --unit a.service: Go's /region$(ep $kind)?type=a.service ($samples samples)" \
		'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
done
web units "/regionsched?type=b.scope" "$T/go.pb"
run pprof sched --unit b.scope -o "$T/u.pb.gz" "$T/units.trace"
same "$T/go.pb" "$T/u.pb.gz"
check "units sched --unit b.scope: Go's, main's time there too ($samples samples)" \
	'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
web cut "/regionsched?type=a.service" "$T/go.pb"
run pprof sched --unit a.service -o "$T/u.pb.gz" "$T/units_cut.trace"
same "$T/go.pb" "$T/u.pb.gz"
check "units.cut sched --unit a.service (its region begun before the file): Go's ($samples samples)" \
	'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
run pprof sched --unit c.service -o "$T/u.pb.gz" "$T/units.trace"
check "--unit of no task's unit: a profile without samples" \
	'[ $rc -eq 0 ] && [ -z "$(raw "$T/u.pb.gz")" ]'

# gen-trace-go123's goroutines start in main.main; main itself is named by
# its first stack, main.worker: the one task of that name.
for kind in sched sync; do
	web units "/$(ep $kind)?name=main.main" "$T/go.pb"
	run pprof $kind --comm main.main -o "$T/c.pb.gz" "$T/units.trace"
	same "$T/go.pb" "$T/c.pb.gz"
	check "units $kind --comm main.main: Go's /$(ep $kind)?name=main.main ($samples samples)" \
		'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
done
# With generation 1's frames unnamed, G 1 is named by its first stack
# of generation 3, main.worker; the goroutines of generation 1 alone
# stay unnamed.  The mutation gives a PC two functions, one a
# generation, and Go's profile keeps one of them for all its samples:
# the samples the name selects, their count and time, are compared.
total() { awk '{ c += $1; n += $2 } END { print c + 0, n + 0 }' "$1"; }
for name in main.worker main.main; do
	web unnamed "/sched?name=$name" "$T/go.pb"
	run pprof sched --comm $name -o "$T/c.pb.gz" "$T/unnamed.trace"
	same "$T/go.pb" "$T/c.pb.gz"
	check "units, generation 1 unnamed: sched --comm $name selects Go's /sched?name=$name ($samples samples)" \
		'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ "$(total "$T/go.txt")" = "$(total "$T/gt.txt")" ]'
done
web units "/sched?name=main.worker" "$T/go.pb"
run pprof sched --tid 1 -o "$T/t.pb.gz" "$T/units.trace"
same "$T/go.pb" "$T/t.pb.gz"
check "units sched --tid 1: Go's /sched?name=main.worker, its name ($samples samples)" \
	'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
run pprof sched --tid 4000000000 -o "$T/t.pb.gz" "$T/units.trace"
check "--tid of no task: a profile without samples" \
	'[ $rc -eq 0 ] && [ -z "$(raw "$T/t.pb.gz")" ]'
run pprof sched --tid 1 --comm main.main -o "$T/t.pb.gz" "$T/units.trace"
check "--tid 1 --comm main.main: both must match, none does" \
	'[ $rc -eq 0 ] && [ -z "$(raw "$T/t.pb.gz")" ]'

done_testing
