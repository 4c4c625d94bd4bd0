#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-merge.sh MERGED EXPECT - check a Go program's trace merged with
# gotrace's (gotrace merge, record --go, --go-trace;
# Documentation/go-merge.rst) against the ground truth in EXPECT, as Go
# 1.27 reads it (`go tool trace -d=parsed`, which reads every version
# of the generational format), one expectation per line:
#
#   runnable TID LO HI NAME  a "kernel: runnable, waiting for a CPU"
#                            region on the goroutine of thread TID whose
#                            log says that its CPU ran NAME (among the
#                            three it names) for LO to HI ms meanwhile
#                            (the hog of gomerge_test.sh: its run,
#                            +-5%), lasting LO to HI ms, plus the time
#                            the log says other tasks ran there (on a
#                            busy machine: before the hog, a VM's CPU);
#                            or, where Go had no goroutine on the thread
#                            then (Go had just preempted the spin, whose
#                            locked thread parked until the spin was run
#                            again), the log "waited ..." that says so
#                            once the thread has one again; a thread
#                            parked when the hog began and woken during
#                            its run ("waited ... (woken)") waits only
#                            the rest of it: at least half the run; or,
#                            where the spin's thread parked all through
#                            the run (Go had given the spin's P to
#                            another of its threads just before), that
#                            other thread's region; where Go's reader
#                            squeezed the run's time (a generation
#                            whose end came late), the length its log
#                            gives
#   syscall TID SYS FUNC     a "kernel: asleep in a syscall" region on
#                            thread TID whose log says it slept in the
#                            syscall SYS, in FUNC (extended regular
#                            expressions), with the kernel's stack
#   samples TID FUNC MIN     at least MIN CPU samples of thread TID (the
#                            recording's, added by the merge) have FUNC
#                            on their stack
#   program FILE             the merged trace holds every event of the
#                            program's own trace FILE (a path relative to
#                            EXPECT's directory), and nothing more but
#                            the kernel's regions and logs: the event
#                            lines of both, their times and the CPU
#                            samples left out, are the same
#
# Prints every expectation with its verdict; exits 1 if any fails (or
# EXPECT holds none).  GO127 overrides Go 1.27.
set -eu

GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

[ $# -eq 2 ] || { echo "usage: $0 MERGED EXPECT" >&2; exit 2; }
merged=$1
expect=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

parse() {
	"$GO127" tool trace -d=parsed "$1" > "$2" 2> "$tmp/err" || {
		cat "$tmp/err" >&2
		echo "FAIL: go 1.27 cannot read $1" >&2
		exit 1
	}
}
parse "$merged" "$tmp/merged"

# The kernel's regions: "TID TYPE MS" then the message of the log at
# their start, tab-separated, one per line; the log's stack depth.
awk '
/^M=/ {
	inlog = 0
	m = $1; sub(/^M=/, "", m)
	t = $0; sub(/.* Time=/, "", t); sub(/ .*/, "", t)
	if ($0 ~ / RegionBegin / && $0 ~ /Type="kernel: /) {
		ty = $0; sub(/.*Type="/, "", ty); sub(/".*/, "", ty)
		begin[m] = t; type[m] = ty; msg[m] = ""; depth[m] = 0
	} else if ($0 ~ / Log / && $0 ~ /Category="kernel"/ && (m in begin) &&
		   msg[m] == "") {
		s = $0; sub(/.*Message="/, "", s); sub(/"$/, "", s)
		msg[m] = s; inlog = 1; logm = m
	} else if ($0 ~ / Log / && $0 ~ /Category="kernel"/ &&
		   $0 ~ /Message="waited /) {
		# A wait said once the thread had a goroutine again: its
		# length is in its text.
		s = $0; sub(/.*Message="/, "", s); sub(/"$/, "", s)
		d = s; sub(/^waited /, "", d); split(d, w, " ")
		ms = w[2] == "ms" ? w[1] : w[2] == "us" ? w[1] / 1000 : w[1] / 1e6
		printf "%s\tkernel: waited\t%.3f\t0\t%s\t%s\n", m, ms, s, t
	} else if ($0 ~ / RegionEnd / && $0 ~ /Type="kernel: / && (m in begin)) {
		printf "%s\t%s\t%.3f\t%d\t%s\t%s\n", m, type[m],
			(t - begin[m]) / 1e6, depth[m], msg[m], begin[m]
		delete begin[m]
	}
	next
}
/^Stack=/ { next }
/^\t[^\t]/ { if (inlog) depth[logm]++ }
' "$tmp/merged" > "$tmp/regions"

# Where Go's reader squeezed time: a generation whose clock snapshot
# (Go 1.25+: "Trace=") is earlier than the time the reader gives its
# Sync, because the last generation's end was written late (a thread
# that reached no safe point: the spin, behind the hog).  The reader
# never lets time go back, so every event of the new generation until
# then, the program's own too, sits at that Sync's time: "TIME LENGTH"
# in ns, one per line.
awk '/^M=-1 .* Sync / && / Trace=/ {
	t = $0; sub(/.* Time=/, "", t); sub(/ .*/, "", t)
	c = $0; sub(/.* Trace=/, "", c); sub(/ .*/, "", c)
	if (t - c > 1e6)
		printf "%s\t%.0f\n", t, t - c
}' "$tmp/merged" > "$tmp/squeezed"

failed=0
checked=0
while read -r kind a b c d; do
	case $kind in
	'' | '#'*) continue ;;
	esac
	checked=$((checked + 1))
	case $kind in
	runnable)
		# The log: "runnable X ms (...): CPU N ran NAME (tid T) for Y ms".
		# The log names up to three tasks that ran on the CPU, the
		# longest first ("ran A (tid 1) for X ms, B (tid 2) for Y us,
		# other tasks for Z us"): the hog's run among them, +-5%; the
		# region lasts that, and whatever else ran there meanwhile (on
		# a busy machine, before the hog: a VM's CPU thread).
		# Where Go's reader squeezed the run's time ($tmp/squeezed),
		# the region, which begins then, is that short in Go's view:
		# its log, which says how long the kernel had it runnable,
		# is held to the run instead.
		# Or, where Go had preempted the spin and given its P to
		# another of its threads just before the hog began, the spin's
		# own thread parked all through the run (it waits for the
		# thread that holds its P, not for a CPU): that thread waited
		# behind the hog instead, and the region is its.
		hog_region() {
			awk -F '\t' -v tid="$a" -v elsewhere="$1" -v lo="$b" -v hi="$c" -v name="$d" '
			function ms(v, u) {
				return u ~ /^ms/ ? v + 0 : u ~ /^us/ ? v / 1000 : v / 1e6
			}
			FILENAME ~ /squeezed$/ { sq_t[++nsq] = $1; sq_len[nsq] = $2; next }
			($2 == "kernel: runnable, waiting for a CPU" ||
			 $2 == "kernel: waited") &&
			(elsewhere ? $1 != tid : $1 == tid) &&
			index($5, " " name " (tid ") {
				rest = $5; sub(/^[^:]*: CPU [0-9]+ ran /, "", rest)
				n = split(rest, part, ", ")
				hog = -1; other = 0
				for (i = 1; i <= n; i++) {
					e = part[i]; sub(/.* for /, "", e)
					split(e, x, " ")
					if (index(part[i], name " (tid ") == 1)
						hog = ms(x[1], x[2])
					else
						other += ms(x[1], x[2])
				}
				# Woken during the hog run: the rest of it.
				min = lo
				if ($2 == "kernel: waited" && $5 ~ /\(woken\)/)
					min = lo / 2
				len = $3; how = ""
				# The log: "runnable X ms" or "waited X ms".
				split($5, said, " ")
				logged = ms(said[2], said[3])
				for (j = 1; j <= nsq; j++)
					if ($6 >= sq_t[j] && $6 - sq_t[j] < 1e6 &&
					    sq_len[j] >= logged * 1e6 && len < logged) {
						len = logged
						how = "squeezed by Go'"'"'s reader to " $3 " ms, logged "
					}
				if (hog >= min && hog <= hi && len >= min &&
				    len <= hi + other) {
					print (elsewhere ? "thread " $1 ", which held the spin'"'"'s P: " : "") \
						how len " ms: " $5
					exit
				}
			}' "$tmp/squeezed" "$tmp/regions"
		}
		got=$(hog_region 0)
		[ -n "$got" ] || got=$(hog_region 1)
		;;
	syscall)
		got=$(awk -F '\t' -v tid="$a" -v sys="$b" -v fn="$c" '
			$1 == tid && $2 == "kernel: asleep in a syscall" && $4 > 0 &&
			$5 ~ ("in the syscall " sys ", in " fn) {
				print $3 " ms, " $4 " frames: " $5; exit
			}' "$tmp/regions")
		;;
	samples)
		got=$(awk -v tid="$a" -v fn="$b" -v min="$c" '
			/^M=/ { insample = ($1 == "M=" tid && $4 == "StackSample"); seen = 0; next }
			/^\t[^\t]/ {
				f = $0; sub(/^\t/, "", f); sub(/ @ .*/, "", f)
				if (insample && !seen && f == fn) { n++; seen = 1 }
			}
			END { if (n >= min) print n " samples" }' "$tmp/merged")
		;;
	program)
		parse "$(dirname "$expect")/$a" "$tmp/program"
		# Event lines only (a stack's lines may be another stack's
		# where a generation's ids differ), without their times.
		# CPU samples are left out: the merge adds the recording's,
		# which Go's dump cannot tell from the program's (gotrace
		# merge itself counts both before it writes).
		keep='/^M=/ && !/Category="kernel"/ && !/Type="kernel: / && !/ StackSample / { sub(/ Time=[0-9]+/, ""); print }'
		awk "$keep" "$tmp/program" | sort > "$tmp/p.events"
		awk "$keep" "$tmp/merged" | sort > "$tmp/m.events"
		if cmp -s "$tmp/p.events" "$tmp/m.events"; then
			got="$(wc -l < "$tmp/p.events") events, the same"
		else
			got=
			diff "$tmp/p.events" "$tmp/m.events" | head -n 10
		fi
		;;
	*)
		echo "FAIL bad expectation: $kind $a $b $c $d"
		failed=$((failed + 1))
		continue ;;
	esac
	if [ -n "$got" ]; then
		echo "ok $kind $a $b $c $d ($got)"
	else
		echo "FAIL $kind $a $b $c $d"
		failed=$((failed + 1))
	fi
done < "$expect"
[ "$checked" -gt 0 ] || { echo "FAIL: $expect holds no expectation"; exit 1; }
if [ "$failed" -ne 0 ]; then
	echo "the kernel's longest regions of $merged (tid, type, ms, log stack depth, log):"
	sort -t "$(printf '\t')" -k3,3 -g -r "$tmp/regions" | head -n 20
	exit 1
fi
