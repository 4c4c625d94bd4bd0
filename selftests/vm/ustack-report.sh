#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ustack-report.sh TRACE [JOURNAL] - how much of a trace recorded with
# user stacks (Documentation/user-stacks.rst) has them, and where the
# walks stopped short: run-systemd.sh's report on a Debian boot with
# GT_SD_USER_STACKS=1.
#
# From JOURNAL (the recorder's summary lines, "N events" and "user
# stacks: W walked, truncated: ..."), the module's own counters: walks
# per event and truncated walks per walk, by reason.  From TRACE, read
# by Go 1.27 (go tool trace -d=parsed, every event with its stack): the
# events whose stack has a user frame (a PC of the module's user range,
# 2^56 to 2^58 + 2^56), those that end in a truncation frame, how many
# frames the walks found, and the
# twenty commonest places a walk stopped: the reason and the frame
# before the truncation frame (the name gotrace symbolize gave it, or
# for an unnamed binary+0xoffset the binary), with the task's comm (the
# stack's last frame).  Fails if the trace has no user frame at all.
set -eu

trace=$1
journal=${2:-}
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

if [ -n "$journal" ] && [ -s "$journal" ]; then
	# "gotrace: ... written to F, E events in G generations, ..." then
	# "gotrace: user stacks: W walked, truncated: bad frame pointer B,
	# fault F, depth limit D; unnamed: queue full Q, maps full M".
	awk '/written to .*, [0-9]+ events/ {
		for (i = 1; i <= NF; i++)
			if ($(i + 1) ~ /^events/)
				ev = $i
	}
	/user stacks: [0-9]+ walked/ {
		gsub(/[,;]/, "")
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "walked") w = $i
			if ($i == "pointer") b = $(i + 1)
			if ($i == "fault") f = $(i + 1)
			if ($i == "limit") d = $(i + 1)
			if ($i == "full" && $(i - 1) == "queue") q = $(i + 1)
			if ($i == "full" && $(i - 1) == "maps") m = $(i + 1)
		}
	}
	END {
		if (!w) {
			print "module: no user stacks line in the journal"
			exit
		}
		t = b + f + d
		printf "module: %d events, %d user stacks walked (%.1f%% of " \
			"events), %d truncated (%.1f%% of walks): bad frame " \
			"pointer %d (%.1f%%), fault %d (%.1f%%), depth limit " \
			"%d (%.1f%%); unnamed: queue full %d, maps full %d\n",
			ev, w, ev ? 100 * w / ev : 0, t, 100 * t / w,
			b, 100 * b / w, f, 100 * f / w, d, 100 * d / w, q, m
	}' "$journal"
fi

err=$(mktemp)
trap 'rm -f "$err"' EXIT
# The dump of a boot is gigabytes: read as it comes.
{ "$GO127" tool trace -d=parsed "$trace" 2> "$err" || echo "FAILED $?"; } | awk '
# A user frame: a PC in the module user ranges, 0x01.., 0x02.., 0x03..
# and 14 more hex digits (tables.c).  (mawk has no {14}.)
function user_pc(pc) {
	return length(pc) == 17 && pc ~ /^0x[123][0-9a-f]*$/
}
function done_stack() {
	if (!instack)
		return
	instack = 0
	stacks++
	if (!nuser)
		return
	withuser++
	# The frames the walk found: the user frames but the truncation one.
	d = nuser - (trunc != "")
	depth[d > 8 ? 9 : d]++
	if (trunc != "") {
		truncated++
		site[trunc " | " before " | " last]++
	}
}
/^FAILED / {
	failed = 1
	next
}
/^[^\t]/ {
	done_stack()
	if ($0 == "Stack=") {
		instack = 1; nuser = 0; trunc = ""; before = "-"; prev = "-"
		last = "-"
	} else if ($0 !~ /^TransitionStack=/)
		events++
	next
}
# "\tFUNC @ 0xPC", then "\t\tFILE:LINE"
instack && /^\t[^\t]/ {
	line = substr($0, 2)
	at = index(line, " @ 0x")
	fn = substr(line, 1, at - 1)
	pc = substr(line, at + 3)
	if (fn ~ /^\[user stack truncated: /) {
		trunc = substr(fn, 23, length(fn) - 23)
		# An unnamed frame by its binary: offsets scatter the count.
		before = prev
		sub(/\+0x[0-9a-f]+$/, "", before)
	}
	if (user_pc(pc))
		nuser++
	prev = fn
	last = fn
}
END {
	done_stack()
	printf "trace: %d events, %d with a stack, %d of those with user " \
		"frames (%.1f%%), %d of these truncated (%.1f%%)\n", events,
		stacks, withuser, stacks ? 100 * withuser / stacks : 0,
		truncated, withuser ? 100 * truncated / withuser : 0
	printf "user frames per stack that has some:"
	for (d = 0; d <= 9; d++)
		if (d in depth)
			printf " %s%d: %.1f%%", d == 9 ? ">" : "", d == 9 ? 8 : d,
				100 * depth[d] / withuser
	printf "\n"
	print "walks cut short, commonest first: events, reason | frame " \
		"before | the last frame of the stack (the comm)"
	for (s in site)
		printf "%7d  %s\n", site[s], s | "sort -rn | head -n 20"
	close("sort -rn | head -n 20")
	exit failed || withuser == 0
}' || { cat "$err"; exit 1; }
