# SPDX-License-Identifier: GPL-2.0
#
# irq_align.awk - the shift from a trace's times to the records' (tests/
# bpf_irq_test.sh): Go reads a go1.11 trace's times from its start.
#
#   awk -f irq_align.awk RECORDS TRACE
#
# Both files: "TS CPU KIND ID ..." lines of interrupts' entries, of two
# BPF sessions that saw the same interrupts (the trace's is inside the
# records'), the trace's written with the records' times (ns) less its
# start, give or take a microsecond (the format's times are not every
# nanosecond).  Of the most frequent CPU, kind and ID of the trace,
# every difference of a record's time and an entry's: the shift is the
# mean of those within 20 us of each other that are the most, if at
# least 10 and half of the trace's entries are.
# Nothing is printed otherwise.  (Numbers as "%.0f": mawk prints an
# integer above 2^31 as "%.6g" otherwise.)

FNR == 1 { file++ }
file == 1 { rec[$2 " " $3 " " $4, ++nrec[$2 " " $3 " " $4]] = $1; next }
{ k = $2 " " $3 " " $4; tr[k, ++ntr[k]] = $1 }

END {
	for (k in ntr)
		if (ntr[k] > best) { best = ntr[k]; key = k }
	# Differences to 10 us, two neighbouring steps together: the
	# step that a difference falls in depends on where it lies.
	for (i = 1; i <= ntr[key]; i++)
		for (j = 1; j <= nrec[key]; j++)
			n[sprintf("%.0f", int((rec[key, j] - tr[key, i]) / 10000))]++
	for (b in n)
		if (n[b] + n[sprintf("%.0f", b + 1)] > most) {
			most = n[b] + n[sprintf("%.0f", b + 1)]
			step = b
		}
	if (most < 10 || 2 * most < ntr[key])
		exit
	# Their mean: the shift to a microsecond.
	for (i = 1; i <= ntr[key]; i++)
		for (j = 1; j <= nrec[key]; j++) {
			d = rec[key, j] - tr[key, i]
			if (d >= step * 10000 && d < (step + 2) * 10000) {
				sum += d - step * 10000
				m++
			}
		}
	printf "%.0f\n", step * 10000 + sum / m
}
