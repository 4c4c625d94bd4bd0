// SPDX-License-Identifier: GPL-2.0
/*
 * umodel.c - the user-space side of the model library (gtmodel.h)
 *
 * Allocates what the module's session.c allocates, with the same
 * defaults, and turns the pool's queued chunks and the footer into a
 * trace file through the caller's write function.  The model itself is
 * the module's: model/model.c and the files it uses, built with
 * model/env/user.h.
 */
#include "gtmodel.h"

#include "../../../model/model_state.h"

/* The module's defaults (kmod/main.c, kmod/session.c). */
#define UMODEL_MAX_TASKS	16384U
#define UMODEL_MAX_STACKS	65536U
/* Linux's PID_MAX_LIMIT on 64-bit: every tid is below it. */
#define UMODEL_TID_MAX		(4U * 1024 * 1024)
/* The generational format: Go's runtime ends a generation every second. */
#define UMODEL_GENERATION_MS	1000U
#define UMODEL_CPU_BYTES	(4U * 1024 * 1024)
#define UMODEL_CPU_BYTES_MIN	(64U * 1024)
/*
 * The buffers of a CPU offline when the session begins (struct
 * gt_umodel_config.online), which the BPF backend gives a ring of one page:
 * one that comes online ends generations sooner, as the module's spare
 * CPUs do.  Sizing them as the online CPUs' made a machine of 64
 * possible CPUs reserve 1 GiB, and a 1 GiB guest refuse to fork.
 */
#define UMODEL_SPARE_BYTES	(64U * 1024)

/* Only tests set them (model/env/user.h). */
void (*gt_umodel_written_hook)(struct gt_model *m);
void (*gt_umodel_sweep_hook)(struct gt_model *m);

struct gt_model *gt_umodel_create(const struct gt_umodel_config *cfg)
{
	unsigned int nr = cfg->nr_cpus, stacks, chunks, cpu;
	struct gt_model *m;

	if (!nr || nr > 4096)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->nr_cpus = nr;
	m->nr_ps = nr;
	m->opts = cfg->opts;
	m->env.symbolise = cfg->symbolise;
	m->env.arg = cfg->arg;
	m->env.show_addrs = cfg->show_addrs;
	m->env.uresolve = cfg->uresolve;
	m->env.ufile = cfg->ufile;
	m->env.uarg = cfg->uarg ? cfg->uarg : cfg->arg;
	gt_lock_init(&m->close_lock);
	gt_atomic64_set(&m->bytes_produced, GOTRACE_HEADER_LEN);
	m->cpus = calloc(nr, sizeof(*m->cpus));
	if (!m->cpus)
		goto err;
	gt_model_init(m);
	for (cpu = 0; cpu < nr; cpu++)
		m->cpus[cpu].in_pool = true;
	chunks = cfg->chunks ? max(cfg->chunks, 2 * nr) : max(4 * nr, 32U);
	if (gt_pool_init(&m->pool, chunks, nr))
		goto err;
	if (gt_tasks_init(m, cfg->max_tasks ? cfg->max_tasks : UMODEL_MAX_TASKS,
			  UMODEL_TID_MAX))
		goto err;
	stacks = cfg->max_stacks ? cfg->max_stacks : UMODEL_MAX_STACKS;
	stacks = max(min(stacks, GT_STACKS_MAX), GT_STACKS_MIN);
	stacks = gt_table_stacks(stacks, cfg->format == GOTRACE_FORMAT_GO123);
	m->tables = gt_tables_alloc(stacks, stacks * GT_STACK_AVG_PCS,
				    cfg->format == GOTRACE_FORMAT_GO123);
	if (!m->tables)
		goto err;
	if (cfg->format == GOTRACE_FORMAT_GO123 &&
	    !(cfg->opts.flags & GOTRACE_OPT_NO_UNITS) &&
	    gt_units_init(m, GT_UNITS_MAX))
		goto err;
	if (cfg->format == GOTRACE_FORMAT_GO123) {
		m->format = GT_FORMAT_GO123;
		m->env.generation_ns = 1000000ULL * (cfg->generation_ms ?
				       cfg->generation_ms : UMODEL_GENERATION_MS);
		m->w123.show_addrs = cfg->show_addrs;
		u32 bytes = max(cfg->cpu_bytes ? cfg->cpu_bytes :
				UMODEL_CPU_BYTES, UMODEL_CPU_BYTES_MIN);

		m->env.online = cfg->online;
		if (gt_w123_init(m, bytes, min(bytes, UMODEL_SPARE_BYTES)))
			goto err;
		m->env.online = NULL;
	} else if (cfg->format != GOTRACE_FORMAT_GO111 &&
		   cfg->format != GOTRACE_FORMAT_DEFAULT) {
		goto err;
	}
	return m;
err:
	gt_umodel_destroy(m);
	return NULL;
}

void gt_umodel_destroy(struct gt_model *m)
{
	if (!m)
		return;
	gt_w123_free(m);
	gt_tables_free(m->tables);
	gt_units_free(m);
	gt_tasks_free(m);
	gt_pool_free(&m->pool);
	free(m->cpus);
	free(m);
}

/*
 * The generational format: end the current generation when it is due (or
 * when the trace ends, @last), then hand every byte written to @write.
 */
static int umodel_gen_drain(struct gt_model *m, bool last,
			   gt_umodel_write_fn write, void *arg)
{
	struct gt_w123 *v = &m->w123;
	int ret;

	if (!m->env.header_done) {
		ret = write(arg, GOTRACE_HEADER_GO123, GOTRACE_HEADER_LEN);
		if (ret)
			return ret;
		m->env.header_done = true;
	}
	if (m->armed || last) {
		if (last || gt_w123_gen_due(m, gt_model_last_ts(m),
					  m->env.generation_ns)) {
			u64 bytes = 0;
			unsigned int cpu;

			for (cpu = 0; cpu < m->nr_cpus; cpu++)
				bytes += v->cpus[cpu].set[v->gen & 1].enc.len;
			ret = gt_w123_gen_end(m, last);
			if (ret)
				return ret;
			m->env.generations++;
			m->env.gen_bytes_sum += bytes;
			m->env.gen_bytes_max = max(m->env.gen_bytes_max, bytes);
		}
	}
	if (!v->out_len)
		return 0;
	gt_atomic64_add(v->out_len, &m->bytes_produced);
	ret = write(arg, v->out, v->out_len);
	v->out_len = 0;
	return ret;
}

int gt_umodel_drain(struct gt_model *m, gt_umodel_write_fn write, void *arg)
{
	struct gt_chunk *chunk;
	bool stopped;
	int ret;

	if (m->format == GT_FORMAT_GO123)
		return umodel_gen_drain(m, false, write, arg);
	if (!m->env.header_done) {
		ret = write(arg, GOTRACE_HEADER, GOTRACE_HEADER_LEN);
		if (ret)
			return ret;
		m->env.header_done = true;
	}
	while ((chunk = gt_pool_next_full(&m->pool, &stopped))) {
		ret = chunk->len ? write(arg, chunk->data, chunk->len) : 0;
		gt_pool_put(&m->pool, chunk);
		if (ret)
			return ret;
	}
	return 0;
}

int gt_umodel_finish(struct gt_model *m, u64 ts, gt_umodel_write_fn write,
		     void *arg)
{
	size_t len;
	u8 *footer;
	int ret;

	gt_model_disarm(m);
	gt_model_close(m, ts);
	if (m->format == GT_FORMAT_GO123)
		return umodel_gen_drain(m, true, write, arg);
	gt_pool_mark_stopped(&m->pool);
	ret = gt_umodel_drain(m, write, arg);
	if (ret)
		return ret;
	ret = gt_tables_footer(m, gt_model_last_ts(m), m->env.show_addrs,
			       &footer, &len);
	if (ret)
		return ret;
	gt_atomic64_add(len, &m->bytes_produced);
	ret = write(arg, footer, len);
	free(footer);
	return ret;
}

void gt_umodel_stats(struct gt_model *m, struct gt_umodel_stats *st)
{
	st->events = gt_model_count(m, false);
	st->lost = gt_model_count(m, true);
	st->task_overflows = gt_atomic64_read(&m->task_overflows);
	st->chunk_overflows = gt_atomic64_read(&m->chunk_overflows);
	st->stack_overflows = gt_atomic64_read(&m->stack_overflows);
	st->unit_overflows = gt_atomic64_read(&m->unit_overflows);
	st->generations = m->env.generations;
	st->gen_events_max = m->env.gen_bytes_max;
	st->gen_events_avg = m->env.generations ?
		m->env.gen_bytes_sum / m->env.generations : 0;
	st->halted = READ_ONCE(m->halted);
	st->ustack_walks = gt_atomic64_read(&m->ustack_walks);
	st->ustack_bad_fp = gt_atomic64_read(&m->ustack_stops[GT_USTOP_BAD_FP]);
	st->ustack_faults = gt_atomic64_read(&m->ustack_stops[GT_USTOP_FAULT]);
	st->ustack_depth = gt_atomic64_read(&m->ustack_stops[GT_USTOP_DEPTH]);
	st->ustack_no_table =
		gt_atomic64_read(&m->ustack_stops[GT_USTOP_NO_TABLE]);
	st->ustack_no_rule =
		gt_atomic64_read(&m->ustack_stops[GT_USTOP_NO_RULE]);
	st->ustack_signal = gt_atomic64_read(&m->ustack_stops[GT_USTOP_SIGNAL]);
	st->ustack_bad_cfa =
		gt_atomic64_read(&m->ustack_stops[GT_USTOP_BAD_CFA]);
	st->ustack_queued = m->env.uqueued;
	st->ustack_syncs = m->env.usyncs;
	{
		struct gotrace_status smp = { 0 };

		gt_model_samples(m, &smp);
		st->cpu_samples = smp.cpu_samples;
		st->cpu_samples_idle = smp.cpu_samples_idle;
		st->cpu_samples_hidden = smp.cpu_samples_hidden;
		st->cpu_samples_lost = smp.cpu_samples_lost;
		gt_model_irq_status(m, &smp);
		st->irq_unmatched = smp.irq_unmatched;
		st->irq_too_deep = smp.irq_too_deep;
		st->irq_closed = smp.irq_closed;
		st->work_unnamed = smp.work_unnamed;
	}
	st->cpu_buffer_bytes = 0;
	if (m->format == GT_FORMAT_GO123 && m->w123.cpus)
		for (unsigned int c = 0; c < m->nr_cpus; c++)
			for (unsigned int i = 0; i < 2; i++)
				st->cpu_buffer_bytes +=
					m->w123.cpus[c].set[i].enc.cap;
	st->table_stacks_max = 0;
	st->table_pcs_max = 0;
	st->table_comms_max = 0;
	if (m->format == GT_FORMAT_GO123 && m->tables)
		gt_tables_peak(m->tables, &st->table_stacks_max,
			       &st->table_pcs_max, &st->table_comms_max);
}

bool gt_umodel_halted(struct gt_model *m)
{
	return READ_ONCE(m->halted);
}

void gt_umodel_set_generation_ns(struct gt_model *m, u64 ns)
{
	m->env.generation_ns = ns;
}

void gt_umodel_flush(struct gt_model *m)
{
	WRITE_ONCE(m->flush_seq, m->flush_seq + 1);
}

void gt_umodel_irq_no_switch(struct gt_model *m, bool on)
{
	m->w123.irq_no_switch = on;
}
