# SPDX-License-Identifier: GPL-2.0
#
# report.awk RESULTS - the benchmark's table from the guest's raw numbers
# (bench/guest-bench.sh).  Plain POSIX awk (Debian's mawk).
#
# Per workload and configuration: the median over the rounds of ns per
# iteration, and its ratio to the median without tracing.  Then gotrace's
# added cost (its median minus no tracing's) over ftrace's and over the
# empty probes', the bytes per event each tracer wrote to its files, the
# two trace formats side by side (gotrace: go 1.11, gotrace-v2: go 1.23),
# user stacks off and on in each format (ustacks, ustacks-v2: the added
# cost, the bytes per event, the share of events with user frames and of
# walks cut short, from the sessions' ustack_* counters), and the ramp: events per second per CPU of each gotrace session under
# more and more hackbench groups, and the highest one that lost nothing.

function addw(w) {
	if (!(w in seenw)) {
		seenw[w] = 1
		wl[++nw] = w
	}
}

function ratio(a, b) {
	return b > 0 ? sprintf("%.2f", a / b) : "-"
}

function pct(a, b) {
	return b > 0 ? sprintf("%.1f", 100 * a / b) : "-"
}

# User stacks off and on, in each format: the added cost of each (median
# ns/iter minus no tracing's) and their ratio, the bytes per event, the
# share of events whose stack has user frames (walks that gave a frame
# / events: one walk per event that shows a task running here) and the
# share of those walks cut short, by reason.
# CPU samples at 99 and 999 Hz over the same go 1.23 session without
# them: the added cost of each (median ns/iter minus gotrace-v2's, and
# in percent of no tracing's), the samples written, of idle CPUs and
# lost, per run.
function samples_table(    i, j, w, c, k, base, v2, a) {
	hdr = 0
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		if (!(("gotrace-v2", w) in med))
			continue
		for (j = 99; j <= 999; j += 900) {
			c = "cpu" j "-v2"
			if (!((c, w) in med))
				continue
			if (!hdr++)
				printf "\nCPU samples\n%-10s %6s %10s %8s | " \
					"%8s %8s %6s\n", "workload", "Hz", \
					"added ns", "% none", "samples", "idle", \
					"lost"
			k = c SUBSEP w
			base = med["none", w]
			v2 = med["gotrace-v2", w]
			a = med[c, w] - v2
			printf "%-10s %6d %10.1f %8s | %8d %8d %6d\n", w, j, \
				a, pct(a, base), gsmp[k] / gruns[k], \
				gsidle[k] / gruns[k], gslost[k] / gruns[k]
		}
	}
	if (hdr)
		printf "(added ns = median ns/iter of the session with " \
			"samples minus gotrace-v2's,\n %% none: of no " \
			"tracing's ns/iter; samples, idle, lost: per run)\n"
}

function ustacks_table(    n, i, j, w, off, on, base, a, b, ko, ku, t) {
	n = split("gotrace ustacks gotrace-v2 ustacks-v2", pair, " ")
	hdr = 0
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		for (j = 1; j < n; j += 2) {
			off = pair[j]; on = pair[j + 1]
			if (!(((off, w) in med) && ((on, w) in med)))
				continue
			if (!hdr++) {
				printf "\nuser stacks\n%-10s %-6s %9s %9s %6s | " \
					"%6s %6s | %6s %6s %15s %5s\n", "workload", \
					"format", "off", "on", "ratio", "off", "on", \
					"ustack", "trunc", "bad_fp/flt/dep", "full"
				printf "%-10s %-6s %9s %9s %6s | %6s %6s | %6s %6s\n", \
					"", "", "added ns", "added ns", "", "B/ev", \
					"B/ev", "% ev", "% walk"
			}
			base = med["none", w]
			a = med[off, w] - base
			b = med[on, w] - base
			ko = off SUBSEP w
			ku = on SUBSEP w
			t = ubadfp[ku] + ufault[ku] + udepth[ku]
			printf "%-10s %-6s %9.1f %9.1f %6s | %6s %6s | %6s %6s " \
				"%15s %5d\n", w, off ~ /-v2$/ ? "go1.23" : "go1.11", \
				a, b, (a > 0) ? sprintf("%.2f", b / a) : "-", \
				(gev[ko] > 0) ? sprintf("%.2f", gfile[ko] / gev[ko]) : "-", \
				(gev[ku] > 0) ? sprintf("%.2f", gfile[ku] / gev[ku]) : "-", \
				pct(uwalks[ku], gev[ku]), pct(t, uwalks[ku]), \
				pct(ubadfp[ku], uwalks[ku]) "/" pct(ufault[ku], \
				uwalks[ku]) "/" pct(udepth[ku], uwalks[ku]), \
				uqfull[ku] + umapfull[ku]
		}
	}
	if (hdr)
		printf "(gotrace, gotrace-v2 (off) and ustacks, ustacks-v2 (on): " \
			"added cost = median ns/iter\n minus no tracing's, " \
			"ratio = on / off; ustack: walks that gave a user frame / " \
			"events;\n trunc: walks cut short / walks, by reason " \
			"(bad frame pointer, fault, depth limit)\n in %% of walks; " \
			"full: stacks not queued for naming and PCs not named)\n"
}

$1 == "info" {
	kv()
	release = f["release"]; cpus = f["cpus"]; ms = f["ms"]
	rounds = f["rounds"]; fbuf = f["ftrace_buffer_kb"]
	chunks = f["gotrace_chunks"]; flush = f["gotrace_flush_ms"]
	genms = f["gotrace_generation_ms"]
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

# A gotrace session, with or without kernel stacks, with or without user
# stacks, in either format: its file and status.
$1 == "gotrace" || $1 == "nostacks" || $1 == "gotrace-v2" || \
$1 == "ustacks" || $1 == "ustacks-v2" || $1 == "cpu99-v2" || \
$1 == "cpu999-v2" {
	kv()
	k = $1 SUBSEP f["workload"]
	uwalks[k] += f["ustack_walks"]; ubadfp[k] += f["ustack_bad_fp"]
	ufault[k] += f["ustack_faults"]; udepth[k] += f["ustack_depth"]
	uqfull[k] += f["ustack_queue_full"]; umapfull[k] += f["ustack_map_full"]
	gfile[k] += f["file"]; gev[k] += f["events"]
	glost[k] += f["lost_events"] + f["chunk_overflows"] + \
		f["task_overflows"] + f["stack_overflows"]
	ggen[k] += f["generations"]
	gsmp[k] += f["cpu_samples"]; gsidle[k] += f["cpu_samples_idle"]
	gslost[k] += f["cpu_samples_lost"]; gns[k] += f["ns"]
	gruns[k]++
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
		f["window_events"] / (f["ns"] / 1e9) / f["nr_cpus"] : 0
	rlost[nr] = f["lost_events"] + f["chunk_overflows"] + \
		f["task_overflows"] + f["stack_overflows"]
	rstop[nr] = f["stop_reason"]
	rmbs[nr] = f["ns"] > 0 ? \
		f["window_events"] * (f["events"] > 0 ? \
		f["bytes_produced"] / f["events"] : 0) / (f["ns"] / 1e3) : 0
	# The pool of a go 1.23 session keeps only its minimum.
	if (f["load"] !~ /-v2$/)
		chunksused = f["chunks_total"]
	rev[nr] = f["events"]
}

END {
	ncl = split("none empty gotrace nostacks gotrace-v2 ustacks " \
		"ustacks-v2 cpu99-v2 cpu999-v2 ftrace bpf", cl, " ")
	ngc = split("gotrace nostacks gotrace-v2 ustacks ustacks-v2 " \
		"cpu99-v2 cpu999-v2", gc, " ")
	printf "gotrace benchmark: Linux %s, %s vCPUs (QEMU TCG), " \
		"%s rounds of %s ms, medians\n\n", release, cpus, rounds, ms

	printf "%-10s %-10s %12s %9s %6s\n", "workload", "config", \
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
			printf "%-10s %-10s %12.1f %9s %6d\n", w, c, m, \
				ratio(m, base), nruns[c, w]
		}
	}

	printf "\n%-10s %-10s %15s %15s %15s\n", "workload", "config", \
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
			printf "%-10s %-10s %15s %15s %15s\n", w, c, \
				(ft > 0) ? sprintf("%.2f", g / ft) : "-", \
				(e > 0) ? sprintf("%.2f", g / e) : "-", \
				(hl != "") ? sprintf("%.2f", median(hl)) : "-"
		}
	}
	printf "(added cost of gotrace, of gotrace without kernel stacks, of " \
		"gotrace in the go 1.23\n format, with user stacks in both " \
		"(ustacks, ustacks-v2) and of the BPF backend\n over " \
		"ftrace's and the empty probes'; added cost = median " \
		"ns/iter minus no\n tracing's; tp hits = tracepoint calls " \
		"counted by the empty probes)\n"

	printf "\n%-10s %-10s %8s %9s %5s %6s\n", "workload", "config", \
		"B/event", "events", "lost", "gens"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		for (j = 1; j <= ngc; j++) {
			c = gc[j]
			k = c SUBSEP w
			if (!(k in gruns))
				continue
			printf "%-10s %-10s %8s %9d %5d %6s\n", w, c, \
				(gev[k] > 0) ? sprintf("%.2f", gfile[k] / gev[k]) : "-", \
				gev[k], glost[k], \
				(c ~ /-v2$/) ? ggen[k] : "-"
			tgf[c] += gfile[k]; tge[c] += gev[k]; tgl[c] += glost[k]
			tgg[c] += ggen[k]; tgr[c] = 1
		}
	}
	for (j = 1; j <= ngc; j++) {
		c = gc[j]
		if (!(c in tgr))
			continue
		printf "%-10s %-10s %8s %9d %5d %6s\n", "all", c, \
			(tge[c] > 0) ? sprintf("%.2f", tgf[c] / tge[c]) : "-", \
			tge[c], tgl[c], (c ~ /-v2$/) ? tgg[c] : "-"
	}
	printf "(all rounds summed; file bytes / events of the session's " \
		"status; lost: lost events\n and chunk, task and stack " \
		"overflows; gens: generations of the go 1.23 sessions)\n"

	nf = 0
	for (w in fev)
		nf++
	if (nf) {
		printf "\n%-10s %9s %9s %9s %7s\n", "workload", "ftrace", \
			"ftrace", "events", "lost"
		printf "%-10s %9s %9s\n", "", "B/ev disk", "B/ev data"
		for (i = 1; i <= nw; i++) {
			w = wl[i]
			if (!(w in fev))
				continue
			printf "%-10s %9s %9s %9d %7d\n", w, \
				(fev[w] > 0) ? sprintf("%.1f", ffile[w] / fev[w]) : "-", \
				(fev[w] > 0) ? sprintf("%.1f", fpay[w] / fev[w]) : "-", \
				fev[w], flost[w]
			tff += ffile[w]; tfe += fev[w]; tfp += fpay[w]
		}
		printf "%-10s %9s %9s %9d\n", "all", \
			(tfe > 0) ? sprintf("%.1f", tff / tfe) : "-", \
			(tfe > 0) ? sprintf("%.1f", tfp / tfe) : "-", tfe
		printf "(all rounds summed; events counted in the raw pages, " \
			"disk = file bytes (pages\n padded by cat's reads), " \
			"data = page headers + committed bytes; lost:\n " \
			"overruns + drops)\n"
	}

	# The two formats side by side: added cost and bytes per event.
	nv = 0
	for (i = 1; i <= nw; i++)
		if ((("gotrace", wl[i]) in med) && (("gotrace-v2", wl[i]) in med))
			nv++
	if (nv) {
		printf "\n%-10s %12s %12s %8s | %8s %8s\n", "workload", \
			"go1.11 added", "go1.23 added", "ratio", "go1.11", \
			"go1.23"
		printf "%-10s %12s %12s %8s | %8s %8s\n", "", "ns/iter", \
			"ns/iter", "", "B/event", "B/event"
		for (i = 1; i <= nw; i++) {
			w = wl[i]
			if (!((("gotrace", w) in med) && (("gotrace-v2", w) in med)))
				continue
			base = med["none", w]
			a = med["gotrace", w] - base
			b = med["gotrace-v2", w] - base
			k = "gotrace" SUBSEP w
			k2 = "gotrace-v2" SUBSEP w
			printf "%-10s %12.1f %12.1f %8s | %8s %8s\n", w, a, b, \
				(a > 0) ? sprintf("%.2f", b / a) : "-", \
				(gev[k] > 0) ? sprintf("%.2f", gfile[k] / gev[k]) : "-", \
				(gev[k2] > 0) ? sprintf("%.2f", gfile[k2] / gev[k2]) : "-"
		}
		printf "(gotrace in its two formats: added cost = median " \
			"ns/iter minus no tracing's,\n ratio = go 1.23's over " \
			"go 1.11's; generations of %s ms at most)\n", \
			genms != "" ? genms : "?"
	}

	ustacks_table()
	samples_table()

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
			"-v2: the session in the go 1.23 format; " \
			"events/s/CPU: the session's events while the load ran; " \
			"file MB/s:\n what the reader had to write)\n"
		nlo = split("getppid hackbench starved getppid-v2 " \
			"hackbench-v2 starved-v2", lo, " ")
		for (k = 1; k <= nlo; k++) {
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
