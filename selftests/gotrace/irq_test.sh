#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interrupts (--interrupts all, Documentation/interrupts.rst): irqload
# runs a known load of interrupts in a window bracketed by two reads of
# /proc/softirqs and /proc/interrupts, recorded by either backend
# (bpf:irq_test.sh), while its thread irqspin spins on the last online
# CPU:
#   - UDP datagrams to itself over loopback, whose receive RPS steers to
#     the spinner's CPU (NET_RX softirqs there, and the IPIs that raise
#     them), and a timerfd at a known rate (TIMER, HRTIMER);
#   - O_DIRECT reads of the virtio disk the harness attaches (its
#     interrupts; BLOCK softirqs);
#   - writes to /proc/sys/vm/stat_refresh, each of which runs the work
#     item refresh_vm_stats on every online CPU's kworker.
# The host (selftests/check-irq.sh, irq.irq) holds the trace to that
# ground truth: per CPU, its softirq entries of each kind in the window
# equal /proc/softirqs' difference, and per virtio IRQ its entries
# /proc/interrupts'; the kworkers' regions name refresh_vm_stats once
# per write and CPU; the spinner's running time is its CPU time less
# the interrupts it took (Debian's kernels charge a task the interrupts
# that interrupt it: no CONFIG_IRQ_TIME_ACCOUNTING), within 5%.
# Here: the recording succeeds, the workload's datagrams all arrive,
# and the trace names the interrupts it ran.
. ./lib.sh

cpus=$(online_cpus)
# shellcheck disable=SC2086 # one CPU number a word
set -- $cpus
[ $# -ge 2 ] || { echo "SKIP: one CPU online: no CPU to spin on beside the sender's"; exit 4; }
send_cpu=$1
spin_cpu=$(echo "$cpus" | tail -n 1)

if [ "$GT_BACKEND" = kmod ]; then
	backend=
	# The module says once, when it loads, which of the optional
	# tracepoints this kernel lacks.
	missing=$(dmesg | grep 'gotrace: tracepoint .* not found')
	if [ -n "$missing" ]; then
		echo "$missing" | sed 's/^/# /'
	else
		echo "# every interrupt tracepoint of $(uname -m) found"
	fi
else
	backend="--backend bpf $GT_BPF_OPTS"
fi

# Loopback's receive on the spinner's CPU (rps_cpus: a hex mask).
rps=/sys/class/net/lo/queues/rx-0/rps_cpus
# The kernel refuses a mask of isolated CPUs only (isolcpus=, the
# @isolated boot): there the receive stays on the sender's CPU too.
if [ -w $rps ]; then
	rps_was=$(cat $rps)
	if printf '%x\n' $((1 << spin_cpu)) > $rps 2>/dev/null; then
		on_exit "echo $rps_was > $rps"
	else
		echo "# $rps refuses CPU $spin_cpu (isolated): loopback's receive stays on the sender's CPU"
	fi
else
	echo "# no $rps: loopback's receive stays on the sender's CPU"
fi

# A kernel without IPv4 (the debug kernel's configuration): no datagrams.
packets=1000
if [ ! -d /proc/sys/net/ipv4 ]; then
	echo "# no IPv4 in this kernel: no datagrams, no NET_RX in the window"
	packets=0
fi

disk=/dev/vda
reads=200
if [ ! -b $disk ]; then
	echo "# no disk $disk: no virtio block interrupts in the window"
	disk=-
	reads=0
fi

# 1000 datagrams (where IPv4 is), 3 stat_refresh writes, 200 disk reads, a 500 Hz timerfd
# for 0.5 s: 6 to 8 s under emulation (each datagram waits for the other
# vCPU's turn).
# shellcheck disable=SC2086 # $backend: options, split
./gotrace record $backend --interrupts all -o "$GT_OUT/irq.trace" -- \
	./irqload /tmp/irq.truth $packets 500 250 3 $disk $reads "$send_cpu" "$spin_cpu" \
	> /tmp/irq.out 2> /tmp/irq.err ||
	fail "gotrace record --interrupts all failed: $(cat /tmp/irq.out /tmp/irq.err)"
cat /tmp/irq.out /tmp/irq.err
check_header "$GT_OUT/irq.trace"
{ echo "online $*"; cat /tmp/irq.truth; } > "$GT_OUT/irq.irq" ||
	fail "cannot write the ground truth"
grep -q '^window ' "$GT_OUT/irq.irq" || fail "irqload wrote no window"

# Every kind the window drove, by the name its goroutines carry; NET_RX
# where the kernel ran it (PREEMPT_RT from 6.10 receives loopback's
# datagrams in a thread per CPU instead, backlog_napi).
net_rx=$(awk '/^@softirqs[01]$/ { s = $1 } $1 == "NET_RX:" {
	for (i = 2; i <= NF; i++) n[s] += $i } END { print n["@softirqs1"] - n["@softirqs0"] }' \
	"$GT_OUT/irq.irq")
echo "# NET_RX softirqs in the window: $net_rx"
names="'[softirq] TIMER' '[irq] local timer' '[work] refresh_vm_stats'"
[ "$net_rx" -gt 0 ] && names="$names '[softirq] NET_RX'"
eval "set -- $names"
for name in "$@"; do
	case $(uname -m)/$name in
	# arm64's local timer is a numbered IRQ (arch_timer).
	aarch64/'[irq] local timer') name='arch_timer' ;;
	esac
	trace_has "$GT_OUT/irq.trace" "$name" ||
		fail "the trace names no '$name'"
done
exit 0
