// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - one recording: start, stop, and the stream the reader gets
 *
 * The stream follows Go's ReadTrace: the 16-byte header, then chunks as
 * CPUs fill them (oldest first), then, once the session stopped and every
 * CPU's last chunk was read, the footer (frequency, strings, stacks), then
 * end of file.  A session writing the generational format ("go 1.23
 * trace") streams generations instead: the reader ends one every
 * generation_ms, or sooner when a CPU's buffer is half full (or the
 * generation's stack table three quarters, tables.c), and reads
 * it whole; the last one once the session stopped; then end of file.
 *
 *   RECORDING --stop: user, duration, overflow, abort--> STOPPED --footer
 *   read--> DONE
 *
 * A stop detaches the probes and waits until none runs any more, closes
 * every P (model.c), queues every CPU's last chunk and builds the footer;
 * it runs in process context: the "stop" write or ioctl, the tick work
 * (duration), the stop work (queued through an irq_work when a probe found
 * a pool empty), or the reader's close().
 *
 * Context: process context, may sleep, except
 * gt_session_model_halted() and gt_session_model_chunk_queued(), which the
 * model calls from probes, in any context.
 * Locking:
 *   s->lock (mutex) serialises start, stop and the state; it nests inside
 *   gt_dev_lock (dev.c) and the tracepoint mutex nests inside it.
 *   s->read_lock (mutex) serialises readers of the one file.
 *   No work item takes gt_dev_lock, so cancelling them under it is safe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "gotrace.h"

/*
 * The reader may see kernel addresses when %pK would print them to it:
 * kptr_restrict 1 with CAP_SYSLOG, or no_hash_pointers.  Otherwise the
 * trace carries synthetic PCs (symbols, modules and offsets are kept).
 * Asked in the reader's open(), where current's credentials are the
 * file's (f_cred), so that a descriptor passed on or a later change of
 * kptr_restrict does not change what the opener was allowed to see.
 */
static bool reader_sees_addrs(void)
{
	const void *addr = reader_sees_addrs;
	char buf[2 * sizeof(void *) + 3];
	unsigned long long v;

	snprintf(buf, sizeof(buf), "%pK", addr);
	return !kstrtoull(buf, 16, &v) && v == (unsigned long)addr;
}

static void session_wake_work(struct irq_work *w)
{
	struct gt_session *s = container_of(w, struct gt_session, wake_work);

	wake_up_interruptible(&s->wait);
	if (READ_ONCE(s->model.halted))
		schedule_work(&s->stop_work);
	if (!s->flight)
		return;
	/* No reader ends a flight-mode generation: the tick work does. */
	if (READ_ONCE(s->model.w123.due))
		mod_delayed_work(system_wq, &s->tick_work, 0);
	if (READ_ONCE(s->trig_pending)) {
		WRITE_ONCE(s->trig_pending, false);
		schedule_delayed_work(&s->snap_work,
				      msecs_to_jiffies(s->model.trig.post_ms));
	}
}

/* Flight mode, below. */
static void session_flight_tick(struct gt_session *s);
static void session_snap_work(struct work_struct *w);
static void flight_free(struct gt_session *s);

static void session_stop_work(struct work_struct *w)
{
	struct gt_session *s = container_of(w, struct gt_session, stop_work);

	gt_session_stop(s, GOTRACE_STOP_OVERFLOW);
}

/*
 * Every flush_ms: ask CPUs to hand over their chunks at their next event,
 * so a reader of a quiet machine still sees data; and stop once
 * duration_ms has elapsed.
 */
static void session_tick_work(struct work_struct *w)
{
	struct gt_session *s = container_of(to_delayed_work(w),
					    struct gt_session, tick_work);
	unsigned long next = msecs_to_jiffies(max(gt_param_flush_ms, 10U));

	if (s->flight)
		session_flight_tick(s);
	if (s->deadline && time_after_eq(jiffies, s->deadline)) {
		gt_session_stop(s, GOTRACE_STOP_DURATION);
		return;
	}
	WRITE_ONCE(s->model.flush_seq, s->model.flush_seq + 1);
	/* A reader in poll() learns that a generation is due. */
	if (s->model.format == GT_FORMAT_GO123) {
		if (time_after_eq(jiffies, READ_ONCE(s->gen_deadline)))
			wake_up_interruptible(&s->wait);
		next = min(next, msecs_to_jiffies(s->generation_ms));
	}
	if (s->deadline)
		next = min(next, s->deadline - jiffies);
	mutex_lock(&s->lock);
	if (s->state == GOTRACE_STATE_RECORDING)
		schedule_delayed_work(&s->tick_work, next);
	mutex_unlock(&s->lock);
}

/*
 * The model's environment (env_kernel.h): a chunk is queued, wake the
 * reader; the model halted (it had no room for an event), stop the
 * session.  Both deferred: probes run under the runqueue lock.
 */
void gt_session_model_chunk_queued(struct gt_model *m)
{
	struct gt_session *s = container_of(m, struct gt_session, model);

	irq_work_queue(&s->wake_work);
}

void gt_session_model_halted(struct gt_model *m)
{
	struct gt_session *s = container_of(m, struct gt_session, model);

	irq_work_queue(&s->wake_work);
}

/* Free what session_start_locked() allocated; safe on a partial start. */
static void session_free_buffers(struct gt_session *s)
{
	/* Every timer is stopped (gt_session_stop(), the start's failure). */
	gt_sampler_free(s);
	/* First: its work may name frames, no table is needed for that. */
	gt_ustack_free(&s->model);
	gt_w123_free(&s->model);
	gt_tables_free(s->model.tables);
	s->model.tables = NULL;
	gt_units_free(&s->model);
	gt_tasks_free(&s->model);
	gt_pool_free(&s->model.pool);
	free_percpu(s->model.cpus);
	s->model.cpus = NULL;
}

static void session_free(struct gt_session *s)
{
	flight_free(s);
	if (s->rchunk)
		gt_pool_put(&s->model.pool, s->rchunk);
	gt_env_free(s->footer);
	session_free_buffers(s);
	/* No probe walks, no ioctl loads: the reader's file is gone. */
	gt_unwind_free(s->model.env.uw);
	put_pid(s->reader);
	kfree(s);
}

static unsigned int session_chunks(unsigned int nr_cpus)
{
	if (gt_param_chunks)
		return max(min(gt_param_chunks, GT_CHUNKS_MAX),
			   GOTRACE_CHUNKS_PER_CPU_MIN * nr_cpus);
	/* 8 chunks (512 KiB) per CPU, and at least 2 MiB in all. */
	return max(8 * nr_cpus, 32U);
}

static unsigned int session_max_tasks(void)
{
	struct task_struct *g, *p;
	unsigned int n = 0;

	BUILD_BUG_ON((u64)GT_TASKS_MAX * sizeof(struct gt_task) > GT_ALLOC_MAX);
	if (gt_param_max_tasks)
		return min(gt_param_max_tasks, GT_TASKS_MAX);
	rcu_read_lock();
	for_each_process_thread(g, p)
		n++;
	rcu_read_unlock();
	/* Room for as many new tasks as exist, and at least 16384. */
	return min(max(2 * n, 16384U), GT_TASKS_MAX);
}

/**
 * gt_session_create() - a session for a new reader, not recording yet
 * @sp:	set to the new session
 *
 * Only the session itself is allocated: its options may still be set
 * (GOTRACE_IOC_SET_OPTIONS) until the reader's first read() or poll()
 * starts the recording (gt_session_start()).
 *
 * Context: process context (the reader's open(): current is the opener),
 * gt_dev_lock held.
 * Return: 0 or -ENOMEM.
 */
int gt_session_create(struct gt_session **sp)
{
	struct gt_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->reader = get_task_pid(current, PIDTYPE_TGID);
	s->show_addrs = reader_sees_addrs();
	s->state = GOTRACE_STATE_READY;
	s->model.opts.size = sizeof(s->model.opts);
	s->model.opts.syscalls = READ_ONCE(gt_param_syscalls);
	if (!READ_ONCE(gt_param_kstacks))
		s->model.opts.flags |= GOTRACE_OPT_NO_KSTACKS;
	if (!READ_ONCE(gt_param_wake_kstacks))
		s->model.opts.flags |= GOTRACE_OPT_NO_WAKE_KSTACKS;
	if (READ_ONCE(gt_param_user_stacks))
		s->model.opts.flags |= GOTRACE_OPT_USER_STACKS;
	if (READ_ONCE(gt_param_sample_isolated))
		s->model.opts.flags |= GOTRACE_OPT_CPU_ISOLATED;
	atomic64_set(&s->model.bytes_produced, GOTRACE_HEADER_LEN);
	mutex_init(&s->lock);
	mutex_init(&s->read_lock);
	mutex_init(&s->uw_lock);
	gt_lock_init(&s->model.close_lock);
	init_waitqueue_head(&s->wait);
	init_irq_work(&s->wake_work, session_wake_work);
	INIT_WORK(&s->stop_work, session_stop_work);
	INIT_DELAYED_WORK(&s->tick_work, session_tick_work);
	INIT_LIST_HEAD(&s->fl_gens);
	INIT_DELAYED_WORK(&s->snap_work, session_snap_work);
	raw_spin_lock_init(&s->fl_trig_lock);
	*sp = s;
	return 0;
}

/*
 * A session writing the generational format: two buffers per possible
 * CPU (the one it writes, the one the reader writes out), each of the
 * size the 1.11 format gives an online CPU's share of its chunks (the
 * chunk pool then only keeps its minimum): its events take twice the
 * bytes, and a CPU can only write its own buffer, which it must not
 * fill before the reader, which may get little CPU, ends the generation
 * (Documentation/performance.rst, the ramps).  A possible CPU that is not
 * online gets GT_W123_SPARE_BYTES: machines (cloud VMs) often have many
 * more possible CPUs than online ones, and a CPU brought online during a
 * session is rare; its generations then end sooner.  @chunks: the
 * session's chunks.
 */
static int session_w123_init(struct gt_session *s, unsigned int chunks,
			     unsigned int online)
{
	struct gt_model *m = &s->model;
	u64 cpu_bytes;

	m->format = GT_FORMAT_GO123;
	m->nr_cpus = nr_cpu_ids;
	m->w123.show_addrs = s->show_addrs;
	/* Clamped as a u64: the chunks' bytes may pass 4 GiB. */
	cpu_bytes = clamp_t(u64, (u64)chunks * GT_CHUNK_SIZE / online,
			    GT_CHUNK_SIZE, SZ_64M);
	s->generation_ms = m->opts.generation_ms ?:
			   READ_ONCE(gt_param_generation_ms);
	/* A flight window is dropped a generation at a time: a tenth of it. */
	if (s->flight && !m->opts.generation_ms && m->opts.flight_ms)
		s->generation_ms = clamp(m->opts.flight_ms / 10,
					 GT_GENERATION_MS_MIN, s->generation_ms);
	s->gen_deadline = jiffies + msecs_to_jiffies(s->generation_ms);
	return gt_w123_init(m, cpu_bytes, GT_W123_SPARE_BYTES);
}

/*
 * Allocate every pool, sized by the CPUs online now (cpus_read_lock()
 * held: none comes or goes until the session is armed, after which
 * gt_model_cpu_online() gives a new one its share).  s->lock held.
 */
static int session_alloc(struct gt_session *s)
{
	unsigned int online = num_online_cpus(), stacks, chunks, cpu;
	bool gens;
	int ret;

	/*
	 * Memory and Ps follow the CPUs online now, not the possible ones
	 * (a cloud VM may have 4 of 128): a CPU that comes online later
	 * grows the pool's reserve (gt_model_cpu_online()).
	 */
	chunks = s->model.opts.chunks ?
		 max(s->model.opts.chunks, GOTRACE_CHUNKS_PER_CPU_MIN * online) :
		 session_chunks(online);
	s->model.nr_ps = gt_session_online_ps();
	s->model.cpus = alloc_percpu(struct gt_cpu);
	if (!s->model.cpus)
		return -ENOMEM;
	gt_model_init(&s->model);
	for_each_online_cpu(cpu)
		per_cpu_ptr(s->model.cpus, cpu)->in_pool = true;
	if (s->model.opts.format == GOTRACE_FORMAT_GO123) {
		ret = session_w123_init(s, chunks, online);
		if (ret)
			return ret;
		chunks = 2 * online;
	}
	ret = gt_pool_init(&s->model.pool, chunks, online);
	if (ret)
		return ret;
	/*
	 * pid_max is not exported to modules: the tid bitmap covers every
	 * tid possible (512 KiB on 64-bit).
	 */
	ret = gt_tasks_init(&s->model, session_max_tasks(), PID_MAX_LIMIT);
	if (ret)
		return ret;
	stacks = clamp(READ_ONCE(gt_param_max_stacks), GT_STACKS_MIN,
		       GT_STACKS_MAX);
	gens = s->model.format == GT_FORMAT_GO123;
	stacks = gt_table_stacks(stacks, gens);
	s->model.tables = gt_tables_alloc(stacks, stacks *
					  (GT_STACK_AVG_PCS +
					   (s->model.opts.flags &
					    GOTRACE_OPT_USER_STACKS ?
					    GT_STACK_AVG_UPCS : 0)), gens);
	if (!s->model.tables)
		return -ENOMEM;
	ret = gt_ustack_init(&s->model);
	if (ret)
		return ret;
	if (s->model.opts.cpu_hz) {
		ret = gt_sampler_init(s);
		if (ret)
			return ret;
	}
	/* Only the generational format writes units (go123_writer.c). */
	if (gens && !(s->model.opts.flags & GOTRACE_OPT_NO_UNITS))
		return gt_units_init(&s->model, GT_UNITS_MAX);
	return 0;
}

/*
 * Stop the CPU samplers, if any, and wait for their callbacks: no CPU
 * comes or goes meanwhile, and none starts its timer after.
 */
static void session_sampler_stop(struct gt_session *s)
{
	cpus_read_lock();
	gt_sampler_stop(s);
	cpus_read_unlock();
}

/*
 * Attach the probes, allocate every pool, write the snapshot of the
 * existing tasks and arm the probes.  On failure everything allocated
 * here is freed again and the session is over: every read returns the
 * error.  s->lock held.
 */
static int session_start_locked(struct gt_session *s)
{
	int ret;

	s->flight = s->model.opts.flight_ms || s->model.opts.flight_bytes;
	if (s->flight) {
		s->model.opts.format = GOTRACE_FORMAT_GO123;
		s->fl_window_ns = (u64)s->model.opts.flight_ms * NSEC_PER_MSEC;
		s->fl_max_bytes = s->model.opts.flight_bytes ?:
				  GOTRACE_FLIGHT_BYTES_DEFAULT;
		s->trig_holdoff_ns = (u64)max(s->model.trig.holdoff_ms ?:
					      GOTRACE_TRIGGER_HOLDOFF_DEFAULT_MS,
					      s->model.trig.post_ms) *
				     NSEC_PER_MSEC;
	} else {
		s->model.trig.type = GOTRACE_TRIGGER_NONE;
	}
	if (!s->model.opts.format)
		s->model.opts.format = READ_ONCE(gt_param_format);
	s->read_path = s->flight ? GT_READ_FLIGHT :
		       s->model.opts.format == GOTRACE_FORMAT_GO123 ?
		       GT_READ_GENERATIONS : GT_READ_CHUNKS;
	/* The parameter samples go1.23 sessions (go1.11 has no samples). */
	if (!s->model.opts.cpu_hz &&
	    s->model.opts.format == GOTRACE_FORMAT_GO123)
		s->model.opts.cpu_hz = READ_ONCE(gt_param_cpu_hz);
	s->start_ns = ktime_get_ns();

	/*
	 * The probes first, not armed (they return at once): registering
	 * them takes cpu_hotplug_lock itself (static keys), after
	 * tracepoints_mutex, so it cannot be held here yet.
	 */
	ret = gt_probes_register(s);
	if (ret)
		goto err_free;
	/*
	 * From counting the CPUs to arming, no CPU comes online unseen: the
	 * hotplug callbacks do nothing before the arming, and one that came
	 * online after the count would get no share of the pool.  They take
	 * no lock that is held here (dev.c: RCU, then close_lock).
	 */
	cpus_read_lock();
	ret = session_alloc(s);
	if (!ret) {
		ret = gt_probes_snapshot(s);
		if (ret)
			pr_err("snapshot of the running tasks does not fit: %d\n",
			       ret);
	}
	if (!ret)
		gt_sampler_start(s);
	cpus_read_unlock();
	if (ret)
		goto err_probes;

	s->state = GOTRACE_STATE_RECORDING;
	s->fl_last_end = s->start_ns;
	if (gt_param_duration_ms)
		s->deadline = jiffies + msecs_to_jiffies(gt_param_duration_ms);
	schedule_delayed_work(&s->tick_work, 0);
	return 0;

err_probes:
	gt_model_disarm(&s->model);
	session_sampler_stop(s);
	gt_probes_unregister(s);
err_free:
	/* Work items queued meanwhile find no recording; destroy syncs them. */
	session_free_buffers(s);
	s->start_err = ret;
	s->state = GOTRACE_STATE_DONE;
	return ret;
}

/**
 * gt_session_start() - start recording, if not done yet
 * @s:	session
 *
 * A stop asked for before the start stops the recording at once: the
 * reader still gets a complete, if short, trace.
 *
 * Context: process context of the reader (its read() or poll()).
 * Return: 0, or the error of the start (-ENOMEM, -ENOSPC when the pools
 * are too small for the tasks, or a tracepoint registration's).
 */
int gt_session_start(struct gt_session *s)
{
	u32 stop;
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->state == GOTRACE_STATE_READY)
		ret = session_start_locked(s);
	else
		ret = s->start_err;
	stop = s->stop_pending;
	s->stop_pending = GOTRACE_STOP_NONE;
	mutex_unlock(&s->lock);
	if (!ret && stop != GOTRACE_STOP_NONE)
		gt_session_stop(s, stop);
	return ret;
}

/**
 * gt_session_set_options() - what the session will record
 * @s:		session
 * @opts:	options, checked by the caller
 *
 * Context: process context.
 * Return: 0, or -EBUSY once the recording started.
 */
int gt_session_set_options(struct gt_session *s,
			   const struct gotrace_options *opts)
{
	struct gt_unwind *uw = NULL, *old;
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->state != GOTRACE_STATE_READY) {
		ret = -EBUSY;
		goto out;
	}
	/*
	 * The unwind tables' memory now, not at the start: the command
	 * loads the tables of the processes running before it starts the
	 * recording, so that their first stacks are whole.
	 */
	if (opts->flags & GOTRACE_OPT_UNWIND_TABLES) {
		uw = gt_unwind_alloc(opts->unwind_rows, opts->unwind_spaces);
		if (!uw) {
			ret = -ENOMEM;
			goto out;
		}
	}
	s->model.opts = *opts;
	mutex_lock(&s->uw_lock);
	old = s->model.env.uw;
	s->model.env.uw = uw;
	mutex_unlock(&s->uw_lock);
	gt_unwind_free(old);
out:
	mutex_unlock(&s->lock);
	return ret;
}

/**
 * gt_session_unwind_ioctl() - load the session's unwind tables
 * @s:		session
 * @cmd:	GOTRACE_IOC_UNWIND_*
 * @arg:	its argument
 *
 * Before the start and while recording (the probes read what is loaded
 * at once: unwind.h), one call at a time.
 *
 * Context: process context (the reader's process, its tables' thread).
 * Return: 0, -EINVAL without GOTRACE_OPT_UNWIND_TABLES, or the ioctl's.
 */
long gt_session_unwind_ioctl(struct gt_session *s, unsigned int cmd,
			     void __user *arg)
{
	long ret = -EINVAL;

	mutex_lock(&s->uw_lock);
	if (s->model.env.uw)
		ret = gt_unwind_ioctl(s->model.env.uw, cmd, arg);
	mutex_unlock(&s->uw_lock);
	return ret;
}

/**
 * gt_session_set_trigger() - when the flight-mode session snapshots by itself
 * @s:	session
 * @tr:	the trigger, checked by the caller
 *
 * Context: process context.
 * Return: 0, -EBUSY once the recording started, -EINVAL if the options
 * did not ask for flight mode.
 */
int gt_session_set_trigger(struct gt_session *s,
			   const struct gotrace_trigger *tr)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->state != GOTRACE_STATE_READY)
		ret = -EBUSY;
	else if (!s->model.opts.flight_ms && !s->model.opts.flight_bytes)
		ret = -EINVAL;
	else
		s->model.trig = *tr;
	mutex_unlock(&s->lock);
	return ret;
}

/**
 * gt_session_stop() - end the recording; the reader gets the rest and EOF
 * @s:		session
 * @reason:	GOTRACE_STOP_*; for GOTRACE_STOP_ABORT no footer is built
 *
 * Does nothing if the session already stopped.
 *
 * Context: process context, may sleep; takes s->lock.
 */
void gt_session_stop(struct gt_session *s, u32 reason)
{
	int ret;

	mutex_lock(&s->lock);
	if (s->state == GOTRACE_STATE_READY && reason != GOTRACE_STOP_ABORT)
		s->stop_pending = reason;
	if (s->state != GOTRACE_STATE_RECORDING)
		goto out;

	/*
	 * Probes detach one tracepoint at a time: disarm them all first, or
	 * the trace could get an exec without the switch that preceded it.
	 */
	gt_model_disarm(&s->model);
	session_sampler_stop(s);
	gt_probes_unregister(s);
	gt_model_close(&s->model, 0);

	if (READ_ONCE(s->model.halted) && reason != GOTRACE_STOP_ABORT)
		reason = GOTRACE_STOP_OVERFLOW;
	if (reason == GOTRACE_STOP_OVERFLOW)
		pr_warn("out of buffer space: trace ended after %llu events, %llu not recorded (chunks %lld, tasks %lld, stacks %lld)\n",
			gt_model_count(&s->model, false),
			gt_model_count(&s->model, true),
			atomic64_read(&s->model.chunk_overflows),
			atomic64_read(&s->model.task_overflows),
			atomic64_read(&s->model.stack_overflows));
	if (s->model.format == GT_FORMAT_GO123 &&
	    reason != GOTRACE_STOP_ABORT && gt_model_count(&s->model, true))
		pr_warn("%llu events not recorded, the buffers being full: the trace marks where (per CPU: the status)\n",
			gt_model_count(&s->model, true));
	/* The reader writes a generational session's last generation. */
	if (reason != GOTRACE_STOP_ABORT &&
	    s->model.format == GT_FORMAT_GO111) {
		ret = gt_tables_footer(&s->model, gt_model_last_ts(&s->model),
				       s->show_addrs, &s->footer,
				       &s->footer_len);
		if (ret)
			pr_err("cannot build the trace footer: %d\n", ret);
		atomic64_add(s->footer_len, &s->model.bytes_produced);
	}
	s->stop_reason = reason;
	s->state = GOTRACE_STATE_STOPPED;
	gt_pool_mark_stopped(&s->model.pool);
	wake_up_interruptible(&s->wait);
out:
	mutex_unlock(&s->lock);
}

/**
 * gt_session_destroy() - stop if needed and free everything
 * @s:	session; its reader is gone
 *
 * Context: process context, may sleep.
 */
void gt_session_destroy(struct gt_session *s)
{
	gt_session_stop(s, GOTRACE_STOP_ABORT);
	/* No probe runs now; flush what they may have queued. */
	irq_work_sync(&s->wake_work);
	cancel_work_sync(&s->stop_work);
	cancel_delayed_work_sync(&s->tick_work);
	cancel_delayed_work_sync(&s->snap_work);
	session_free(s);
}

/*
 * Copy up to @n bytes of @src to the reader.  Returns the bytes copied,
 * or -EFAULT if none could be.
 */
static ssize_t read_copy(char __user *dst, const void *src, size_t n)
{
	size_t left = copy_to_user(dst, src, n);

	return left == n ? -EFAULT : (ssize_t)(n - left);
}

static void session_gen_catch_up(void *arg)
{
	gt_probes_catch_up(arg);
}

/* Is it time to end the generation?  Or has the session stopped? */
static bool session_gen_due(struct gt_session *s)
{
	return READ_ONCE(s->model.w123.due) ||
	       time_after_eq(jiffies, READ_ONCE(s->gen_deadline)) ||
	       READ_ONCE(s->state) != GOTRACE_STATE_RECORDING;
}

/*
 * End the current generation while the probes run, and write it out:
 * every CPU moves to the next one, at its next event or at the latest
 * in the IPI sent here, with interrupts off, as its hooks run; the CPUs
 * that are offline (CPU hotplug is held off meanwhile) are moved on
 * their behalf.  Once all have, nothing writes the old generation any
 * more.  s->lock and s->read_lock held, the session recording.
 */
static int session_gen_advance(struct gt_session *s)
{
	struct gt_model *m = &s->model;
	unsigned int cpu;

	cpus_read_lock();
	gt_w123_advance(m);
	on_each_cpu(session_gen_catch_up, s, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			gt_w123_cpu_catch_up(m, per_cpu_ptr(m->cpus, cpu));
	cpus_read_unlock();
	WRITE_ONCE(s->gen_deadline,
		   jiffies + msecs_to_jiffies(s->generation_ms));
	return gt_w123_gen_write(m, false);
}

/*
 * The generational stream after the header: the generation being read,
 * else the next one if it is due (the last one once the session
 * stopped), else nothing yet (0) or, once the last was read, end of file.
 */
static ssize_t read_generations(struct gt_session *s, char __user *buf, size_t count,
				bool *eof)
{
	struct gt_w123 *v = &s->model.w123;
	ssize_t n;
	int ret = 0;

	if (s->gen_err)
		return s->gen_err;
	if (s->out_pos == v->out_len) {
		v->out_len = 0;
		s->out_pos = 0;
		mutex_lock(&s->lock);
		if (s->state == GOTRACE_STATE_RECORDING) {
			if (session_gen_due(s))
				ret = session_gen_advance(s);
		} else if (!s->gen_last) {
			/* Stopped: every hook is done, every P closed. */
			ret = gt_w123_gen_write(&s->model, true);
			s->gen_last = true;
		} else {
			s->state = GOTRACE_STATE_DONE;
			*eof = true;
		}
		if (!ret && v->out_len) {
			s->generations++;
			atomic64_add(v->out_len, &s->model.bytes_produced);
		}
		mutex_unlock(&s->lock);
		if (ret) {
			/* A generation cut short would end the trace there. */
			pr_err("cannot write generation %llu: %d\n",
			       s->generations + 1, ret);
			v->out_len = 0;
			s->gen_err = ret;
			return ret;
		}
		if (!v->out_len)
			return 0;
	}
	n = read_copy(buf, v->out + s->out_pos,
		      min_t(size_t, count, v->out_len - s->out_pos));
	if (n > 0)
		s->out_pos += n;
	return n;
}

/* ---- Flight mode ------------------------------------------------------ */

/*
 * A flight-mode session keeps its finished generations (struct
 * gt_flight_gen) in a window instead of streaming them: the tick work
 * ends each one (no reader does), and the oldest are dropped once the
 * newer ones cover the window's time, or the window holds more than its
 * bytes.  A snapshot ends the current generation and takes a reference
 * on each generation kept; the reader reads the header and them, then
 * read() returns 0 once.  Memory: the window's bytes (at least its
 * newest generation), plus those of a snapshot not read yet, plus the
 * CPUs' buffers.  Everything here runs in process context with
 * read_lock held (and lock where the session's state is read).
 */

static void flight_gen_release(struct kref *ref)
{
	struct gt_flight_gen *g = container_of(ref, struct gt_flight_gen, ref);

	gt_env_free(g->buf);
	kfree(g);
}

static void flight_gen_put(struct gt_flight_gen *g)
{
	kref_put(&g->ref, flight_gen_release);
}

static void flight_snap_free(struct gt_flight_snap *snap)
{
	unsigned int i;

	if (!snap)
		return;
	for (i = 0; i < snap->nr; i++)
		flight_gen_put(snap->gens[i]);
	kfree(snap->gens);
	kfree(snap);
}

static void flight_free(struct gt_session *s)
{
	struct gt_flight_gen *g, *tmp;

	flight_snap_free(s->snap);
	s->snap = NULL;
	list_for_each_entry_safe(g, tmp, &s->fl_gens, node) {
		list_del(&g->node);
		flight_gen_put(g);
	}
	s->fl_nr = 0;
	s->fl_bytes = 0;
}

/*
 * Drop the oldest generations the window does not need: those after
 * which the rest still covers the window's time, and any beyond its
 * bytes, but never the newest.
 */
static void flight_trim(struct gt_session *s)
{
	struct gt_flight_gen *g, *next;

	while (s->fl_nr > 1) {
		g = list_first_entry(&s->fl_gens, struct gt_flight_gen, node);
		next = list_next_entry(g, node);
		if (s->fl_bytes <= s->fl_max_bytes &&
		    (!s->fl_window_ns ||
		     next->start_ns + s->fl_window_ns > s->fl_last_end))
			break;
		list_del(&g->node);
		s->fl_nr--;
		s->fl_bytes -= g->cap;
		s->fl_dropped++;
		flight_gen_put(g);
	}
}

/* Keep the generation just written (model.w123.out): it becomes ours. */
static int flight_keep(struct gt_session *s)
{
	struct gt_w123 *v = &s->model.w123;
	struct gt_flight_gen *g;

	if (!v->out_len)
		return 0;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	kref_init(&g->ref);
	g->buf = v->out;
	g->len = v->out_len;
	g->cap = v->out_cap;
	v->out = NULL;
	v->out_len = 0;
	v->out_cap = 0;
	/*
	 * The buffer grew by doubling from 64 KiB: keep only the bytes, so
	 * that the window's memory is its trace (a copy is cheap next to
	 * writing the generation).  Without memory for it, keep it whole.
	 */
	if (g->cap - g->len > g->len / 4) {
		u8 *buf = gt_env_alloc(g->len);

		if (buf) {
			memcpy(buf, g->buf, g->len);
			gt_env_free(g->buf);
			g->buf = buf;
			g->cap = g->len;
		}
	}
	g->start_ns = s->fl_last_end;
	g->end_ns = max(v->gen_start, s->fl_last_end);
	s->fl_last_end = g->end_ns;
	list_add_tail(&g->node, &s->fl_gens);
	s->fl_nr++;
	s->fl_bytes += g->cap;
	s->generations++;
	atomic64_add(g->len, &s->model.bytes_produced);
	flight_trim(s);
	return 0;
}

/*
 * End the current generation and keep it: while recording, as the
 * reader of a streaming session does; once stopped, the last one.  An
 * error ends the trace: every later read returns it.  read_lock and
 * lock held.
 */
static int flight_advance(struct gt_session *s)
{
	int ret;

	if (s->gen_err)
		return s->gen_err;
	if (s->state == GOTRACE_STATE_RECORDING)
		ret = session_gen_advance(s);
	else
		ret = gt_w123_gen_write(&s->model, true);
	if (!ret)
		ret = flight_keep(s);
	if (ret) {
		pr_err("cannot write generation %llu: %d\n",
		       s->generations + 1, ret);
		s->model.w123.out_len = 0;
		s->gen_err = ret;
	}
	return ret;
}

/*
 * Take a snapshot for the reader: the current generation ends, and the
 * window's generations are the snapshot.  @trig: what fired, for
 * GOTRACE_SNAP_TRIGGER.  read_lock and lock held.
 */
static int flight_snap_take(struct gt_session *s, u32 reason,
			    const struct gotrace_snapshot *trig)
{
	struct gotrace_snapshot *info = &s->snap_info;
	struct gt_flight_snap *snap;
	struct gt_flight_gen *g;
	u64 seq = info->seq + 1, bytes = GOTRACE_HEADER_LEN;
	unsigned int i = 0;
	int ret;

	if (s->snap || s->snap_end) {
		atomic64_inc(&s->snap_missed);
		return -EBUSY;
	}
	ret = flight_advance(s);
	if (ret)
		return ret;
	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (snap)
		snap->gens = kcalloc(max(s->fl_nr, 1U), sizeof(*snap->gens),
				     GFP_KERNEL);
	if (!snap || !snap->gens) {
		kfree(snap);
		atomic64_inc(&s->snap_missed);
		return -ENOMEM;
	}
	list_for_each_entry(g, &s->fl_gens, node) {
		kref_get(&g->ref);
		snap->gens[i++] = g;
		bytes += g->len;
	}
	snap->nr = i;
	if (trig)
		*info = *trig;
	else
		memset(info, 0, sizeof(*info));
	info->reason = reason;
	info->seq = seq;
	info->time_ns = ktime_get_ns();
	info->start_ns = i ? snap->gens[0]->start_ns : s->start_ns;
	info->end_ns = s->fl_last_end;
	info->bytes = bytes;
	info->generations = i;
	s->snap = snap;
	wake_up_interruptible(&s->wait);
	return 0;
}

/* The tick work ends a flight-mode generation when it is due. */
static void session_flight_tick(struct gt_session *s)
{
	if (!session_gen_due(s))
		return;
	mutex_lock(&s->read_lock);
	mutex_lock(&s->lock);
	if (s->state == GOTRACE_STATE_RECORDING && !s->gen_err &&
	    session_gen_due(s))
		flight_advance(s);
	mutex_unlock(&s->lock);
	mutex_unlock(&s->read_lock);
}

/* A trigger fired post_ms ago: its snapshot. */
static void session_snap_work(struct work_struct *w)
{
	struct gt_session *s = container_of(to_delayed_work(w),
					    struct gt_session, snap_work);
	struct gotrace_snapshot trig;

	raw_spin_lock_irq(&s->fl_trig_lock);
	trig = s->trig_info;
	raw_spin_unlock_irq(&s->fl_trig_lock);
	mutex_lock(&s->read_lock);
	mutex_lock(&s->lock);
	if (s->state == GOTRACE_STATE_RECORDING)
		flight_snap_take(s, GOTRACE_SNAP_TRIGGER, &trig);
	mutex_unlock(&s->lock);
	mutex_unlock(&s->read_lock);
}

/**
 * gt_session_model_trigger() - a trigger's condition held in a hook
 * @m:		the model
 * @type:	GOTRACE_TRIGGER_*
 * @p:		the task
 * @value:	what was measured
 * @now:	trace time
 *
 * Fires unless a trigger fired less than the hold-off ago; its snapshot
 * follows post_ms later (deferred: hooks hold the runqueue lock).
 *
 * Context: any, O(1).
 * Return: whether it fired.
 */
bool gt_session_model_trigger(struct gt_model *m, u32 type,
			      const struct gt_in_task *p, u64 value, u64 now)
{
	struct gt_session *s = container_of(m, struct gt_session, model);
	s64 next = atomic64_read(&s->trig_next_ns);
	unsigned long flags;

	if ((s64)now < next ||
	    atomic64_cmpxchg(&s->trig_next_ns, next,
			     now + s->trig_holdoff_ns) != next) {
		atomic64_inc(&s->trig_held_off);
		return false;
	}
	atomic64_inc(&s->trig_fired);
	raw_spin_lock_irqsave(&s->fl_trig_lock, flags);
	s->trig_info.trigger = type;
	s->trig_info.tid = p->tid;
	s->trig_info.tgid = p->tgid;
	s->trig_info.value_ns = value;
	s->trig_info.trigger_ns = now;
	memcpy(s->trig_info.comm, p->comm, sizeof(s->trig_info.comm));
	s->trig_info.comm[sizeof(s->trig_info.comm) - 1] = '\0';
	raw_spin_unlock_irqrestore(&s->fl_trig_lock, flags);
	WRITE_ONCE(s->trig_pending, true);
	irq_work_queue(&s->wake_work);
	return true;
}

/**
 * gt_session_snapshot() - GOTRACE_IOC_SNAPSHOT
 * @s:	session
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT if it does not record, -EINVAL if not in flight
 * mode, -EBUSY while the previous snapshot is being read, -ENOMEM.
 */
int gt_session_snapshot(struct gt_session *s)
{
	int ret;

	if (mutex_lock_interruptible(&s->read_lock))
		return -ERESTARTSYS;
	mutex_lock(&s->lock);
	if (s->state != GOTRACE_STATE_RECORDING)
		ret = -ENOENT;
	else if (!s->flight)
		ret = -EINVAL;
	else
		ret = flight_snap_take(s, GOTRACE_SNAP_USER, NULL);
	mutex_unlock(&s->lock);
	mutex_unlock(&s->read_lock);
	return ret;
}

/* GOTRACE_IOC_GET_SNAPSHOT: @info zeroed by the caller. */
void gt_session_snapshot_info(struct gt_session *s,
			      struct gotrace_snapshot *info)
{
	mutex_lock(&s->lock);
	if (s->flight) {
		*info = s->snap_info;
		info->triggers = atomic64_read(&s->trig_fired);
		info->held_off = atomic64_read(&s->trig_held_off);
		info->missed = atomic64_read(&s->snap_missed);
		info->dropped = s->fl_dropped;
	}
	mutex_unlock(&s->lock);
	info->size = sizeof(*info);
}

/*
 * The flight-mode stream: nothing until a snapshot is taken, then the
 * header and its generations, then 0 once (snap_end); once the session
 * stopped, the last window (a snapshot of reason STOP), then end of file.
 */
static ssize_t read_flight(struct gt_session *s, char __user *buf,
			   size_t count, bool *eof)
{
	struct gt_flight_snap *snap = s->snap;
	struct gt_flight_gen *g;
	ssize_t n;
	int ret = 0;

	if (s->gen_err)
		return s->gen_err;
	if (s->snap_end) {
		*eof = true;
		return 0;
	}
	if (!snap) {
		mutex_lock(&s->lock);
		if (s->state == GOTRACE_STATE_STOPPED && !s->gen_last) {
			s->gen_last = true;
			ret = flight_snap_take(s, GOTRACE_SNAP_STOP, NULL);
		} else if (s->state != GOTRACE_STATE_RECORDING) {
			s->state = GOTRACE_STATE_DONE;
			*eof = true;
		}
		mutex_unlock(&s->lock);
		if (ret)
			return ret;
		snap = s->snap;
		if (!snap)
			return 0;
	}
	if (snap->hdr_pos < GOTRACE_HEADER_LEN) {
		n = read_copy(buf, GOTRACE_HEADER_GO123 + snap->hdr_pos,
			      min_t(size_t, count,
				    GOTRACE_HEADER_LEN - snap->hdr_pos));
		if (n > 0)
			snap->hdr_pos += n;
		return n;
	}
	while (snap->idx < snap->nr && snap->pos == snap->gens[snap->idx]->len) {
		snap->idx++;
		snap->pos = 0;
	}
	if (snap->idx == snap->nr) {
		flight_snap_free(snap);
		s->snap = NULL;
		s->snap_end = true;
		*eof = true;
		return 0;
	}
	g = snap->gens[snap->idx];
	n = read_copy(buf, g->buf + snap->pos,
		      min_t(size_t, count, g->len - snap->pos));
	if (n > 0)
		snap->pos += n;
	return n;
}

/* The rest of the header @hdr into @buf; 0 once it was read whole. */
static ssize_t read_header(struct gt_session *s, char __user *buf,
			   size_t count, const char *hdr)
{
	ssize_t n;

	if (s->header_pos == GOTRACE_HEADER_LEN)
		return 0;
	n = read_copy(buf, hdr + s->header_pos,
		      min_t(size_t, count, GOTRACE_HEADER_LEN - s->header_pos));
	if (n > 0)
		s->header_pos += n;
	return n;
}

/*
 * The 1.11 stream after the header: the full chunks as they come, then,
 * once the session stopped and every chunk was read, the footer and end
 * of file.
 */
static ssize_t read_chunks(struct gt_session *s, char __user *buf,
			   size_t count, bool *eof)
{
	bool stopped;
	ssize_t n;

	if (!s->rchunk) {
		s->rchunk = gt_pool_next_full(&s->model.pool, &stopped);
		s->rpos = 0;
		if (!s->rchunk && !stopped)
			return 0;
	}
	if (s->rchunk) {
		n = read_copy(buf, s->rchunk->data + s->rpos,
			      min_t(size_t, count, s->rchunk->len - s->rpos));
		if (n > 0)
			s->rpos += n;
		if (s->rpos == s->rchunk->len) {
			gt_pool_put(&s->model.pool, s->rchunk);
			s->rchunk = NULL;
		}
		return n;
	}
	if (!s->footer)
		return -ENOMEM;
	if (s->footer_pos == s->footer_len) {
		mutex_lock(&s->lock);
		s->state = GOTRACE_STATE_DONE;
		mutex_unlock(&s->lock);
		*eof = true;
		return 0;
	}
	n = read_copy(buf, s->footer + s->footer_pos,
		      min_t(size_t, count, s->footer_len - s->footer_pos));
	if (n > 0)
		s->footer_pos += n;
	return n;
}

/* Next bytes of the stream into @buf; 0 if nothing is ready, <0 on error. */
static ssize_t read_some(struct gt_session *s, char __user *buf, size_t count,
			 bool *eof)
{
	switch (s->read_path) {
	case GT_READ_FLIGHT:
		return read_flight(s, buf, count, eof);
	case GT_READ_GENERATIONS:
		return read_header(s, buf, count, GOTRACE_HEADER_GO123) ?:
		       read_generations(s, buf, count, eof);
	default:
		return read_header(s, buf, count, GOTRACE_HEADER) ?:
		       read_chunks(s, buf, count, eof);
	}
}

/* Has a flight-mode reader something to read (or end of file)? */
static bool session_flight_ready(struct gt_session *s)
{
	return READ_ONCE(s->snap) || READ_ONCE(s->snap_end) ||
	       READ_ONCE(s->state) != GOTRACE_STATE_RECORDING;
}

/*
 * Wait until the next read may find something: a queued chunk (or the
 * stop), or for the generational format a generation due.  Returns
 * -ERESTARTSYS on a signal.
 */
static int session_wait(struct gt_session *s)
{
	long left;

	switch (s->read_path) {
	case GT_READ_CHUNKS:
		return wait_event_interruptible(s->wait,
						gt_pool_has_full(&s->model.pool));
	case GT_READ_FLIGHT:
		return wait_event_interruptible(s->wait, session_flight_ready(s));
	default:
		break;
	}
	left = (long)(READ_ONCE(s->gen_deadline) - jiffies);
	left = wait_event_interruptible_timeout(s->wait, session_gen_due(s),
						max(left, 1L));
	return left < 0 ? (int)left : 0;
}

/**
 * gt_session_read() - read(2) of the stream
 * @s:		session
 * @buf:	user buffer
 * @count:	its size
 * @nonblock:	O_NONBLOCK: -EAGAIN instead of waiting
 *
 * Any read size works: the stream is returned exactly once, in order.  A
 * signal while waiting returns what was copied so far, or -ERESTARTSYS;
 * nothing is lost, the next read goes on where this one stopped.
 *
 * Context: process context, may sleep.
 */
ssize_t gt_session_read(struct gt_session *s, char __user *buf, size_t count,
			bool nonblock)
{
	bool eof = false;
	size_t done = 0;
	ssize_t n;

	n = gt_session_start(s);
	if (n)
		return n;
	if (mutex_lock_interruptible(&s->read_lock))
		return -ERESTARTSYS;
	while (done < count && !eof) {
		n = read_some(s, buf + done, count - done, &eof);
		if (n < 0)
			break;
		if (n > 0) {
			done += n;
			continue;
		}
		if (eof || done)
			break;
		if (nonblock) {
			n = -EAGAIN;
			break;
		}
		mutex_unlock(&s->read_lock);
		if (session_wait(s))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&s->read_lock))
			return -ERESTARTSYS;
	}
	/* A snapshot's end is a read of 0, once. */
	if (s->flight && eof && !done)
		s->snap_end = false;
	mutex_unlock(&s->read_lock);
	if (done) {
		atomic64_add(done, &s->bytes_read);
		return done;
	}
	return n;
}

/* poll(2): readable when a chunk, the footer or end of file is there. */
__poll_t gt_session_poll(struct gt_session *s, struct file *file,
			 poll_table *wait)
{
	if (gt_session_start(s))
		return EPOLLERR;
	poll_wait(file, &s->wait, wait);
	if (s->read_path == GT_READ_FLIGHT)
		return session_flight_ready(s) ? EPOLLIN | EPOLLRDNORM : 0;
	if (READ_ONCE(s->header_pos) < GOTRACE_HEADER_LEN)
		return EPOLLIN | EPOLLRDNORM;
	if (s->read_path == GT_READ_GENERATIONS) {
		if (READ_ONCE(s->out_pos) < READ_ONCE(s->model.w123.out_len) ||
		    session_gen_due(s))
			return EPOLLIN | EPOLLRDNORM;
		return 0;
	}
	if (READ_ONCE(s->rchunk) || gt_pool_has_full(&s->model.pool))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/**
 * gt_session_cpu_offline() - the calling CPU goes offline
 * @s:	session
 *
 * Context: the CPU hotplug thread of that CPU, under rcu_read_lock():
 * takes no lock that is held while probes are (un)registered, since CPU
 * hotplug and tracepoint registration both take cpu_hotplug_lock.
 */
void gt_session_cpu_offline(struct gt_session *s)
{
	struct gt_in_ev ev = { };

	gt_sampler_cpu_offline(s);
	gt_model_cpu_offline(&s->model, &ev);
	wake_up_interruptible(&s->wait);
}

/* The calling CPU came online.  Context: as gt_session_cpu_offline(). */
void gt_session_cpu_online(struct gt_session *s)
{
	struct gt_in_ev ev = { };

	gt_model_cpu_online(&s->model, &ev);
	gt_sampler_cpu_online(s);
}

/* Fill the counters of @st->cpu (checked).  Context: process context. */
int gt_session_cpu_status(struct gt_session *s, struct gotrace_cpu_status *st)
{
	mutex_lock(&s->lock);
	if (s->model.cpus)
		gt_model_cpu_status(&s->model, st);
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * The Ps a session starting now would have: one per CPU number up to the
 * highest online CPU, not nr_cpu_ids (a cloud VM may have 4 of 128).
 */
unsigned int gt_session_online_ps(void)
{
	return cpumask_last(cpu_online_mask) + 1;
}

/* Fill @st (zeroed by the caller).  Context: process context. */
void gt_session_status(struct gt_session *s, struct gotrace_status *st)
{
	bool started;

	mutex_lock(&s->lock);
	st->state = s->state;
	st->stop_reason = s->stop_reason;
	started = s->model.cpus;
	mutex_unlock(&s->lock);
	st->nr_cpus = started ? s->model.nr_ps : gt_session_online_ps();
	/* In the asker's pid namespace: it may not be the opener's. */
	st->reader_pid = pid_vnr(s->reader);
	st->bytes_read = atomic64_read(&s->bytes_read);
	if (!started)
		return;
	st->start_ns = s->start_ns;
	st->events = gt_model_count(&s->model, false);
	st->lost_events = gt_model_count(&s->model, true);
	st->chunks_total = s->model.pool.nr;
	st->chunks_in_use = gt_pool_in_use(&s->model.pool);
	st->bytes_produced = atomic64_read(&s->model.bytes_produced);
	st->chunk_overflows = atomic64_read(&s->model.chunk_overflows);
	st->task_overflows = atomic64_read(&s->model.task_overflows);
	st->stack_overflows = atomic64_read(&s->model.stack_overflows);
	st->unit_overflows = atomic64_read(&s->model.unit_overflows);
	st->ustack_walks = atomic64_read(&s->model.ustack_walks);
	st->ustack_bad_fp =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_BAD_FP]);
	st->ustack_faults =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_FAULT]);
	st->ustack_depth = atomic64_read(&s->model.ustack_stops[GT_USTOP_DEPTH]);
	st->ustack_queue_full = atomic64_read(&s->model.ustack_queue_full);
	st->ustack_map_full = atomic64_read(&s->model.ustack_map_full);
	st->ustack_mm_busy = atomic64_read(&s->model.ustack_mm_busy);
	st->ustack_no_table =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_NO_TABLE]);
	st->ustack_no_rule =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_NO_RULE]);
	st->ustack_signal =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_SIGNAL]);
	st->ustack_bad_cfa =
		atomic64_read(&s->model.ustack_stops[GT_USTOP_BAD_CFA]);
	mutex_lock(&s->uw_lock);
	gt_unwind_status(s->model.env.uw, st);
	mutex_unlock(&s->uw_lock);
	gt_model_samples(&s->model, st);
	gt_model_irq_status(&s->model, st);
	st->format = s->model.format == GT_FORMAT_GO123 ?
		     GOTRACE_FORMAT_GO123 : GOTRACE_FORMAT_GO111;
	st->generations = READ_ONCE(s->generations);
	mutex_lock(&s->lock);
	st->flight_bytes = s->fl_bytes;
	st->flight_generations = s->fl_nr;
	mutex_unlock(&s->lock);
}
