# SPDX-License-Identifier: GPL-2.0
#
# ab.awk RESULTS - bench/ab.sh's table from the guest's raw numbers
# (bench/guest-bench.sh): per workload, every configuration in the order
# it first ran, NAME@base (the base commit's module) next to NAME: the
# median ns per iteration (instructions under -icount), the added cost
# over no tracing, its change against NAME@base, the spread of the
# rounds, and the bytes per event of gotrace's sessions.  Plain POSIX
# awk (Debian's mawk), after lib.awk.

function spread(list,    a, n) {
	n = sorted(list, a)
	return n > 1 && a[1] > 0 ? 100 * (a[n] - a[1]) / a[1] : 0
}

$1 == "run" {
	kv()
	if (!(f["workload"] in seenw)) {
		seenw[f["workload"]] = 1
		wl[++nw] = f["workload"]
	}
	if (!(f["config"] in seenc)) {
		seenc[f["config"]] = 1
		cl[++nc] = f["config"]
	}
	if (f["iters"] > 0)
		v[f["config"], f["workload"]] = v[f["config"], f["workload"]] \
			" " f["ns"] / f["iters"]
}

# A gotrace session: its file and status.
$2 ~ /^round=/ && $3 ~ /^workload=/ && $4 ~ /^file=/ {
	kv()
	bytes[$1, f["workload"]] += f["file"]
	evs[$1, f["workload"]] += f["events"]
}

END {
	printf "%-10s %-20s %10s %10s %8s %7s %7s\n", "workload", "config",
	       "ns/iter", "added", "vs base", "spread", "B/event"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		none = median(v["none", w])
		for (j = 1; j <= nc; j++) {
			c = cl[j]
			if (c ~ /@base$/ || !((c, w) in v))
				continue
			for (b = 0; b <= 1; b++) {
				k = b ? c "@base" : c
				if (!((k, w) in v))
					continue
				m = median(v[k, w])
				add = c == "none" ? 0 : m - none
				vs = "-"
				if (!b && ((c "@base", w) in v) && c != "none") {
					base = median(v[c "@base", w]) - none
					if (base > 0)
						vs = sprintf("%+.1f%%",
							     100 * (add - base) / base)
				}
				printf "%-10s %-20s %10.1f %10.1f %8s %6.2f%% %7s\n",
				       w, k, m, add, vs, spread(v[k, w]),
				       evs[k, w] ? sprintf("%.2f", bytes[k, w] / evs[k, w]) : "-"
			}
		}
	}
	print "(medians; added = ns/iter minus no tracing's; vs base = the added"
	print " cost against NAME@base's; spread = (max - min) / min of the rounds;"
	print " under -icount a ns is an emulated instruction)"
}
