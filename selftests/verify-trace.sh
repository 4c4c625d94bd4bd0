#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# verify-trace.sh TRACE EXPECT - check what Go 1.23 reads in TRACE against
# the ground truth in EXPECT, one expectation per line:
#
#   NAME METRIC OP VALUE     e.g.  gt_ping block:chan_receive >= 100
#   pprof TYPE NAME          e.g.  pprof sync gt_mutex
#   nopprof TYPE NAME        e.g.  nopprof syscall gt_sleeper
#   names NAME,...           every goroutine is named one of these
#   gomaxprocs N[,N...]      the Gomaxprocs events say these values and
#                            no other (a CPU new to the session adds one)
#   ps N                     N distinct Ps start in the trace
#   kernel_pcs shown|hidden|none
#                            kernel frames carry real addresses, or
#                            synthetic ones below 4 GiB, or there is
#                            no kernel frame (but [comm] frames are)
#   stack F1,F2,...          some stack lists these functions one after
#                            the other, innermost first, in both Go
#                            1.23's dump (-d=1) and Go 1.27's (-d=parsed)
#                            (user frames: Documentation/user-stacks.rst)
#   pprof_stack TYPE F1,F2,... some sample of `go tool trace -pprof=TYPE`
#                            has these functions one after the other,
#                            innermost first, with both Go versions of
#                            "pprof" below
#   cpu_share WHO FUNC LO HI
#                            FUNC's share, in percent, of the CPU
#                            samples of WHO, the tasks named WHO or, as
#                            tid=N, the task N (`gotrace pprof cpu
#                            --comm WHO` or `--tid N`, read by Go 1.27's
#                            pprof: FUNC anywhere on the stack) is from
#                            LO to HI
#   cpu_split WHO FUNC FUNC2 LO HI
#                            FUNC's share, in percent, of WHO's samples
#                            in FUNC or FUNC2 (two functions that do not
#                            call each other) is from LO to HI: the
#                            split of a spin, whatever share of the
#                            task's time the kernel took
#   cpu_samples WHO LO HI    WHO has LO to HI CPU samples
#   stuck N                  (generational) N goroutines created during
#                            the trace were runnable at the start of each
#                            of the two whole generations before the last
#                            and ran in neither: a dead task the model
#                            left on a CPU.  Tasks alive at the start are
#                            left out: after lost events, a kernel thread
#                            that ran once unseen and then slept for good
#                            looks the same (newest-rt: a kthread woken
#                            once, its switches lost, runnable for 5 s)
#
# Metrics are counted per goroutine name (a goroutine's name is its
# creation stack's function: the task's comm): create, end, start,
# preempt, unblock, block:REASON (Go's wait reason up to a ": ", which the
# generational format follows with the syscall, spaces as "_", "none"
# for a plain block), unblocked_by:NAME (unblocks done by a goroutine of
# that name), syscall:FUNC (syscall events whose syscall frame is FUNC),
# sysblock:FUNC (those that blocked: left with GoSysExit),
# region:TYPE (user regions of that type the goroutine began: gotrace
# names them after the task's systemd unit, region:gt-test.service);
# METRIC+METRIC
# sums several (a pipe read either blocks or returns a syscall event:
# block:chan_receive+syscall:sys_read counts the reads).  OP is
# one of == >= <=.  "pprof TYPE NAME" needs NAME among the functions of
# `go tool trace -pprof=TYPE` with both Go 1.21 and 1.23, with any time,
# however small its share of the profile; "nopprof" needs it absent with
# Go 1.21.  (Go 1.23 counts a converted "go 1.11"
# syscall's time until the goroutine's next transition that carries a
# stack, run time included, so any syscall made before a wait shows in
# its syscall profile.)  A generational trace ("go 1.22" or "go 1.23
# trace", which Go 1.21 cannot read) has its syscalls' ends: there
# "pprof" takes Go 1.23 and 1.27, "ps" reads Go 1.27's events, and
# "gomaxprocs", which reads Go 1.21's dump, fails.  Its "nopprof" reads
# Go 1.27 and needs NAME under 1 ms in the profile: in that format Go
# counts every syscall, a fast one with its few ns (the model writes no
# duration for it), so what nopprof proves there is that no wait was
# counted.  Go 1.23 is not asked: it ends a syscall at the goroutine's
# next transition with a stack, so a fast syscall in which the task was
# preempted counts until its preemption, and one before a wait until
# the wait.
#
# An expectation proves something only if its subject is in the trace:
# one whose NAME no goroutine has (for nopprof: no stack frame has) fails,
# whatever its OP, so "== 0" and "<=" cannot pass on a trace that lacks
# the task.  A summary with no named goroutine (Go changed its dump
# format, or the trace is empty) fails, and so does a profile Go cannot
# build, an unknown metric, OP or a VALUE that is not a number.
#
# Prints every expectation with its verdict; exits 1 if any fails.
set -eu

GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GOTRACE=${GOTRACE:-$(cd "$(dirname "$0")/.." && pwd)/user/gotrace}
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

[ $# -eq 2 ] || { echo "usage: $0 TRACE EXPECT" >&2; exit 2; }
trace=$1
expect=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Go versions of pprof and nopprof, by the trace's header.
case $(head -c 16 "$trace" | tr -d '\0') in
"go 1.22 trace" | "go 1.23 trace")
	generational=1
	pprof_gos="$GO123 $GO127"
	nopprof_gos=$GO127 ;;
*)
	generational=
	pprof_gos="$GO121 $GO123"
	nopprof_gos=$GO121 ;;
esac

"$GO123" tool trace -d=1 "$trace" > "$tmp/events" 2> "$tmp/err" || {
	cat "$tmp/err" >&2
	echo "FAIL: go 1.23 cannot read $trace" >&2
	exit 1
}

# Summarise: NAME METRIC COUNT per line.
awk '
function flush() {
	if (pending != "" && pendname != "")
		name[pending] = pendname
	pending = ""; pendname = ""; syscall_g = ""; stackname = 0
}
/^M=/ {
	flush()
	# A user region: gotrace names it after the systemd unit of the
	# goroutine (G=) that begins it.
	if ($0 ~ / RegionBegin / && $0 ~ / Type="/) {
		g = $3; sub(/^G=/, "", g)
		t = $0; sub(/.* Type="/, "", t); sub(/".*/, "", t)
		if (t != "")
			count[g, "region:" t]++
		next
	}
	if ($0 !~ / StateTransition / || $0 !~ /Resource=Goroutine\(/)
		next
	g = $0; sub(/.*GoID=/, "", g); sub(/ .*/, "", g)
	cur = $3; sub(/^G=/, "", cur)
	reason = $0; sub(/.*Reason="/, "", reason); sub(/".*/, "", reason)
	# "sync: futex" (the generational format names the syscall): the
	# reason is what comes before the colon.
	sub(/: .*/, "", reason)
	# The plain block of the generational format ("blocked") is what the 1.11
	# format writes without a reason.
	if (reason == "blocked")
		reason = ""
	gsub(/ /, "_", reason)
	tr = $NF
	inframes = 0
	if (tr == "NotExist->Runnable") { pending = g; count[g, "create"]++ }
	# A task that existed before the trace: named by its status stack
	# (GoStatusStack) where the generational format first states it.
	else if (tr ~ /^Undetermined->/ && !(g in name)) {
		pending = g; stackname = 1
	}
	else if (tr == "Running->NotExist") count[g, "end"]++
	else if (tr == "Runnable->Running") count[g, "start"]++
	else if (tr == "Running->Runnable") count[g, "preempt"]++
	else if (tr == "Running->Syscall") syscall_g = g
	else if (tr == "Syscall->Runnable") {
		if ((g, "lastsys") in count)
			count[g, "sysblock:" lastsys[g]]++
	}
	else if (tr == "Running->Waiting")
		count[g, "block:" (reason == "" ? "none" : reason)]++
	else if (tr == "Waiting->Runnable") {
		count[g, "unblock"]++
		if (cur != "-1") waker[g, cur]++
	}
	gs[g] = 1
	next
}
/^TransitionStack=/ { inframes = 1; next }
/^Stack=/ { inframes = stackname; next }
/^\t[^\t]/ {
	if (!inframes)
		next
	f = $0; sub(/^\t/, "", f); sub(/ @ .*/, "", f)
	if (pending != "" && pendname == "")
		pendname = f
	next
}
# A syscall event is named by its frame in file "[syscall]".
/^\t\t\[syscall\]:/ {
	if (inframes && syscall_g != "") {
		count[syscall_g, "syscall:" f]++
		count[syscall_g, "lastsys"] = 1
		lastsys[syscall_g] = f
		syscall_g = ""
	}
	next
}
END {
	flush()
	for (k in count) {
		split(k, a, SUBSEP)
		if (a[2] == "lastsys")
			continue
		n = (a[1] in name) ? name[a[1]] : "?"
		total[n SUBSEP a[2]] += count[k]
	}
	for (k in waker) {
		split(k, a, SUBSEP)
		n = (a[1] in name) ? name[a[1]] : "?"
		w = (a[2] in name) ? name[a[2]] : "?"
		total[n SUBSEP "unblocked_by:" w] += waker[k]
	}
	for (k in total) {
		split(k, a, SUBSEP)
		print a[1], a[2], total[k]
	}
}' "$tmp/events" | sort > "$tmp/summary"
# Every function of every stack, for nopprof's subject.
awk '/^\t[^\t].* @ / { f = $0; sub(/^\t/, "", f); sub(/ @ .*/, "", f); print f }' \
	"$tmp/events" | sort -u > "$tmp/functions"

# A format we no longer understand reads as an empty trace: refuse it
# rather than judge expectations on nothing.
if ! awk '$1 != "?" { found = 1 } END { exit !found }' "$tmp/summary"; then
	echo "FAIL: no named goroutine in what Go 1.23 reads of $trace" \
		"($(grep -c '^M=' "$tmp/events" || true) event lines): has the" \
		"format of 'go tool trace -d=1' changed?" >&2
	exit 1
fi

# has_goroutine NAME: some goroutine of the trace is named NAME.
has_goroutine() {
	awk -v n="$1" '$1 == n { found = 1 } END { exit !found }' "$tmp/summary"
}

# has_frames DUMP F1,F2,...: the frames of DUMP (a -d=1 or -d=parsed
# listing: "\tNAME @ 0xPC" lines, each followed by its "\t\tFILE:LINE")
# hold F1, F2, ... one after the other, in one stack.
has_frames() {
	awk '/^\t[^\t].* @ 0x/ { f = $0; sub(/^\t/, "", f); sub(/ @ 0x.*/, "", f)
		print f; next } /^\t\t/ { next } { print "" }' "$1" |
		awk -v want="$2" 'BEGIN { n = split(want, w, ",") }
		{ if ($0 == w[i + 1]) { i++; if (i == n) { found = 1; exit } }
		  else i = ($0 == w[1]) }
		END { exit !found }'
}

failed=0
checked=0
while read -r a b c d; do
	case $a in
	''|'#'*) continue ;;
	esac
	checked=$((checked + 1))
	case $a in
	cpu_share|cpu_split|cpu_samples)
		# gotrace's CPU profile of task $b, read by Go 1.27's pprof:
		# FUNC's share (cum%) of its samples, its share of the samples
		# of it and of a second function, or their number.
		set -- $d
		who="--comm $b"
		case $b in tid=*) who="--tid ${b#tid=}" ;; esac
		# shellcheck disable=SC2086 # $who: an option and its value
		if ! "$GOTRACE" pprof cpu $who -o "$tmp/cpu.pb.gz" \
			"$trace" 2> "$tmp/err" < /dev/null ||
		   ! "$GO127" tool pprof -top -nodefraction=0 -nodecount=0 \
			-sample_index=0 "$tmp/cpu.pb.gz" > "$tmp/top" \
			2>> "$tmp/err" < /dev/null; then
			echo "FAIL $a $b $c $d (no CPU profile: $(tail -n 1 "$tmp/err"))"
			failed=$((failed + 1))
			continue
		fi
		if [ "$a" = cpu_samples ]; then
			lo=$c hi=$1
			got=$(sed -n 's/.* of \([0-9][0-9]*\) total.*/\1/p' "$tmp/top")
		elif [ "$a" = cpu_split ]; then
			lo=$2 hi=$3
			got=$(awk -v f="$c" -v g="$1" '$NF == f { x = $4 }
				$NF == g { y = $4 }
				END { if (x + y > 0) printf "%d", 100 * x / (x + y) + 0.5 }' \
				"$tmp/top")
		else
			lo=$1 hi=$2
			got=$(awk -v f="$c" '$NF == f { v = $5; sub(/%$/, "", v)
				printf "%d", v + 0.5 }' "$tmp/top")
		fi
		if [ -n "$got" ] && [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ]; then
			echo "ok   $a $b $c $d (got $got)"
		else
			echo "FAIL $a $b $c $d (got ${got:-none})"
			failed=$((failed + 1))
		fi
		continue ;;
	kernel_pcs)
		real=$(awk '/^\t[^\t].* @ 0x/ { pc = $NF; getline f
			if (f ~ /\[kernel\]/) print (length(pc) > 10 ? "real" : "synthetic") }' \
			"$tmp/events" | sort | uniq -c | tr '\n' ' ')
		comm=$(grep -c '\[comm\]' "$tmp/events" || true)
		case $b/$real in
		none/) [ "$comm" -gt 0 ] && ok=1 || ok= ;;
		shown/*real*) ok=1; case $real in *synthetic*) ok= ;; esac ;;
		hidden/*synthetic*) ok=1; case $real in *real*) ok= ;; esac ;;
		*) ok= ;;
		esac
		if [ -n "$ok" ]; then
			echo "ok kernel_pcs $b (${real:-no kernel frame}, $comm [comm] frames)"
		else
			echo "FAIL kernel_pcs $b (${real:-no kernel frame}, $comm [comm] frames)"
			failed=$((failed + 1))
		fi
		continue ;;
	stuck)
		# Go 1.27's events by generation: a Sync begins each, and
		# one more ends the trace.  A goroutine's state as a
		# generation states it shows as Undetermined->STATE the
		# first time, STATE->STATE after; one that is Runnable there
		# and never Runnable->Running before the next Sync waited the
		# whole generation.  Only goroutines created in the trace
		# (NotExist->) count: see the header.  The last generation ends at the stop:
		# only the two before it count, and there must be such two.
		if [ -z "$generational" ]; then
			echo "FAIL stuck $b: needs a generational trace"
			failed=$((failed + 1))
			continue
		fi
		got=$("$GO127" tool trace -d=parsed "$trace" 2>/dev/null |
			awk '/ Sync / { g++; next }
			/ StateTransition / && / GoID=/ {
				for (i = 1; i <= NF; i++)
					if ($i ~ /^GoID=/) id = substr($i, 6)
				if (/ NotExist->/) created[id] = 1
				if (/ (Undetermined|Runnable)->Runnable / &&
				    (id in created))
					waiting[g, id] = 1
				if (/ Runnable->Running /) delete waiting[g, id]
			}
			END {
				# g - 1 generations; g - 1 is the last.
				if (g - 1 < 3) { print "only " g - 1 " generations"; exit }
				n = 0
				for (k in waiting) {
					split(k, p, SUBSEP)
					if (p[1] == g - 2 && ((g - 3, p[2]) in waiting)) {
						n++
						ids = ids " " p[2]
					}
				}
				print n (n ? " (goroutines" ids ")" : "")
			}')
		if [ "${got%% *}" = "$b" ]; then
			echo "ok stuck $got"
		else
			echo "FAIL stuck $b (got $got)"
			failed=$((failed + 1))
		fi
		continue ;;
	stack)
		"$GO127" tool trace -d=parsed "$trace" > "$tmp/d127" 2>/dev/null || true
		ok=ok
		for dump in "$tmp/events" "$tmp/d127"; do
			has_frames "$dump" "$b" || ok=FAIL
		done
		echo "$ok stack $b (Go 1.23 -d=1, Go 1.27 -d=parsed)"
		[ "$ok" = ok ] || failed=$((failed + 1))
		continue ;;
	pprof_stack)
		for go in $pprof_gos; do
			version=$("$go" env GOVERSION)
			# pprof -traces: a sample's frames one a line, the
			# function last; a line of dashes between samples.
			if ! "$go" tool trace -pprof="$b" "$trace" \
				< /dev/null > "$tmp/prof" 2> "$tmp/err" ||
			   ! "$go" tool pprof -traces "$tmp/prof" \
				< /dev/null > "$tmp/traces" 2>> "$tmp/err"; then
				echo "FAIL $a $b $c ($version: cannot build the profile:" \
					"$(tail -n 1 "$tmp/err"))"
				failed=$((failed + 1))
				continue
			fi
			if awk '{ print $NF }' "$tmp/traces" |
			   awk -v want="$c" 'BEGIN { n = split(want, w, ",") }
				{ if ($0 == w[i + 1]) { i++; if (i == n) { found = 1; exit } }
				  else i = ($0 == w[1]) }
				END { exit !found }'; then
				echo "ok   $a $b $c ($version)"
			else
				echo "FAIL $a $b $c ($version)"
				failed=$((failed + 1))
			fi
		done
		continue ;;
	names)
		others=$(awk -v list=",$b," 'index(list, "," $1 ",") == 0 { print $1 }' \
			"$tmp/summary" | sort -u | tr '\n' ' ')
		if [ -z "$others" ]; then
			echo "ok names $b"
		else
			echo "FAIL names $b: also $others"
			failed=$((failed + 1))
		fi
		continue ;;
	gomaxprocs|ps)
		if [ -n "$generational" ] && [ "$a" = ps ]; then
			# Go 1.27's events: the Ps that go from Idle to Running.
			got=$(GOTOOLCHAIN=local "$GO127" tool trace -d=parsed \
				"$trace" 2>/dev/null |
				awk '/ StateTransition / && / Idle->Running / {
					for (i = 1; i <= NF; i++)
						if ($i ~ /^ProcID=/) print $i }' |
				sort -u | wc -l)
			if [ "$got" = "$b" ]; then
				echo "ok $a $b"
			else
				echo "FAIL $a $b (got $got)"
				failed=$((failed + 1))
			fi
			continue
		fi
		if [ -n "$generational" ]; then
			echo "FAIL $a $b: read in Go 1.21's dump, which has no generational trace (use ps)"
			failed=$((failed + 1))
			continue
		fi
		# Go 1.21's dump: the Gomaxprocs values, the distinct Ps.
		"$GO121" tool trace -d "$trace" > "$tmp/d121" 2>/dev/null || true
		if [ "$a" = gomaxprocs ]; then
			got=$(awk '$2 == "Gomaxprocs" { for (i = 3; i <= NF; i++)
				if ($i ~ /^procs=/) { sub(/^procs=/, "", $i); print $i } }' \
				"$tmp/d121" | sort -un | tr '\n' ' ')
		else
			got=$(awk '$2 == "ProcStart" { print $3 }' "$tmp/d121" |
				sort -u | wc -l)
		fi
		if [ "$(echo $got)" = "$(echo "$b" | tr , ' ')" ]; then
			echo "ok $a $b"
		else
			echo "FAIL $a $b (got ${got:-none})"
			failed=$((failed + 1))
		fi
		continue ;;
	pprof|nopprof)
		gos=$pprof_gos
		[ "$a" = pprof ] || gos=$nopprof_gos
		# Absent from a profile proves nothing if absent from the trace.
		if [ "$a" = nopprof ] && ! grep -qxF -- "$c" "$tmp/functions"; then
			echo "FAIL $a $b $c: no stack frame of the trace is $c"
			failed=$((failed + 1))
			continue
		fi
		# Every function with any time: pprof's display leaves out
		# those under 0.5% of the total (-nodefraction), and a
		# workload's task may have less than that share of a whole
		# machine's profile: Go 1.27 counts only the time a goroutine
		# is runnable, Go 1.23 the run time after it too, so Go 1.27
		# dropped a gt_ping that Go 1.23 showed.
		top_all="-nodefraction=0 -nodecount=0"
		for go in $gos; do
			version=$("$go" env GOVERSION)
			# A profile the tool cannot build is a failure, never
			# an empty profile.
			if ! "$go" tool trace -pprof="$b" "$trace" \
				< /dev/null > "$tmp/prof" 2> "$tmp/err" ||
			   ! "$go" tool pprof -top $top_all "$tmp/prof" \
				< /dev/null > "$tmp/top" 2>> "$tmp/err"; then
				echo "FAIL $a $b $c ($version: cannot build the profile:" \
					"$(tail -n 1 "$tmp/err"))"
				failed=$((failed + 1))
				continue
			fi
			found=no
			if [ "$a" = nopprof ] && [ -n "$generational" ]; then
				# NAME's time in the profile, in ns (0: absent).
				ns=$("$go" tool pprof -top $top_all -unit=ns \
					"$tmp/prof" 2>/dev/null < /dev/null |
					awk -v f="$c" '$NF == f { v = $(NF - 2)
						sub(/ns$/, "", v); t += v }
						END { print t + 0 }')
				[ "$ns" -ge 1000000 ] && found="yes, ${ns} ns"
			elif grep -qw -- "$c" "$tmp/top"; then
				found=yes
			fi
			if [ "$a/$found" = pprof/yes ] || [ "$a/$found" = nopprof/no ]; then
				echo "ok   $a $b $c ($version)"
			else
				echo "FAIL $a $b $c ($version: found=$found)"
				failed=$((failed + 1))
			fi
		done
		continue ;;
	esac
	# NAME METRIC OP VALUE: a known metric, a number, a task present.
	if ! echo "$b" | grep -qE '^((create|end|start|preempt|unblock|(block|unblocked_by|syscall|sysblock|region):[^+]+)(\+|$))+$' ||
	   ! echo "$d" | grep -qE '^[0-9]+$' || [ -z "$c" ]; then
		echo "FAIL bad expectation: $a $b $c $d"
		failed=$((failed + 1))
		continue
	fi
	if ! has_goroutine "$a"; then
		echo "FAIL $a $b $c $d (no goroutine named $a in the trace)"
		failed=$((failed + 1))
		continue
	fi
	# METRIC+METRIC...: the sum of several.
	got=$(awk -v n="$a" -v m="+$b+" '$1 == n && index(m, "+" $2 "+") { sum += $3 }
		END { print sum + 0 }' "$tmp/summary")
	case $c in
	'==') [ "$got" -eq "$d" ] ;;
	'>=') [ "$got" -ge "$d" ] ;;
	'<=') [ "$got" -le "$d" ] ;;
	*) echo "bad expectation: $a $b $c $d (OP is ==, >= or <=)"; false ;;
	esac && ok=ok || ok=FAIL
	echo "$ok $a $b $c $d (got $got)"
	[ "$ok" = ok ] || failed=$((failed + 1))
done < "$expect"

[ "$checked" -gt 0 ] || {
	echo "FAIL: $expect holds no expectation"
	failed=1
}
[ -z "${GT_SUMMARY:-}" ] || cp "$tmp/summary" "$GT_SUMMARY"
if [ "$failed" -ne 0 ]; then
	echo "summary of $trace (name metric count), gt_* only:"
	grep '^gt_' "$tmp/summary" || true
	exit 1
fi
