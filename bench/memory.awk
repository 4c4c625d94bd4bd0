# SPDX-License-Identifier: GPL-2.0
#
# memory.awk RESULTS - the memory curve of a long "go 1.23 trace" session
# from the guest's raw numbers (bench/guest-memory.sh).  Plain POSIX awk
# (Debian's mawk).
#
# One line a sample: seconds since the load started, the module's vmalloc
# pages (areas whose caller is in gotrace), Slab, VmallocUsed and MemFree
# of the machine, and the session's generations, events and lost events;
# then the slope of each memory figure between the first minute and the
# last sample under load, in KiB per minute, and the module's highest
# vmalloc sample.  "areas" records (the module's vmalloc pages by
# allocating function) are left in the raw numbers.

function slope(a, b) {
	return sprintf("%+.1f", (b - a) / ((t[last] - t[first]) / 60))
}

$1 == "info" {
	kv()
	release = f["release"]; cpus = f["cpus"]; secs = f["seconds"]
	step = f["step"]; genms = f["generation_ms"]; chunks = f["chunks"]
	possible = f["possible"]
}

$1 == "mem" {
	kv()
	n++
	ph[n] = f["phase"]; t[n] = f["t"] + 0
	mv[n] = f["mod_vmalloc"]; ma[n] = f["mod_areas"]
	sl[n] = f["slab"]; vu[n] = f["vmalloc_used"]; mf[n] = f["memfree"]
	pc[n] = f["percpu"]
	gen[n] = f["generations"]; ev[n] = f["events"]
	lost[n] = f["lost_events"]; br[n] = f["bytes_read"]
	ovf[n] = f["chunk_overflows"] + f["task_overflows"]
	sovf[n] = f["stack_overflows"] + 0
	if (ph[n] == "run") {
		if (!first && t[n] >= 60)
			first = n
		last = n
		if (!base)
			base = n
		if (mv[n] + 0 > peak + 0) {
			peak = mv[n]
			peakt = t[n]
		}
	}
}

$1 == "load" {
	kv()
	load_iters = f["iters"]; load_ns = f["ns"]
}

END {
	printf "gotrace memory curve: Linux %s, %s vCPUs (QEMU TCG, possible " \
		"CPUs %s), go 1.23 format,\ngenerations of %s ms, %s s of " \
		"churn, a sample every %s s\n\n", release, cpus, possible, \
		genms, secs, step
	printf "%6s %8s %5s %8s %8s %9s %5s %10s %6s %12s\n", "t s", \
		"module", "areas", "Slab", "Vmalloc", "MemFree", "gens", \
		"events", "lost", "read"
	printf "%6s %8s %5s %8s %8s %9s %5s %10s %6s %12s\n", "", \
		"vm KiB", "", "KiB", "Used KiB", "KiB", "", "", "", "MiB"
	for (i = 1; i <= n; i++)
		printf "%6s %8d %5d %8d %8d %9d %5s %10s %6s %12s\n", \
			ph[i] == "run" ? t[i] : ph[i], mv[i], ma[i], sl[i], \
			vu[i], mf[i], gen[i] != "" ? gen[i] : "-", \
			ev[i] != "" ? ev[i] : "-", \
			lost[i] != "" ? lost[i] : "-", \
			br[i] != "" ? sprintf("%.1f", br[i] / 1048576) : "-"
	printf "(module vm: pages of the vmalloc areas allocated by the " \
		"module (vmallocinfo's\n \"[gotrace]\"), areas: their number; " \
		"Slab, VmallocUsed, MemFree: /proc/meminfo,\n the whole machine; " \
		"gens, events, lost, read: the session's status; before: no\n " \
		"session, after: the session stopped and closed)\n"
	if (load_ns > 0)
		printf "load: %d tasks created and ended, %.0f per second\n", \
			load_iters, load_iters / (load_ns / 1e9)
	if (first && last > first && t[last] > t[first])
		printf "slope from t=%s to t=%s s, KiB per minute: module " \
			"vmalloc %s, Slab %s, VmallocUsed %s, MemFree %s\n", \
			t[first], t[last], slope(mv[first], mv[last]), \
			slope(sl[first], sl[last]), slope(vu[first], vu[last]), \
			slope(mf[first], mf[last])
	else
		printf "slope: no samples after the first minute\n"
	if (base && peak + 0 > mv[base] + 0)
		printf "peak module vmalloc %d KiB at t=%s s, %d KiB over the " \
			"first sample (allocated and freed between samples)\n", \
			peak, peakt, peak - mv[base]
	if (ovf[last] || sovf[last])
		printf "overflows at t=%s: chunk+task %d, stack %d\n", \
			t[last], ovf[last], sovf[last]
}
