#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-stress.sh DIR - the host's verdict on the files of a guest's
# stress run (selftests/gotrace/stress_go123_test.sh: DIR is out/stress of
# its boot): each one read by the Go versions of its format
# (check-trace.sh: Go 1.23 and 1.27), and gotrace check must give the
# verdict they gave.  Prints how many files each accepted, then the
# first error of each refused file or disagreement, at most 6 of them
# (the summary of a make check run keeps 15 lines of a failed check);
# exits 0 only if every file was accepted by both.
set -u

dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
gotrace=${GOTRACE:-$root/user/gotrace}
total=0
go_ok=0
agree=0
shown=0
log=$(mktemp "${TMPDIR:-/tmp}/check-stress.XXXXXX")
notes=$(mktemp "${TMPDIR:-/tmp}/check-stress.XXXXXX")
trap 'rm -f "$log" "$notes"' EXIT

# note FILE WHAT: one of the first 6 problems, with the line that says why.
note() {
	shown=$((shown + 1))
	[ "$shown" -le 6 ] || return 0
	echo "${1##*/}: $2"
	# check-trace.sh ends with the tool's last line, gotrace check has one.
	tail -n 1 "$log" | sed 's/^ *| *//; s/^/    /'
} >> "$notes"

for t in "$dir"/*.trace; do
	[ -f "$t" ] || continue
	total=$((total + 1))
	go=0
	"$root/selftests/check-trace.sh" "$t" > "$log" 2>&1 || go=1
	if [ "$go" = 0 ]; then
		go_ok=$((go_ok + 1))
	else
		note "$t" "refused by Go"
	fi
	ours=0
	"$gotrace" check -q "$t" > "$log" 2>&1 || ours=1
	if [ "$ours" = "$go" ]; then
		agree=$((agree + 1))
	else
		note "$t" "gotrace check says $ours, Go $go (0: accepted)"
	fi
done
echo "$go_ok of $total files accepted by Go 1.23 and 1.27; gotrace check agrees on $agree"
cat "$notes"
[ "$total" -gt 0 ] && [ "$go_ok" = "$total" ] && [ "$agree" = "$total" ]
