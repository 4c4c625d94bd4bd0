#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# record_test.sh - 'gotrace record' fed by a FIFO instead of /dev/gotrace
#
# The hidden --device option points record at a FIFO; a shell writer
# plays the module.  Its ioctls fail with ENOTTY, so a stop ends the
# recording at once: that covers the read loop, end of file, output
# errors, the duration, signals and COMMAND.

. "$(dirname "$0")/lib.sh"

FIFO=$T/fifo
mkfifo "$FIFO"
write_trace >"$T/min.trace"

# Writer that sends the trace and closes (end of file).
writer_eof() {
	write_trace >"$FIFO" &
	writer=$!
}

# Writer that sends the trace and keeps the FIFO open (a session that
# only ends when stopped).
writer_open() {
	rm -f "$T/written"
	(write_trace; : >"$T/written"; exec sleep 30) >"$FIFO" &
	writer=$!
}

# Until writer_open's trace is in the FIFO (record has opened it).
wait_written() {
	while [ ! -e "$T/written" ]; do sleep 0.05; done
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

"$GOTRACE" record --device "$FIFO" -o "$T/nodir/x.trace" 2>"$T/err" &
rec=$!
writer_eof
wait $rec
rc=$?
stop_writer
check "output cannot be created: exit 1" '[ $rc -eq 1 ] && has "cannot create $T/nodir/x.trace" "$T/err"'

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

writer_open
run record --device "$FIFO" -o "$T/n.trace" -- /nonexistent/cmd
stop_writer
check "COMMAND not found: exit 127" '[ $rc -eq 127 ] && has "cannot run '\''/nonexistent/cmd'\''" "$T/err"'

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
"$GOTRACE" record --device "$FIFO" -o "$T/t.trace" -- sleep 30 \
	2>"$T/err" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
stop_writer
check "SIGTERM: forwarded to COMMAND, exit status 128+15" '[ $rc -eq 143 ] && has "stopped: interrupted" "$T/err"'

# --children with COMMAND and no other filter: COMMAND is forked held,
# its pid sent as the filter; the FIFO refuses ioctls (ENOTTY), so it
# must never run.
writer_open
run record --device "$FIFO" --children -o "$T/ch.trace" -- sh -c ": >'$T/ran'"
stop_writer
check "--children COMMAND on a module without options: exit 1, COMMAND never ran" '[ $rc -eq 1 ] && has "does not support options (too old?)" "$T/err" && has "\-\-children" "$T/err" && [ ! -e "$T/ran" ]'

writer_open
run record --device "$FIFO" -c bash --syscalls none -o "$T/opt.trace"
stop_writer
check "options on a module without them: message names them" '[ $rc -eq 1 ] && has "record without --comm, --syscalls" "$T/err"'

run record --children -o "$T/x.trace"
check "--children with nothing to follow: exit 2" '[ $rc -eq 2 ] && has "children goes with" "$T/err"'
run record --tid -o "$T/x.trace"
check "--tid without -p: exit 2" '[ $rc -eq 2 ] && has "tid goes with -p" "$T/err"'

done_testing
