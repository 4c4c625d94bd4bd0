#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - how fast, and in how much memory, 'gotrace check' and
# 'gotrace stat' read a large trace, next to Go's own parsers (host only,
# no VM; "make bench-check", also run by "make bench").
#
# Generates with selftests/host/gen-trace-go111 a trace of BENCH_CHECK_EVENTS
# events (default 50000000, about 340 MB) and the 10 MB "huge" kind
# (1.44 M events).  gotrace check and stat read both; Go 1.21's
# 'go tool trace -d' and Go 1.23's 'go tool trace -d=1' read only the
# small one: they hold the whole trace (about 0.4 GB per 10 MB for 1.21)
# and take minutes per 10 MB, so the large file would need tens of GB.
# BENCH_CHECK_GO=0 skips them.
#
# Prints one line per run: tool, file, events, MB, seconds, MB/s and the
# peak resident set size (GNU time's %M); the lines also go to
# .cache/bench/check/results.txt.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${GT_CACHE:-$root/.cache}/bench/check
events=${BENCH_CHECK_EVENTS:-50000000}
go121=${GO121:-/usr/lib/go-1.21/bin/go}
go123=${GO123:-/usr/lib/go-1.23/bin/go}
export GOTOOLCHAIN=local
export GOCACHE=${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}

[ -x /usr/bin/time ] || { echo "bench/check.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
make -s -C "$root/user" gotrace
make -s -C "$root/selftests/host" build/gen-trace-go111
gotrace=$root/user/gotrace
gen=$root/selftests/host/build/gen-trace-go111
mkdir -p "$cache"

# The large trace is kept between runs: same generator, same size, same file.
big=$cache/big-$events.trace
stamp=$(sha1sum "$root/selftests/host/gen-trace-go111.c" | cut -c1-12)
if ! [ -s "$big" ] || [ "$(cat "$big.stamp" 2>/dev/null)" != "$stamp" ]; then
	"$gen" huge "$big" "$events" > /dev/null
	echo "$stamp" > "$big.stamp"
fi
small=$cache/huge.trace
"$gen" huge "$small" > /dev/null

out=$cache/results.txt
: > "$out"
printf '%-16s %-22s %10s %8s %8s %8s %10s\n' TOOL FILE EVENTS MB SECONDS \
	MB/S PEAK_MB | tee -a "$out"

# run TOOL FILE COMMAND...: one timed run; its output goes to $cache/last.out.
# The events of FILE come from the last 'gotrace stat --json' of it.
run() {
	local tool=$1 file=$2 t=$cache/time
	shift 2
	if ! /usr/bin/time -f '%e %M' -o "$t" "$@" > "$cache/last.out" \
	     2> "$cache/last.err"; then
		echo "bench/check.sh: $tool failed on $file:" >&2
		cat "$cache/last.err" >&2
		exit 1
	fi
	case $tool in
	*stat*)	events=$(sed -n 's/^  "events": \([0-9]*\),$/\1/p' "$cache/last.out") ;;
	esac
	awk -v tool="$tool" -v file="$(basename "$file")" -v n="$events" \
	    -v bytes="$(stat -c %s "$file")" '{
		mb = bytes / 1e6
		printf "%-16s %-22s %10d %8.1f %8.2f %8.2f %10.1f\n",
			tool, file, n, mb, $1, ($1 > 0 ? mb / $1 : 0), $2 / 1024
	}' "$t" | tee -a "$out"
}

run "gotrace stat" "$small" "$gotrace" stat --json "$small"
run "gotrace check" "$small" "$gotrace" check -q "$small"
if [ "${BENCH_CHECK_GO:-1}" != 0 ] && [ -x "$go121" ] && [ -x "$go123" ]; then
	run "go1.21 -d" "$small" "$go121" tool trace -d "$small"
	run "go1.23 -d=1" "$small" "$go123" tool trace -d=1 "$small"
else
	echo "# Go's parsers skipped (BENCH_CHECK_GO=0, or no $go121 / $go123)" |
		tee -a "$out"
fi
run "gotrace stat" "$big" "$gotrace" stat --json "$big"
run "gotrace check" "$big" "$gotrace" check -q "$big"
rm -f "$cache/last.out" "$cache/last.err" "$cache/time"
