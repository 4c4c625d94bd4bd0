# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh - helpers of the shell tests (sourced).  Exit codes follow
# kselftest: 0 pass, 1 fail, 4 skip.
#
# A test waits on what the device reports (the status directory, one
# value per file, and gotrace status for each CPU's), never for a
# fixed time: every wait is wait_until, bounded.  Whatever it started in
# the background and registered with cleanup_on_exit is stopped when it
# exits, failed or not, and what it registered with on_exit is undone: a
# reader left reading would keep the session, and its console, open until
# the VM times out.

GT_DEV=/dev/gotrace
GT_STATUS=/sys/class/misc/gotrace/status
GT_OUT=${GT_OUT:-/out}
GT_HEADER_HEX=676f20312e3233207472616365000000
gt_cleanup_pids=
gt_exit_cmds=

# GT_BACKEND: what records the ground-truth workloads of record_while:
# kmod (the default: cat reads the device) or bpf (gotrace record
# --backend bpf).  The guest's init sets it for the tests its list names
# bpf:NAME; their traces go to $GT_OUT/bpf, where the host checks them
# against their ground truth as it checks the module's.  A guest where
# the BPF backend cannot run (no BTF, a gotrace built without it, bpf()
# refused) skips them, and says why.
GT_BACKEND=${GT_BACKEND:-kmod}
# Options of the BPF recordings (set_syscalls).
GT_BPF_OPTS=
# GT_FORMAT: the format recorded, go1.23 (the module's default:
# generations) or go1.11.  The guest's init sets go1.11 for the tests its
# list names go111:NAME: it sets the module's format parameter (which
# gotrace record follows, whichever its backend) before the test and
# back to go1.23 after it, and gives it GT_OUT=/out/go111, which the host
# checks as it checks the others.  Run by hand, a test sets the
# parameter itself (below) and puts it back when it exits.
GT_FORMAT=${GT_FORMAT:-go1.23}
GT_FORMAT_PARAM=/sys/module/gotrace/parameters/format

fail() {
	echo "FAIL: $*"
	exit 1
}

# wait_until 'CONDITION' TENTHS: until the shell command CONDITION
# succeeds, at most TENTHS tenths of a second; 1 if it never did.  On a
# slow kernel (KASAN and lockdep under emulation, on a loaded host) the
# VM harness sets GT_TIME_SCALE, and every bound is that many times
# longer: a bound is there to end a hang, not to time the kernel.
wait_until() {
	wu_i=0
	wu_max=$(($2 * ${GT_TIME_SCALE:-1}))
	until eval "$1"; do
		[ "$wu_i" -ge "$wu_max" ] && return 1
		sleep 0.1
		wu_i=$((wu_i + 1))
	done
	return 0
}

# cleanup_on_exit PID...: stop these when the test exits.  A session is
# stopped the documented way first, so that its reader ends by itself.
cleanup_on_exit() {
	gt_cleanup_pids="$gt_cleanup_pids $*"
}

# on_exit 'COMMAND': run COMMAND when the test exits, after the processes
# of cleanup_on_exit are gone (to put back a knob or a CPU).
on_exit() {
	gt_exit_cmds="$gt_exit_cmds
$1"
}

# make_unit NAME: the cgroup systemd would give the unit NAME,
# /sys/fs/cgroup/NAME (cgroup2 mounted first if it is not), in $unit,
# removed when the test exits.
make_unit() {
	grep -q "^[^ ]* /sys/fs/cgroup cgroup2 " /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup ||
		fail "cannot mount cgroup2"
	unit=/sys/fs/cgroup/$1
	mkdir -p "$unit" || fail "cannot create $unit"
	on_exit "rmdir $unit"
}

# in_unit COMMAND...: run COMMAND from a shell that the trace sees run in
# the root cgroup, then moved into $unit (make_unit; as a service's
# process is by systemd), which then execs COMMAND.
in_unit() {
	rm -f /tmp/in-unit.go
	mkfifo /tmp/in-unit.go || fail "mkfifo"
	sh -c 'read -r _ < /tmp/in-unit.go; exec "$@"' sh "$@" &
	iu_pid=$!
	sleep 0.2
	echo $iu_pid > "$unit/cgroup.procs" ||
		fail "cannot move $iu_pid into $unit"
	echo go > /tmp/in-unit.go
	wait $iu_pid || fail "'$*' in $unit failed"
}

gt_cleanup() {
	left=
	for p in $gt_cleanup_pids; do
		kill -0 "$p" 2>/dev/null && left="$left $p"
	done
	if [ -n "$left" ]; then
		echo stop > $GT_DEV 2>/dev/null
		# A BPF recording stops at its signal.
		[ "$GT_BACKEND" = bpf ] && kill -INT $left 2>/dev/null
		for p in $left; do
			wait_gone "$p" 50 || kill -9 "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		done
		echo "# stopped what the test left running:$left"
	fi
	eval "$gt_exit_cmds"
	return 0
}
trap gt_cleanup EXIT

# The first 16 bytes of $1 must be the Go trace header.
check_header() {
	[ "$(head -c 16 "$1" | od -An -tx1 | tr -d ' \n')" = \
		"$GT_HEADER_HEX" ] || fail "$1 does not start with the header"
}

# trace_has FILE STRING: FILE (a trace) holds STRING, in its string
# table, say.  Not "grep -F STRING FILE": busybox's grep compares each
# line as a C string, so it misses a match after a NUL byte on the same
# "line" of a binary file, and a trace's lines are full of them.
trace_has() {
	tr '\0' '\n' < "$1" | grep -qF -- "$2"
}

# Wait up to $2 tenths of a second for process $1 to end.
wait_gone() {
	wait_until "! kill -0 $1 2>/dev/null" "$2"
}

# in_state STATE: the status directory says the session is in STATE.
in_state() {
	[ "$(status_of state)" = "$1" ]
}

# status_all: every file of the status directory, as "NAME:VALUE" lines,
# for a failure's message.
status_all() {
	(cd $GT_STATUS && grep -H . ./*) | sed 's,^\./,,'
}

# wait_state STATE: wait up to 30 s for the session to be in STATE
# ("recording", "idle", ...) as the status file says.
wait_state() {
	wait_until "in_state $1" 300 ||
		fail "the session is not $1 after 30 s: $(status_of state)"
}

# status_of KEY: the value of KEY in the status directory.
status_of() {
	cat "$GT_STATUS/$1" 2>/dev/null
}

# read_rest OUT: a reader appends the rest of the session open on fd 3
# to OUT in the background ($reader), fd 3 closed here; returns once it
# has ended the generation the buffers filled (its first read does) and
# that generation is written.  For tests that let the buffers fill
# with no reader.
read_rest() {
	cat <&3 >> "$1" &
	reader=$!
	exec 3<&-
	cleanup_on_exit $reader
	wait_until '[ "$(status_of generations)" -ge 1 ]' 300 ||
		fail "no generation written within 30 s of the reader's start"
}

# wait_file FILE: wait up to 30 s until FILE exists.
wait_file() {
	wait_until "[ -e '$1' ]" 300 || fail "$1 did not appear within 30 s"
}

# still_recording WHEN: the session must still be recording, having lost
# nothing; WHEN says when, in the failure message.
still_recording() {
	[ "$(status_of state)" = recording ] &&
		[ "$(status_of lost_events)" = 0 ] || {
		status_all
		fail "the session stopped or lost events $1"
	}
}

# wait_comm PID COMM: wait up to 30 s for process PID to call itself COMM.
wait_comm() {
	wait_until "comm_is $1 '$2' || ! kill -0 $1 2>/dev/null" 300 ||
		fail "process $1 is not $2 after 30 s"
	comm_is "$1" "$2" || fail "process $1 ended before it called itself $2"
}

comm_is() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# cpu_json: gotrace status --json's line of each CPU of the session:
#     { "cpu": N, "online": BOOL, "running": BOOL, "events": N, ... }
cpu_json() {
	./gotrace status --json | grep '^ *{ "cpu": '
}

# cpu_events: "cpuN EVENTS" for every online CPU, as
# GOTRACE_IOC_GET_CPU_STATUS says.
cpu_events() {
	cpu_json | sed -n 's/.*"cpu": \([0-9]*\), "online": true, .*"events": \([0-9]*\),.*/cpu\1 \2/p'
}

# cpu_state N: "ONLINE RUNNING" of CPU N in the session ("true false":
# online, its P stopped); nothing for a CPU the session has no P of.
cpu_state() {
	cpu_json | sed -n "s/.*\"cpu\": $1, \"online\": \([a-z]*\), \"running\": \([a-z]*\),.*/\1 \2/p"
}

# bpf_skip_reason: why the BPF backend cannot record here (nothing if
# it can).  The first call tries a short recording; later ones, in the
# same boot, read its verdict.
bpf_skip_reason() {
	if [ ! -e /tmp/bpf-usable ]; then
		if [ ! -r /sys/kernel/btf/vmlinux ]; then
			echo "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
		elif ! ./gotrace bpf-dump -h >/dev/null 2>&1; then
			echo "the guest's gotrace was built without the BPF backend"
		elif ! ./gotrace record --backend bpf -q -d 0.1 \
				-o /tmp/bpf-probe.trace >/tmp/bpf-probe.err 2>&1; then
			echo "gotrace record --backend bpf fails here: $(head -n 3 /tmp/bpf-probe.err)"
		fi > /tmp/bpf-usable
	fi
	cat /tmp/bpf-usable
}

# use_header FORMAT: check_header expects the header of FORMAT (go1.11
# or go1.23).
use_header() {
	case $1 in
	go1.11) GT_HEADER_HEX=676f20312e3131207472616365000000 ;;
	go1.23) GT_HEADER_HEX=676f20312e3233207472616365000000 ;;
	*) fail "unknown format '$1'" ;;
	esac
}

# use_format FORMAT: the module writes FORMAT (go1.11 or go1.23) in the
# sessions opened from now on, and gotrace record, whichever its
# backend, as well; check_header expects its header.  Put back as it
# was when the test exits.
use_format() {
	use_header "$1"
	[ -e $GT_FORMAT_PARAM ] ||
		fail "the module has no format parameter ($GT_FORMAT_PARAM)"
	uf_was=$(cat $GT_FORMAT_PARAM)
	[ "$1" = "$uf_was" ] || on_exit "echo $uf_was > $GT_FORMAT_PARAM"
	echo "$1" > $GT_FORMAT_PARAM || fail "cannot set format=$1"
	[ "$(cat $GT_FORMAT_PARAM)" = "$1" ] ||
		fail "format reads back '$(cat $GT_FORMAT_PARAM)', not $1"
}

# The guest's init has set the parameter already; a test run by hand
# (or one that finds no module, with the default) has not.
if [ -e $GT_FORMAT_PARAM ] || [ "$GT_FORMAT" != go1.23 ]; then
	use_format "$GT_FORMAT"
else
	use_header "$GT_FORMAT"
fi

if [ "$GT_BACKEND" = bpf ]; then
	gt_why=$(bpf_skip_reason)
	if [ -n "$gt_why" ]; then
		echo "SKIP: $gt_why"
		exit 4
	fi
	GT_OUT=$GT_OUT/bpf
	mkdir -p "$GT_OUT" || fail "cannot create $GT_OUT"
fi

# set_syscalls MODE: the syscalls of the next recordings (all, blocking,
# none): the module's parameter, or the BPF recording's --syscalls.
set_syscalls() {
	if [ "$GT_BACKEND" = bpf ]; then
		GT_BPF_OPTS="--syscalls $1"
		return
	fi
	echo "$1" > /sys/module/gotrace/parameters/syscalls ||
		fail "cannot set syscalls=$1"
	[ "$(cat /sys/module/gotrace/parameters/syscalls)" = "$1" ] ||
		fail "syscalls reads back '$(cat /sys/module/gotrace/parameters/syscalls)'"
}

# sysnr NAME: the number of syscall NAME on the guest's architecture,
# for what the kernel shows by number (/proc/PID/syscall, the summary of
# a syscall trigger).  Only the syscalls the tests look for; an unknown
# name or architecture fails the test.
sysnr() {
	case $(uname -m)/$1 in
	x86_64/write)	echo 1 ;;
	x86_64/getppid)	echo 110 ;;
	aarch64/write)	echo 64 ;;
	aarch64/getppid) echo 173 ;;
	*)		fail "no syscall number of $1 on $(uname -m)" ;;
	esac
}

# online_cpus: the numbers of the online CPUs.
online_cpus() {
	for oc_d in /sys/devices/system/cpu/cpu[0-9]*; do
		[ "$(cat "$oc_d/online" 2>/dev/null)" = 0 ] && continue
		echo "${oc_d##*/cpu}"
	done
}

# settle: every online CPU has switched to another task, and recorded
# that, since the command before ended.  A task its parent has reaped may
# not have made its last switch yet (its GoEnd); once its CPU has run
# something else, it has.
settle() {
	# The BPF programs write each switch as it happens: once a CPU ran
	# something else, its record is in that CPU's ring.
	if [ "$GT_BACKEND" = bpf ]; then
		for cpu in $(online_cpus); do
			taskset -c "$cpu" true || fail "cannot run on CPU $cpu"
		done
		return
	fi
	before=$(cpu_events)
	for cpu in $(echo "$before" | awk '{ print substr($1, 4) }'); do
		taskset -c "$cpu" true || fail "cannot run on CPU $cpu"
	done
	wait_until 'cpus_moved_on "$before"' 300 ||
		fail "a CPU recorded nothing for 30 s: $(cpu_events | tr '\n' ' ')"
}

# cpus_moved_on BEFORE: every online CPU has recorded events since
# cpu_events printed BEFORE.
cpus_moved_on() {
	cpu_events | awk -v before="$1" '
		BEGIN { n = split(before, b, "\n")
			for (k = 1; k <= n; k++) { split(b[k], f, " "); was[f[1]] = f[2] } }
		!($1 in was) || $2 <= was[$1] { stale = 1 }
		END { exit stale }'
}

# record_while OUT COMMAND...: record into OUT while COMMAND runs, the
# documented way: cat reads the device, and once COMMAND has ended
# another process writes "stop"; cat then gets the rest and end of file.
record_while() {
	rw_out=$1
	shift
	if [ "$GT_BACKEND" = bpf ]; then
		record_while_bpf "$rw_out" "$@"
		return
	fi
	cat $GT_DEV > "$rw_out" &
	rw_reader=$!
	cleanup_on_exit $rw_reader
	wait_state recording
	"$@" || fail "'$*' failed"
	settle
	echo stop > $GT_DEV || fail "echo stop failed"
	wait_gone $rw_reader 300 || fail "cat did not end within 30 s of stop"
	wait $rw_reader || fail "cat exited with $?"
	check_header "$rw_out"
	echo "$(basename "$rw_out"): $(wc -c < "$rw_out") bytes"
}

# record_while_bpf OUT COMMAND...: record_while with the BPF backend.
# gotrace record runs a shell that says it started, which it does once
# the recording has, and waits on a FIFO; once COMMAND has ended and the
# CPUs settled, a write to the FIFO ends that shell, and with it the
# recording.
record_while_bpf() {
	rw_out=$1
	shift
	rm -f /tmp/rw.up /tmp/rw.fifo
	mkfifo /tmp/rw.fifo || fail "mkfifo"
	# shellcheck disable=SC2086
	./gotrace record --backend bpf --format "$GT_FORMAT" $GT_BPF_OPTS \
		-o "$rw_out" -- \
		sh -c ': > /tmp/rw.up; read -r _ < /tmp/rw.fifo' \
		> /tmp/rw.err 2>&1 &
	rw_reader=$!
	cleanup_on_exit $rw_reader
	wait_until "[ -e /tmp/rw.up ] || ! kill -0 $rw_reader 2>/dev/null" 300 ||
		fail "gotrace record --backend bpf did not start within 30 s"
	[ -e /tmp/rw.up ] ||
		fail "gotrace record --backend bpf ended: $(cat /tmp/rw.err)"
	"$@" || fail "'$*' failed"
	settle
	echo > /tmp/rw.fifo || fail "cannot end the recording's command"
	wait_gone $rw_reader 300 ||
		fail "gotrace record did not end within 30 s of its command"
	wait $rw_reader || fail "gotrace record exited with $?: $(cat /tmp/rw.err)"
	cat /tmp/rw.err
	check_header "$rw_out"
	echo "$(basename "$rw_out"): $(wc -c < "$rw_out") bytes"
}

# bpf_misses: how many tracepoint hits the last record_while skipped
# because their BPF program was already running on their CPU (a task
# preempted inside it: Linux 7.x runs tracepoint programs preemptible),
# as its summary counts them among the lost events; 0 for the module.
# Each costs at most one event, of any task: an expectation may fall
# short by that many, and no more.
bpf_misses() {
	bm=
	[ "$GT_BACKEND" = bpf ] && bm=$(sed -n \
		's/.* \([0-9][0-9]*\) tracepoint hits found their program busy.*/\1/p' \
		/tmp/rw.err)
	echo "${bm:-0}"
}
