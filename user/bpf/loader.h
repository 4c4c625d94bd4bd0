/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loader.h - capture with BPF programs instead of the module
 *
 * Loads the programs of bpf/gotrace.bpf.c with the session's options,
 * attaches them, and hands on their records (bpf/record.h) merged from
 * all CPUs in time order.  One session per gt_bpf.
 */
#ifndef GOTRACE_BPF_LOADER_H
#define GOTRACE_BPF_LOADER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <linux/gotrace.h>

#include "merge.h"

/* Each CPU's ring buffer, unless the caller asks for another size. */
#define GT_BPF_RING_DEFAULT	(4U << 20)
/*
 * How long a record may take to reach its ring after its timestamp (a
 * program interrupted in between): records are held that long before
 * they are handed on, so that the merge sees every CPU's.
 */
#define GT_BPF_REORDER_NS	(20ULL * 1000 * 1000)

struct gt_bpf;

struct gt_bpf_params {
	const struct gotrace_options *opts;
	size_t ring_bytes;	/* per CPU, a power of two; 0: default */
	uint32_t unwind_rows;	/* GOTRACE_OPT_UNWIND_TABLES: the rows of
				 * unwind tables the session holds */
};

/* Preflight, load, attach: the session records from here.  NULL after
 * saying why in one line.
 */
struct gt_bpf *gt_bpf_open(const struct gt_bpf_params *p);
/*
 * The tasks that exist now, as GTB_TASK records with their state, in
 * the order of the kernel's task list; the filters decide them as on
 * first sight.  Call once, right after gt_bpf_open().  0 or -1.
 */
int gt_bpf_snapshot(struct gt_bpf *b, gt_merge_fn fn, void *arg);
/*
 * Wait up to @timeout_ms for a ring to fill, drain every ring, and hand
 * on the records that can no longer be overtaken.  0 or -1.
 */
int gt_bpf_poll(struct gt_bpf *b, int timeout_ms, gt_merge_fn fn, void *arg);
/*
 * Sleep until a ring has records, @timeout passed (NULL: none) or a
 * signal came, with the signals of @mask open meanwhile; then
 * gt_bpf_poll() with no timeout takes them.  0, or -1 after saying why.
 */
int gt_bpf_wait(struct gt_bpf *b, const struct timespec *timeout,
		const sigset_t *mask);
/* Detach, wait GT_BPF_REORDER_NS, drain, and hand on everything left. */
void gt_bpf_finish(struct gt_bpf *b, gt_merge_fn fn, void *arg);
unsigned int gt_bpf_nr_cpus(const struct gt_bpf *b);
/*
 * The CPUs online when the rings were made, gt_bpf_nr_cpus() of them:
 * the others have rings of one page.
 */
const bool *gt_bpf_online(const struct gt_bpf *b);
/*
 * The maps of the unwind tables (gotrace.bpf.c: unw_rows, unw_tables,
 * unw_spaces), for the reader to fill (unwind_sink.c).
 */
void gt_bpf_unwind_maps(const struct gt_bpf *b, int *rows, int *tables,
			int *spaces);
/*
 * Call @fn on each record as it is read from its ring, before the merge
 * holds it back (NULL: none).
 */
void gt_bpf_set_early(struct gt_bpf *b, gt_merge_fn fn, void *arg);
/*
 * Records lost: to full rings (per CPU into @per_cpu), and in the reader
 * (short records, out of memory merging), in the total only.
 */
uint64_t gt_bpf_drops(const struct gt_bpf *b, uint64_t *per_cpu);
/*
 * Tracepoint hits the kernel did not run a program for because that
 * CPU was already running it (the programs' recursion_misses, summed):
 * records lost, of any task, recorded or not.  @which (may be NULL)
 * gets the programs that missed and how often: "gt_sys_enter 3, ...".
 */
uint64_t gt_bpf_misses(const struct gt_bpf *b, char *which, size_t len);
/*
 * Syscall tracepoint hits whose first program the kernel skipped, and
 * that its twin recorded instead (gotrace.bpf.c): nothing lost.
 */
uint64_t gt_bpf_twin_runs(const struct gt_bpf *b);
/*
 * CPU samples lost on their way (a full ring, no scratch slot), with the
 * samples not taken that their records would have told the model of.
 */
uint64_t gt_bpf_sample_drops(const struct gt_bpf *b);
void gt_bpf_merge_stats(const struct gt_bpf *b, struct gt_merge_stats *s);
/*
 * The tracepoints of the interrupts and work items the session asked
 * for: those attached, "irq:irq_handler, irq_vectors:local_timer, ...",
 * and those this kernel lacks ("" if none): an entry and exit pair each.
 */
const char *gt_bpf_irq_attached(const struct gt_bpf *b);
const char *gt_bpf_irq_missing(const struct gt_bpf *b);
/*
 * The programs' average run time and runs, "gt_switch 812 ns x 10234,
 * ...", where the kernel counts them (sysctl kernel.bpf_stats_enabled=1,
 * which costs every BPF program two clock reads a run); false if it
 * does not.
 */
bool gt_bpf_run_times(const struct gt_bpf *b, char *buf, size_t len);
/*
 * With GOTRACE_BPF_WALK_COST=1 in the environment (the benchmarks'),
 * the time the programs spent walking user stacks, the walks and the
 * frames they found; false without.
 */
bool gt_bpf_walk_cost(const struct gt_bpf *b, uint64_t *ns, uint64_t *walks,
		      uint64_t *frames);
void gt_bpf_close(struct gt_bpf *b);

/* The sessions gt_bpf_sessions() names the recorders of. */
#define GT_BPF_MAX_SESSIONS	16

/*
 * BPF sessions recording now, by any process: the loaded programs named
 * like this backend's sched_switch program.  -1 after saying why (it
 * takes CAP_SYS_ADMIN to list programs).  @pids (may be NULL): the
 * process recording each of the first @max of them, 0 where it cannot
 * be found.
 */
int gt_bpf_sessions(pid_t *pids, int max);

#endif /* GOTRACE_BPF_LOADER_H */
