#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# record_test.sh - 'gotrace record' fed by a FIFO instead of /dev/gotrace
#
# The hidden --device option points record at a FIFO; a shell writer
# plays the module.  Its ioctls fail with ENOTTY, so a stop ends the
# recording at once: that covers the read loop, end of file, output
# errors, the duration, signals and COMMAND, and what happens to the
# output file in each case.

. "$(dirname "$0")/lib.sh"

# Some tests run gotrace from another directory.
case $GOTRACE in
/*) ;;
*) GOTRACE=$PWD/$GOTRACE ;;
esac

write_trace >"$T/min.trace"

# A FIFO of its own for each writer: a writer is a shell and its
# min_trace, and killing the shell leaves a min_trace that has not
# written yet holding the FIFO open; on a loaded host it wrote its trace
# into the next test's recording (seen once: 152 bytes, twice the trace).
nfifo=0
fifo_new() {
	nfifo=$((nfifo + 1))
	FIFO=$T/fifo.$nfifo
	mkfifo "$FIFO"
}

# Writer that sends the trace and closes (end of file).
writer_eof() {
	fifo_new
	write_trace >"$FIFO" &
	writer=$!
}

# Writer that sends the trace and keeps the FIFO open (a session that
# only ends when stopped).
writer_open() {
	rm -f "$T/written"
	fifo_new
	(write_trace; : >"$T/written"; exec sleep 30) >"$FIFO" &
	writer=$!
}

# wait_file FILE: until FILE exists (at most 10 s); polls the state.
wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_text TEXT FILE: until FILE contains TEXT (at most 10 s).
wait_text() {
	i=0
	until grep -q -- "$1" "$2" 2>/dev/null; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_blocked_write PID: until PID sleeps in write(2) (x86-64 syscall 1),
# as /proc/PID/syscall says (at most 10 s).
wait_blocked_write() {
	i=0
	until [ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 1 ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_exit PID: wait for gotrace PID, its exit status in $rc; after
# 10 s it is killed and rc=255, so a test that fails cannot hang.
wait_exit() {
	i=0
	while st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) &&
		[ "$st" != Z ]; do
		if [ $i -ge 200 ]; then
			kill -9 "$1"
			break
		fi
		sleep 0.05
		i=$((i + 1))
	done
	wait "$1"
	rc=$?
	[ $i -lt 200 ] || rc=255
}

# wait_until_size FILE N: until FILE holds N bytes (at most 10 s).
wait_until_size() {
	i=0
	until [ "$(wc -c <"$1" 2>/dev/null)" = "$2" ]; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# Until writer_open's trace is in the FIFO (record has opened it).
wait_written() {
	wait_file "$T/written"
}

# Writer that sends the trace and far more than a pipe holds, and keeps
# the FIFO open.
writer_big() {
	fifo_new
	(write_trace; head -c 400000 /dev/zero; exec sleep 30) >"$FIFO" &
	writer=$!
}

# No temporary file of an output is left in $T.
no_tmp() {
	! ls "$T" | grep -q '\.tmp-'
}

stop_writer() {
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
}

writer_eof
run record --device "$FIFO" -o "$T/a.trace"
stop_writer
check "end of file: exit 0, the file is the stream" '[ $rc -eq 0 ] && cmp -s "$T/a.trace" "$T/min.trace"'
check "end of file: summary with bytes and stop reason" 'has "gotrace: 76 B (76 bytes) written to $T/a.trace" "$T/err" && has "stopped: end of file" "$T/err"'
run check -q "$T/a.trace"
check "the recorded file passes gotrace check" '[ $rc -eq 0 ]'
check "the trace is its owner's only (0600, as perf.data), whatever the umask" \
	'[ "$(stat -c %a "$T/a.trace")" = 600 ]'

writer_eof
run record --device "$FIFO" -q -o "$T/q.trace"
stop_writer
check "-q: nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$T/err" ]'

writer_eof
"$GOTRACE" record --device "$FIFO" -q -o - 2>"$T/err" | cat >"$T/stdout.trace"
stop_writer
check "-o -: the stream goes to stdout" 'cmp -s "$T/stdout.trace" "$T/min.trace"'

writer_eof
run record --device "$FIFO" -o /dev/full
stop_writer
check "ENOSPC on the output: exit 1, reported, recording stopped" '[ $rc -eq 1 ] && has "writing /dev/full: No space left on device" "$T/err" && has "stopped: output error" "$T/err"'

# A full disk under a go 1.23 trace (EFBIG of a file size limit here):
# the incomplete file is kept, and the message says how to save its
# complete generations.
GO123_LONG=${GO123_LONG:-$(dirname "$0")/../build/go123_long}
"$GO123_LONG" 4 "$T/long4.trace"
fifo_new
cat "$T/long4.trace" >"$FIFO" &
writer=$!
(trap '' XFSZ; ulimit -f 120; exec "$GOTRACE" record --device "$FIFO" \
	-o "$T/full.trace") >"$T/out" 2>"$T/err"
rc=$?
stop_writer
check "a full disk under a go 1.23 trace: exit 1, the temporary file kept, --repair named" \
	'[ $rc -eq 1 ] && has "gotrace check --repair -o $T/full.trace $T/full.trace.tmp-[0-9]*'"'"' keeps its complete generations" "$T/err"'
rm -f "$T"/full.trace.tmp-*

# --rotate on a full disk (EFBIG here): the error names the file.
mkdir "$T/rot"
fifo_new
cat "$T/long4.trace" >"$FIFO" &
writer=$!
(trap '' XFSZ; ulimit -f 120; exec "$GOTRACE" record --device "$FIFO" \
	--rotate 1m -o "$T/rot") >"$T/out" 2>"$T/err"
rc=$?
stop_writer
check "--rotate on a full disk: the error names the file written, not its directory" \
	'[ $rc -eq 1 ] && has "writing $T/rot/gotrace-[0-9TZ]*-[0-9]*\.trace\.tmp: File too large" "$T/err"'
rm -rf "$T/rot"

# Nothing writes the FIFO: opening it would hang.  A bad -o must be
# refused before the device is opened, that is before any session.
timeout -s KILL 10 "$GOTRACE" record --device "$FIFO" -o "$T/nodir/x.trace" \
	2>"$T/err"
rc=$?
check "output cannot be created: exit 1 before the device is opened" '[ $rc -eq 1 ] && has "cannot create $T/nodir/x.trace" "$T/err"'
timeout -s KILL 10 "$GOTRACE" record --device "$FIFO" -o "$T" 2>"$T/err"
rc=$?
check "output is a directory: exit 1 before the device is opened" '[ $rc -eq 1 ] && has "is a directory" "$T/err"'

# -o - with standard output closed: refused before the device is opened
# (nothing writes the FIFO), not after the whole session.
timeout -s KILL 10 "$GOTRACE" record --device "$FIFO" -o - >&- 2>"$T/err"
rc=$?
check "-o - with standard output closed: exit 1 before the device is opened" '[ $rc -eq 1 ] && has "standard output is closed" "$T/err"'

# -o a FIFO that nobody reads yet: gotrace says that it waits.
mkfifo "$T/out.fifo"
writer_eof
"$GOTRACE" record --device "$FIFO" -o "$T/out.fifo" >/dev/null 2>"$T/err" &
rec=$!
wait_text "waiting for a reader of the FIFO $T/out.fifo" "$T/err"
said=$?
timeout 20 cat "$T/out.fifo" >"$T/from-fifo"
wait_exit $rec
stop_writer
check "-o a FIFO without a reader: says it waits, then records into it" '[ $said -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$T/from-fifo" "$T/min.trace" && [ -p "$T/out.fifo" ]'

# A recording replaces FILE only when complete, keeping the previous one.
echo previous >"$T/keep.trace"
echo older >"$T/keep.trace.old"
writer_eof
run record --device "$FIFO" -o "$T/keep.trace"
stop_writer
check "existing FILE: the new trace replaces it, the previous one is FILE.old" '[ $rc -eq 0 ] && cmp -s "$T/keep.trace" "$T/min.trace" && [ "$(cat "$T/keep.trace.old")" = previous ] && has "previous $T/keep.trace is kept as $T/keep.trace.old" "$T/err" && no_tmp'

# "gotrace record trace.out": the -o forgotten.  COMMAND trace.out cannot
# run; the existing trace.out must come out as it was.
mkdir "$T/cwd"
cp "$T/min.trace" "$T/cwd/trace.out"
writer_open
(cd "$T/cwd" && "$GOTRACE" record --device "$FIFO" trace.out \
	>"$T/out" 2>"$T/err")
rc=$?
stop_writer
check "record trace.out (-o forgotten): exit 127, trace.out untouched, a hint" '[ $rc -eq 127 ] && cmp -s "$T/cwd/trace.out" "$T/min.trace" && [ ! -e "$T/cwd/trace.out.old" ] && [ "$(ls "$T/cwd")" = trace.out ] && has "use -o trace.out" "$T/err"'

writer_open
start=$(date +%s)
run record --device "$FIFO" -d 1 -o "$T/d.trace"
end=$(date +%s)
stop_writer
check "-d 1: stops by itself, keeps what was read" '[ $rc -eq 0 ] && [ $((end - start)) -lt 5 ] && has "stopped: duration elapsed" "$T/err" && cmp -s "$T/d.trace" "$T/min.trace"'

writer_open
# COMMAND exits once the trace is in the FIFO, so the test does not
# depend on which of the two is scheduled first.
run record --device "$FIFO" -o "$T/c.trace" -- sh -c \
	'while [ ! -e "$1" ]; do sleep 0.05; done; exit 3' sh "$T/written"
stop_writer
check "COMMAND exits 3: recording stops, exit status 3" '[ $rc -eq 3 ] && has "stopped: command exited" "$T/err" && cmp -s "$T/c.trace" "$T/min.trace"'

echo previous >"$T/n.trace"
writer_open
run record --device "$FIFO" -o "$T/n.trace" -- /nonexistent/cmd
stop_writer
check "COMMAND not found: exit 127, FILE untouched" '[ $rc -eq 127 ] && has "cannot run '\''/nonexistent/cmd'\''" "$T/err" && [ "$(cat "$T/n.trace")" = previous ] && no_tmp'

writer_open
"$GOTRACE" record --device "$FIFO" -o "$T/i.trace" 2>"$T/err" &
pid=$!
wait_written
kill -INT $pid
wait $pid
rc=$?
stop_writer
check "SIGINT: clean stop, exit 0" '[ $rc -eq 0 ] && has "stopped: interrupted" "$T/err" && cmp -s "$T/i.trace" "$T/min.trace"'

writer_open
"$GOTRACE" record --device "$FIFO" -o "$T/h.trace" 2>"$T/err" &
pid=$!
wait_written
kill -HUP $pid
wait $pid
rc=$?
stop_writer
check "SIGHUP (ssh gone): clean stop like SIGINT, exit 0" '[ $rc -eq 0 ] && has "stopped: interrupted" "$T/err" && cmp -s "$T/h.trace" "$T/min.trace"'

writer_open
rm -f "$T/started"
"$GOTRACE" record --device "$FIFO" -o "$T/t.trace" -- \
	sh -c ': >"$1"; exec sleep 30' sh "$T/started" 2>"$T/err" &
pid=$!
wait_file "$T/started"
kill -TERM $pid
wait $pid
rc=$?
stop_writer
check "SIGTERM: forwarded to COMMAND, exit status 128+15" '[ $rc -eq 143 ] && has "stopped: interrupted" "$T/err"'

# kill -INT from another process reaches COMMAND too, as Ctrl-C would.
writer_open
rm -f "$T/trapped"
"$GOTRACE" record --device "$FIFO" -o "$T/ti.trace" -- sh -c \
	'trap "exit 7" INT; echo $$ >"$1"; while :; do sleep 0.05; done' sh \
	"$T/trapped" 2>"$T/err" &
pid=$!
wait_file "$T/trapped"
wait_file "$T/written"
kill -INT $pid
wait_exit $pid
kill -9 "$(cat "$T/trapped")" 2>/dev/null
stop_writer
check "kill -INT: forwarded to COMMAND, whose status (7) is gotrace's" '[ $rc -eq 7 ] && has "stopped: interrupted" "$T/err" && cmp -s "$T/ti.trace" "$T/min.trace"'

# A second signal aborts even while the output is stuck: stdout is a
# FIFO that the test holds open and never reads.
mkfifo "$T/stall"
exec 3<>"$T/stall"
writer_big
"$GOTRACE" record --device "$FIFO" -o - >"$T/stall" 2>"$T/err" &
pid=$!
wait_blocked_write $pid
kill -INT $pid
wait_text "stopping, reading the end" "$T/err"
kill -INT $pid
wait_exit $pid
exec 3<&-
stop_writer
check "second SIGINT while the output is stuck: aborted, exit 130" '[ $rc -eq 130 ] && has "gotrace: aborted: the trace on stdout is incomplete" "$T/err"'

# Two stop signals delivered together (the process stopped meanwhile):
# the second aborts; FILE stays as it was, the incomplete trace keeps
# its temporary name.
echo previous >"$T/ab.trace"
writer_open
"$GOTRACE" record --device "$FIFO" -o "$T/ab.trace" 2>"$T/err" &
pid=$!
wait_until_size "$T/ab.trace.tmp-$pid" 76
kill -STOP $pid
kill -HUP $pid
kill -INT $pid
kill -CONT $pid
wait_exit $pid
stop_writer
check "aborted by a second signal: exit 128+signal, FILE untouched, FILE.tmp-PID kept" '{ [ $rc -eq 129 ] || [ $rc -eq 130 ]; } && [ "$(cat "$T/ab.trace")" = previous ] && [ -e "$T/ab.trace.tmp-$pid" ] && has "incomplete trace stays in $T/ab.trace.tmp-$pid" "$T/err"'
rm -f "$T/ab.trace.tmp-$pid"

# --children with COMMAND and no other filter: COMMAND is forked held,
# its pid sent as the filter; the FIFO refuses ioctls (ENOTTY), as a
# module of another ABI version does, so it must never run.
writer_open
run record --device "$FIFO" --children -o "$T/ch.trace" -- sh -c ": >'$T/ran'"
stop_writer
check "--children COMMAND on a module without options: exit 1, COMMAND never ran" '[ $rc -eq 1 ] && has "does not know this command" "$T/err" && has "(ABI version 2)" "$T/err" && has "\-\-children" "$T/err" && [ ! -e "$T/ran" ]'

writer_open
run record --device "$FIFO" -c bash --syscalls none -o "$T/opt.trace"
stop_writer
check "options on a module of another ABI: message names them and the version" '[ $rc -eq 1 ] && has "cannot set the options (--comm, --syscalls)" "$T/err" && has "(ABI version 2)" "$T/err"'

run record --children -o "$T/x.trace"
check "--children with nothing to follow: exit 2" '[ $rc -eq 2 ] && has "children goes with" "$T/err"'
run record --tid -o "$T/x.trace"
check "--tid without -p: exit 2" '[ $rc -eq 2 ] && has "tid goes with -p" "$T/err"'

# Usage errors: one line, no usage text, no output file.
run record -d 1x -o "$T/x.trace"
check "a bad value: one line, exit 2" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && has "^gotrace: invalid duration" "$T/err" && [ ! -e "$T/x.trace" ]'
run record --bogus
check "an unknown option: gotrace: record: ..., and where to look" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && has "^gotrace: record: unrecognized option .--bogus." "$T/err" && has "^gotrace: see .gotrace record -h." "$T/err"'
run record -o
check "a missing argument: gotrace: record: ..." '[ $rc -eq 2 ] && has "^gotrace: record: option requires an argument" "$T/err" && ! has usage "$T/err"'
run record --cgroup / --unit foo -o "$T/x.trace"
check "--cgroup and --unit together: exit 2" '[ $rc -eq 2 ] && has "exclude each other" "$T/err"'
run record --cgroup "$T" -o "$T/x.trace"
check "--cgroup on a directory not on cgroup v2: exit 2" '[ $rc -eq 2 ] && has "is not on cgroup v2" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]'

done_testing
