# SPDX-License-Identifier: GPL-2.0
#
# irq_parsed.awk - the interrupts' entries of a trace, from Go 1.27's
# `go tool trace -d=parsed` (tests/bpf_irq_test.sh)
#
# An interrupt is a goroutine of its own (Documentation/interrupts.rst),
# named by the first frame of the stack its first transition in each
# generation carries: "[softirq] NET_RX", "[irq 24] virtio0-input",
# "[irq] local timer" ...  Each start of such a goroutine is an entry, on
# the P of its line (the CPU), but where it resumes once an interrupt
# nested in it ended: the one it stopped for at once (a GoSwitch, or the
# go1.11 format's GoBlock, GoUnblock and GoStart of one time).  Prints them as
# irq_counts.awk reads them: "TS CPU KIND ID NAME".  Also, with
# -v regions=1, each user region begun instead: "TS G TYPE GNAME", GNAME
# the name of the goroutine (its task's comm) that ran it.

BEGIN {
	split("HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU", sn, " ")
	for (i = 1; i <= 10; i++)
		soft_id[sn[i]] = i - 1
	vec_id["local timer"] = 0; vec_id["reschedule IPI"] = 1
	vec_id["function call IPI"] = 2; vec_id["single function call IPI"] = 3
	vec_id["IRQ work"] = 4; vec_id["timer broadcast IPI"] = 5
	vec_id["CPU stop IPI"] = 6; vec_id["platform"] = 7
	vec_id["other IPI"] = 8
}

function val(key,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}

# What goroutine @g is: "" if no interrupt, else "TS P KIND ID NAME"
# without TS and P.
function irq_of(g,   f, k, id, nm) {
	f = name[g]
	if (f ~ /^\[softirq\] /) {
		k = substr(f, 11)
		return (k in soft_id) ? "softirq " soft_id[k] " " k : ""
	}
	if (f ~ /^\[irq [0-9]+\] /) {
		id = f; sub(/^\[irq /, "", id); sub(/\].*/, "", id)
		nm = f; sub(/^\[irq [0-9]+\] /, "", nm)
		return "hardirq " id " " nm
	}
	if (f ~ /^\[irq\] /) {
		k = substr(f, 7)
		return (k in vec_id) ? "vector " vec_id[k] " " k : ""
	}
	return ""
}

/^M=/ {
	stackfor = ""
	if ($0 ~ / StateTransition / && (g = val("GoID")) != "") {
		stackfor = g
		p = val("P")
		# An interrupt's goroutine stops: it ended, or one nested in
		# it begins at once (within 2 ns: Go's readers order the
		# events of one time a nanosecond apart).
		if ($0 ~ / Running->/ && irq_of(g) != "") {
			stopped[p] = g
			stopped_at[p] = val("Time")
		}
		# It starts at its entry, and again when one nested in it
		# ended: a P's interrupts waiting for their nested ones are
		# a stack, emptied when a task or nothing runs there.
		if ($0 ~ / Runnable->Running /) {
			what = irq_of(g)
			if (what == "") {
				depth[p] = 0
			} else {
				for (i = depth[p]; i > 0 && st[p, i] != g; i--)
					;
				if (i > 0) {
					depth[p] = i - 1
				} else {
					if (stopped[p] != "" && stopped[p] != g &&
					    val("Time") - stopped_at[p] <= 2)
						st[p, ++depth[p]] = stopped[p]
					if (!regions)
						print val("Time"), p, what
				}
			}
			stopped[p] = ""
		}
	} else if ($0 ~ / StateTransition / && $0 ~ /->Idle /) {
		depth[val("ProcID")] = 0
	} else if (regions && $0 ~ / RegionBegin /) {
		t = $0
		sub(/.* Type="/, "", t); sub(/"$/, "", t)
		nr++
		rts[nr] = val("Time"); rg[nr] = val("G"); rt[nr] = t
	}
	next
}

/^(Transition)?Stack=$/ { want = stackfor; next }

# The first frame after a transition's stack: "\tNAME @ 0xPC".
want != "" && /^\t[^\t]/ {
	f = $0
	sub(/^\t/, "", f); sub(/ @ 0x[0-9a-f]+$/, "", f)
	if (!(want in name))
		name[want] = f
	want = ""
	next
}

END {
	for (i = 1; i <= nr; i++)
		print rts[i], rg[i], rt[i] "|" name[rg[i]]
}
