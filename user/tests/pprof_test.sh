#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pprof_test.sh - gotrace pprof against Go 1.27's own profiles
#
# Go 1.27's trace tool is the checker of record.  Three small go 1.23
# traces, made here in under a second:
#
#   small   gen-trace-v2's small kind (Go's runtime's shape: creations,
#           chan/select/mutex blocks, preemptions, syscalls);
#   units   gen-trace-v2's units kind: small with its goroutines in the
#           systemd units a.service and b.scope as gotrace writes them
#           (user regions; main's a.service region begun before the
#           trace), "network" blocks, and its three Ms stepping at the
#           same times (the profiles depend on Go's order of equal
#           times: go123_walk.c's old order failed all four);
#   v126    gen-trace-v2's small in the "go 1.26 trace" format (its
#           Sync batch: Go times a generation's start by its batches');
#   classify_all, units.cut
#           model_test's cases, through the module's model and encoder:
#           kernel stacks, every wait reason class, and units in a trace
#           cut after their regions began.
#
# For each trace and KIND, 'gotrace pprof KIND' and Go's 'trace
# -pprof=KIND' are read back by Go's 'pprof -raw' and must be the same:
# every stack (function, file and line of each frame) with the same count
# and the same nanoseconds.  The filters are held to Go's web UI, which
# a 'trace -http' server per trace answers: --unit U to /regionKIND?
# type=U (the unit's regions), --comm N to /KIND?name=N; --tid to the
# name of the one task so named.  Then the errors (usage, cpu, a go1.11
# trace, no trace, a truncated one, an OUT that cannot be made) and OUT's
# temporary file: made beside OUT, renamed over it when whole, removed
# and OUT untouched on failure.
#
# The Go tools run as the binaries of GOTOOLDIR, not 'go tool X' (one
# process less each).  Go 1.27 is $GO127, else the one scripts/go127.sh
# unpacked into $GT_STORE; without it the test fails (no_go, lib.sh).
# $MODEL_TEST and $GEN_TRACE_V2 are the generators (make check builds
# them).

. "$(dirname "$0")/lib.sh"

B=$(dirname "$0")/../build
MODEL_TEST=${MODEL_TEST:-$B/model_test}
GEN_TRACE_V2=${GEN_TRACE_V2:-$B/gen-trace-v2}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; rm -rf "$T"' EXIT

# ---- the traces ---------------------------------------------------------
"$GEN_TRACE_V2" small "$T/small.trace" 2>"$T/err" &&
	"$GEN_TRACE_V2" units "$T/units.trace" 2>"$T/err" &&
	"$GEN_TRACE_V2" v126 "$T/v126.trace" 2>"$T/err"
grc=$?
check "gen-trace-v2 writes the small, units and v126 traces" '[ $grc -eq 0 ]'
mkdir "$T/m"
"$MODEL_TEST" "$T/m" classify_all units >"$T/out" 2>"$T/err"
grc=$?
check "model_test writes classify_all and units (go 1.11 and go 1.23)" \
	'[ $grc -eq 0 ] && [ -s "$T/m/classify_all.v2.trace" ] && [ -s "$T/m/units.cut.v2.trace" ] && [ -s "$T/m/classify_all.trace" ]'
cp "$T/m/classify_all.v2.trace" "$T/classify_all.trace"
cp "$T/m/units.cut.v2.trace" "$T/units_cut.trace"
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
check "cpu: no CPU samples in this trace, no OUT" \
	'[ $rc -eq 1 ] && has "no CPU samples in this trace" "$T/err" && [ ! -e "$T/x.pb.gz" ]'
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
have_curl=$(command -v curl)
[ -n "$have_curl" ] && serve "$T/units.trace" units && serve "$T/units_cut.trace" cut

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
	done
done
"$TOOLS/pprof" -top "$T/classify_all.sched.pb.gz" >"$T/out" 2>"$T/err"
grc=$?
check "pprof -top reads the .pb.gz: delay in nanoseconds" \
	'[ $grc -eq 0 ] && has "^Type: delay" "$T/out" && has "flat%" "$T/out"'

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

# gen-trace-v2's goroutines start in main.main; main itself is named by
# its first stack, main.worker: the one task of that name.
for kind in sched sync; do
	web units "/$(ep $kind)?name=main.main" "$T/go.pb"
	run pprof $kind --comm main.main -o "$T/c.pb.gz" "$T/units.trace"
	same "$T/go.pb" "$T/c.pb.gz"
	check "units $kind --comm main.main: Go's /$(ep $kind)?name=main.main ($samples samples)" \
		'[ $rc -eq 0 ] && [ -s "$T/go.txt" ] && [ ! -s "$T/out" ]'
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
