#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cli_test.sh - command line of gotrace: usage, exit codes, messages,
# and 'gotrace check' on files.  Needs no device.

. "$(dirname "$0")/lib.sh"

run
check "no arguments: usage on stderr, exit 2" '[ $rc -eq 2 ] && has "usage: gotrace" "$T/err" && [ ! -s "$T/out" ]'
run help
check "help: exit 0" '[ $rc -eq 0 ] && has "usage: gotrace" "$T/out"'
run -h
check "-h: exit 0" '[ $rc -eq 0 ] && has "record" "$T/out"'
run bogus
check "unknown command: usage on stderr, exit 2" '[ $rc -eq 2 ] && has "gotrace: '\''bogus'\'' is not a gotrace command" "$T/err" && has "usage: gotrace" "$T/err"'

run record -h
check "record -h: exit 0" '[ $rc -eq 0 ] && has "usage: gotrace record" "$T/out"'
run record -d 1x
check "record -d 1x: invalid duration, exit 2" '[ $rc -eq 2 ] && has "invalid duration '\''1x'\''" "$T/err"'
run record --bogus
check "record --bogus: exit 2" '[ $rc -eq 2 ]'
run record --device "$T/nonexistent" -o "$T/never.trace"
check "record: missing device says the module is not loaded" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err" && [ ! -e "$T/never.trace" ]'
run record --cpu-hz 1000 -o "$T/never.trace"
check "record --cpu-hz 1000: no such rate, exit 2" '[ $rc -eq 2 ] && has "'\''1000'\'' is no rate from 1 to 999" "$T/err" && [ ! -e "$T/never.trace" ]'
run record --cpu-hz=0 -o "$T/never.trace"
check "record --cpu-hz=0: no such rate, exit 2" '[ $rc -eq 2 ] && has "'\''0'\'' is no rate" "$T/err"'
run record --format go1.11 --cpu-hz 99 --device "$T/nonexistent" -o "$T/never.trace"
check "record --format go1.11 --cpu-hz 99: refused, the reason said" '[ $rc -eq 2 ] && has "go1.11 format has no CPU samples" "$T/err"'
# "--cpu-hz 99" takes its rate: the COMMAND is what follows it.
run record --cpu-hz 99 --device "$T/nonexistent" -o "$T/never.trace" -- true
check "record --cpu-hz 99 -- true: the rate taken, not run as a command" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
run record --backend foo -o "$T/never.trace"
check "record --backend foo: exit 2, says what it wants" '[ $rc -eq 2 ] && has "invalid backend '\''foo'\'': want kmod, bpf or auto" "$T/err"'
run record --backend kmod --device "$T/nonexistent" -o "$T/never.trace"
check "record --backend kmod: the module's error" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
run record --flight 30x -o "$T/fl"
check "record --flight 30x: exit 2, says what it wants" '[ $rc -eq 2 ] && has "invalid --flight '\''30x'\'': want a time" "$T/err" && [ ! -e "$T/fl" ]'
run record --flight 2h -o "$T/fl"
check "record --flight 2h: over an hour, exit 2" '[ $rc -eq 2 ] && has "invalid --flight '\''2h'\''" "$T/err"'
run record --flight-size 512K -o "$T/fl"
check "record --flight-size 512K: under 1M, exit 2" '[ $rc -eq 2 ] && has "invalid --flight-size '\''512K'\''" "$T/err"'
run record --flight 30s
check "record --flight without -o DIR: exit 2" '[ $rc -eq 2 ] && has "name it with -o DIR" "$T/err"'
run record --flight 30s --rotate 1m -o "$T/fl"
check "record --flight with --rotate: exit 2" '[ $rc -eq 2 ] && has "one or the other" "$T/err"'
run record --flight 30s --format go1.11 -o "$T/fl"
check "record --flight with go1.11: exit 2" '[ $rc -eq 2 ] && has "needs --format go1.23" "$T/err"'
run record --flight 30s --backend bpf -o "$T/fl"
check "record --flight with the BPF backend: exit 2" '[ $rc -eq 2 ] && has "not with --backend bpf" "$T/err"'
run record --user-stacks --backend bpf -o "$T/us" -d bogus
check "record --user-stacks with the BPF backend is taken: only -d bogus refused, no file" '[ $rc -eq 2 ] && has "bogus" "$T/err" && ! has "user-stacks" "$T/err" && [ ! -e "$T/us" ]'
run record --user-stacks --no-user-stacks --backend bpf -o "$T/us" -d bogus
check "record --user-stacks --no-user-stacks: the last one counts" '[ $rc -eq 2 ] && ! has "user-stacks" "$T/err"'
run record --user-stacks --no-symbolize -o "$T/us" -d bogus
check "record --no-symbolize is taken: only -d bogus refused" '[ $rc -eq 2 ] && has "bogus" "$T/err" && ! has "symbolize" "$T/err"'
run record --trigger sched-latency:50ms -o "$T/fl"
check "record --trigger without --flight: exit 2" '[ $rc -eq 2 ] && has "it goes with --flight" "$T/err"'
run record --flight 30s --trigger-comm x -o "$T/fl"
check "record --trigger-comm without --trigger: exit 2" '[ $rc -eq 2 ] && has "go with --trigger" "$T/err"'
run record --flight 30s --trigger syscall:nosuch -o "$T/fl"
check "record --trigger syscall:nosuch: exit 2, says what it wants" '[ $rc -eq 2 ] && has "want sched-latency:TIME, off-cpu:TIME" "$T/err"'
run record --flight 30s --trigger off-cpu:1s -o "$T/fl"
check "record --trigger off-cpu without a task filter: exit 2" '[ $rc -eq 2 ] && has "name them with --trigger-pid" "$T/err"'
run record --flight 30s --trigger latency:50ms --trigger-post 11m -o "$T/fl"
check "record --trigger-post 11m: over 10m, exit 2" '[ $rc -eq 2 ] && has "invalid --trigger-post '\''11m'\''" "$T/err"'
run record --flight 30s --trigger latency:50ms --trigger-pid 0 -o "$T/fl"
check "record --trigger-pid 0: exit 2" '[ $rc -eq 2 ] && has "invalid --trigger-pid '\''0'\''" "$T/err"'
run snapshot --device "$T/nonexistent"
check "snapshot: missing device says the module is not loaded" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
run stop --device "$T/nonexistent"
check "stop: missing device says the module is not loaded" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
: >"$T/plain"
run stop --device "$T/plain"
check "stop: not a device, exit 1" '[ $rc -eq 1 ] && has "cannot stop the recording" "$T/err"'
run status --device "$T/nonexistent"
check "status: missing device, exit 1" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
run stop extra
check "stop with an argument: exit 2" '[ $rc -eq 2 ]'

write_trace >"$T/min.trace"
run check "$T/min.trace"
check "check: minimal trace passes with a summary" '[ $rc -eq 0 ] && has "ok, 76 B" "$T/out" && has "goroutines  1" "$T/out" && has "GoCreate  *1" "$T/out"'
run check -q "$T/min.trace"
check "check -q: silent when fine" '[ $rc -eq 0 ] && [ ! -s "$T/out" ]'
write_trace | run check -
check "check -: reads stdin" '[ $rc -eq 0 ]'
head -c 27 "$T/min.trace" >"$T/cut.trace"
run check "$T/cut.trace"
check "check: cut trace fails naming the offset" '[ $rc -eq 1 ] && has "cut.trace: offset 24 (0x18): truncated GoCreate" "$T/err"'
{ write_trace; printf '\000'; } >"$T/pad.trace"
run check "$T/pad.trace"
check "check: trailing zero byte fails" '[ $rc -eq 1 ] && has "offset 76 (0x4c): unknown event type 0" "$T/err"'
run check "$T/nonexistent"
check "check: missing file, exit 1" '[ $rc -eq 1 ] && has "cannot read" "$T/err"'
run check
check "check without a file: exit 2" '[ $rc -eq 2 ]'
printf 'go 1.21 trace\000\000\000' >"$T/go121.trace"
run check "$T/go121.trace"
check "check: a go 1.21 header is named, with the versions gotrace reads" \
	'[ $rc -eq 1 ] && has "bad header: read \"go 1.21 trace.x00.x00.x00\"; gotrace reads \"go 1.11 trace\"" "$T/err"'
head -c 16 "$T/min.trace" >"$T/header.trace"
run check "$T/header.trace"
check "check: a go 1.11 trace without its footer did not finish recording" \
	'[ $rc -eq 1 ] && has "no Frequency record: the recording did not finish" "$T/err"'
# A device or pipe is copied to a temporary file, but only once its
# header is a trace's: /dev/zero would fill $TMPDIR.
TMPDIR=$T timeout 20 "$GOTRACE" check /dev/zero >"$T/out" 2>"$T/err"
rc=$?
check "check /dev/zero: refused at its header, not copied (exit 1, not the timeout's 124)" \
	'[ $rc -eq 1 ] && has "bad header: read \".x00.x00" "$T/err"'
write_trace | TMPDIR=$T/nonexistent "$GOTRACE" check - >"$T/out" 2>"$T/err"
rc=$?
check "check - with a bad TMPDIR: the error names the directory" \
	'[ $rc -eq 1 ] && has "temporary file in $T/nonexistent (TMPDIR)" "$T/err"'
run record --device "$T/nonexistent" -o /proc/version
check "record -o /proc/version: names the temporary file that cannot be made" \
	'[ $rc -eq 1 ] && has "cannot create /proc/version.tmp-[0-9]*, where the trace is written until it replaces /proc/version" "$T/err"'

run stat "$T/min.trace"
check "stat: minimal trace, one task named bash" '[ $rc -eq 0 ] && has "tasks       1 (goroutines), 1 names" "$T/out" && has "^  bash " "$T/out" && has "CPUs (Ps)   1" "$T/out"'
run stat --json "$T/min.trace"
check "stat --json: the counts as JSON keys" '[ $rc -eq 0 ] && has "^  \"tasks\": 1,$" "$T/out" && has "^  \"events\": 5,$" "$T/out" && has "{ \"name\": \"bash\", \"tasks\": 1," "$T/out" && { ! command -v python3 >/dev/null || python3 -m json.tool "$T/out" >/dev/null; }'
run stat -n x "$T/min.trace"
check "stat -n x: exit 2" '[ $rc -eq 2 ] && has "invalid number" "$T/err"'
run stat "$T/cut.trace"
check "stat: broken trace, exit 1 naming the offset" '[ $rc -eq 1 ] && has "offset 24" "$T/err"'
run stat
check "stat without a file: exit 2" '[ $rc -eq 2 ]'

# Synthetic traces of the selftests' generator (selftests/host, built
# there by make check-host; built here if this runs alone): the valid
# kinds pass, double-start fails as 'go tool trace -d' says, the kinds
# only the web UIs refuse fail too.  A generator that cannot be built is
# a failure, not a reason to skip.
HOST=$(dirname "$0")/../../selftests/host
GEN=$HOST/build/gen-trace-go111
[ -x "$GEN" ] || make -s -C "$HOST" build/gen-trace-go111 >"$T/out" 2>"$T/err"
check "gen-trace-go111 is built" '[ -x "$GEN" ]'

# gen KIND FILE: a synthetic trace, or a failed test saying why not.
gen() {
	"$GEN" "$1" "$2" >"$T/out" 2>"$T/err" ||
		check "gen-trace-go111 $1" false
}

for kind in small busy limits; do
	gen $kind "$T/$kind.trace"
	run check -q "$T/$kind.trace"
	check "check: gen-trace-go111 $kind passes" '[ $rc -eq 0 ]'
	run stat "$T/$kind.trace"
	check "stat: gen-trace-go111 $kind" '[ $rc -eq 0 ] && has "top tasks by run time" "$T/out"'
done
gen double-start "$T/ds.trace"
run check "$T/ds.trace"
check "check: gen-trace-go111 double-start fails" '[ $rc -eq 1 ] && has "is already running g" "$T/err"'
# Both parsers accept these two; the 1.21 web UI does not.
gen unclosed "$T/uc.trace"
run check "$T/uc.trace"
check "check: gen-trace-go111 unclosed fails" '[ $rc -eq 1 ] && has "is still running at the end of the trace" "$T/err"'
gen sysexit-after-block "$T/sb.trace"
run check "$T/sb.trace"
check "check: gen-trace-go111 sysexit-after-block fails" '[ $rc -eq 1 ] && has "blocked with GoBlock, not GoSysBlock" "$T/err"'

# A generational trace's header alone: every reader fails, as check
# does (Go: "no frequency event found"), none says "0 Hz" or writes an
# empty profile with exit 0.
printf 'go 1.23 trace\0\0\0' >"$T/hdr.trace"
run check -q "$T/hdr.trace"
check "check of a go1.23 header alone: exit 1" '[ $rc -eq 1 ] && has "no frequency event found" "$T/err"'
run stat "$T/hdr.trace"
check "stat of a go1.23 header alone: exit 1, the reason" '[ $rc -eq 1 ] && has "no frequency event found" "$T/err"'
run stat -j "$T/hdr.trace"
check "stat -j of a go1.23 header alone: exit 1, the reason" '[ $rc -eq 1 ] && has "no frequency event found" "$T/err"'
run pprof sched -o "$T/hdr.pb.gz" "$T/hdr.trace"
check "pprof of a go1.23 header alone: exit 1, the reason, no profile" '[ $rc -eq 1 ] && has "no frequency event found" "$T/err" && [ ! -e "$T/hdr.pb.gz" ]'
run symbolize -q "$T/hdr.trace" "$T/hdr.out"
check "symbolize of a go1.23 header alone: exit 1, the reason" '[ $rc -eq 1 ] && has "no frequency event found" "$T/err"'

# A pipe with a trace's header, then junk: the copy into $TMPDIR stops at
# the first bytes that start no batch, not at the end of the pipe: the
# writer of 64 MiB of zeros is cut off (EPIPE), not read to its end.
(trap '' PIPE; printf 'go 1.23 trace\0\0\0'
	head -c 67108864 /dev/zero 2>/dev/null
	echo $? >"$T/writer.rc") | "$GOTRACE" check - >"$T/out" 2>"$T/err"
rc=$?
check "check - of a header and 64 MiB of zeros: refused at offset 16, the rest never read" \
	'[ $rc -eq 1 ] && has "offset 16 " "$T/err" && [ "$(cat "$T/writer.rc")" != 0 ]'

# gotrace --help lists every kind pprof takes, from pprof's own table.
run pprof bogus -o "$T/never.pb.gz" "$T/never.trace"
kinds=$(sed -n "s/.*unknown profile 'bogus' (\(.*\)).*/\1/p" "$T/err")
run --help
check "--help lists the kinds pprof takes ($kinds)" \
	'[ -n "$kinds" ] && has "a pprof profile ($kinds) of a trace" "$T/out"'

# Bad values are refused before anything records.
run record --device "$T/nonexistent" --cpu-hz abc -o "$T/never.trace"
check "record --cpu-hz abc: no rate (and no command), exit 2" '[ $rc -eq 2 ] && has "'\''abc'\'' is no rate" "$T/err" && [ ! -e "$T/never.trace" ]'
run record --device "$T/nonexistent" -o "$T/never.trace" --cpu-hz true
check "record --cpu-hz true: a command found in PATH stays COMMAND" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'
run record --device "$T/nonexistent" --buffer-size 1 -o "$T/never.trace"
check "record --buffer-size 1: below one 64 KiB buffer, exit 2" '[ $rc -eq 2 ] && has "at least 64K" "$T/err" && [ ! -e "$T/never.trace" ]'
run record --buffer-size 64K --device "$T/nonexistent" -o "$T/never.trace"
check "record --buffer-size 64K with the module: below its least, said, exit 2" '[ $rc -eq 2 ] && has "the module takes at least" "$T/err" && [ ! -e "$T/never.trace" ]'
# pid_max itself is never a pid.
nopid=$(cat /proc/sys/kernel/pid_max)
run record -p "$nopid" --device "$T/nonexistent" -o "$T/never.trace"
check "record -p of no process: refused, exit 2" '[ $rc -eq 2 ] && has "no process $nopid" "$T/err" && [ ! -e "$T/never.trace" ]'
run record -p "$$" --tid --device "$T/nonexistent" -o "$T/never.trace"
check "record -p of a process that exists: taken" '[ $rc -eq 1 ] && has "gotrace.ko is not loaded" "$T/err"'

done_testing
