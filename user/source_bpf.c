// SPDX-License-Identifier: GPL-2.0
/*
 * source_bpf.c - the BPF programs as a recording's source (source.h)
 *
 * The programs capture (bpf/loader.c); their records are merged in time
 * order and fed to the module's Linux -> Go model built for user space
 * (bpf/feed.c, bpf/model/), which encodes the same trace the module
 * would.  Draining is taking the rings' records into the model and the
 * model's full buffers out; stopping detaches the programs, feeds what
 * is left, and the next drain writes the trace's end.  The model may
 * stop by itself: a go1.11 trace ends at its first lost event.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/cgunits.h"
#include "bpf/feed.h"
#include "bpf/ksyms.h"
#include "bpf/loader.h"
#include "bpf/model/gtmodel.h"
#include "bpf/record.h"
#include "bpf/umaps.h"
#include "bpf/unwind_sink.h"
#include "device.h"
#include "record_unwind.h"
#include "source.h"
#include "util.h"

/* The longest wait: the merge hands records on as time passes. */
#define BPF_WAIT_NS	100000000ULL

struct bpf_source {
	struct gt_source src;
	struct gotrace_options opts;
	struct gt_bpf *b;
	struct gt_bpf_feed *feed;
	struct gt_model *m;
	struct gt_ksyms *ksyms;
	struct gt_umaps *umaps;
	struct gt_cgunits *units;
	struct gt_unwind *unwind;	/* GOTRACE_OPT_UNWIND_TABLES */
	struct gt_bpf_unwind_fds unwind_fds;
	unsigned int stop_reason;	/* GOTRACE_STOP_*: stopped */
	bool ended;			/* the trace's end is written */

	/* Counted at the stop, once the programs are detached. */
	uint64_t drops;		/* records that found their ring full */
	uint64_t misses;	/* tracepoint hits the kernel skipped */
	char missed[256];	/* which */
	uint64_t twins;
	uint64_t unknown;	/* records naming a task not known */
	uint64_t unreported;	/* switches the kernel never reported */
	size_t unreported_tasks;
	char who[160];		/* of which tasks */
	char run_times[2048];	/* the programs' (kernel.bpf_stats_enabled):
				 * some 40 of them with --interrupts */
	uint64_t walk_ns, walks, walk_frames;	/* GOTRACE_BPF_WALK_COST */
	struct gt_merge_stats ms;
};

static struct bpf_source *bsrc(struct gt_source *s)
{
	return (struct bpf_source *)s;
}

/*
 * The footer's names of kernel PCs: "func+0xoff".  Where the kernel hid
 * its addresses from this reader (kptr_restrict) none is found, and the
 * model names the frame "[unknown]" rather than by its address.
 */
static bool symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	const char *name;
	uint64_t off;

	name = gt_ksyms_find(arg, pc, &off);
	if (!name)
		return false;
	snprintf(buf, len, "%s+0x%" PRIx64, name, off);
	return true;
}

/*
 * A ring per online CPU from the module's buffer size (64 KiB chunks in
 * all); the CPUs offline get one page (bpf/loader.c).
 */
static size_t ring_bytes(const struct gotrace_options *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!o->chunks || cpus <= 0)
		return 0;
	return (size_t)o->chunks * GOTRACE_CHUNK_BYTES / cpus;
}

/*
 * A task running at the start: the model's, and its address space's
 * unwind tables loaded (once per process: its threads share them).
 */
static void snap_task(const void *rec, size_t size, void *arg)
{
	struct bpf_source *p = arg;
	const struct gtb_task *t = rec;

	if (p->unwind && size >= sizeof(*t) && t->space && t->tid == t->tgid)
		gt_unwind_request(p->unwind, t->space, t->tid, t->tgid);
	gt_bpf_feed_snap_task(rec, size, p->feed);
}

/* A space whose mappings umaps reads: its unwind tables too. */
static void unwind_on_read(void *arg, const struct gt_umaps_who *w)
{
	gt_unwind_request(arg, w->space, w->tid, w->tgid);
}

static int bpf_start(struct gt_source *s)
{
	struct bpf_source *p = bsrc(s);
	int cpu = sched_getcpu();

	if (gt_bpf_snapshot(p->b, snap_task, p))
		return -1;
	if (gt_bpf_feed_start(p->feed, gt_now_ns(), cpu < 0 ? 0 : cpu)) {
		gt_err("the tasks do not fit the model's buffers");
		return -1;
	}
	return 0;
}

static int bpf_wait(struct gt_source *s, const struct timespec *timeout,
		    const sigset_t *mask)
{
	static const struct timespec most = { .tv_nsec = BPF_WAIT_NS };
	struct bpf_source *p = bsrc(s);

	if (p->stop_reason)
		return 0;	/* the end is ready to drain */
	if (!timeout || timeout->tv_sec || timeout->tv_nsec > most.tv_nsec)
		timeout = &most;
	return gt_bpf_wait(p->b, timeout, mask);
}

/*
 * Detach the programs, feed the model what they left in the rings, and
 * count what was lost on the way: what they counted is final only now.
 */
static void bpf_stop_now(struct bpf_source *p, unsigned int reason)
{
	unsigned int nr_cpus = gt_bpf_nr_cpus(p->b);
	uint64_t *cpu_drops;

	p->stop_reason = reason;
	gt_bpf_feed_end(p->feed, gt_now_ns());
	gt_bpf_finish(p->b, gt_bpf_feed_record, p->feed);
	/* (Without memory for it, the gaps left are taken for drops.) */
	cpu_drops = calloc(nr_cpus, sizeof(*cpu_drops));
	p->drops = gt_bpf_drops(p->b, cpu_drops);
	gt_bpf_feed_settle(p->feed, cpu_drops, cpu_drops ? nr_cpus : 0);
	free(cpu_drops);
	p->misses = gt_bpf_misses(p->b, p->missed, sizeof(p->missed));
	gt_bpf_run_times(p->b, p->run_times, sizeof(p->run_times));
	gt_bpf_walk_cost(p->b, &p->walk_ns, &p->walks, &p->walk_frames);
	p->twins = gt_bpf_twin_runs(p->b);
	p->unknown = gt_bpf_feed_unknown(p->feed);
	p->unreported = gt_bpf_feed_unreported(p->feed);
	p->unreported_tasks = gt_bpf_feed_unreported_tasks(p->feed, p->who,
							   sizeof(p->who));
	gt_bpf_merge_stats(p->b, &p->ms);
}

struct sink {
	gt_source_write_fn write;
	void *arg;
};

static int sink_write(void *arg, const void *buf, size_t len)
{
	struct sink *sink = arg;

	sink->write(sink->arg, buf, len);
	return 0;
}

static enum gt_source_drained bpf_drain(struct gt_source *s,
					gt_source_write_fn write, void *arg)
{
	struct bpf_source *p = bsrc(s);
	struct sink sink = { write, arg };
	int ret;

	if (p->ended)
		return GT_SOURCE_END;
	if (!p->stop_reason) {
		if (gt_bpf_poll(p->b, 0, gt_bpf_feed_record, p->feed))
			return GT_SOURCE_ERROR;
		ret = gt_umodel_drain(p->m, sink_write, &sink);
		if (ret) {
			gt_err("the model cannot end a generation: %s",
			       strerror(ret < 0 ? -ret : ret));
			return GT_SOURCE_ERROR;
		}
		/* It writes nothing more: recording on would hide that. */
		if (!gt_umodel_halted(p->m))
			return GT_SOURCE_AGAIN;
		bpf_stop_now(p, GOTRACE_STOP_OVERFLOW);
	}
	ret = gt_umodel_finish(p->m, gt_now_ns(), sink_write, &sink);
	if (ret) {
		gt_err("the model cannot write the trace's end: %s",
		       strerror(ret < 0 ? -ret : ret));
		return GT_SOURCE_ERROR;
	}
	p->ended = true;
	return GT_SOURCE_END;
}

static int bpf_stop(struct gt_source *s)
{
	struct bpf_source *p = bsrc(s);

	if (!p->stop_reason)
		bpf_stop_now(p, GOTRACE_STOP_USER);
	return 0;
}

/*
 * The model's counters and the programs' as the module's status has
 * them.  Before the stop, the programs' losses are those so far.  The
 * model counted the filtered-out tasks' CPU samples idle (bpf/feed.c):
 * each one the feed gave it, so they move back exactly.
 */
static int bpf_status(struct gt_source *s, struct gotrace_status *st)
{
	struct bpf_source *p = bsrc(s);
	struct gt_umodel_stats us;
	uint64_t hidden = gt_bpf_feed_samples_hidden(p->feed);
	uint64_t drops = p->drops, misses = p->misses, unknown = p->unknown;

	if (!p->stop_reason) {
		drops = gt_bpf_drops(p->b, NULL);
		misses = gt_bpf_misses(p->b, NULL, 0);
		unknown = gt_bpf_feed_unknown(p->feed);
	}
	gt_umodel_stats(p->m, &us);
	memset(st, 0, sizeof(*st));
	st->state = p->ended ? GOTRACE_STATE_DONE : GOTRACE_STATE_RECORDING;
	st->stop_reason = p->stop_reason;
	st->format = p->opts.format;
	st->nr_cpus = gt_bpf_nr_cpus(p->b);
	st->events = us.events;
	st->lost_events = us.lost + drops + misses + unknown;
	st->chunk_overflows = us.chunk_overflows;
	st->task_overflows = us.task_overflows;
	st->stack_overflows = us.stack_overflows;
	st->generations = us.generations;
	st->ustack_walks = us.ustack_walks;
	st->ustack_bad_fp = us.ustack_bad_fp;
	st->ustack_faults = us.ustack_faults;
	st->ustack_depth = us.ustack_depth;
	st->ustack_no_table = us.ustack_no_table;
	st->ustack_no_rule = us.ustack_no_rule;
	st->ustack_signal = us.ustack_signal;
	st->ustack_bad_cfa = us.ustack_bad_cfa;
	if (hidden > us.cpu_samples_idle)
		hidden = us.cpu_samples_idle;
	st->cpu_samples = us.cpu_samples;
	st->cpu_samples_idle = us.cpu_samples_idle - hidden;
	st->cpu_samples_hidden = us.cpu_samples_hidden + hidden;
	st->cpu_samples_lost = us.cpu_samples_lost +
			       gt_bpf_sample_drops(p->b);
	return 0;
}

/*
 * The switches the kernel did not report: no loss, but said apart, as
 * the summary's note does.
 */
static int bpf_progress(struct gt_source *s, char *buf, size_t len)
{
	return snprintf(buf, len, ", %" PRIu64 " switches unreported",
			gt_bpf_feed_unreported(bsrc(s)->feed));
}

/* What was lost and why: the programs', the merge's and the model's. */
static void bpf_report(struct gt_source *s, const struct gotrace_status *st,
		       bool quiet)
{
	struct bpf_source *p = bsrc(s);
	uint64_t model_lost = st->lost_events - p->drops - p->misses -
			      p->unknown;
	uint64_t smp_drops = gt_bpf_sample_drops(p->b);
	struct gt_umaps_stats us;
	char walked[320];

	gt_umaps_stats(p->umaps, &us);
	if (st->ustack_walks && !quiet) {
		gt_ustack_walked(st, walked, sizeof(walked));
		fprintf(stderr, "%s: user stacks: %s; unnamed: %" PRIu64 " of %"
			PRIu64 " address spaces gone, %" PRIu64
			" running another program before their maps were read\n",
			GT_NAME, walked, us.gone, us.spaces, us.changed);
	}
	if (p->unwind && !quiet)
		gt_recunw_summary(p->unwind);
	/* Lost samples are no lost events: the trace's events are whole. */
	if (st->cpu_samples_lost)
		gt_warn("%" PRIu64 " CPU samples lost: %" PRIu64
			" found their BPF ring full, %" PRIu64
			" were not taken (a CPU's sampling interrupt ran late, or the kernel skipped its program) or found the model's samples buffer full",
			(uint64_t)st->cpu_samples_lost, smp_drops,
			(uint64_t)st->cpu_samples_lost - smp_drops);
	if (p->walks && !quiet)
		fprintf(stderr, "%s: user stack walks: %" PRIu64 " ns each on average, %.1f frames, %" PRIu64 " walks (GOTRACE_BPF_WALK_COST)\n",
			GT_NAME, p->walk_ns / p->walks,
			(double)p->walk_frames / p->walks, p->walks);
	if (p->run_times[0] && !quiet)
		fprintf(stderr, "%s: BPF programs' run times (kernel.bpf_stats_enabled): %s\n",
			GT_NAME, p->run_times);
	/* Asked for, and not on this kernel: the trace has none of them. */
	if (*gt_bpf_irq_missing(p->b) && !quiet)
		fprintf(stderr, "%s: note: --interrupts: this kernel has no tracepoints %s: the trace has none of those interrupts\n",
			GT_NAME, gt_bpf_irq_missing(p->b));
	if (p->twins && !quiet)
		fprintf(stderr, "%s: %" PRIu64 " syscall tracepoint hits recorded by the twin programs, their first program busy on their CPU (a task preempted inside it)\n",
			GT_NAME, p->twins);
	/*
	 * A switch missing from the records is lost only when a record of
	 * its CPU was dropped (bpf/feed.c): in drops then, not counted
	 * again.
	 */
	if (st->lost_events || st->stop_reason == GOTRACE_STOP_OVERFLOW)
		gt_warn("*** %" PRIu64 " EVENTS LOST *** (%" PRIu64
			" records found their BPF ring full, %" PRIu64
			" tracepoint hits found their program busy on their CPU, %" PRIu64
			" named a task the reader did not know, %" PRIu64
			" events found the model's buffers full)",
			(uint64_t)st->lost_events, p->drops, p->misses,
			p->unknown, model_lost);
	/*
	 * Not a loss: the kernel never ran the switch program for these
	 * (Documentation/bpf-backend.rst), no backend could record them.
	 * Said apart, so that the loss warning is only ever about events
	 * this tool lost.
	 */
	if (p->unreported && !quiet)
		fprintf(stderr, "%s: note: the kernel reported no switch away from %zu task%s%s%s%s %" PRIu64
			" time%s; the trace shows %s preempted where the next task began\n",
			GT_NAME, p->unreported_tasks,
			p->unreported_tasks == 1 ? "" : "s",
			p->who[0] ? " (" : "", p->who, p->who[0] ? ")" : "",
			p->unreported, p->unreported == 1 ? "" : "s",
			p->unreported_tasks == 1 ? "it" : "them");
	/* The reader fell behind the tracepoints. */
	if (p->drops)
		gt_warn("the BPF rings filled faster than they were read: raise --buffer-size, record fewer syscalls (--syscalls blocking, --syscall-filter), or filter the tasks");
	/* Of any task: the kernel skips before the filters run. */
	if (p->misses)
		gt_warn("%" PRIu64 " tracepoint hits not recorded: the kernel did not run their BPF program, its CPU being inside it already (a task preempted there): %s",
			p->misses, p->missed);
	if (st->stop_reason == GOTRACE_STOP_OVERFLOW)
		gt_warn("the trace ends where the first event was lost; raise --buffer-size, filter, or record for less time");
	/* Written, with the task's own frame for a stack. */
	if (st->stack_overflows)
		gt_warn("%" PRIu64 " kernel stacks not kept: the stack table was full",
			(uint64_t)st->stack_overflows);
	/* Handed to the model out of order: it clamps their times. */
	if (p->ms.late)
		gt_warn("%" PRIu64 " records reached their ring later than the %llu ms the merge waits for",
			(uint64_t)p->ms.late, GT_BPF_REORDER_NS / 1000000);
}

static void bpf_close(struct gt_source *s)
{
	struct bpf_source *p = bsrc(s);

	/* Its thread writes into the programs' maps: first. */
	gt_unwind_free(p->unwind);
	gt_bpf_feed_free(p->feed);
	gt_umaps_free(p->umaps);
	gt_cgunits_free(p->units);
	gt_umodel_destroy(p->m);
	gt_ksyms_free(p->ksyms);
	gt_bpf_close(p->b);
	free(p);
}

static const struct gt_source_ops bpf_ops = {
	.start		= bpf_start,
	.wait		= bpf_wait,
	.drain		= bpf_drain,
	.stop		= bpf_stop,
	.status		= bpf_status,
	.progress	= bpf_progress,
	.report		= bpf_report,
	.close		= bpf_close,
};

/*
 * The model, as the module would build it from @a's options.  The
 * filters run in BPF: the model records what it is given.  It keeps the
 * comm filter, with --children, which exempts the tasks it adopts from
 * it: a recorded task that executes another program or renames itself
 * is decided again there, and its goroutine ends if its new comm does
 * not match, as with the module.
 */
static int bpf_model(struct bpf_source *p)
{
	struct gt_umodel_config cfg = { 0 };

	cfg.opts = p->opts;
	cfg.opts.nr_pids = 0;
	cfg.opts.cgroup_id = 0;
	cfg.opts.flags &= ~GOTRACE_OPT_TGID;
	cfg.nr_cpus = gt_bpf_nr_cpus(p->b);
	cfg.online = gt_bpf_online(p->b);
	cfg.show_addrs = p->ksyms && gt_ksyms_visible(p->ksyms);
	cfg.symbolise = p->ksyms ? symbolise : NULL;
	cfg.arg = p->ksyms;
	cfg.format = p->opts.format == GOTRACE_FORMAT_GO123 ?
		     GOTRACE_FORMAT_GO123 : GOTRACE_FORMAT_GO111;
	/* User frames are named from the processes' mappings (umaps.h). */
	if (p->opts.flags & GOTRACE_OPT_USER_STACKS) {
		p->umaps = gt_umaps_new(NULL);
		if (!p->umaps)
			return -1;
		cfg.uresolve = gt_umaps_resolve;
		cfg.ufile = gt_umaps_file;
		cfg.uarg = p->umaps;
	}
	p->m = gt_umodel_create(&cfg);
	p->feed = p->m ? gt_bpf_feed_new(p->m, p->ksyms) : NULL;
	if (!p->feed)
		return -1;
	if (p->umaps) {
		gt_bpf_feed_umaps(p->feed, p->umaps);
		gt_bpf_set_early(p->b, gt_bpf_feed_early, p->feed);
	}
	/* The unwind tables load the spaces the naming reads (unwind.h). */
	if (p->opts.flags & GOTRACE_OPT_UNWIND_TABLES) {
		struct gt_unwind_params up;
		struct gt_unwind_sink sink;

		gt_bpf_unwind_sink(p->b, &p->unwind_fds, &up, &sink);
		p->unwind = gt_unwind_new(&up, &sink);
		if (!p->unwind)
			return -1;
		gt_umaps_on_read(p->umaps, unwind_on_read, p->unwind);
	}
	/* The units of the generational format, as the module writes them. */
	if (p->opts.format == GOTRACE_FORMAT_GO123 &&
	    !(p->opts.flags & GOTRACE_OPT_NO_UNITS)) {
		p->units = gt_cgunits_new(NULL);
		if (!p->units)
			return -1;
		gt_bpf_feed_units(p->feed, p->units);
	}
	return 0;
}

/* The programs record from here: start() must follow at once. */
struct gt_source *gt_source_bpf_open(const struct gt_source_args *a)
{
	struct bpf_source *p = calloc(1, sizeof(*p));
	struct gt_bpf_params bp = { .opts = &a->opts };

	if (!p) {
		gt_err("out of memory");
		return NULL;
	}
	p->src.ops = &bpf_ops;
	p->opts = a->opts;
	/* The default format, unless go1.11 was asked for. */
	if (p->opts.format != GOTRACE_FORMAT_GO111)
		p->opts.format = GOTRACE_FORMAT_GO123;
	bp.ring_bytes = ring_bytes(&a->opts);
	if (a->opts.flags & GOTRACE_OPT_UNWIND_TABLES)
		bp.unwind_rows = (a->unwind_bytes ? a->unwind_bytes :
				  GT_UNWIND_MEMORY_DEFAULT) /
				 sizeof(struct gotrace_unwind_row);
	p->b = gt_bpf_open(&bp);
	if (!p->b) {
		free(p);
		return NULL;
	}
	p->ksyms = gt_ksyms_load(NULL);
	if (bpf_model(p)) {
		gt_err("out of memory for the model");
		bpf_close(&p->src);
		return NULL;
	}
	return &p->src;
}
