# SPDX-License-Identifier: GPL-2.0
#
# irq_counts.awk - a recording's interrupts against the kernel's counts
# (tests/bpf_irq_test.sh)
#
#   awk -v d=NS -v blind=BLIND -f irq_counts.awk W.times W.soft0 W.soft1 \
#	W.irq0 W.irq1 EVENTS
#
# W.*: tests/irq_workload.c's readings of /proc/softirqs and
# /proc/interrupts and their times.  EVENTS: the interrupts' entries of
# the recording, one a line: "TS CPU KIND ID NAME", KIND softirq (ID the
# softirq's number), hardirq (ID the IRQ, NAME its action's) or vector
# (ID enum gt_in_vector).
#
# The kernel read each count at an instant between the times stamped
# before and after its file's read, and counts an interrupt a little
# before its entry's tracepoint (a softirq, a hard IRQ) or a little
# after it (x86's vectors count inside their handler): at most d ns
# apart (a hard IRQ between the two, the vCPU descheduled).  So an
# entry stamped within the window, at least d inside its ends, is
# surely in the difference of the two readings ("sure"), and one
# outside the window widened by d on both sides surely is not: the
# difference lies between the sure count and the possible one.  For
# each count of the files that the recording can tell (a softirq of a
# CPU, a hard IRQ of a single handler, the local timer, reschedule,
# function call and IRQ work vectors) one line:
#
#   KIND ROW CPU DIFF SURE POSSIBLE NAME-OK BLIND
#
# ROW: the softirq's name, the IRQ's number, or LOC, RES, CAL, IWI;
# NAME-OK: 1 if every entry of a hard IRQ named it as /proc/interrupts
# does (1 where there is no name to compare).  BLIND: lines "CPU START
# END" of times when the recording may have missed what the CPU did (a
# task ran whose switch away the kernel never reported, and while which
# it ran no BPF program: Documentation/bpf-backend.rst); 1 if one
# overlaps the window of the row's file: its counts are not comparable.

BEGIN {
	split("HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU", sn, " ")
	for (i = 1; i <= 10; i++)
		soft_id[sn[i]] = i - 1
	# enum gt_in_vector -> the row of /proc/interrupts (x86)
	vec_row[0] = "LOC"; vec_row[1] = "RES"; vec_row[2] = "CAL"
	vec_row[3] = "CAL"; vec_row[4] = "IWI"
	nblind = 0
	while (blind != "" && (getline line < blind) > 0) {
		split(line, f, " ")
		bcpu[++nblind] = f[1]; bstart[nblind] = f[2]; bend[nblind] = f[3]
	}
}

# Was @cpu blind for a while in the window of @w ("soft", "irq")?
function is_blind(w, cpu,   i) {
	for (i = 1; i <= nblind; i++)
		if (bcpu[i] == cpu && bstart[i] <= after[w "1"] + d &&
		    bend[i] >= before[w "0"] - d)
			return 1
	return 0
}

FNR == 1 { file++ }

# The times: "soft0 BEFORE AFTER" ...
file == 1 && NF == 3 { before[$1] = $2; after[$1] = $3; next }

# /proc/softirqs: "CPU0 CPU1 ..." then "NAME: counts".
(file == 2 || file == 3) && FNR == 1 { ncpu_s = NF; next }
(file == 2 || file == 3) {
	name = $1; sub(/:$/, "", name)
	if (!(name in soft_id))
		next
	for (c = 0; c < ncpu_s; c++)
		count[file == 2 ? 0 : 1, "softirq", name, c] = $(c + 2)
	rows["softirq", name] = 1
	next
}

# /proc/interrupts: "CPU0 CPU1 ..." then "N: counts chip ... name" or
# "LOC: counts text".
(file == 4 || file == 5) && FNR == 1 { ncpu_i = NF; next }
(file == 4 || file == 5) {
	row = $1; sub(/:$/, "", row)
	if (row ~ /^[0-9]+$/) {
		# A shared IRQ names its handlers "a, b": one entry each.
		if (NF < ncpu_i + 2 || $0 ~ /,/)
			next
		kind = "hardirq"
		irq_name[row] = $NF
	} else if (row == "LOC" || row == "RES" || row == "CAL" || row == "IWI") {
		kind = "vector"
	} else {
		next
	}
	for (c = 0; c < ncpu_i; c++)
		count[file == 4 ? 0 : 1, kind, row, c] = $(c + 2)
	rows[kind, row] = 1
	next
}

# The recording's entries.
file == 6 {
	ts = $1; cpu = $2; kind = $3; id = $4
	if (kind == "softirq") {
		if (id < 0 || id > 9)
			next
		row = sn[id + 1]; w = "soft"
	} else if (kind == "hardirq") {
		row = id; w = "irq"
		nm = $5
		if ((row in irq_name) && nm != irq_name[row])
			misnamed[row] = 1
	} else if (kind == "vector") {
		if (!(id in vec_row))
			next
		row = vec_row[id]; w = "irq"
	} else {
		next
	}
	if (ts >= after[w "0"] + d && ts <= before[w "1"] - d)
		sure[kind, row, cpu]++
	if (ts >= before[w "0"] - d && ts <= after[w "1"] + d)
		possible[kind, row, cpu]++
}

END {
	for (k in rows) {
		split(k, kr, SUBSEP)
		n = kr[1] == "softirq" ? ncpu_s : ncpu_i
		for (c = 0; c < n; c++) {
			if (!((1, kr[1], kr[2], c) in count))
				continue
			diff = count[1, kr[1], kr[2], c] - count[0, kr[1], kr[2], c]
			printf "%s %s %d %d %d %d %d %d\n", kr[1], kr[2], c, diff,
				sure[kr[1], kr[2], c] + 0,
				possible[kr[1], kr[2], c] + 0,
				!(kr[2] in misnamed),
				is_blind(kr[1] == "softirq" ? "soft" : "irq", c)
		}
	}
}
