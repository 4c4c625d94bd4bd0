/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user.h - the model's environment in user space (model/model_env.h)
 *
 * One thread feeds the model (gtmodel.h): locks are no-ops that only
 * count, for the assertion that a lock is held; "per-CPU" state is an
 * array indexed by the event's CPU; the clock is the event's time; the
 * lazy queries are answered from the eager fields of the input events.
 * Also the few generic helpers of the kernel the portable files use
 * (likely, min, max, ARRAY_SIZE, READ_ONCE, ilog2, ...), under the
 * kernel's names.
 */
#ifndef _GT_ENV_USER_H
#define _GT_ENV_USER_H

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model_input.h"

/* ---- The kernel's generic helpers --------------------------------------- */

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define max(a, b)		({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
				   a_ > b_ ? a_ : b_; })
#define min(a, b)		({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
				   a_ < b_ ? a_ : b_; })
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

static inline unsigned int ilog2(unsigned long v)
{
	return v ? BITS_PER_LONG - 1 - __builtin_clzl(v) : 0;
}

static inline unsigned long roundup_pow_of_two(unsigned long v)
{
	return v <= 1 ? 1 : 1UL << (ilog2(v - 1) + 1);
}

/* ---- Locks, atomics, ordering ----------------------------------------- */

/* Held or not: the model runs on one thread, the count checks the rules. */
typedef struct {
	int held;
} gt_lock_t;

#define gt_lock_init(l)			((l)->held = 0)
#define gt_lock(l)			((l)->held++)
#define gt_unlock(l)			(assert((l)->held > 0), (l)->held--)
#define gt_lock_irqsave(l, f)		((void)(f), gt_lock(l))
#define gt_unlock_irqrestore(l, f)	((void)(f), gt_unlock(l))
#define gt_lockdep_assert_held(l)	assert((l)->held > 0)
#define gt_lockdep_assert_irqs_disabled() do { } while (0)

typedef struct {
	s64 v;
} gt_atomic64_t;

#define gt_atomic64_set(a, x)		((a)->v = (x))
#define gt_atomic64_read(a)		((a)->v)
#define gt_atomic64_inc(a)		((void)((a)->v++))
#define gt_atomic64_add(x, a)		((void)((a)->v += (x)))
#define gt_atomic64_inc_return(a)	(++(a)->v)

static inline bool gt_test_and_set_bit(unsigned long nr, unsigned long *p)
{
	unsigned long bit = 1UL << (nr % BITS_PER_LONG);
	bool old = p[nr / BITS_PER_LONG] & bit;

	p[nr / BITS_PER_LONG] |= bit;
	return old;
}

static inline bool gt_test_bit(unsigned long nr, const unsigned long *p)
{
	return p[nr / BITS_PER_LONG] & 1UL << (nr % BITS_PER_LONG);
}

static inline void gt_set_bit(unsigned long nr, unsigned long *p)
{
	p[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

#define gt_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define gt_store_release(p, v)		__atomic_store_n(p, v, __ATOMIC_RELEASE)

/* ---- Per-CPU state ---------------------------------------------------- */

#define GT_PERCPU
#define gt_env_cpu_ptr(cpus, cpu)	(&(cpus)[cpu])
/* Online when the session began: every CPU unless its maker said (umodel.c). */
static inline bool gt_uenv_cpu_online(const bool *online, unsigned int cpu)
{
	return !online || online[cpu];
}

#define gt_env_cpu_online(m, cpu)	gt_uenv_cpu_online((m)->env.online, cpu)
#define gt_env_for_each_cpu(cpu, m)	for ((cpu) = 0; (cpu) < (int)(m)->nr_cpus; (cpu)++)
/* The CPU the event names; NULL (the event is dropped) if out of range. */
#define gt_env_hook_cpu(m, ev)		((ev)->cpu < (m)->nr_cpus ? \
					 &(m)->cpus[(ev)->cpu] : NULL)
#define gt_env_irq_save(flags)		((void)(flags))
#define gt_env_irq_restore(flags)	((void)(flags))

/*
 * What the user-space model keeps of its own: the footer's symboliser,
 * whether the footer shows real addresses, whether the trace header was
 * written; in the generational format, how long a generation lasts and
 * how many were written.
 */
struct gt_env_model {
	bool (*symbolise)(void *arg, u64 pc, char *buf, size_t len);
	void *arg;
	bool show_addrs;
	bool header_done;
	u64 generation_ns;
	u64 generations;
	u64 gen_bytes_max;
	u64 gen_bytes_sum;
	bool (*uresolve)(void *arg, u64 space, u64 pc, u32 *file, u64 *off);
	const char *(*ufile)(void *arg, u32 file);
	void *uarg;		/* of uresolve and ufile */
	u64 uqueued;		/* user PCs handed to gt_env_ustack_queue() */
	u64 usyncs;		/* gt_env_ustack_sync() calls */
	/*
	 * The CPUs online when the session began (NULL: every CPU), read
	 * while the model is made only (gt_umodel_create()).
	 */
	const bool *online;
};

/* ---- Time ------------------------------------------------------------- */

/*
 * No clock: the time of an event (or of the close) is the one it is
 * given, 0 included.
 */
#define gt_env_clock()			0ULL

/* ---- Memory ----------------------------------------------------------- */

/*
 * kvmalloc() refuses more than INT_MAX bytes, and warns (a panic under
 * panic_on_warn): so do these, without the warning, so that the host
 * tests see what the module would not get.
 */
static inline void *gt_env_user_alloc(size_t n, size_t size, bool zero)
{
	if (size && n > INT_MAX / size)
		return NULL;
	return zero ? calloc(n, size) : malloc(n * size);
}

#define gt_env_zalloc(n, size)		gt_env_user_alloc(n, size, true)
#define gt_env_alloc(size)		gt_env_user_alloc(1, size, false)
#define gt_env_free(p)			free(p)
#define gt_env_big_alloc(size)		malloc(size)
#define gt_env_big_free(p)		free(p)

/* ---- Hashing ---------------------------------------------------------- */

static inline u32 gt_env_hash64(u64 v, unsigned int bits)
{
	return bits ? (u32)((v * 0x61C8864680B583EBULL) >> (64 - bits)) : 0;
}

static inline u32 gt_env_hash32(u32 v, unsigned int bits)
{
	return bits ? (v * 0x61C88647U) >> (32 - bits) : 0;
}

/*
 * FNV-1a: the tables need a hash, not the kernel's jhash bit for bit;
 * but one that mixes every byte into every bit, as jhash does.  FNV-1a
 * alone does not: strings that differ in their last byte only land a
 * multiple of 403 slots apart in any table of a power-of-two size above
 * 1 KiB, never in each other's probe sequence, so that a lookup that
 * compared all but that byte would go unseen here.  Murmur3's final mix
 * spreads them as jhash does.
 */
static inline u32 gt_env_jhash(const void *p, size_t len, u32 seed)
{
	const u8 *b = p;
	u32 h = 2166136261U ^ seed;

	while (len--)
		h = (h ^ *b++) * 16777619U;
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

/* ---- Lazy queries, from the events' eager fields ---------------------- */

/* The stack the backend captured with the event being handled. */
#define gt_env_kstack(c, pcs, max_pcs)	gt_env_user_kstack((c)->ev, pcs, max_pcs)
/* A CPU sample's: the backend put the interrupted code's stack in @pcs. */
#define gt_env_sample_kstack(c, pcs, room, max_pcs) \
	gt_env_user_kstack((c)->ev, pcs, max_pcs)

static inline unsigned int gt_env_user_kstack(const struct gt_in_ev *ev,
					      u64 *pcs, unsigned int max_pcs)
{
	unsigned int n;

	if (!ev || !ev->pcs)
		return 0;
	n = ev->nr_pcs < max_pcs ? ev->nr_pcs : max_pcs;
	memcpy(pcs, ev->pcs, n * sizeof(*pcs));
	return n;
}

static inline bool gt_env_in_cgroup(const struct gt_in_task *p, u64 id)
{
	(void)id;
	return p->flags & GT_IN_IN_CGROUP;
}

/* The backend's eager fields (model_input.h): no unit unless it says. */
static inline u64 gt_env_task_cgroup(const struct gt_in_task *p)
{
	return p->cgroup;
}

static inline int gt_env_task_unit(const struct gt_in_task *p, char *buf,
				   unsigned int size)
{
	size_t len = p->unit ? strlen(p->unit) : 0;

	if (len >= size)
		return -1;
	memcpy(buf, p->unit ? p->unit : "", len + 1);
	return (int)len;
}

static inline unsigned int gt_env_fd_kind(const struct gt_in_switch *in)
{
	return in->fd_kind;
}

/*
 * User stacks (GOTRACE_OPT_USER_STACKS): the walk is the backend's, in
 * the event's eager fields (the BPF backend's record.h, gtb_ustack); a
 * walk longer than the room the model gives is cut there, as the
 * module's walk stops.  Naming a frame is the caller's resolver's
 * (gtmodel.h), asked when the tables are written: there is nothing to
 * queue or wait for, only counted, for the tests.
 */
#define gt_env_ustack(m, c, pcs, max, space, stop, exact) \
	gt_env_user_ustack((c)->ev, pcs, max, space, stop, exact)

static inline unsigned int gt_env_user_ustack(const struct gt_in_ev *ev,
					      u64 *pcs, unsigned int max,
					      u64 *space, unsigned int *stop,
					      bool *exact)
{
	unsigned int n;

	if (!ev || !ev->upcs || !ev->nr_upcs)
		return 0;
	n = ev->nr_upcs < max ? ev->nr_upcs : max;
	memcpy(pcs, ev->upcs, n * sizeof(*pcs));
	*space = ev->uspace;
	*stop = ev->nr_upcs > max ? GT_USTOP_DEPTH : ev->ustop;
	*exact = ev->uexact;
	return n;
}

#define gt_env_ustack_queue(m, space, pcs, n) \
	((void)(space), (void)(pcs), (void)((m)->env.uqueued += (n)))
#define gt_env_ustack_sync(m)		((void)((m)->env.usyncs++))

#define gt_env_ustack_resolve(m, space, pc, file, off) \
	((m)->env.uresolve && \
	 (m)->env.uresolve((m)->env.uarg, space, pc, file, off))
#define gt_env_ustack_file(m, file) \
	((m)->env.ufile ? (m)->env.ufile((m)->env.uarg, file) : NULL)

#define GT_ENV_SYM_LEN			256
#define gt_env_symbolise(m, pc, buf)	gt_env_user_symbolise(&(m)->env, pc, buf)

static inline void gt_env_user_symbolise(const struct gt_env_model *e, u64 pc,
					 char *buf)
{
	if (!e->symbolise || !e->symbolise(e->arg, pc, buf, GT_ENV_SYM_LEN))
		snprintf(buf, GT_ENV_SYM_LEN, "0x%llx", (unsigned long long)pc);
}

static inline int gt_env_strtoul(const char *s, unsigned int base,
				 unsigned long *res)
{
	char *end;

	errno = 0;
	*res = strtoul(s, &end, base);
	return errno || end == s || *end ? -EINVAL : 0;
}

/* ---- The session ------------------------------------------------------ */

/* Nothing to wake: the feeding thread drains between events. */
#define gt_env_halted(m)		((void)(m))
/* One thread feeds every CPU's events: any P may be written. */
#define gt_env_may_write_other_p()	true
#define gt_env_chunk_queued(m)		((void)(m))
/*
 * A transition of the generational format is written.  A test may act
 * there as a reader that ends the generation at once, between two
 * transitions of one hook, as the module's reader may on another CPU
 * (gt_umodel_written_hook, gtmodel.h).
 */
struct gt_model;
extern void (*gt_umodel_written_hook)(struct gt_model *m);
#define gt_env_w123_written(m) \
	do { \
		if (gt_umodel_written_hook) \
			gt_umodel_written_hook(m); \
	} while (0)
/*
 * The sweep of a generation read one bucket, with no lock held: in the
 * module, hooks of other CPUs run meanwhile.  The model checker runs
 * hooks there (gt_umodel_sweep_hook, gtmodel.h).
 */
extern void (*gt_umodel_sweep_hook)(struct gt_model *m);
#define gt_env_w123_sweep_step(m) \
	do { \
		if (gt_umodel_sweep_hook) \
			gt_umodel_sweep_hook(m); \
	} while (0)
/* Triggers are the module's: none fires here. */
#define gt_env_trigger(m, type, p, value, now) \
	((void)(m), (void)(type), (void)(p), (void)(value), (void)(now), false)

#endif /* _GT_ENV_USER_H */
