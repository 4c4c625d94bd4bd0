#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bpf_sample_test.sh - CPU samples with the BPF backend, on this host
#
# The guest's ground truth (selftests/gotrace/cpusample_test.sh):
# build/burn (selftests/gotrace/burn.c) spins for 3 s on CPU 0, in
# burn_a for 75% of its CPU time and in burn_b for 25%, and prints the
# CPU time it had.  'gotrace record --backend bpf --cpu-hz=999
# --user-stacks --children' of it (user frames named by the recorder):
#
#   - the summary says "CPU samples at 999 Hz: W written, I idle, H
#     filtered out, L lost", and W + I + H + L are the session's samples
#     of every online CPU at 999 Hz, within 10%;
#   - samples of idle CPUs are counted, not written: every sample
#     written is burn's (or, before its exec, gotrace's child's), and,
#     where the CPUs were idle for 0.1 s or more (/proc/stat), I + L is
#     at least half their idle time at 999 Hz: an idle CPU's sample is
#     counted idle, or lost where the CPU took its timer late (on the
#     development host, a hypervisor's vCPU, CPU 1 halted in its idle
#     loop takes no timer interrupt until it wakes: no sample at all);
#   - gotrace check, Go 1.23's and Go 1.27's parsers accept the trace
#     (selftests/check-trace.sh);
#   - `gotrace pprof cpu --comm burn`, read by Go 1.27's pprof, gives
#     burn_a and burn_b the shares of burn's CPU time burn measured in
#     them (75% and 25% by construction) within 5 points, and
#     as many samples as its CPU time at 999 Hz within 10%
#     (selftests/verify-trace.sh): its CPU time, not 3 s, since a busy
#     host gives it less than its 3 s;
#   - samples that interrupted user code have no kernel frames: burn_a
#     and burn_b are the innermost frame of most of burn's samples, and
#     bpf-dump's sample records say so (user=1 frames=0);
#   - sample records that find their ring full are counted apart from
#     the events' (bpf-dump with one-page rings: sample_drops=);
#   - `burn entry` spins in a loop that begins at its function's first
#     byte: the samples that stopped it there are named after that
#     function, spin_at_entry, not before_spin, the function whose last
#     byte comes before it (their PC is exact, not a return address).
#
# Skips where this host cannot run BPF (not root, no BTF, no backend);
# fails where Go 1.23 or 1.27 is missing (skips with GT_ALLOW_NO_GO=1).

. "$(dirname "$0")/lib.sh"

BURN=$(realpath "${BURN:-./build/burn}")
VERIFY=$(dirname "$0")/../../selftests/verify-trace.sh
CHECK_TRACE=$(cd "$(dirname "$0")/../.." && pwd)/selftests/check-trace.sh
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO123 GO127 GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
HZ=999
SECONDS_=3

need_bpf
if [ ! -x "$GO123" ] || [ ! -x "$GO127" ]; then
	no_go "Go 1.23 ($GO123) or Go 1.27 ($GO127)"
	done_testing
	exit
fi

# idle_ticks: the idle and iowait time of every CPU, in USER_HZ ticks.
idle_ticks() {
	awk '$1 == "cpu" { print $5 + $6; exit }' /proc/stat
}

trace=$T/burn.trace
idle0=$(idle_ticks)
run record --backend bpf --cpu-hz=$HZ --user-stacks --children \
	-o "$trace" -- "$BURN" $SECONDS_ 0
idle1=$(idle_ticks)
check "record --backend bpf --cpu-hz=$HZ --user-stacks ran burn" \
	'[ "$rc" -eq 0 ] && [ "$(head -c 13 "$trace")" = "go 1.23 trace" ]'
line=$(grep "CPU samples at $HZ Hz: " "$T/err")
set -- $(echo "$line" | sed -n 's/.*: \([0-9]*\) written, \([0-9]*\) idle, \([0-9]*\) filtered out, \([0-9]*\) lost$/\1 \2 \3 \4/p')
written=${1:-0} idle=${2:-0} hidden=${3:-0} lost=${4:-0}
check "the summary counts the samples: ${line#gotrace: }" \
	'[ -n "$line" ] && [ "$written" -gt 0 ]'
# The session's samples: its length, every online CPU, HZ a second.
secs=$(sed -n 's/.* events[a-z0-9 ]*, \([0-9.]*\) s, stopped.*/\1/p' "$T/err")
cpus=$(getconf _NPROCESSORS_ONLN)
want=$(awk -v s="${secs:-0}" -v c="$cpus" -v hz=$HZ 'BEGIN { printf "%d", s * c * hz }')
all=$((written + idle + hidden + lost))
check "$all samples counted, $want in ${secs:-?} s on $cpus CPUs at $HZ Hz (10%)" \
	'[ "$all" -ge $((want * 9 / 10)) ] && [ "$all" -le $((want * 11 / 10)) ]'
# The CPUs' idle time while burn ran, which the session spans (burn says
# it): the record command's own start and end (loading the BPF
# program, naming user frames, writing the file) idle the CPUs outside
# the session, and on a loaded host that was most of it (139 samples'
# worth against 48 counted).
ticks=$(sed -n 's/.* idle_ticks \([0-9][0-9]*\).*/\1/p' "$T/out")
[ -n "$ticks" ] || ticks=$((idle1 - idle0))
idle_want=$((ticks * HZ / 100))
if [ "$idle_want" -ge 100 ]; then
	check "$idle samples of idle CPUs counted, $lost lost; $idle_want from their idle time" \
		'[ $((idle + lost)) -ge $((idle_want / 2)) ]'
else
	ok "# SKIP the CPUs were idle for $ticks ticks only while burn ran: $idle samples of them counted"
fi
cp "$T/out" "$T/burn.out"
cpu_ns=$(sed -n 's/.* cpu_ns \([0-9][0-9]*\).*/\1/p' "$T/out")
check "burn said its CPU time (${cpu_ns:-none} ns)" '[ -n "$cpu_ns" ]'
run check -q "$trace"
check "gotrace check accepts the trace" '[ "$rc" -eq 0 ]'
"$CHECK_TRACE" "$trace" >"$T/out" 2>"$T/err"
rc=$?
check "Go 1.23's and 1.27's parsers accept it" '[ "$rc" -eq 0 ]'

# top [--comm NAME]: Go 1.27's pprof -top of the trace's CPU profile.
top() {
	"$GOTRACE" pprof cpu "$@" -o "$T/cpu.pb.gz" "$trace" 2>>"$T/err" &&
		"$GO127" tool pprof -top -nodefraction=0 -nodecount=0 \
			-sample_index=0 "$T/cpu.pb.gz" 2>>"$T/err"
}
total() {
	sed -n 's/.* of \([0-9][0-9]*\) total.*/\1/p'
}
top >"$T/top.all"
top --comm burn >"$T/top.burn"
top --comm gotrace >"$T/top.child"
nall=$(total <"$T/top.all")
nburn=$(total <"$T/top.burn")
nchild=$(total <"$T/top.child")
check "every sample written is burn's: $nall in the trace, $nburn of burn, ${nchild:-0} of its process before exec, $written written" \
	'[ -n "$nall" ] && [ "$nall" -eq $((nburn + ${nchild:-0})) ] && [ "$nall" = "$written" ]'
# The innermost frame (flat%) of a sample of user code is a user one.
flat=$(awk '$NF == "burn_a" || $NF == "burn_b" { v = $2; sub(/%$/, "", v); s += v }
	END { printf "%d", s + 0.5 }' "$T/top.burn")
check "burn_a and burn_b are the innermost frame of $flat% of burn's samples" \
	'[ "${flat:-0}" -ge 60 ]'
lo=$((${cpu_ns:-0} / 1000 * HZ / 1000000 * 9 / 10))
hi=$((${cpu_ns:-0} / 1000 * HZ / 1000000 * 11 / 10))
# Each function's share of burn's CPU time, as burn measured it (its
# thread's CPU clock around each call), in percent.
share() {
	sed -n "s/.* in_$1_ns \([0-9]*\).* all_ns \([0-9]*\).*/\1 \2/p" "$T/burn.out" |
		awk '$2 > 0 { printf "%d", 100 * $1 / $2 + 0.5 }'
}
sa=$(share a)
sb=$(share b)
check "burn measured ${sa:-no}% of its CPU time in burn_a, ${sb:-no}% in burn_b (75 and 25 by construction, within 15)" \
	'[ -n "$sa" ] && [ -n "$sb" ] && [ "$sa" -ge 60 ] && [ "$sa" -le 90 ]'
{
	echo "cpu_share burn burn_a $((${sa:-75} - 5)) $((${sa:-75} + 5))"
	echo "cpu_share burn burn_b $((${sb:-25} - 5)) $((${sb:-25} + 5))"
	echo "cpu_samples burn $lo $hi"
} >"$T/expect"
if GOTRACE=$GOTRACE sh "$VERIFY" "$trace" "$T/expect" >"$T/verify" 2>&1; then
	ok "burn_a ${sa:-?}%, burn_b ${sb:-?}% of burn's samples within 5 points, as many as its CPU time at $HZ Hz"
else
	not_ok "burn_a ${sa:-?}%, burn_b ${sb:-?}% of burn's samples within 5 points, as many as its CPU time at $HZ Hz"
fi
grep "cpu_" "$T/verify" | sed 's/^/# /'
echo "# burn's samples: $nburn; $SECONDS_ s at $HZ Hz: $((SECONDS_ * HZ)); its CPU time at $HZ Hz: $(((${cpu_ns:-0} / 1000) * HZ / 1000000))"

# The records: a sample of user code has no kernel frame.
"$GOTRACE" bpf-dump --cpu-hz $HZ -- "$BURN" 1 0 >"$T/dump" 2>"$T/err"
nuser=$(grep -c " type=sample .* user=1 " "$T/dump")
bad=$(grep " type=sample .* user=1 " "$T/dump" | grep -vc " frames=0")
nkern=$(grep " type=sample .* user=0 " "$T/dump" | grep -vc " frames=0")
check "bpf-dump: $nuser samples of user code, $bad with kernel frames; $nkern of kernel code with frames" \
	'[ "$nuser" -gt 0 ] && [ "$bad" -eq 0 ] && [ "$nkern" -gt 0 ]'
# One-page rings: sample records lost are counted as samples.
"$GOTRACE" bpf-dump --cpu-hz $HZ --user-stacks --ring-size 4096 -s \
	-- "$BURN" 1 0 >"$T/out" 2>"$T/err"
sdrops=$(sed -n 's/.* sample_drops=\([0-9]*\).*/\1/p' "$T/err")
check "bpf-dump with one-page rings: ${sdrops:-no} sample records counted lost apart" \
	'[ "${sdrops:-0}" -gt 0 ]'

# A spin on a jump to itself at its function's first byte: every sample
# stops it there.  The innermost frame of nearly all is spin_at_entry;
# none may be before_spin (named by the byte before, as the symboliser
# named every frame before, 99.8% of them were).
run record --backend bpf --cpu-hz=$HZ --user-stacks --children \
	-o "$T/entry.trace" -- "$BURN" entry 1
trace=$T/entry.trace
top --comm gt_spin_entry >"$T/top.entry"
flat=$(awk '$NF == "spin_at_entry" { v = $2; sub(/%$/, "", v)
	printf "%d", v + 0.5 }' "$T/top.entry")
check "a spin at its function's first byte: spin_at_entry is the innermost frame of ${flat:-none}% of its $(total <"$T/top.entry") samples, before_spin of none" \
	'[ "$rc" -eq 0 ] && [ "${flat:-0}" -ge 90 ] && ! grep -q " before_spin$" "$T/top.entry"'

# systemd's STATUS= of a sampling session counts its samples lost, as
# the summary does (skipped for a build without libsystemd).
LISTEN=${NOTIFY_LISTEN:-$(dirname "$GOTRACE")/notify_listen}
if "$GOTRACE" --version | grep -q 'sd_notify' && [ -x "$LISTEN" ]; then
	notify_listen "$LISTEN" "$T/notify" "$T/msgs"
	NOTIFY_SOCKET=$T/notify "$GOTRACE" record --backend bpf --cpu-hz $HZ \
		-d 2.5 -o "$T/n.trace" >/dev/null 2>"$T/err"
	kill "$listener"
	wait "$listener" 2>/dev/null
	st=$(grep -m 1 '^STATUS=' "$T/msgs")
	check "STATUS= counts the samples lost: ${st:-none}" \
		'echo "$st" | grep -q "[0-9]* events ([0-9]*/s), [0-9]* lost, [0-9]* overflows, [0-9]* switches unreported, [0-9]* samples lost$"'
else
	ok "# SKIP built without libsystemd (no sd_notify)"
fi

done_testing
