#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# go123_stream_test.sh - gotrace check, stat and pprof read a generational
# trace one generation at a time: their peak memory does not grow with
# the file
#
# go123_long writes two valid "go 1.23 trace" files of the same generations,
# 20 (1 MB) and 1000 (52 MB).  The peak RSS (/usr/bin/time's %M) of
# check, of stat and of pprof (sched) on the long one must stay within
# 8 MB of the short one's: holding the file, or anything per generation,
# would add 50 MB.
# The sanitizer's quarantine of freed blocks is turned off for the
# measurement: it keeps up to 256 MB of freed memory by design.
# Skips without /usr/bin/time.
#
# $GO123_LONG is the generator (make check passes build/go123_long).

. "$(dirname "$0")/lib.sh"

GO123_LONG=${GO123_LONG:-./build/go123_long}
SLACK_KB=8192

if [ ! -x /usr/bin/time ]; then
	ok "# SKIP /usr/bin/time is missing: no peak RSS to compare"
	done_testing
	exit
fi

"$GO123_LONG" 20 "$T/short.trace"
"$GO123_LONG" 1000 "$T/long.trace"
check "go123_long writes 20 and 1000 generations" \
	'[ $(wc -c <"$T/long.trace") -gt $((40 * $(wc -c <"$T/short.trace"))) ]'

# peak CMD...: the peak RSS in KB of gotrace CMD..., in $kb; status in $rc
peak() {
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$T/rss" "$GOTRACE" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	kb=$(tail -n 1 "$T/rss")
}

for cmd in check stat pprof; do
	args=$cmd
	[ $cmd = pprof ] && args="pprof sched -o $T/p.pb.gz"
	# shellcheck disable=SC2086 # $args: the command and its options
	peak $args "$T/short.trace"
	short=$kb
	check "$cmd of 20 generations succeeds" '[ $rc -eq 0 ]'
	# shellcheck disable=SC2086
	peak $args "$T/long.trace"
	check "$cmd of 1000 generations succeeds" '[ $rc -eq 0 ]'
	[ $cmd = check ] && check "check read all 1000 generations" \
		'grep -q "generations 1000$" "$T/out"'
	check "$cmd: peak RSS $kb KB for 1000 generations, $short KB for 20 (at most $SLACK_KB KB more)" \
		'[ "$kb" -le $((short + SLACK_KB)) ]'
done

done_testing
