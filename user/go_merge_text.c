// SPDX-License-Identifier: GPL-2.0
/*
 * go_merge_text.c - the names of the regions gotrace merge adds, the
 * text of their logs, and the merge's report (go_merge_int.h)
 */
#include <string.h>

#include "go_merge_int.h"

static const char *const region_names[GT_KV_NR_KINDS] = {
	[GT_KV_RUNNABLE] = "kernel: runnable, waiting for a CPU",
	[GT_KV_BLOCKED] = "kernel: blocked",
	[GT_KV_SYSCALL] = "kernel: asleep in a syscall",
	[GT_KV_UNKNOWN] = "kernel: unknown (events lost)",
};

static void fmt_ns(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 1000000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
}

/*
 * Where the span's kernel stack slept: its innermost function that is
 * not the scheduler's own (__schedule, schedule, schedule_timeout...,
 * which every sleep goes through), or "?".
 */
static const char *innermost(const struct gt_kview *kv,
			     const struct gt_kv_span *sp)
{
	for (uint32_t i = 0; i < sp->nframes; i++) {
		const char *f = gt_kview_str(kv, kv->frames[sp->frames + i].func);

		if (strncmp(f, "__schedule", 10) && strncmp(f, "schedule", 8) &&
		    strncmp(f, "preempt_schedule", 16))
			return f;
	}
	return "?";
}

/* The syscall of the span's stack: gotrace's frame of file "[syscall]". */
static const char *syscall_of(const struct gt_kview *kv,
			      const struct gt_kv_span *sp)
{
	for (uint32_t i = 0; i < sp->nframes; i++) {
		const struct gt_kv_frame *f = &kv->frames[sp->frames + i];

		if (!strcmp(gt_kview_str(kv, f->file), "[syscall]"))
			return gt_kview_str(kv, f->func);
	}
	return NULL;
}

const char *gtm_region_name(enum gt_kv_kind kind)
{
	return region_names[kind];
}

/* The log at a region's start: what the kernel says of the interval. */
void gtm_describe(const struct merge *mg, const struct gt_kv_span *sp,
		  bool after, char *buf, size_t n)
{
	const struct gt_kview *kv = &mg->kv;
	char d[32], r[32];
	uint64_t named;
	int k;

	fmt_ns(d, sizeof(d), sp->end - sp->start);
	switch (sp->kind) {
	case GT_KV_RUNNABLE:
		k = snprintf(buf, n, after ? "waited %s for a CPU before it ran (%s)" :
			     "runnable %s (%s)", d,
			     sp->reason != GT_KV_NONE ?
			     gt_kview_str(kv, sp->reason) : "woken");
		if (sp->cpu < 0)
			break;
		if (!sp->ran_all_ns) {
			snprintf(buf + k, n - (size_t)k,
				 ": CPU %lld ran no task meanwhile",
				 (long long)sp->cpu);
			break;
		}
		k += snprintf(buf + k, n - (size_t)k, ": CPU %lld ran",
			      (long long)sp->cpu);
		named = 0;
		for (int i = 0; i < GT_KV_RAN && sp->ran[i].ns; i++) {
			const struct gt_kv_ran *ran = &sp->ran[i];

			fmt_ns(r, sizeof(r), ran->ns);
			k += snprintf(buf + k, n - (size_t)k, "%s %s (tid %llu) for %s",
				      i ? "," : "", ran->name != GT_KV_NONE ?
				      gt_kview_str(kv, ran->name) : "?",
				      (unsigned long long)ran->tid, r);
			named += ran->ns;
			if ((size_t)k >= n)
				return;
		}
		if (sp->ran_all_ns > named) {
			fmt_ns(r, sizeof(r), sp->ran_all_ns - named);
			snprintf(buf + k, n - (size_t)k, ", other tasks for %s", r);
		}
		break;
	case GT_KV_BLOCKED:
		k = snprintf(buf, n, "blocked %s (%s) in %s", d,
			     sp->reason != GT_KV_NONE ?
			     gt_kview_str(kv, sp->reason) : "?",
			     innermost(kv, sp));
		if (sp->open)
			snprintf(buf + k, n - (size_t)k,
				 "; not woken before gotrace's trace ended");
		else if (sp->waker)
			snprintf(buf + k, n - (size_t)k,
				 "; woken by %s (tid %llu) on CPU %lld",
				 sp->waker_name != GT_KV_NONE ?
				 gt_kview_str(kv, sp->waker_name) : "?",
				 (unsigned long long)sp->waker,
				 (long long)sp->waker_cpu);
		else if (sp->waker_cpu >= 0)
			snprintf(buf + k, n - (size_t)k,
				 "; woken on CPU %lld with no task running (an interrupt)",
				 (long long)sp->waker_cpu);
		break;
	case GT_KV_SYSCALL:
		snprintf(buf, n, "asleep %s in the syscall %s, in %s", d,
			 syscall_of(kv, sp) ? syscall_of(kv, sp) : "?",
			 innermost(kv, sp));
		break;
	default:
		snprintf(buf, n, "%s: events of its CPU were lost (gotrace status counts them): off CPU or running, the trace cannot say",
			 d);
		break;
	}
}

void gt_go_merge_report(FILE *f, const struct gt_merge_stats *st)
{
	static const char *const what[GT_KV_NR_KINDS] = {
		"runnable", "blocked", "asleep in a syscall", "unknown" };

	fprintf(f, "merged: go 1.%d trace, %llu generations, %llu threads (%llu in gotrace's trace)\n",
		st->version, (unsigned long long)st->generations,
		(unsigned long long)st->threads,
		(unsigned long long)st->threads_seen);
	for (int k = 0; k < GT_KV_NR_KINDS; k++)
		fprintf(f, "  kernel: %-20s %6llu intervals, %.3f s\n", what[k],
			(unsigned long long)st->regions[k],
			(double)st->region_ns[k] / 1e9);
	fprintf(f, "  %llu intervals with no goroutine on the thread left out (%llu waits for a CPU said once one came), %llu ended early (the thread ran, or Go took its P), %llu CPU changes, %llu CPU samples\n",
		(unsigned long long)st->skipped,
		(unsigned long long)st->after_logs,
		(unsigned long long)st->clamped,
		(unsigned long long)st->cpu_logs,
		(unsigned long long)st->added_samples);
	if (st->lost_windows)
		fprintf(f, "  gotrace's trace lost events %llu times: those intervals are \"unknown\"\n",
			(unsigned long long)st->lost_windows);
	if (st->snapshot)
		fprintf(f, "  clock: the program's clock snapshot is %lld ns from CLOCK_MONOTONIC\n",
			(long long)st->snapshot_off_ns);
	else
		fprintf(f, "  clock: Go's trace clock taken as CLOCK_MONOTONIC (no clock snapshot before Go 1.25)\n");
	if (st->matched && st->bound_lo_ns <= st->bound_hi_ns)
		fprintf(f, "  clock: %llu syscalls seen by both bound the offset to [%lld, %lld] ns: %lld ns taken\n",
			(unsigned long long)st->matched,
			(long long)st->bound_lo_ns, (long long)st->bound_hi_ns,
			(long long)st->offset_ns);
	else if (st->matched)
		fprintf(f, "  clock: %llu syscalls seen by both disagree (offset at least %lld ns, at most %lld ns): %lld ns taken\n",
			(unsigned long long)st->matched,
			(long long)st->bound_lo_ns, (long long)st->bound_hi_ns,
			(long long)st->offset_ns);
	else
		fprintf(f, "  clock: no syscall in which a thread slept is in both traces: the offset is not checked\n");
}
