#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-bench.sh OUT - the benchmark inside the VM (busybox sh, gotrace.ko
# loaded).  Prints raw numbers only, one record a line, to OUT and the
# console; bench/report.awk on the host makes the table.
#
# Every round runs every workload under every configuration, the
# configurations in a rotated order from round to round:
#   none     no tracing
#   empty    emptyprobe.ko loaded: counting probes on gotrace's tracepoints
#   gotrace  a gotrace session read into a tmpfs file (gtctl rec, i.e. cat)
#   nostacks the same without kernel stacks (module parameter kstacks=N)
#   nowakestacks the same without the kernel stacks of wakeups only
#            (module parameter wake_kstacks=N)
#   gotrace-v2 the gotrace session in Go's generational format, "go 1.23
#            trace" (module parameter format=go1.23, default generation_ms)
#   ustacks  the gotrace session with user stacks (module parameter
#            user_stacks=Y), go 1.11
#   ustacks-v2 the same in go 1.23
#   cpu99-v2, cpu999-v2 gotrace-v2 with CPU samples at 99 or 999 Hz
#            (module parameter cpu_hz): what sampling adds
#   ftrace   the same events through tracefs, one cat of trace_pipe_raw per
#            CPU into tmpfs files
#   bpf      gotrace record --backend bpf into a tmpfs file, the workload
#            as its COMMAND (skipped, and said so, where the guest's
#            gotrace has no BPF backend or the kernel no BTF)
# A configuration NAME@base is NAME with the module of the commit that
# bench/ab.sh compares with (/bench/base.ko), swapped in for the run.
# then the ramps: gotrace sessions under more and more getppid loops, then
# hackbench groups, then getppid loops with the reader at nice 19, each
# until a session loses events; once per format (BENCH_RAMP_FORMATS), the
# go 1.23 ones named with "-v2" (getppid-v2 ...).
#
# Knobs (kernel command line, so environment): BENCH_MS (length of one
# run), BENCH_ROUNDS, BENCH_WORKLOADS, BENCH_CONFIGS, BENCH_RAMP_GETPPID
# (processes), BENCH_RAMP (hackbench groups), BENCH_RAMP_STARVED (getppid
# processes, reader at nice 19); "none" skips a ramp; BENCH_RAMP_FORMATS
# (go1.11,go1.23: the formats the ramps run in).

OUT=${1:-/tmp/results.txt}
MS=${BENCH_MS:-1000}
ROUNDS=${BENCH_ROUNDS:-5}
WORKLOADS=$(echo "${BENCH_WORKLOADS:-getppid,pingpong,hackbench}" | tr , ' ')
CONFIGS=$(echo "${BENCH_CONFIGS:-none,empty,gotrace,nostacks,gotrace-v2,ustacks,ustacks-v2,cpu99-v2,cpu999-v2,ftrace,bpf}" |
	tr , ' ')
KSTACKS=/sys/module/gotrace/parameters/kstacks
WAKE_KSTACKS=/sys/module/gotrace/parameters/wake_kstacks
FORMAT=/sys/module/gotrace/parameters/format
USTACKS=/sys/module/gotrace/parameters/user_stacks
CPU_HZ=/sys/module/gotrace/parameters/cpu_hz
# The module's own default, restored after each run (the ramps use it).
US_DEFAULT=$(cat $USTACKS 2>/dev/null)
RAMP=$(echo "${BENCH_RAMP:-1,2,4,8,16,32}" | tr , ' ')
RAMP_GETPPID=$(echo "${BENCH_RAMP_GETPPID:-1,2,4,8,16,32,64}" | tr , ' ')
RAMP_STARVED=$(echo "${BENCH_RAMP_STARVED:-1,2,4,8,16,32,64,128}" | tr , ' ')
RAMP_FORMATS=$(echo "${BENCH_RAMP_FORMATS:-go1.11,go1.23}" | tr , ' ')
T=/sys/kernel/tracing
EVENTS="sched/sched_switch sched/sched_waking sched/sched_wakeup
	sched/sched_wakeup_new sched/sched_process_fork
	sched/sched_process_exec sched/sched_process_exit raw_syscalls"
NCPU=$(grep -c ^processor /proc/cpuinfo)

: > "$OUT"
emit() {
	echo "$*" >> "$OUT"
	echo "$*"
}

# workload_cmd W: the command line of workload W.
workload_cmd() {
	case $1 in
	getppid)	echo "./getppid $MS" ;;
	pingpong)	echo "./pingpong $MS 1 0" ;;
	hackbench)	echo "./hackbench $MS 1 10" ;;
	esac
}

# run_workload W: run workload W, print its "iters=N ns=M".
run_workload() {
	rw_cmd=$(workload_cmd "$1")
	[ -n "$rw_cmd" ] || return 1
	$rw_cmd | sed 's/^[^ ]* //'
}

# The BPF backend needs BTF and a gotrace built with it.
case " $CONFIGS " in
*" bpf "*)
	if [ ! -r /sys/kernel/btf/vmlinux ] ||
	   ! ./gotrace bpf-dump -h > /dev/null 2>&1; then
		echo "# bpf skipped: no BTF, or a gotrace without the BPF backend"
		CONFIGS=$(echo " $CONFIGS " | sed 's/ bpf / /; s/^ //; s/ $//')
	fi ;;
esac

[ -d $T/events ] || mount -t tracefs tracefs $T ||
	{ echo "# cannot mount tracefs"; exit 1; }

ftrace_events() {
	for e in $EVENTS; do
		echo "$1" > "$T/events/$e/enable" || return 1
	done
}

ftrace_stats() {
	cat $T/per_cpu/cpu*/stats | awk '
		/^entries:/ { e += $2 }
		/^overrun:/ { o += $2 }
		/^dropped events:/ { d += $3 }
		/^read events:/ { r += $3 }
		END { printf "read=%d entries=%d overrun=%d dropped=%d\n",
			r, e, o, d }'
}

# run_config C W R: one run of workload W under configuration C.
run_config() {
	c=$1 w=$2 r=$3 name=$1
	case $c in
	*@base)
		rmmod gotrace && insmod ./base.ko || return 1
		c=${c%@base} ;;
	esac
	case $c in
	none)
		res=$(run_workload "$w")
		;;
	empty)
		insmod ./emptyprobe.ko || return 1
		res=$(run_workload "$w")
		rmmod emptyprobe
		hits=$(dmesg | sed -n 's/.*emptyprobe: \([0-9]*\) hits.*/\1/p' |
			tail -n 1)
		emit "empty round=$r workload=$w hits=$hits"
		;;
	gotrace|nostacks|nowakestacks|gotrace-v2|ustacks|ustacks-v2|cpu*-v2)
		# nostacks: the same session without kernel stacks (the
		# module's kstacks parameter, which gtctl's session takes);
		# nowakestacks: without those of wakeups (wake_kstacks);
		# gotrace-v2: in the go 1.23 format, the others in go 1.11
		# (the format parameter, read when the reader opens the
		# device; the module's default is go1.23); ustacks,
		# ustacks-v2: gotrace, gotrace-v2 with user stacks (the
		# user_stacks parameter, also read at the open).  Every
		# parameter is set for each run, so that a run never
		# depends on the default of the module under test.
		[ "$c" = nostacks ] && echo N > $KSTACKS
		if [ "$c" = nowakestacks ]; then
			echo N > $WAKE_KSTACKS || return 1
		fi
		us=N
		case $c in ustacks*) us=Y ;; esac
		if [ -e $USTACKS ]; then
			echo $us > $USTACKS || return 1
		elif [ $us = Y ]; then
			echo "# $name: this module has no user stacks"
			return 1
		fi
		hz=0
		case $c in cpu*-v2) hz=${c#cpu}; hz=${hz%-v2} ;; esac
		if [ -e $CPU_HZ ]; then
			echo $hz > $CPU_HZ || return 1
		elif [ $hz != 0 ]; then
			echo "# $name: this module has no CPU samples"
			return 1
		fi
		f=go1.11
		case $c in *-v2) f=go1.23 ;; esac
		echo $f > $FORMAT || return 1
		./gtctl rec /tmp/gotrace.trace > /tmp/gotrace.status &
		reader=$!
		sleep 0.3
		res=$(run_workload "$w")
		echo stop > /dev/gotrace 2>/dev/null
		wait $reader
		echo Y > $KSTACKS
		[ ! -e $WAKE_KSTACKS ] || echo Y > $WAKE_KSTACKS
		[ -z "$US_DEFAULT" ] || [ ! -e $USTACKS ] ||
			echo "$US_DEFAULT" > $USTACKS
		echo go1.23 > $FORMAT
		[ ! -e $CPU_HZ ] || echo 0 > $CPU_HZ
		emit "$name round=$r workload=$w" \
			"file=$(wc -c < /tmp/gotrace.trace)" \
			"$(cat /tmp/gotrace.status)"
		rm -f /tmp/gotrace.trace
		;;
	ftrace)
		echo 0 > $T/tracing_on
		echo > $T/trace
		echo 1 > $T/tracing_on
		pids=
		i=0
		while [ $i -lt "$NCPU" ]; do
			cat $T/per_cpu/cpu$i/trace_pipe_raw > /tmp/ftrace.$i &
			pids="$pids $!"
			i=$((i + 1))
		done
		sleep 0.1
		ftrace_events 1 || return 1
		sleep 0.2
		res=$(run_workload "$w")
		ftrace_events 0
		sleep 0.5
		# shellcheck disable=SC2086
		kill $pids
		# shellcheck disable=SC2086
		wait $pids 2>/dev/null
		emit "ftrace round=$r workload=$w" \
			"file=$(cat /tmp/ftrace.* | wc -c)" "$(ftrace_stats)" \
			"$(./ftpages /tmp/ftrace.*)"
		rm -f /tmp/ftrace.*
		;;
	bpf)
		# The workload is the recording's COMMAND: it starts once the
		# programs are loaded and attached, and its end stops the
		# recording.  The summary line gives the events and the losses.
		# In go 1.11, as the gotrace row: gotrace record's default is
		# the module's format parameter, which the configuration run
		# before left as it was.
		# shellcheck disable=SC2046
		res=$(./gotrace record --backend bpf --format go1.11 \
			-o /tmp/bpf.trace -- \
			$(workload_cmd "$w") 2> /tmp/bpf.err |
			sed 's/^[^ ]* //')
		sum=$(grep 'backend bpf' /tmp/bpf.err)
		[ -n "$sum" ] || { cat /tmp/bpf.err; return 1; }
		emit "bpf round=$r workload=$w" \
			"file=$(wc -c < /tmp/bpf.trace)" \
			"events=$(echo "$sum" | sed 's/.* \([0-9]*\) events,.*/\1/')" \
			"lost=$(echo "$sum" | sed 's/.* \([0-9]*\) lost,.*/\1/')"
		rm -f /tmp/bpf.trace
		;;
	esac
	emit "run round=$r config=$name workload=$w $res"
	if [ "$name" != "$c" ]; then
		rmmod gotrace && insmod /gotrace.ko || return 1
	fi
}

emit "info release=$(uname -r) cpus=$NCPU ms=$MS rounds=$ROUNDS" \
	"ftrace_buffer_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' \
		$T/buffer_size_kb)" \
	"gotrace_chunks=$(cat /sys/module/gotrace/parameters/chunks)" \
	"gotrace_flush_ms=$(cat /sys/module/gotrace/parameters/flush_ms)" \
	"gotrace_generation_ms=$(cat \
		/sys/module/gotrace/parameters/generation_ms 2>/dev/null)" \
	"gotrace_user_stacks=${US_DEFAULT:--}"

r=1
while [ $r -le "$ROUNDS" ]; do
	# Rotate the configurations: round r starts with the r-th.
	order=$CONFIGS
	i=1
	while [ $i -lt $r ]; do
		order="${order#* } ${order%% *}"
		i=$((i + 1))
	done
	for w in $WORKLOADS; do
		for c in $order; do
			run_config "$c" "$w" "$r" ||
				{ echo "# $c $w failed"; exit 1; }
		done
	done
	r=$((r + 1))
done

# The ramps: events per second per CPU that a gotrace session sustains
# with its default pool, under more and more getppid loops (the densest
# events) and hackbench groups, each until a session loses something.
# "starved" is the getppid ramp with the reader at nice 19: how much load
# the default pool absorbs when its reader barely gets a CPU.  A go 1.23
# session does not stop when it overflows: it counts what it loses and
# goes on, so there the first lost event ends the ramp.
ramp() {
	load=$1
	format=$2
	shift 2
	prio=0
	[ "$load" = starved ] && prio=19
	name=$load
	[ "$format" = go1.11 ] || name=$load-v2
	for n in "$@"; do
		[ "$n" = none ] && return
		echo "$format" > $FORMAT
		./gtctl rec /tmp/gotrace.trace $prio > /tmp/gotrace.status &
		reader=$!
		sleep 0.3
		before=$(./gtctl status | sed 's/.* events=\([0-9]*\).*/\1/')
		case $load in
		getppid|starved) res=$(./getppid "$MS" "$n") ;;
		hackbench)	res=$(./hackbench "$MS" "$n" 10) ;;
		esac
		after=$(./gtctl status | sed 's/.* events=\([0-9]*\).*/\1/')
		# A session that ended by itself may be gone already.
		[ "${after:-0}" -ge "${before:-0}" ] || after=$before
		echo stop > /dev/gotrace 2>/dev/null
		wait $reader
		echo go1.23 > $FORMAT
		st=$(cat /tmp/gotrace.status)
		rm -f /tmp/gotrace.trace
		emit "ramp load=$name n=$n ${res#* }" \
			"window_events=$((after - before)) $st"
		case $st in
		*" stop_reason=1 "*" lost_events=0 chunk_overflows=0 "*) ;;
		*) break ;;
		esac
	done
}

for f in $RAMP_FORMATS; do
	# shellcheck disable=SC2086
	ramp getppid "$f" $RAMP_GETPPID
	# shellcheck disable=SC2086
	ramp hackbench "$f" $RAMP
	# shellcheck disable=SC2086
	ramp starved "$f" $RAMP_STARVED
done
exit 0
