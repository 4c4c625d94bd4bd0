/* SPDX-License-Identifier: GPL-2.0 */
/*
 * feed.h - the BPF backend's records, merged in time order, as the
 * input events of the Linux -> Go model (model/model_input.h)
 *
 * The filters ran in BPF: every task with a task record is recorded,
 * and the model is given no filter of its own.  A task the records name
 * only by key (left out by the filters, an idle task, or a task record
 * lost to a full ring) is given to the model as an idle task, so its CPU
 * looks idle, as the module shows tasks its filters leave out.  The
 * events of a recorded task that the table does not know (its task
 * record could not be kept) are lost that way: gt_bpf_feed_unknown()
 * counts them.
 */
#ifndef GOTRACE_BPF_FEED_H
#define GOTRACE_BPF_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "ksyms.h"

struct gt_model;
struct gt_bpf_feed;

/* @ksyms (may be NULL) drops the tracepoint iterator's frame. */
struct gt_bpf_feed *gt_bpf_feed_new(struct gt_model *m,
				    const struct gt_ksyms *ksyms);
struct gt_cgunits;
/* Name the tasks' systemd units from @units (gt_cgunits_new()), not freed. */
void gt_bpf_feed_units(struct gt_bpf_feed *f, struct gt_cgunits *units);
struct gt_umaps;
struct gtb_hdr;
struct gtb_ustack;
/*
 * The user stack record @h carries (record.h), NULL if none, or one that
 * does not fit its size.  @h->size bytes must be readable.
 */
const struct gtb_ustack *gt_bpf_rec_ustack(const struct gtb_hdr *h);
/*
 * Name user frames with @umaps (gt_umaps_new()), not freed: the feed
 * tells it of every user stack it gives the model.
 */
void gt_bpf_feed_umaps(struct gt_bpf_feed *f, struct gt_umaps *umaps);
/*
 * For the loader, on each record as it leaves its ring, before the
 * merge holds it (loader.h, gt_bpf_params.early): a user stack's
 * mappings are read then, while its process is most likely alive.
 */
void gt_bpf_feed_early(const void *rec, size_t len, void *arg);
void gt_bpf_feed_free(struct gt_bpf_feed *f);
/* A gt_merge_fn for gt_bpf_snapshot(): one existing task. */
void gt_bpf_feed_snap_task(const void *rec, size_t len, void *arg);
/*
 * Start the trace at @ts on @cpu with the tasks given so far; records
 * older than @ts only update the task table.  0 or -ENOSPC.
 */
int gt_bpf_feed_start(struct gt_bpf_feed *f, uint64_t ts, unsigned int cpu);
/*
 * The session ends at @ts: later records are not given to the model.
 * The programs are detached one after the other, so the records of the
 * last moments would otherwise show syscalls without their switches.
 */
void gt_bpf_feed_end(struct gt_bpf_feed *f, uint64_t ts);
/* A gt_merge_fn: one record, in time order. */
void gt_bpf_feed_record(const void *rec, size_t len, void *arg);
/*
 * CPU samples of tasks the filters leave out: the model was given them
 * as samples of an idle task, and counted them idle.
 */
uint64_t gt_bpf_feed_samples_hidden(const struct gt_bpf_feed *f);
/* Records of recorded tasks the table did not know, so lost. */
uint64_t gt_bpf_feed_unknown(const struct gt_bpf_feed *f);
/*
 * Switches the records missed, the gaps: a record of a recorded task
 * current on its CPU (a syscall, a switch-out, a wakeup, a fork, an
 * exec) that no switch record had put there.  Each is decided at its
 * CPU's next switch record, or by gt_bpf_feed_settle(), as one of the
 * two below; none is a loss of its own.
 */
uint64_t gt_bpf_feed_unswitched(const struct gt_bpf_feed *f);
/*
 * Gaps with a record of their CPU dropped meanwhile: taken for that
 * drop, which the ring's drop count has counted lost already.
 */
uint64_t gt_bpf_feed_gaps_dropped(const struct gt_bpf_feed *f);
/*
 * Gaps with no record of their CPU dropped meanwhile: the kernel never
 * ran the switch program for that switch (never reported it), so
 * nothing was lost.  The trace shows the task preempted where the next
 * one began.
 */
uint64_t gt_bpf_feed_unreported(const struct gt_bpf_feed *f);
/*
 * The distinct tasks the unreported switches were away from: their
 * number, and the first few as "comm tid, ..." into @buf.
 */
size_t gt_bpf_feed_unreported_tasks(const struct gt_bpf_feed *f, char *buf,
				    size_t len);
/*
 * The session's last drop count of each CPU (@drops[0..@nr), the BPF
 * map's, read after the programs are detached): decides the gaps found
 * after a CPU's last switch record.  A CPU without a count keeps its
 * gaps as drops.
 */
void gt_bpf_feed_settle(struct gt_bpf_feed *f, const uint64_t *drops,
			unsigned int nr);

#endif /* GOTRACE_BPF_FEED_H */
