# SPDX-License-Identifier: GPL-2.0
#
# lib.awk - what the benchmark's tables share (report.awk, ab.awk,
# memory.awk), loaded before each with a second -f.  Plain POSIX awk
# (Debian's mawk).

# kv(): the KEY=VALUE fields of the current record (from the second)
# into f[KEY].
function kv(    i, p) {
	delete f
	for (i = 2; i <= NF; i++) {
		p = index($i, "=")
		if (p)
			f[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}

# sorted(list, a): the values of @list, sorted into a[1..n]; returns n.
function sorted(list, a,    n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n
}

# median(list): of the values of @list, -1 if none.
function median(list,    a, n) {
	n = sorted(list, a)
	if (n == 0)
		return -1
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
