#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Many short go1.23 recordings under a task churn, every file they write
# a valid trace.  While ./stress churn forks, starts threads, renames and
# ends tasks on every CPU (stress.c), GT_STRESS_RECORDINGS recordings
# (default 36) are made in turn in six ways: stopped by -d, by SIGINT, by
# SIGTERM; rotated (--rotate 300ms); a flight window (--flight 200ms)
# snapshot by 'gotrace snapshot', by SIGUSR1 and by the stop; and one
# whose recorder is stopped (SIGSTOP) while getppid storms fill a
# buffer, until events were lost, then stopped by SIGINT.  Each starts just
# after ./stress burst forked children that stay runnable, so that the
# start-up snapshot meets tasks that have not run yet.  The shortest
# generations (the generation_ms parameter at its minimum, 10 ms) and
# the smallest buffers (two chunks of 64 KiB per CPU online, the least
# the module takes: gotrace record refuses less) put a
# generation boundary, and a start or a stop, in every stage of a task's
# life.  Here every file goes through gotrace check; the test prints a
# TAP line per way ("N of N files valid"), the refusals by message, the
# events lost, and fails if a file was refused.  The files go to the
# host as stress/*.trace, where Go 1.23 and 1.27 read each of them
# (run-kernel.sh).
#
# GT_STRESS_RECORDINGS sets how many recordings (a longer run: the
# guest's GT_TEST_TIMEOUT and the VM's GT_VM_TIMEOUT bound it too);
# GT_STRESS_SECONDS (default 90, times GT_TIME_SCALE) is the guest time
# after which no new recording starts once each way had its turn, so
# that a slow guest makes fewer rather than time out.
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "the module's generations"; exit 4; }
use_format go1.23
recordings=${GT_STRESS_RECORDINGS:-36}
budget=$((${GT_STRESS_SECONDS:-90} * ${GT_TIME_SCALE:-1}))
gen_param=/sys/module/gotrace/parameters/generation_ms
on_exit "echo $(cat $gen_param) > $gen_param"
# GT_GENERATION_MS_MIN (kmod/gotrace.h).
echo 10 > $gen_param || fail "cannot set generation_ms=10"
[ "$(cat $gen_param)" = 10 ] || fail "generation_ms reads back $(cat $gen_param)"
dir=/tmp/stress
host=$GT_OUT/stress
rm -rf $dir "$host"
mkdir -p $dir "$host" || fail "cannot create $dir and $host"
# What each file got: "KIND FILE ok" or "KIND FILE refused MESSAGE".
verdicts=/tmp/st-verdicts.txt
: > $verdicts
: > /tmp/st-summaries.txt
# Not -q: the summary line counts the events lost.
opts="--buffer-size $((2 * 64 * $(nproc)))K"

# The churn outlives every recording: stopped (SIGTERM) at the end, or
# when the test exits; its own limit ends it should the test be killed.
# At nice 5, as the bursts (stress.c): it takes every CPU the recorder
# and the test leave, not theirs.
./stress churn $((budget * 2 + 120)) > /tmp/st-churn.out 2>&1 &
churn=$!
on_exit "kill -TERM $churn 2>/dev/null; wait $churn"

# burst: children forked just before a recording starts, still runnable
# when its snapshot is taken; waited for once it ended.
burst() {
	./stress burst 6 150 &
	burst_pid=$!
}

burst_done() {
	wait $burst_pid || fail "stress burst failed"
}

# check_file KIND FILE: gotrace check's verdict on FILE, and FILE to the
# host as stress/KIND-N.trace.
check_file() {
	cf_n=$(($(wc -l < $verdicts) + 1))
	if ./gotrace check -q "$2" 2> /tmp/st-check.err; then
		echo "$1 $2 ok" >> $verdicts
	else
		echo "$1 $2 refused $(head -n 1 /tmp/st-check.err)" >> $verdicts
		echo "refused: $(head -n 1 /tmp/st-check.err)"
	fi
	cp "$2" "$host/$1-$cf_n.trace" || fail "cannot copy $2"
}

# recorded RC ERR WHAT: the recorder ended well; its summary kept.
recorded() {
	[ "$1" = 0 ] || fail "$3: gotrace record exited with $1: $(cat "$2")"
	grep '^gotrace: .* lost, ' "$2" >> /tmp/st-summaries.txt
}

# record_bg ERR ARGS...: gotrace record ARGS in the background ($rec),
# once its session records.
record_bg() {
	rb_err=$1
	shift
	# shellcheck disable=SC2086
	./gotrace record $opts "$@" 2> "$rb_err" &
	rec=$!
	cleanup_on_exit $rec
	wait_until "in_state recording || ! kill -0 $rec 2>/dev/null" 300 ||
		fail "gotrace record $* did not start within 30 s"
}

# stop_rec SIGNAL ERR WHAT: stop $rec by SIGNAL, wait for it.
stop_rec() {
	kill -"$1" $rec || fail "$3: cannot signal the recorder"
	wait_gone $rec 300 || fail "$3: the recorder did not end within 30 s of SIG$1"
	wait $rec
	recorded $? "$2" "$3"
}

# The ways of stopping a recording, one per call.
rec_duration() {
	f=$dir/d-$1.trace
	# shellcheck disable=SC2086
	./gotrace record $opts -d 0.3 -o $f 2> /tmp/st.err
	recorded $? /tmp/st.err "-d"
	check_file duration $f
}

rec_signal() {
	f=$dir/$2-$1.trace
	record_bg /tmp/st.err -o $f
	sleep 0.3
	stop_rec "$2" /tmp/st.err "SIG$2"
	check_file "sig$(echo "$2" | tr 'A-Z' 'a-z')" $f
}

rec_rotate() {
	d=$dir/rot-$1
	# shellcheck disable=SC2086
	./gotrace record $opts --rotate 300ms -d 0.4 -o $d 2> /tmp/st.err
	recorded $? /tmp/st.err "--rotate"
	[ -z "$(ls $d | grep -v '\.trace$')" ] ||
		fail "--rotate left files other than traces: $(ls $d | tr '\n' ' ')"
	for f in $(ls $d | sort); do
		check_file rotate "$d/$f"
	done
}

rec_flight() {
	d=$dir/fl-$1
	record_bg /tmp/st.err --flight 200ms -o $d
	sleep 0.3
	./gotrace snapshot || fail "gotrace snapshot failed"
	wait_until "ls $d 2>/dev/null | grep -q -- '-0001-user\.trace\$'" 300 ||
		fail "no snapshot 1 within 30 s: $(cat /tmp/st.err)"
	kill -USR1 $rec || fail "cannot signal the flight recorder"
	wait_until "ls $d | grep -q -- '-0002-user\.trace\$'" 300 ||
		fail "no snapshot 2 within 30 s of SIGUSR1: $(cat /tmp/st.err)"
	stop_rec INT /tmp/st.err "--flight"
	[ "$(ls $d | grep -c '\.trace$')" = 3 ] ||
		fail "--flight wrote $(ls $d | tr '\n' ' '), not three snapshots"
	for f in $(ls $d | sort); do
		check_file flight "$d/$f"
	done
}

# The recorder stopped until a buffer filled: the generation cannot end,
# events are lost and counted, then it reads again.  A getppid storm of
# a second fills one sooner than the churn alone (15 s on a loaded
# host); another, up to five in all, until an event was lost.
rec_loss() {
	f=$dir/loss-$1.trace
	record_bg /tmp/st.err -o $f
	kill -STOP $rec || fail "cannot stop the recorder"
	for _ in 1 2 3 4 5; do
		./workload storm 1 > /dev/null || fail "the storm failed"
		[ "$(status_of lost_events)" -gt 0 ] && break
	done
	kill -CONT $rec || fail "cannot continue the recorder"
	[ "$(status_of lost_events)" -gt 0 ] ||
		fail "no event lost in 5 s of storm, the recorder stopped: $(status_all | tr '\n' ' ')"
	sleep 0.1
	stop_rec INT /tmp/st.err "lost events"
	grep -q ' [1-9][0-9]* lost, ' /tmp/st.err ||
		fail "the summary counts no lost event: $(cat /tmp/st.err)"
	check_file loss $f
}

read -r t0 _ < /proc/uptime
i=0
while [ $i -lt "$recordings" ]; do
	read -r now _ < /proc/uptime
	# Each way once at least, however slow the guest.
	[ $i -ge 6 ] &&
		awk -v a="$t0" -v b="$now" -v m="$budget" 'BEGIN { exit !(b - a >= m) }' &&
		break
	files_before=$(wc -l < $verdicts)
	burst
	case $((i % 6)) in
	0) rec_duration $i ;;
	1) rec_signal $i INT ;;
	2) rec_signal $i TERM ;;
	3) rec_rotate $i ;;
	4) rec_flight $i ;;
	5) rec_loss $i ;;
	esac
	burst_done
	read -r t1 _ < /proc/uptime
	echo "recording $i, $(tail -n 1 $verdicts | cut -d ' ' -f 1): $(($(wc -l < $verdicts) - files_before)) files, $(awk -v a="$now" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	i=$((i + 1))
done
read -r now _ < /proc/uptime
kill -TERM $churn || fail "cannot stop the churn"
wait_gone $churn 300 || fail "the churn did not end within 30 s of SIGTERM"
wait $churn || fail "the churn failed: $(cat /tmp/st-churn.out)"
cat /tmp/st-churn.out

# One TAP line per way, then what was refused and lost.
echo "TAP version 13"
echo "1..6"
k=0
for kind in duration sigint sigterm rotate flight loss; do
	k=$((k + 1))
	n=$(grep -c "^$kind " $verdicts)
	ok=$(grep -c "^$kind [^ ]* ok\$" $verdicts)
	if [ "$ok" = "$n" ]; then
		echo "ok $k - $kind: $ok of $n files valid"
	else
		echo "not ok $k - $kind: $ok of $n files valid"
	fi
done
files=$(wc -l < $verdicts)
valid=$(grep -c ' ok$' $verdicts)
awk '{ for (i = 1; i <= NF; i++) if ($i == "lost,") { l += $(i - 1); r += $(i - 1) > 0 } }
	END { printf "%d events lost in %d of %d recordings\n", l, r, NR }' \
	/tmp/st-summaries.txt
echo "$i recordings in $(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%d", b - a }') s: $valid of $files files valid"
if [ "$valid" != "$files" ]; then
	echo "refused, by message:"
	sed -n 's/^[^ ]* [^ ]* refused //p' $verdicts |
		sed 's/^gotrace: [^:]*: offset [^:]*: //; s/M [0-9]*: //;
		     s/id=[0-9]*/id=N/g; s/; if it was cut short.*//' |
		sort | uniq -c | sort -rn > /tmp/st-refused.txt
	cat /tmp/st-refused.txt
	fail "gotrace check refused $((files - valid)) of $files files, most often ($(head -n 1 /tmp/st-refused.txt | sed 's/^ *//; s/ .*//') times) with: $(head -n 1 /tmp/st-refused.txt | sed 's/^ *[0-9]* //')"
fi
exit 0
