#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CPU samples (--cpu-hz, Documentation/cpu-samples.rst): burn spins on
# CPU 0 in burn_a for 75% of its time and burn_b for 25%, then burn_go
# in main.hot and main.warm in the same shares, then burn entry in a
# loop that begins at its function's first byte; recorded at 999 Hz with
# user stacks, both backends (bpf:cpusample_test.sh).  The host checks
# (cpusample.expect, selftests/verify-trace.sh) that `gotrace pprof cpu`
# of each task gives the shares it measured within 5 points (75% and
# 25% by construction; 8 where the guest's clock is not exact), and as
# many samples as its CPU time at 999 Hz within 10%, that the samples
# stopped at a function's first byte are named after that function
# (their PC is exact: named by the byte before, as a return address is,
# they would take the function before it); Go 1.23 and 1.27
# read the trace (selftests/check-trace.sh; their web UI pages too).
# Here: the summary counts samples written and samples of idle CPUs,
# the progress line samples lost, the module's status file counts them
# too, a CPU that went and came back is sampled, a flight snapshot and
# every rotated file hold samples, and the go1.11 format refuses
# sampling.
. ./lib.sh

hz=999
if [ "$GT_BACKEND" = kmod ]; then
	backend=
else
	backend="--backend bpf $GT_BPF_OPTS"
fi

# shellcheck disable=SC2086 # $backend: options, split
./gotrace record $backend --cpu-hz=$hz --user-stacks --children \
	-o "$GT_OUT/cpusample.trace" -- sh -c \
	"cat /proc/uptime > /tmp/up0 && ./gotrace status --json > /tmp/status1.json &&
	 cat /proc/uptime > /tmp/up1 &&
	 ./burn 3 0 > /tmp/burn.out && GODEBUG=asyncpreemptoff=1 ./burn_go 3 > /tmp/burn_go.out &&
	 cat /proc/uptime > /tmp/up2 && ./gotrace status --json > /tmp/status2.json &&
	 cat /proc/uptime > /tmp/up3 && ./burn entry 1" \
	2> /tmp/rec.err || fail "gotrace record --cpu-hz failed: $(cat /tmp/rec.err)"
cat /tmp/rec.err /tmp/burn.out /tmp/burn_go.out
check_header "$GT_OUT/cpusample.trace"
./gotrace check -q "$GT_OUT/cpusample.trace" ||
	fail "gotrace check refused the trace"
grep -q "CPU samples at $hz Hz: [1-9][0-9]* written" /tmp/rec.err ||
	fail "the summary counts no CPU sample written"
# --children records only the workload: the other CPU's samples, and
# those of other tasks on CPU 0, are counted, not written.
grep -q "CPU samples at $hz Hz: .* [1-9][0-9]* idle" /tmp/rec.err ||
	fail "the summary counts no sample of an idle CPU"
trace_has "$GT_OUT/cpusample.trace" "gotrace: CPU samples at $hz Hz" ||
	fail "the trace does not say its sampling rate"

# The module accounts for every tick of every CPU's timer: written,
# idle, filtered out, or lost (not taken: the timer ran late, as a
# vCPU of single-threaded emulation waits for the other's turn).  From
# the status before the workloads to the status after them, as many as
# the time between at $hz Hz, within 5%.  That time is bracketed by
# /proc/uptime (10 ms) read around each status: at least from just
# after the first to just before the second, at most from just before
# the first to just after the second (starting a command can wait long
# on a loaded guest: 6.12-rt once took 0.45 s between a status and the
# uptime after it).
# ticks JSON: "CPU TICKS WRITTEN IDLE HIDDEN LOST" per CPU.
ticks() {
	sed -n 's/.*"cpu": \([0-9]*\),.*"cpu_samples": \([0-9]*\), "cpu_samples_idle": \([0-9]*\), "cpu_samples_hidden": \([0-9]*\), "cpu_samples_lost": \([0-9]*\) }.*/\1 \2 \3 \4 \5/p' "$1" |
		while read -r cpu w i h l; do
			echo "$cpu $((w + i + h + l)) $w $i $h $l"
		done
}
# uptime N: /tmp/upN in hundredths of a second.
uptime_cs() {
	tr -d . < "/tmp/up$1" | cut -d' ' -f1
}
if [ "$GT_BACKEND" = kmod ]; then
	short=$(($(uptime_cs 2) - $(uptime_cs 1)))
	long=$(($(uptime_cs 3) - $(uptime_cs 0)))
	lo=$((short * hz * 95 / 10000))
	hi=$((long * hz * 105 / 10000))
	ticks /tmp/status1.json > /tmp/ticks1
	ticks /tmp/status2.json > /tmp/ticks2
	[ -s /tmp/ticks2 ] || fail "no per-CPU samples in gotrace status --json"
	while read -r cpu t w i h l; do
		t0=$(awk -v c="$cpu" '$1 == c { print $2 }' /tmp/ticks1)
		t=$((t - ${t0:-0}))
		echo "cpu $cpu: $t ticks in ${short}0 to ${long}0 ms ($w written, $i idle, $h filtered out, $l lost since the start), $lo to $hi due"
		if [ "$t" -lt "$lo" ] || [ "$t" -gt "$hi" ]; then
			fail "cpu $cpu: $t ticks accounted for, not $lo to $hi"
		fi
	done < /tmp/ticks2
fi

# cpu_samples WHO LO HI: the samples of WHO (a task name, or tid=N),
# from the CPU time the workload printed, at $hz Hz, within 10%.
count() {
	ns=$(sed -n 's/.* cpu_ns \([0-9][0-9]*\).*/\1/p' "$2")
	[ -n "$ns" ] || fail "$1 did not say its CPU time: $(cat "$2")"
	echo "cpu_samples $1 $((ns * hz * 9 / 10000000000))" \
		"$((ns * hz * 11 / 10000000000))"
}
# burn_go's spinning thread: the runtime's others (sysmon) share its name.
tid=$(sed -n 's/.* tid \([0-9][0-9]*\) .*/\1/p' /tmp/burn_go.out)
[ -n "$tid" ] || fail "burn_go did not say its thread: $(cat /tmp/burn_go.out)"
# in_a_ns, in_b_ns, all_ns: the CPU time a workload spent in its first
# function, its second and in all (burn.c says why the shares are
# measured, not taken as 75/25).  split: the first's share of both;
# share A|B: either's share of all.  The measured
# split itself must be near the constructed 75%, or the workload did
# not run as built.
field() {
	sed -n "s/.* $1 \([0-9][0-9]*\).*/\1/p" "$2"
}
split() {
	a=$(field in_a_ns "$1") b=$(field in_b_ns "$1")
	[ -n "$a" ] && [ -n "$b" ] || fail "no times in $(cat "$1")"
	echo $(((200 * a + a + b) / (2 * (a + b))))
}
share() {
	t=$(field "in_$1_ns" "$2") all=$(field all_ns "$2")
	[ -n "$t" ] && [ -n "$all" ] || fail "no times in $(cat "$2")"
	echo $(((200 * t + all) / (2 * all)))
}
for f in /tmp/burn.out /tmp/burn_go.out; do
	for k in in_a_ns in_b_ns all_ns; do
		[ -n "$(field $k $f)" ] || fail "$f says no $k: $(cat $f)"
	done
	s=$(split $f)
	[ "$s" -ge 60 ] && [ "$s" -le 90 ] ||
		fail "$f: $s% of the time in the first function, not 75% within 15"
done
# The samples match the CPU time only where the guest's clock follows
# its instructions (the @icount boot, GT_EXACT_TIME): there each
# function's share of its task's samples is held to its measured share
# within 5 points, and the counts to the CPU time within 10%.
# Elsewhere a vCPU's timer runs late while the other vCPU has its turn
# on the host thread (a sixth to a third of the ticks), the one sample
# taken on its return stands for all of them, and the guest counts that
# time as the task's; and the kernel's share of the task's time varies
# (a third of burn_go's samples on the debug kernel, page faults and
# scheduling under lockdep).  What holds on every boot is the split
# between the two functions (cpu_split: burn_a's share of the samples
# in burn_a or burn_b), within 5 points of the measured one on @icount
# and 8 elsewhere: there each wait of a vCPU for its turn is a lump of
# the task's CPU time in one function that the samples see as one, a
# noise of some points (burn_go measured 78-79% and sampled 74-76% on
# 6.1 and newest with the BPF backend).
# within LO..HI: V-tol V+tol.
if [ -n "${GT_EXACT_TIME:-}" ]; then
	tol=5
else
	tol=8
fi
within() {
	echo "$(($1 - tol)) $(($1 + tol))"
}
{
	if [ -n "${GT_EXACT_TIME:-}" ]; then
		echo "cpu_share burn burn_a $(within "$(share a /tmp/burn.out)")"
		echo "cpu_share burn burn_b $(within "$(share b /tmp/burn.out)")"
		echo "cpu_share tid=$tid main.hot $(within "$(share a /tmp/burn_go.out)")"
		echo "cpu_share tid=$tid main.warm $(within "$(share b /tmp/burn_go.out)")"
		count burn /tmp/burn.out
		count "tid=$tid" /tmp/burn_go.out
	fi
	echo "cpu_split burn burn_a burn_b $(within "$(split /tmp/burn.out)")"
	echo "cpu_split tid=$tid main.hot main.warm $(within "$(split /tmp/burn_go.out)")"
	# burn entry's spin, named after its function, not the one before.
	echo "cpu_share gt_spin_entry spin_at_entry 90 100"
	echo "cpu_split gt_spin_entry spin_at_entry before_spin 99 100"
} > "$GT_OUT/cpusample.expect" || fail "cannot write cpusample.expect"
cat "$GT_OUT/cpusample.expect"

# CPU hotplug: CPU 1 goes and comes back while the session samples; a
# burn pinned to it after its return (burn_back) must have its samples,
# in its measured split: the module starts the CPU's timer again from
# its hotplug callback, the BPF recorder opens the CPU's perf event
# again when it sees the CPU online (within 0.1 s; burn_back waits
# 0.3 s).
cpu1=/sys/devices/system/cpu/cpu1/online
if [ -w $cpu1 ]; then
	cp ./burn /tmp/burn_back
	# shellcheck disable=SC2086 # $backend: options, split
	./gotrace record $backend --cpu-hz=$hz --user-stacks --children \
		-o "$GT_OUT/cpusample-hotplug.trace" -- sh -c \
		"echo 0 > $cpu1 && sleep 0.3 && echo 1 > $cpu1 && sleep 0.3 &&
		 /tmp/burn_back 1 1 > /tmp/burn_back.out" 2> /tmp/hp.err ||
		{ echo 1 > $cpu1; fail "recording over CPU 1's hotplug failed: $(cat /tmp/hp.err)"; }
	cat /tmp/hp.err /tmp/burn_back.out
	check_header "$GT_OUT/cpusample-hotplug.trace"
	echo "cpu_split burn_back burn_a burn_b $(within "$(split /tmp/burn_back.out)")" \
		> "$GT_OUT/cpusample-hotplug.expect"
fi

if [ "$GT_BACKEND" = kmod ]; then
	# The flight recorder keeps the samples with their generations: a
	# snapshot after burn holds its samples, in its shares (its user
	# frames named, as the recorder names a snapshot's).
	dir=/tmp/cs-flight
	rm -rf $dir
	./gotrace record --cpu-hz $hz --user-stacks --flight 30s -o $dir \
		> /tmp/cs-fl.out 2> /tmp/cs-fl.err &
	rec=$!
	cleanup_on_exit $rec
	wait_state recording
	./burn 2 0 > /tmp/cs-fl-burn.out || fail "burn failed"
	./gotrace snapshot || fail "gotrace snapshot failed"
	wait_until "ls $dir | grep -q -- '-0001-user\.trace\$'" 300 ||
		fail "no snapshot in $dir within 30 s: $(cat /tmp/cs-fl.err)"
	./gotrace stop || fail "gotrace stop failed"
	wait_gone $rec 300 || fail "the recorder did not end within 30 s of stop"
	wait $rec || fail "the recorder exited with $?: $(cat /tmp/cs-fl.err)"
	for f in "$dir"/*-0001-user.trace; do
		check_header "$f"
	done
	cp "$f" "$GT_OUT/cpusample-flight.trace"
	echo "cpu_split burn burn_a burn_b $(within "$(split /tmp/cs-fl-burn.out)")" \
		> "$GT_OUT/cpusample-flight.expect"

	# Rotation splits them with their generations: every file of a
	# burn longer than a file has its samples, at the rate it states.
	dir=/tmp/cs-rotate
	rm -rf $dir
	./gotrace record --cpu-hz $hz --rotate 1s -o $dir -- ./burn 3 0 \
		> /tmp/cs-rot.out 2> /tmp/cs-rot.err ||
		fail "gotrace record --rotate --cpu-hz failed: $(cat /tmp/cs-rot.err)"
	n=0
	for f in "$dir"/*.trace; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		./gotrace stat "$f" > /tmp/cs-stat || fail "gotrace stat $f failed"
		grep -q "CPU samples *[1-9][0-9]* (.* $hz Hz, as the trace says" \
			/tmp/cs-stat || fail "$f: no CPU samples at $hz Hz: $(cat /tmp/cs-stat)"
		cp "$f" "$GT_OUT/cpusample-rotate-$n.trace"
	done
	[ "$n" -ge 2 ] || fail "$n files for 3 s rotated every 1 s, not 2 or more"

	# The status counts the samples; go1.11 has none.
	./gotrace record --cpu-hz=$hz -o /tmp/st.trace -- sh -c \
		'./burn 1 > /dev/null; cat /sys/class/misc/gotrace/status/cpu_samples > /tmp/st.n' \
		2> /tmp/st.err || fail "gotrace record --cpu-hz failed: $(cat /tmp/st.err)"
	[ "$(cat /tmp/st.n)" -gt 0 ] ||
		fail "status/cpu_samples says $(cat /tmp/st.n) while sampling"
	# The progress line of a sampling session counts its samples lost,
	# as the summary does (command_test.sh: the terminal's line).
	[ -c /dev/pts/ptmx ] || { mkdir -p /dev/pts &&
		mount -t devpts -o ptmxmode=0666 devpts /dev/pts; } ||
		fail "cannot mount devpts"
	[ -c /dev/ptmx ] || ln -sf pts/ptmx /dev/ptmx
	timeout 120 ./pty_run -c "samples lost" /tmp/cs-pty.out ./gotrace \
		record --cpu-hz $hz -o /tmp/cs-pty.trace -- \
		sh -c 'trap "exit 5" INT; while :; do sleep 0.1; done'
	rc=$?
	[ $rc -eq 5 ] || fail "the progress line of --cpu-hz: exit $rc, want 5: $(cat /tmp/cs-pty.out)"
	tr '\r\033' 'RE' < /tmp/cs-pty.out |
		grep -q "RE\[Kgotrace: recording .* lost, [0-9]* overflows, [0-9]* samples lost" ||
		fail "no samples lost in the progress line: $(cat /tmp/cs-pty.out)"
	rm -f /tmp/cs-pty.trace
	if ./gotrace record --format go1.11 --cpu-hz -o /tmp/go111.trace \
		-d 1 2> /tmp/go111.err; then
		fail "a go1.11 recording with --cpu-hz was not refused"
	fi
	grep -q "go1.11 format has no CPU samples" /tmp/go111.err ||
		fail "no clear message for go1.11 with --cpu-hz: $(cat /tmp/go111.err)"
fi
exit 0
