# SPDX-License-Identifier: GPL-2.0
#
# report.awk RESULTS - the benchmark's table from the guest's raw numbers
# (bench/guest-bench.sh).  Plain POSIX awk (Debian's mawk).
#
# Per workload and configuration: the median over the rounds of ns per
# iteration, and its ratio to the median without tracing.  Then gotrace's
# added cost (its median minus no tracing's) over ftrace's and over the
# empty probes', the bytes per event each tracer wrote to its files, and
# the ramp: events per second per CPU of each gotrace session under more
# and more hackbench groups, and the highest one that lost nothing.

function kv(    i, p) {
	delete f
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p)
			f[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}

function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0)
		return -1
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (n % 2)
		return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

function addw(w) {
	if (!(w in seenw)) {
		seenw[w] = 1
		wl[++nw] = w
	}
}

function ratio(a, b) {
	return b > 0 ? sprintf("%.2f", a / b) : "-"
}

$1 == "info" {
	kv()
	release = f["release"]; cpus = f["cpus"]; ms = f["ms"]
	rounds = f["rounds"]; fbuf = f["ftrace_buffer_kb"]
	chunks = f["gotrace_chunks"]; flush = f["gotrace_flush_ms"]
}

$1 == "run" {
	kv()
	addw(f["workload"])
	if (f["iters"] > 0) {
		k = f["config"] SUBSEP f["workload"]
		v[k] = v[k] " " f["ns"] / f["iters"]
		nruns[k]++
		it[f["config"], f["workload"], f["round"]] = f["iters"]
	}
}

$1 == "empty" {
	kv()
	hits[f["workload"], f["round"]] = f["hits"]
}

# A gotrace session, with or without kernel stacks: its file and status.
$1 == "gotrace" || $1 == "nostacks" {
	kv()
	k = $1 SUBSEP f["workload"]
	gfile[k] += f["file"]; gev[k] += f["events"]
	glost[k] += f["lost"] + f["overflows"] + f["task_overflows"] + \
		f["stack_overflows"]
}

# A BPF recording: its file and summary line.
$1 == "bpf" {
	kv()
	w = f["workload"]
	bfile[w] += f["file"]; bev[w] += f["events"]; blost[w] += f["lost"]
}

$1 == "ftrace" {
	kv()
	w = f["workload"]
	ffile[w] += f["file"]; fpay[w] += f["payload"]
	fev[w] += f["events"] != "" ? f["events"] : f["read"]
	flost[w] += f["overrun"] + f["dropped"]
}

$1 == "ramp" {
	kv()
	nr++
	rl[nr] = f["load"]
	rg[nr] = f["n"]
	rrate[nr] = f["ns"] > 0 ? \
		f["window_events"] / (f["ns"] / 1e9) / f["cpus"] : 0
	rlost[nr] = f["lost"] + f["overflows"] + f["task_overflows"] + \
		f["stack_overflows"]
	rstop[nr] = f["stop"]
	rmbs[nr] = f["ns"] > 0 ? \
		f["window_events"] * (f["events"] > 0 ? \
		f["bytes"] / f["events"] : 0) / (f["ns"] / 1e3) : 0
	chunksused = f["chunks"]
	rev[nr] = f["events"]
}

END {
	ncl = split("none empty gotrace nostacks ftrace bpf", cl, " ")
	printf "gotrace benchmark: Linux %s, %s vCPUs (QEMU TCG), " \
		"%s rounds of %s ms, medians\n\n", release, cpus, rounds, ms

	printf "%-10s %-8s %12s %9s %6s\n", "workload", "config", \
		"ns/iter", "x none", "runs"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		base = median(v["none", w])
		for (j = 1; j <= ncl; j++) {
			c = cl[j]
			if (!((c, w) in v))
				continue
			m = median(v[c, w])
			med[c, w] = m
			printf "%-10s %-8s %12.1f %9s %6d\n", w, c, m, \
				ratio(m, base), nruns[c, w]
		}
	}

	printf "\n%-10s %-9s %15s %15s %15s\n", "workload", "config", \
		"/ftrace", "/empty", "tp hits/iter"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		base = med["none", w]
		ft = med["ftrace", w] - base
		e = med["empty", w] - base
		hl = ""
		for (r = 1; r <= rounds; r++)
			if (((w, r) in hits) && it["empty", w, r] > 0)
				hl = hl " " hits[w, r] / it["empty", w, r]
		for (j = 3; j <= ncl; j++) {
			c = cl[j]
			if (c == "ftrace")
				continue
			if (!((c, w) in med))
				continue
			g = med[c, w] - base
			printf "%-10s %-9s %15s %15s %15s\n", w, c, \
				(ft > 0) ? sprintf("%.2f", g / ft) : "-", \
				(e > 0) ? sprintf("%.2f", g / e) : "-", \
				(hl != "") ? sprintf("%.2f", median(hl)) : "-"
		}
	}
	printf "(added cost of gotrace, of gotrace without kernel stacks and " \
		"of the BPF backend\n over ftrace's and the empty probes'; " \
		"added cost = median " \
		"ns/iter minus no tracing's;\n tp hits = tracepoint calls " \
		"counted by the empty probes)\n"

	printf "\n%-10s %8s %9s %5s | %8s %5s | %9s %9s %9s %7s\n", \
		"workload", "gotrace", "events", "lost", "nostacks", "lost", \
		"ftrace", "ftrace", "events", "lost"
	printf "%-10s %8s %9s %5s | %8s %5s | %9s %9s\n", "", "B/event", \
		"", "", "B/event", "", "B/ev disk", "B/ev data"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		g = "gotrace" SUBSEP w
		n = "nostacks" SUBSEP w
		printf "%-10s %8s %9d %5d | %8s %5d | %9s %9s %9d %7d\n", w, \
			(gev[g] > 0) ? sprintf("%.2f", gfile[g] / gev[g]) : "-", \
			gev[g], glost[g], \
			(gev[n] > 0) ? sprintf("%.2f", gfile[n] / gev[n]) : "-", \
			glost[n], \
			(fev[w] > 0) ? sprintf("%.1f", ffile[w] / fev[w]) : "-", \
			(fev[w] > 0) ? sprintf("%.1f", fpay[w] / fev[w]) : "-", \
			fev[w], flost[w]
		tgf += gfile[g]; tge += gev[g]; tff += ffile[w]; tfe += fev[w]
		tfp += fpay[w]; tnf += gfile[n]; tne += gev[n]
	}
	printf "%-10s %8s %9d %5s | %8s %5s | %9s %9s %9d\n", "all", \
		(tge > 0) ? sprintf("%.2f", tgf / tge) : "-", tge, "", \
		(tne > 0) ? sprintf("%.2f", tnf / tne) : "-", "", \
		(tfe > 0) ? sprintf("%.1f", tff / tfe) : "-", \
		(tfe > 0) ? sprintf("%.1f", tfp / tfe) : "-", tfe
	printf "(all rounds summed; gotrace, nostacks: file bytes / events " \
		"of its status; ftrace:\n events counted in the raw pages, " \
		"disk = file bytes (pages padded by cat's\n reads), data = " \
		"page headers + committed bytes; lost: gotrace lost events\n " \
		"and overflows, ftrace overruns + drops)\n"

	nb = 0
	for (w in bev)
		nb++
	if (nb) {
		printf "\n%-10s %8s %9s %5s\n", "workload", "bpf", "events", "lost"
		printf "%-10s %8s\n", "", "B/event"
		for (i = 1; i <= nw; i++) {
			w = wl[i]
			if (!(w in bev))
				continue
			printf "%-10s %8s %9d %5d\n", w, (bev[w] > 0) ? \
				sprintf("%.2f", bfile[w] / bev[w]) : "-", \
				bev[w], blost[w]
		}
		printf "(all rounds summed; bpf: trace bytes / events of " \
			"gotrace record's summary;\n lost: records its rings " \
			"dropped and events its model had no room for)\n"
	}

	if (nr) {
		printf "\nramp: gotrace sessions, default pool (%d chunks of " \
			"64 KiB), flush %s ms\n", chunksused, flush
		printf "%-10s %6s %14s %12s %8s %9s\n", "load", "n", \
			"events/s/CPU", "file MB/s", "lost", "stop"
		for (i = 1; i <= nr; i++) {
			ok = rlost[i] == 0 && rstop[i] == 1
			printf "%-10s %6s %14s %12s %8d %9s\n", rl[i], rg[i], \
				(ok || rrate[i] > 0) ? sprintf("%.0f", rrate[i]) : "-", \
				(ok || rrate[i] > 0) ? sprintf("%.2f", rmbs[i]) : "-", \
				rlost[i], \
				rstop[i] == 1 ? "user" : \
				rstop[i] == 3 ? "OVERFLOW" : rstop[i]
			l = rl[i]
			if (!(l in best))
				best[l] = -1
			if (rlost[i] == 0 && rstop[i] == 1 && rrate[i] > best[l]) {
				best[l] = rrate[i]
				bn[l] = rg[i]
			}
			last[l] = i
		}
		printf "(n: getppid processes or hackbench groups of 10+10 " \
			"tasks; starved: getppid, reader at\n nice 19; " \
			"events/s/CPU: the session's events while the load ran; " \
			"file MB/s:\n what the reader had to write)\n"
		split("getppid hackbench starved", lo, " ")
		for (k = 1; k <= 3; k++) {
			l = lo[k]
			if (!(l in best))
				continue
			if (best[l] < 0) {
				printf "%s: every session lost events\n", l
				continue
			}
			i = last[l]
			printf "%s: highest rate with zero loss %.0f events/s " \
				"per CPU (n=%s)%s\n", l, best[l], bn[l], \
				(rlost[i] == 0 && rstop[i] == 1) ? \
				", no loss up to the heaviest load" : \
				sprintf(", loss at n=%s", rg[i])
		}
	}
}
