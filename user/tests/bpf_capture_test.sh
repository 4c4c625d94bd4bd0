#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bpf_capture_test.sh - the BPF capture backend on this host's kernel
#
# 'gotrace bpf-dump' captures a known workload (bpf_workload.c): a child
# forked and exec'd that makes N getpgid(31354) calls, sleeps, and wakes
# a reader asleep in read() on a pipe.  The records must say exactly
# that.  Skips (TAP SKIP) where this host cannot run BPF: not root, no
# BTF, or a gotrace built without the backend.

. "$(dirname "$0")/lib.sh"

# The workload runs under a name of this run's own, so that the comm
# filters below match no other run of this test on the same host (two
# checkouts' make check at once).
WNAME=$(printf 'bpfw-%d' $$ | cut -c1-15)
cp "$(dirname "$0")/../build/bpf_workload" "$T/$WNAME"
WORKLOAD=$T/$WNAME
N=100
MAGIC=31354

need_bpf

# field NAME: the value of NAME=... in the awk record $0.
FIELD='function field(name,   i, kv) {
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == name)
			return substr($i, length(name) + 2)
	}
	return ""
}'

# count AWK_CONDITION: records of $T/out for which it holds.
count() {
	awk "$FIELD"' '"$1"' { n++ } END { print n + 0 }' "$T/out"
}

# key TID: the task key of TID, from its task record.
key() {
	awk "$FIELD"' field("type") == "task" && field("tid") == '"$1"' {
		print field("key"); exit }' "$T/out"
}

# --- the workload, every task of it, nothing else -------------------
run bpf-dump -c "$WNAME" --children -- "$WORKLOAD" "$T/ids" $N
check "bpf-dump ran the workload (status 0)" '[ "$rc" -eq 0 ]'
eval "$(cat "$T/ids")"
check "the workload wrote its ids" '[ -n "$parent" ] && [ -n "$child" ]'
pk=$(key "$parent"); ck=$(key "$child"); rk=$(key "$reader")
check "task records for the parent, the reader and the child" \
	'[ -n "$pk" ] && [ -n "$ck" ] && [ -n "$rk" ]'
check "the comm filter kept every other task out" \
	'[ "$(count "field(\"type\") == \"task\" && field(\"tgid\") != $parent && field(\"tgid\") != $reader && field(\"tgid\") != $child")" -eq 0 ]'
check "fork of the child by the parent" \
	'[ "$(count "field(\"type\") == \"fork\" && field(\"key\") == \"$pk\" && field(\"child\") == \"$ck\"")" -eq 1 ]'
check "fork records carry a kernel stack" \
	'[ "$(count "field(\"type\") == \"fork\" && field(\"frames\") > 1")" -ge 1 ]'
check "exec of the child" \
	'[ "$(count "field(\"type\") == \"exec\" && field(\"key\") == \"$ck\" && field(\"old_tid\") == $child")" -eq 1 ]'
check "exit of the child, after its exec" \
	'awk "$FIELD"" field(\"key\") == \"$ck\" && field(\"type\") == \"exec\" { e = 1 } e && field(\"key\") == \"$ck\" && field(\"type\") == \"exit\" { x++ } END { exit x != 1 }" "$T/out"'
check "$N getpgid($MAGIC) entries by the child" \
	'[ "$(count "field(\"type\") == \"sys_enter\" && field(\"key\") == \"$ck\" && field(\"nr\") == 121 && field(\"val\") == $MAGIC")" -eq $N ]'
check "$N getpgid exits by the child, each failing with ESRCH" \
	'[ "$(count "field(\"type\") == \"sys_exit\" && field(\"key\") == \"$ck\" && field(\"nr\") == 121 && field(\"val\") == -3")" -eq $N ]'
# glibc's nanosleep() is clock_nanosleep (230); nanosleep is 35.
SLEEPING="field(\"type\") == \"switch\" && field(\"key\") == \"$ck\" && field(\"state\") % 2 == 1 && (field(\"sys\") == 230 || field(\"sys\") == 35)"
check "the child switched out asleep (TASK_INTERRUPTIBLE) in nanosleep" \
	'[ "$(count "$SLEEPING")" -ge 1 ]'
check "that switch carries a kernel stack of more than one frame" \
	'[ "$(count "$SLEEPING && field(\"frames\") > 1")" -ge 1 ]'
check "the reader switched out asleep in read() on a pipe" \
	'[ "$(count "field(\"type\") == \"switch\" && field(\"key\") == \"$rk\" && field(\"sys\") == 0 && field(\"fd\") == \"pipe\" && field(\"state\") % 2 == 1")" -ge 1 ]'
check "the child's write woke the reader" \
	'[ "$(count "field(\"type\") == \"waking\" && field(\"key\") == \"$rk\" && field(\"waker\") == \"$ck\"")" -ge 1 ]'
check "the new child's wakeup names it" \
	'[ "$(count "field(\"type\") == \"wakeup_new\" && field(\"key\") == \"$ck\"")" -eq 1 ]'
check "timestamps never decrease after the merge" \
	'awk "$FIELD"" { t = field(\"ts\") + 0; if (t < last) bad++; last = t } END { exit bad > 0 }" "$T/out"'
check "every task is announced before its first record" \
	'awk "$FIELD"" field(\"type\") == \"task\" { seen[field(\"key\")] = 1; next } field(\"match\") % 2 == 1 && !seen[field(\"key\")] { bad++ } END { exit bad > 0 }" "$T/out"'
# misses: the programs' recursion_misses, the tracepoint hits the kernel
# did not run them for because their CPU was inside them already; none
# where the kernel runs them with preemption off (this host's 6.18), and
# so the syscall programs' twins never had to record a hit (twins: had
# they recorded one their first program also did, the exact counts above
# would be off).
check "no record dropped, no program skipped, no twin run, none merged late" \
	'has "drops=0 misses=0 twins=0 late=0" "$T/err"'

# --- a syscall entry's user frames: walked where the model writes them
# Only the GoSysCall of an entry has that stack: with --syscalls all,
# for the syscalls --syscall-filter selects.  Elsewhere the walk, the
# costliest part of a record, is not made.
for how in "all" "blocking" "all --syscall-filter !getpgid" \
	"all --syscall-filter getpgid"; do
	# shellcheck disable=SC2086 # $how: options, split
	run bpf-dump --user-stacks --syscalls $how -c "$WNAME" --children -- \
		"$WORKLOAD" "$T/ids" $N
	eval "$(cat "$T/ids")"
	ck=$(key "$child")
	GETPGID="field(\"type\") == \"sys_enter\" && field(\"key\") == \"$ck\" && field(\"nr\") == 121"
	entries=$(count "$GETPGID")
	walked=$(count "$GETPGID && field(\"uframes\") > 0")
	case $how in
	"all"|*" getpgid") want=$N ;;
	*) want=0 ;;
	esac
	check "--syscalls $how: $walked of the $entries getpgid entries carry user frames, $want should" \
		'[ "$rc" -eq 0 ] && [ "$entries" -eq $N ] && [ "$walked" -eq $want ]'
done

# --- the syscall programs' twins, attached from the start -------------
# (gotrace.bpf.c; the recorder attaches them at the first skip.)  Where
# no program is skipped, each twin finds its first program's mark at
# every hit and records nothing: the workload's syscalls once each.
export GOTRACE_BPF_TWINS=1
run bpf-dump -c "$WNAME" --children -- "$WORKLOAD" "$T/ids" $N
unset GOTRACE_BPF_TWINS
eval "$(cat "$T/ids")"
ck=$(key "$child")
check "twins attached: $N getpgid entries and $N exits by the child, once each" \
	'[ "$rc" -eq 0 ] && [ "$(count "field(\"type\") == \"sys_enter\" && field(\"key\") == \"$ck\" && field(\"nr\") == 121")" -eq $N ] && [ "$(count "field(\"type\") == \"sys_exit\" && field(\"key\") == \"$ck\" && field(\"nr\") == 121")" -eq $N ]'
check "twins attached: none recorded a hit, none skipped" \
	'has "drops=0 misses=0 twins=0 late=0" "$T/err"'

# --- a pid filter: only the tasks of the process given --------------
yes >/dev/null &
busy=$!
run bpf-dump -p $busy -d 0.3
kill $busy
bk=$(key $busy)
check "--pid of a busy process: its task record only" \
	'[ -n "$bk" ] && [ "$(count "field(\"type\") == \"task\"")" -eq 1 ]'
check "--pid: its syscalls, and nobody else's" \
	'[ "$(count "field(\"type\") == \"sys_enter\"")" -gt 0 ] && [ "$(count "field(\"type\") ~ /^sys_/ && field(\"key\") != \"$bk\"")" -eq 0 ]'

# --- a ring of one page overflows, and says so ----------------------
# The reader and the workload share one CPU, so that the reader cannot
# drain the ring while the workload runs: on an idle host with a CPU to
# itself it kept up with 10000 records (seen twice in three runs).
taskset -c 0 "$GOTRACE" bpf-dump -s --ring-size 4096 -c "$WNAME" \
	--children -- "$WORKLOAD" "$T/ids" 5000 >"$T/out" 2>"$T/err"
rc=$?
check "a one-page ring drops records and counts them" \
	'grep -q "drops=[1-9]" "$T/err"'
# Tasks born while their CPU's ring is full: an announcement that finds
# no room must not leave the task recorded but never announced.
run bpf-dump --ring-size 4096 --children -- \
	sh -c 'for i in $(seq 300); do /bin/true; done'
check "full one-page rings: still no record of a task never announced" \
	'grep -q "drops=[1-9]" "$T/err" && awk "$FIELD"" field(\"type\") == \"task\" { seen[field(\"key\")] = 1; next } field(\"match\") % 2 == 1 && !seen[field(\"key\")] { bad++ } END { exit bad > 0 }" "$T/out"'

# --- gotrace record --backend bpf: a trace Go accepts ------------------
# The events record's summary (its stderr, $1) counts, and those gotrace
# stat reads in the file ($2), into $summary and $file.
same_events() {
	summary=$(sed -n 's/.* written to .*, \([0-9][0-9]*\) events[a-z0-9 ]*, .*/\1/p' "$1")
	file=$("$GOTRACE" stat "$2" | awk '$1 == "events" { print $2; exit }')
}
CHECK_TRACE=$(cd "$(dirname "$0")/../.." && pwd)/selftests/check-trace.sh
# First in go1.11, which Go 1.21 and 1.23 read.
run record --backend bpf --format go1.11 -o "$T/bpf.trace" -- "$WORKLOAD" "$T/ids" $N
# Losses depend on the load of the host (the whole machine is recorded):
# they must be counted, not absent.
check "record --backend bpf --format go1.11: the workload's status, the summary names the backend and counts losses" \
	'[ "$rc" -eq 0 ] && has "backend bpf" "$T/err" && grep -Eq " [0-9]+ lost" "$T/err" && [ "$(head -c 13 "$T/bpf.trace")" = "go 1.11 trace" ]'
same_events "$T/err" "$T/bpf.trace"
check "the go1.11 summary counts the events of the file: $summary, stat $file" \
	'[ -n "$summary" ] && [ "$summary" = "$file" ]'
eval "$(cat "$T/ids")"
run check "$T/bpf.trace"
check "gotrace check accepts the trace" '[ "$rc" -eq 0 ] && has ": ok" "$T/out"'
run stat -j -n 100000 "$T/bpf.trace"
check "the trace has the workload's goroutines" 'has "$WNAME" "$T/out"'
if [ -x /usr/lib/go-1.21/bin/go ] && [ -x /usr/lib/go-1.23/bin/go ]; then
	"$CHECK_TRACE" "$T/bpf.trace" >"$T/out" 2>"$T/err"
	rc=$?
	check "Go 1.21's and 1.23's parsers accept it" '[ "$rc" -eq 0 ]'
else
	no_go "Go's parsers need Go 1.21 and 1.23"
fi
# Without --format, the default: the same model writes generations (Go
# 1.23 and 1.27), unless a module loaded here says go1.11.
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO127
fmt=
[ "$(cat /sys/module/gotrace/parameters/format 2>/dev/null)" = go1.11 ] &&
	fmt="--format go1.23"
# shellcheck disable=SC2086
run record --backend bpf $fmt -o "$T/go123.trace" -- "$WORKLOAD" "$T/ids" $N
check "record --backend bpf${fmt:+ $fmt}: go 1.23 by default, the workload's status" \
	'[ "$rc" -eq 0 ] && [ "$(head -c 13 "$T/go123.trace")" = "go 1.23 trace" ]'
same_events "$T/err" "$T/go123.trace"
check "the go 1.23 summary counts the events of the file: $summary, stat $file" \
	'[ -n "$summary" ] && [ "$summary" = "$file" ]'
run check "$T/go123.trace"
check "gotrace check accepts the go 1.23 trace" \
	'[ "$rc" -eq 0 ] && has ": ok" "$T/out"'
if [ -x /usr/lib/go-1.23/bin/go ] && [ -x "$GO127" ]; then
	"$CHECK_TRACE" --pprof "$T/go123.trace" >"$T/out" 2>"$T/err"
	rc=$?
	check "Go 1.23's and 1.27's parsers accept the go 1.23 trace, with profiles" \
		'[ "$rc" -eq 0 ]'
else
	no_go "Go's parsers need Go 1.23 and 1.27"
fi
# --rotate: complete files, cut between generations, that together hold
# every event: the child's getpgid() calls of five runs, summed over the
# files, are all there, once.
run record --backend bpf --format go1.23 --rotate 1s -o "$T/rot" \
	-c "$WNAME" --children -- sh -c 'for i in 1 2 3 4 5; do
		"$0" "$1" 2000 || exit 1; sleep 0.6; done' "$WORKLOAD" "$T/ids"
check "record --rotate 1s: the command's status, the files named" \
	'[ "$rc" -eq 0 ] && has "written to [0-9]* files in $T/rot" "$T/err"'
files=$(ls "$T"/rot/gotrace-*.trace 2>/dev/null)
check "at least 2 complete files, no temporary one" \
	'[ "$(echo "$files" | wc -w)" -ge 2 ] && ! ls "$T"/rot/*.tmp >/dev/null 2>&1'
getpgid=0
for f in $files; do
	"$GOTRACE" stat -j -n 0 "$f" >"$T/out" 2>&1
	c=$(awk '/"name": "sys_getpgid"/ { sub(/.*"count": /, ""); sub(/,.*/, ""); print; exit }' "$T/out")
	getpgid=$((getpgid + ${c:-0}))
done
check "the files hold the 5 x 2000 getpgid() calls once ($getpgid)" \
	'[ "$getpgid" -eq 10000 ]'
bad=
for f in $files; do "$GOTRACE" check -q "$f" || bad="$bad $f"; done
check "gotrace check accepts every file" '[ -z "$bad" ]'
if [ -x /usr/lib/go-1.23/bin/go ] && [ -x "$GO127" ]; then
	# shellcheck disable=SC2086
	"$CHECK_TRACE" $files >"$T/out" 2>"$T/err"
	rc=$?
	check "Go 1.23's and 1.27's parsers accept every file" '[ "$rc" -eq 0 ]'
else
	no_go "Go's parsers need Go 1.23 and 1.27"
fi
# Killed while rotating: what has a .trace name is complete.
"$GOTRACE" record --backend bpf --format go1.23 --rotate 1s --keep 2 \
	-d 30 -o "$T/killed" >/dev/null 2>&1 &
rec=$!
for i in $(seq 1 100); do
	[ "$(ls "$T"/killed/*.trace 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
kill -9 $rec
wait $rec 2>/dev/null
bad=
for f in "$T"/killed/*.trace; do "$GOTRACE" check -q "$f" || bad="$bad $f"; done
check "SIGKILL while rotating: --keep 2 kept 2 files, both complete; at most one .tmp" \
	'[ "$(ls "$T"/killed/*.trace | wc -l)" -eq 2 ] && [ -z "$bad" ] && [ "$(ls "$T"/killed/ | grep -c "\.tmp$")" -le 1 ]'
run record --backend bpf --format go1.11 --rotate 1s -o "$T/rot11"
check "--rotate with --format go1.11: a one-line error" \
	'[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && has "needs --format go1.23" "$T/err"'
# No syscall events, but the model still knows which syscall a task
# sleeps in: nanosleep stays a sleep, the pipe read a chan receive.  In
# go1.11, whose events name the reason (a generational trace has one
# GoBlock, its reason a string that gotrace stat does not count).
run record --backend bpf --format go1.11 -c "$WNAME" --children --syscalls none \
	-o "$T/nosys.trace" -- "$WORKLOAD" "$T/ids" 5
run stat -j -n 100000 "$T/nosys.trace"
check "--syscalls none: no syscall event, sleeps still sleep and chan receive" \
	'! has "\"GoSysCall\"" "$T/out" && has "\"GoSleep\": [1-9]" "$T/out" && has "\"GoBlockRecv\": [1-9]" "$T/out"'
run record --backend bpf -c "$WNAME" --children -o "$T/filtered.trace" \
	-- "$WORKLOAD" "$T/ids" $N
run stat -j -n 100000 "$T/filtered.trace"
check "with -c: only the workload's goroutines" \
	'has "$WNAME" "$T/out" && ! has "\"bash\"\|\"sh\"\|kworker" "$T/out"'

# --- an idle host: nothing lost is nothing said lost -------------------
# The whole machine for 2 s.  A switch whose record is missing from its
# CPU's with no record of that CPU dropped is one the kernel never
# reported (this project's development host: threads of its PID 1), not
# a loss: said in a note of its own, never in the lost count.  A busy
# host may fill a ring or skip a program: those are real losses, and
# the check does not apply.
run record --backend bpf -d 2 -o "$T/idle.trace"
if grep -Eq "[1-9][0-9]* (records found their BPF ring full|tracepoint hits found their program busy)" "$T/err"; then
	echo "ok $((n = n + 1)) # SKIP the host was not idle: records dropped or programs skipped"
else
	grep "note: the kernel reported no switch" "$T/err" | sed 's/^/# /'
	check "an idle 2 s recording with no ring full and no program skipped: 0 lost, no EVENTS LOST warning" \
		'[ "$rc" -eq 0 ] && has " 0 lost, backend bpf" "$T/err" && ! has "EVENTS LOST" "$T/err"'
fi

# --- kernel addresses hidden from the reader (kptr_restrict 2) -------
KPTR=/proc/sys/kernel/kptr_restrict
if old_kptr=$(cat $KPTR 2>/dev/null) && echo 2 > $KPTR 2>/dev/null; then
	run record --backend bpf -o "$T/hidden.trace" -- "$WORKLOAD" "$T/ids" 5
	echo "$old_kptr" > $KPTR
	check "kptr_restrict 2: no kernel address in the trace, frames [unknown]" \
		'[ "$rc" -eq 0 ] && ! grep -aq "ffffffff[0-9a-f]\{8\}" "$T/hidden.trace" && grep -aq "\[unknown\]" "$T/hidden.trace" && ! grep -aq "__schedule" "$T/hidden.trace"'
	run record --backend bpf -o "$T/shown.trace" -- "$WORKLOAD" "$T/ids" 5
	check "kptr_restrict $old_kptr: kernel functions named in the trace" \
		'[ "$rc" -eq 0 ] && grep -aq "__schedule" "$T/shown.trace"'
else
	echo "ok $((n = n + 1)) # SKIP cannot set kptr_restrict"
fi

# --- a cgroup filter: the cgroup and the ones below it ----------------
# The cgroup v2 hierarchy, mounted here too: /sys/fs/cgroup may be
# something else (cgroup v1, a tmpfs).
mkdir "$T/cg2"
if mount -t cgroup2 none "$T/cg2" 2>/dev/null; then
	# Named as systemd names a service's cgroup: the go1.23 trace puts
	# its tasks in a region of that unit, as the module does.
	mkdir -p "$T/cg2/gt-test.service/inner"
	# shellcheck disable=SC2016
	run record --backend bpf --format go1.23 --cgroup "$T/cg2/gt-test.service" \
		-o "$T/cg.trace" -- \
		sh -c 'echo $$ > "$0/cgroup.procs"; exec "$1" "$2" 5' \
		"$T/cg2/gt-test.service/inner" "$WORKLOAD" "$T/ids"
	run stat -j -n 100000 "$T/cg.trace"
	check "--cgroup: the tasks of a cgroup below it, and only them" \
		'has "^  \"tasks\": 3,$" "$T/out" && has "$WNAME" "$T/out"'
	check "their unit, from the cgroup's name: each of the 3 in gt-test.service" \
		'[ "$(grep -c "\"name\": \"$WNAME\",.*\"unit\": \"gt-test.service\" }" "$T/out")" -ge 3 ]'
	rmdir "$T/cg2/gt-test.service/inner" "$T/cg2/gt-test.service"
	umount "$T/cg2"
else
	echo "ok $((n = n + 1)) # SKIP no cgroup v2"
fi

# --- gotrace status sees a BPF session ------------------------------
if [ ! -e /dev/gotrace ]; then
	"$GOTRACE" bpf-dump -s -- sh -c "while [ ! -e '$T/go' ]; do sleep 0.05; done" \
		>/dev/null 2>&1 &
	dumper=$!
	# Until the session is attached (10 s at most): polls the state.
	i=0
	until "$GOTRACE" status >"$T/out" 2>"$T/err" && has "backend: *bpf" "$T/out"; do
		i=$((i + 1))
		[ $i -lt 200 ] || break
		sleep 0.05
	done
	check "status: recording with the BPF backend" \
		'has "^state: *recording" "$T/out" && has "^backend: *bpf" "$T/out"'
	"$GOTRACE" status --json >"$T/out" 2>"$T/err"
	check "status --json: backend bpf" 'has "\"backend\": \"bpf\"" "$T/out"'
	: >"$T/go"
	wait $dumper
	# Idle, or, where another BPF session records on this machine (a
	# benchmark beside the tests), without this one's recorder.
	run status
	check "status after the session: idle, exit 0" \
		'[ $rc -eq 0 ] && { { has "^state: *idle" "$T/out" && has "^backend: *none" "$T/out"; } || ! has "^reader pid: *$dumper\$" "$T/out"; }'
	run status --json
	check "status --json after the session: idle, exit 0, JSON" \
		'[ $rc -eq 0 ] && { has "\"state\": \"idle\"" "$T/out" || ! has "[[ ]$dumper[],]" "$T/out"; } && { ! command -v python3 >/dev/null || python3 -m json.tool "$T/out" >/dev/null; }'
else
	echo "ok $((n = n + 1)) # SKIP /dev/gotrace exists: status shows the module"
fi

# --- a ring that overflows under record: the summary says what to do --
# As above: the reader shares the workload's CPU; 64K is 32 KiB a CPU.
taskset -c 0 "$GOTRACE" record --backend bpf --buffer-size 64K -c "$WNAME" \
	--children -o "$T/small.trace" -- "$WORKLOAD" "$T/ids" 20000 \
	>"$T/out" 2>"$T/err"
check "record with full rings: the loss counted, with the advice (--buffer-size, --syscalls blocking)" \
	'grep -q "[1-9][0-9]* records found their BPF ring full" "$T/err" && has "raise --buffer-size, record fewer syscalls (--syscalls blocking" "$T/err"'

# --- the recorder's signals and gotrace stop, as with the module -----
# wait_bpf PID: until gotrace status names PID as the BPF recorder (10 s)
wait_bpf() {
	i=0
	until "$GOTRACE" status 2>/dev/null | grep -q "^reader pid: *$1\$"; do
		i=$((i + 1))
		[ $i -lt 200 ] || return 1
		sleep 0.05
	done
}
if [ ! -e /dev/gotrace ]; then
	"$GOTRACE" record --backend bpf -o "$T/stop.trace" >"$T/out" 2>"$T/err" &
	rec=$!
	wait_bpf $rec
	check "status names the BPF recorder's pid" '[ $? -eq 0 ]'
	kill -USR1 $rec
	run stop
	wait $rec
	rc=$?
	check "SIGUSR1 does not kill it; gotrace stop stops it: exit 0, a complete trace" \
		'[ $rc -eq 0 ] && has "stopped: gotrace stop" "$T/err" && "$GOTRACE" check -q "$T/stop.trace"'
	check "the trace is its owner's only (0600)" \
		'[ "$(stat -c %a "$T/stop.trace")" = 600 ]'
	# A second stop signal aborts at once, even in a write to a stalled
	# output (a FIFO nobody reads), as the module's recorder does.
	mkfifo "$T/stall"
	sleep 60 <"$T/stall" &
	stall=$!
	"$GOTRACE" record --backend bpf -o "$T/stall" >"$T/out" 2>"$T/err" &
	rec=$!
	i=0
	until [ "$(cut -d' ' -f1 "/proc/$rec/syscall" 2>/dev/null)" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 400 ] || break
		sleep 0.05
	done
	kill -TERM $rec
	i=0
	until has "stopping, reading the end" "$T/err" || [ $i -ge 200 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	kill -TERM $rec
	wait $rec
	rc=$?
	kill $stall 2>/dev/null
	check "a second SIGTERM aborts a stalled write: exit 143, the output named" \
		'[ $rc -eq 143 ] && has "aborted: the trace on $T/stall is incomplete" "$T/err"'
	run record --backend bpf -d 0.5 -o "$T/outlive.trace" -- sleep 2
	check "a COMMAND that outlives -d: the recorder says it waits for it" \
		'[ $rc -eq 0 ] && has "waiting for sleep (pid [0-9]*) to exit" "$T/err"'
	# Two recordings at once: status names both recorders, and gotrace
	# stop stops both, naming each.
	"$GOTRACE" record --backend bpf -o "$T/two1.trace" >/dev/null 2>"$T/err1" &
	rec1=$!
	"$GOTRACE" record --backend bpf -o "$T/two2.trace" >/dev/null 2>"$T/err2" &
	rec2=$!
	wait_bpf $rec1
	seen1=$?
	wait_bpf $rec2
	seen2=$?
	check "two BPF recordings: status names both recorders" \
		'[ $seen1 -eq 0 ] && [ $seen2 -eq 0 ]'
	"$GOTRACE" status --json >"$T/out" 2>&1
	check "status --json: both in reader_pids" \
		'grep -q "\"reader_pids\": \[.*\<$rec1\>" "$T/out" && grep -q "\"reader_pids\": \[.*\<$rec2\>" "$T/out"'
	run stop
	# A recorder that stop left running is ended after 10 s.
	i=0
	while { kill -0 $rec1 || kill -0 $rec2; } 2>/dev/null && [ $i -lt 200 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	kill -INT $rec1 $rec2 2>/dev/null
	wait $rec1
	rc1=$?
	wait $rec2
	rc2=$?
	check "gotrace stop stops both, naming each; both traces complete" \
		'[ $rc -eq 0 ] && [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && has "stopped the BPF recording of pid $rec1" "$T/err" && has "stopped the BPF recording of pid $rec2" "$T/err" && has "stopped: gotrace stop" "$T/err1" && has "stopped: gotrace stop" "$T/err2" && "$GOTRACE" check -q "$T/two1.trace" && "$GOTRACE" check -q "$T/two2.trace"'
else
	echo "ok $((n = n + 1)) # SKIP /dev/gotrace exists: stop and status go to the module"
fi

# --- clear errors --------------------------------------------------
if command -v setpriv >/dev/null; then
	run_as() {
		setpriv "$@" -- "$GOTRACE" bpf-dump -d 0.1 >"$T/out" 2>"$T/err"
		rc=$?
	}
	run_as --bounding-set=-bpf,-perfmon,-sys_admin --inh-caps=-all
	check "root without CAP_BPF/CAP_PERFMON: one clear line" \
		'[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && has "gotrace: root without CAP_BPF and CAP_PERFMON" "$T/err"'
	# The test's binary must be reachable by nobody.
	cp "$GOTRACE" "$T/gotrace" && chmod 755 "$T" "$T/gotrace"
	GOTRACE=$T/gotrace run_as --reuid=65534 --regid=65534 --clear-groups
	check "an unprivileged user: one clear line" \
		'[ "$rc" -eq 1 ] && has "gotrace: the BPF backend needs root" "$T/err"'
	# COMMAND forked, held until the session runs: the error must let
	# it go, not wait for it forever (timeout: the test's bound only).
	mkdir "$T/w" && chmod 777 "$T/w"
	timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		"$T/gotrace" record --backend bpf --children -o "$T/w/never.trace" \
		-- true >"$T/out" 2>"$T/err"
	rc=$?
	check "record --backend bpf --children -- true, unprivileged: exits with the error" \
		'[ "$rc" -eq 1 ] && has "gotrace: the BPF backend needs root" "$T/err"'
else
	echo "ok $((n = n + 1)) # SKIP setpriv missing"
fi

done_testing
