// SPDX-License-Identifier: GPL-2.0
/*
 * record_bpf.c - 'gotrace record --backend bpf' (record_bpf.h)
 *
 * The BPF programs capture (bpf/loader.c), their records are merged in
 * time order and fed to the module's Linux -> Go model built for user
 * space (bpf/feed.c, bpf/model/), which writes the same trace the
 * module would; this file runs the session: output file, COMMAND,
 * signals, duration, the start-up snapshot, the drain loop, the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/loader.h"
#include "bpf/feed.h"
#include "record_bpf.h"
#include "bpf/cgunits.h"
#include "child.h"
#include "bpf/ksyms.h"
#include "bpf/umaps.h"
#include "bpf/model/gtmodel.h"
#include "notify.h"
#include "output.h"
#include "recsig.h"
#include "record_sym.h"
#include "rotate.h"
#include "util.h"

/* How often the reader drains when no ring is half full. */
#define POLL_MS		100
#define STATUS_NS	1000000000ULL	/* systemd's STATUS= period */

struct sink {
	int fd;
	struct gt_rotate *rot;		/* --rotate: the files, not @fd */
	uint64_t bytes;
	int err;
};

static int sink_write(void *arg, const void *buf, size_t len)
{
	struct sink *s = arg;
	int ret = s->rot ? gt_rotate_write(s->rot, buf, len) :
			   gt_write_all(s->fd, buf, len);

	if (ret) {
		s->err = -ret;
		return ret;
	}
	s->bytes += len;
	return 0;
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
 * The CPU samples, as the module's recorder says them (record.c), and
 * a warning for those lost: the model's (not taken, or no room in its
 * buffer) and @drops, those whose records found their ring full.  Lost
 * samples are no lost events: the trace's events are whole.  The model
 * counted the filtered-out tasks' samples idle (bpf/feed.c): each one
 * the feed gave it, so they move back exactly.
 */
static void say_samples(const struct gt_bpf_rec *a,
			const struct gt_umodel_stats *model,
			const struct gt_bpf_feed *feed, uint64_t drops)
{
	struct gt_umodel_stats s = *model, *st = &s;
	uint64_t hidden = gt_bpf_feed_samples_hidden(feed), lost;

	hidden = hidden < st->cpu_samples_idle ? hidden : st->cpu_samples_idle;
	st->cpu_samples_idle -= hidden;
	st->cpu_samples_hidden += hidden;
	lost = st->cpu_samples_lost + drops;

	if (!a->quiet && (st->cpu_samples || st->cpu_samples_idle || lost))
		fprintf(stderr, "%s: CPU samples at %u Hz: %" PRIu64
			" written, %" PRIu64 " idle, %" PRIu64
			" filtered out, %" PRIu64 " lost\n", GT_NAME,
			a->opts.cpu_hz, (uint64_t)st->cpu_samples,
			(uint64_t)st->cpu_samples_idle,
			(uint64_t)st->cpu_samples_hidden, lost);
	if (lost)
		gt_warn("%" PRIu64 " CPU samples lost: %" PRIu64
			" found their BPF ring full, %" PRIu64
			" were not taken (a CPU's sampling interrupt ran late, or the kernel skipped its program) or found the model's samples buffer full",
			lost, drops, (uint64_t)st->cpu_samples_lost);
}

int gt_bpf_record(struct gt_bpf_rec *a)
{
	struct gt_umodel_config cfg = { 0 };
	struct gt_bpf_params p = { .opts = &a->opts };
	struct gt_child child = { .go_fd = -1, .err_fd = -1 };
	struct gt_output out = { .fd = -1 };
	struct gt_rotate rot = { .fd = -1 };
	struct gt_umodel_stats st;
	struct gt_merge_stats ms = { 0 };
	struct gt_bpf_feed *feed = NULL;
	struct gt_cgunits *units = NULL;
	struct gt_ksyms *ksyms = NULL;
	struct gt_umaps *umaps = NULL;
	struct gt_umaps_stats us;
	struct gt_model *m = NULL;
	struct gt_bpf *b = NULL;
	struct sink sink = { 0 };
	const char *why = "interrupted";
	uint64_t start, next_status, drops = 0, unknown = 0, unreported = 0;
	double secs = 0;	/* recorded, once the trace has its end */
	uint64_t misses = 0, twins = 0, smp_drops = 0, *cpu_drops = NULL;
	size_t unreported_tasks = 0;
	sigset_t none;
	bool ok = false;
	int ret = GT_EXIT_FAIL, cpu;
	char sz[32], smp[48] = "", where[PATH_MAX + 64], missed[256], who[160];

	if (a->rotate) {
		if (gt_rotate_open(&rot, a->rotate))
			return GT_EXIT_FAIL;
		sink.rot = &rot;
		out.path = a->rotate->dir;
		gt_recsig_abort_msg("%s: aborted: the last file in %s keeps its .tmp name\n",
				    GT_NAME, a->rotate->dir);
	} else if (gt_output_open(&out, a->out_path, "trace",
				  GT_OUTPUT_KEEP_OLD)) {
		return GT_EXIT_FAIL;
	} else {
		gt_recsig_abort_output(&out);
	}
	sink.fd = out.fd;
	sigemptyset(&none);
	/*
	 * The module's recorder's signals (recsig.h), not blocked: the
	 * loop sleeps POLL_MS at most, then looks at them.
	 */
	gt_recsig_say(a->quiet, false);
	gt_recsig_install(false, NULL);
	if (a->cmd_filter) {
		if (gt_child_fork(&child, a->cmd, &none, out.fd == STDOUT_FILENO))
			goto out;
		gt_recsig_child(child.pid);
		a->opts.pids[0] = child.pid;
		a->opts.nr_pids = 1;
	}
	p.ring_bytes = ring_bytes(&a->opts);
	b = gt_bpf_open(&p);
	if (!b)
		goto out;
	ksyms = gt_ksyms_load(NULL);
	/*
	 * The filters ran in BPF: the model records what it is given.  It
	 * keeps the comm filter, with --children, which exempts the tasks it
	 * adopts from it: a recorded task that executes another program or
	 * renames itself is decided again there, and its goroutine ends if
	 * its new comm does not match, as with the module.
	 */
	cfg.opts = a->opts;
	cfg.opts.nr_pids = 0;
	cfg.opts.cgroup_id = 0;
	cfg.opts.flags &= ~GOTRACE_OPT_TGID;
	cfg.nr_cpus = gt_bpf_nr_cpus(b);
	cfg.show_addrs = ksyms && gt_ksyms_visible(ksyms);
	cfg.symbolise = ksyms ? symbolise : NULL;
	cfg.arg = ksyms;
	cfg.format = a->format_v2 ? GT_UMODEL_GO123 : GT_UMODEL_GO111;
	/* User frames are named from the processes' mappings (umaps.h). */
	if (a->opts.flags & GOTRACE_OPT_USER_STACKS) {
		umaps = gt_umaps_new(NULL);
		if (!umaps) {
			gt_err("out of memory for the user stacks");
			goto out;
		}
		cfg.uresolve = gt_umaps_resolve;
		cfg.ufile = gt_umaps_file;
		cfg.uarg = umaps;
	}
	m = gt_umodel_create(&cfg);
	feed = m ? gt_bpf_feed_new(m, ksyms) : NULL;
	if (feed && umaps) {
		gt_bpf_feed_umaps(feed, umaps);
		gt_bpf_set_early(b, gt_bpf_feed_early, feed);
	}
	/* The units of the generational format, as the module writes them. */
	if (feed && a->format_v2 && !(a->opts.flags & GOTRACE_OPT_NO_UNITS)) {
		units = gt_cgunits_new(NULL);
		if (units) {
			gt_bpf_feed_units(feed, units);
		} else {
			gt_bpf_feed_free(feed);
			feed = NULL;
		}
	}
	if (!feed) {
		gt_err("out of memory for the model");
		goto out;
	}
	start = gt_now_ns();
	cpu = sched_getcpu();
	if (gt_bpf_snapshot(b, gt_bpf_feed_snap_task, feed))
		goto out;
	if (gt_bpf_feed_start(feed, start, cpu < 0 ? 0 : cpu)) {
		gt_err("the tasks do not fit the model's buffers");
		goto out;
	}
	if (child.pid ? gt_child_exec(&child) :
	    a->cmd && gt_child_start(&child, a->cmd, &none,
				     out.fd == STDOUT_FILENO))
		goto out;
	gt_recsig_child(child.pid);
	gt_notify_ready();
	next_status = start + STATUS_NS;
	for (;;) {
		uint64_t now = gt_now_ns();

		if (now >= next_status && gt_notify_enabled()) {
			gt_umodel_stats(m, &st);
			/*
			 * The switches the kernel did not report: apart, as
			 * at the end; so are the CPU samples lost (when
			 * sampling), which are no lost events.
			 */
			if (a->opts.cpu_hz)
				snprintf(smp, sizeof(smp), ", %" PRIu64
					 " samples lost",
					 (uint64_t)st.cpu_samples_lost +
					 gt_bpf_sample_drops(b));
			gt_notify_status("recording %.0f s: %s written, %" PRIu64
					 " events, %" PRIu64 " lost, %" PRIu64
					 " switches unreported%s (bpf)",
					 (double)(now - start) / 1e9,
					 gt_fmt_bytes(sink.bytes, sz, sizeof(sz)),
					 (uint64_t)st.events,
					 (uint64_t)st.lost + gt_bpf_drops(b, NULL) +
					 gt_bpf_misses(b, NULL, 0) +
					 gt_bpf_feed_unknown(feed),
					 gt_bpf_feed_unreported(feed), smp);
			next_status = now + STATUS_NS;
		}
		if (gt_bpf_poll(b, POLL_MS, gt_bpf_feed_record, feed))
			goto out;
		gt_recsym_poll(a->sym);
		if (gt_umodel_drain(m, sink_write, &sink))
			break;
		/* It writes nothing more: recording on would hide that. */
		if (gt_umodel_halted(m)) {
			why = "events lost, the trace ends early";
			break;
		}
		if (gt_recsig_stopping()) {
			why = gt_recsig_why();
			break;
		}
		if (a->duration_ns && gt_now_ns() - start >= a->duration_ns) {
			why = "duration elapsed";
			break;
		}
		if (a->cmd) {
			gt_child_reap(&child, false);
			if (!child.pid) {
				why = "command exited";
				break;
			}
		}
	}
	gt_notify_stopping();
	gt_bpf_feed_end(feed, gt_now_ns());
	gt_bpf_finish(b, gt_bpf_feed_record, feed);
	/* (Without memory for it, the gaps left are taken for drops.) */
	cpu_drops = calloc(gt_bpf_nr_cpus(b), sizeof(*cpu_drops));
	drops = gt_bpf_drops(b, cpu_drops);
	gt_bpf_feed_settle(feed, cpu_drops, cpu_drops ? gt_bpf_nr_cpus(b) : 0);
	free(cpu_drops);
	misses = gt_bpf_misses(b, missed, sizeof(missed));
	twins = gt_bpf_twin_runs(b);
	smp_drops = gt_bpf_sample_drops(b);
	unknown = gt_bpf_feed_unknown(feed);
	unreported = gt_bpf_feed_unreported(feed);
	unreported_tasks = gt_bpf_feed_unreported_tasks(feed, who, sizeof(who));
	gt_bpf_merge_stats(b, &ms);
	if (!sink.err)
		gt_umodel_finish(m, gt_now_ns(), sink_write, &sink);
	secs = (double)(gt_now_ns() - start) / 1e9;
	if (sink.err) {
		gt_err("writing %s: %s", a->rotate ? gt_rotate_where(&rot) :
		       gt_output_name(&out), strerror(sink.err));
		why = "output error";
	} else {
		ok = true;
	}
out:
	if (a->rotate) {
		if (gt_rotate_close(&rot, ok) && ok) {
			gt_err("writing %s: %s", gt_rotate_where(&rot),
			       strerror(rot.err));
			ok = false;
		}
		snprintf(where, sizeof(where), "%" PRIu64 " files in %s%s",
			 rot.committed, a->rotate->dir, rot.kept.removed ?
			 " (the oldest removed by --keep)" : "");
	} else {
		if (ok && gt_output_commit(&out))
			ok = false;
		if (!ok)
			if (gt_output_abandon(&out, sink.bytes > 0))
				gt_output_say_kept(&out);
		snprintf(where, sizeof(where), "%s", out.path);
	}
	if (ok) {
		gt_umodel_stats(m, &st);
		if (!a->quiet)
			fprintf(stderr,
				"%s: %s (%" PRIu64 " bytes) written to %s, %" PRIu64
				" events, %.2f s, stopped: %s, %" PRIu64
				" lost, backend bpf\n", GT_NAME,
				gt_fmt_bytes(sink.bytes, sz, sizeof(sz)),
				sink.bytes, where, (uint64_t)st.events,
				secs, why,
				(uint64_t)st.lost + drops + misses + unknown);
		gt_umaps_stats(umaps, &us);
		/* As the module's recorder says it (record.c). */
		if (st.ustack_walks && !a->quiet)
			fprintf(stderr, "%s: user stacks: %" PRIu64 " walked, "
				"truncated: bad frame pointer %" PRIu64
				", fault %" PRIu64 ", depth limit %" PRIu64
				"; unnamed: %" PRIu64 " of %" PRIu64
				" address spaces gone, %" PRIu64
				" running another program before their maps were read\n",
				GT_NAME, (uint64_t)st.ustack_walks,
				(uint64_t)st.ustack_bad_fp,
				(uint64_t)st.ustack_faults,
				(uint64_t)st.ustack_depth, us.gone, us.spaces,
				us.changed);
		if (a->opts.cpu_hz)
			say_samples(a, &st, feed, smp_drops);
		if (twins && !a->quiet)
			fprintf(stderr, "%s: %" PRIu64 " syscall tracepoint hits recorded by the twin programs, their first program busy on their CPU (a task preempted inside it)\n",
				GT_NAME, twins);
		/*
		 * A switch missing from the records is lost only when a
		 * record of its CPU was dropped (bpf_feed.c): in drops
		 * then, not counted again.
		 */
		if (drops || misses || unknown || st.lost || st.halted)
			gt_warn("*** %" PRIu64 " EVENTS LOST *** (%" PRIu64
				" records found their BPF ring full, %" PRIu64
				" tracepoint hits found their program busy on their CPU, %" PRIu64
				" named a task the reader did not know, %" PRIu64
				" events found the model's buffers full)",
				(uint64_t)st.lost + drops + misses + unknown,
				drops, misses, unknown, (uint64_t)st.lost);
		/*
		 * Not a loss: the kernel never ran the switch program for
		 * these (Documentation/bpf-backend.rst), no backend could
		 * record them.  Said apart, so that the loss warning is
		 * only ever about events this tool lost.
		 */
		if (unreported && !a->quiet)
			fprintf(stderr, "%s: note: the kernel reported no switch away from %zu task%s%s%s%s %" PRIu64
				" time%s; the trace shows %s preempted where the next task began\n",
				GT_NAME, unreported_tasks,
				unreported_tasks == 1 ? "" : "s",
				who[0] ? " (" : "", who, who[0] ? ")" : "",
				unreported, unreported == 1 ? "" : "s",
				unreported_tasks == 1 ? "it" : "them");
		/* The reader fell behind the tracepoints. */
		if (drops)
			gt_warn("the BPF rings filled faster than they were read: raise --buffer-size, record fewer syscalls (--syscalls blocking, --syscall-filter), or filter the tasks");
		/* Of any task: the kernel skips before the filters run. */
		if (misses)
			gt_warn("%" PRIu64 " tracepoint hits not recorded: the kernel did not run their BPF program, its CPU being inside it already (a task preempted there): %s",
				misses, missed);
		if (st.halted)
			gt_warn("the trace ends where the first event was lost; raise --buffer-size, filter, or record for less time");
		/* Written, with the task's own frame for a stack. */
		if (st.stack_overflows)
			gt_warn("%" PRIu64 " kernel stacks not kept: the stack table was full",
				(uint64_t)st.stack_overflows);
		/* Handed to the model out of order: it clamps their times. */
		if (ms.late)
			gt_warn("%" PRIu64 " records reached their ring later than the %llu ms the merge waits for",
				(uint64_t)ms.late,
				GT_BPF_REORDER_NS / 1000000);
		ret = GT_EXIT_OK;
		if (!a->rotate)
			gt_recsym_file(a->sym, out.path);
	}
	gt_recsym_finish(a->sym);
	/* COMMAND forked but never let go: EOF on its pipe ends it. */
	if (child.go_fd >= 0)
		gt_child_cancel(&child);
	/* The trace is complete: from now on a signal may simply kill. */
	if (child.pid && !a->quiet)
		fprintf(stderr, "%s: waiting for %s (pid %d) to exit\n",
			GT_NAME, a->cmd[0], (int)child.pid);
	gt_recsig_restore(NULL);
	if (child.pid || child.ran) {
		gt_child_reap(&child, true);
		if (child.ran && ok)
			ret = gt_child_exit_code(&child);
	}
	if (a->rotate)
		gt_rotate_free(&rot);
	else
		gt_output_free(&out);
	gt_bpf_feed_free(feed);
	gt_umaps_free(umaps);
	gt_cgunits_free(units);
	gt_umodel_destroy(m);
	gt_ksyms_free(ksyms);
	gt_bpf_close(b);
	return ret;
}
