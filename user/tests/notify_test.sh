#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# notify_test.sh - 'gotrace record' under a Type=notify unit: READY=1 once
# it records, STATUS= while it runs, STOPPING=1 on a stop, and a complete
# trace after the SIGINT systemd sends (KillSignal=SIGINT).
#
# tests/notify_listen plays systemd's NOTIFY_SOCKET, a FIFO plays the
# module (as in record_test.sh).  Skipped for a build without libsystemd
# (its --version does not say sd_notify).

. "$(dirname "$0")/lib.sh"

LISTEN=${NOTIFY_LISTEN:-$(dirname "$GOTRACE")/notify_listen}

if ! "$GOTRACE" --version | grep -q 'sd_notify'; then
	echo "ok 1 # SKIP built without libsystemd (no sd_notify)"
	echo "1..1"
	exit 0
fi

FIFO=$T/fifo
mkfifo "$FIFO"
write_trace >"$T/min.trace"

# wait_text TEXT FILE: until FILE has a line TEXT (at most 10 s).
wait_text() {
	i=0
	until grep -qx -- "$1" "$2" 2>/dev/null; do
		[ $i -ge 200 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

notify_listen "$LISTEN" "$T/notify" "$T/msgs"

# The module's stand-in: the trace, then open until the test ends.
(write_trace; exec sleep 30) >"$FIFO" &
writer=$!
NOTIFY_SOCKET=$T/notify "$GOTRACE" record --device "$FIFO" -o "$T/n.trace" \
	2>"$T/err" &
pid=$!
ready=0
wait_text READY=1 "$T/msgs" && ready=1
check "READY=1 once the session records" '[ $ready -eq 1 ] && kill -0 $pid'
status=0
wait_text 'STATUS=recording [0-9]* s: [0-9.]* [KMGi]*B written' "$T/msgs" &&
	status=1
check "STATUS= with the time and the bytes written, while it records" '[ $status -eq 1 ]'
kill -INT $pid
wait $pid
rc=$?
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
check "SIGINT (systemd's KillSignal): exit 0, the trace complete" '[ $rc -eq 0 ] && cmp -s "$T/n.trace" "$T/min.trace"'
check "STOPPING=1 on the stop, after READY=1" 'grep -n -x -e READY=1 -e STOPPING=1 "$T/msgs" | cut -d: -f2 | tr "\n" " " | grep -qx "READY=1 STOPPING=1 "'

# Without NOTIFY_SOCKET (a terminal, a script) nothing is sent.
: >"$T/msgs"
(write_trace) >"$FIFO" &
writer=$!
run record --device "$FIFO" -o "$T/plain.trace"
wait "$writer"
check "no NOTIFY_SOCKET: records, sends nothing" '[ $rc -eq 0 ] && [ ! -s "$T/msgs" ]'

kill "$listener"
wait "$listener" 2>/dev/null
done_testing
