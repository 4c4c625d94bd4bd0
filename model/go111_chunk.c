// SPDX-License-Identifier: GPL-2.0
/*
 * go111_chunk.c - the chunk pool: free chunks, and full chunks for the reader
 *
 * All chunks are allocated when a session starts.  A chunk is always in
 * exactly one place: the free list, a CPU (its current chunk), the full
 * list (FIFO, in the order CPUs handed them over), or the reader.  The
 * per-P order the Go readers need holds because a CPU hands over its
 * chunks in the order it wrote them and the full list keeps that order.
 *
 *     free --gt_pool_get()--> CPU --gt_pool_queue()--> full
 *       ^                                               |
 *       +------gt_pool_put()------ reader <--next_full--+
 *
 * Each CPU writes into its current chunk (gt_cpu_room() starts one and
 * hands a full or flushed one over, gt_cpu_handover()).
 *
 * Context:
 *   gt_pool_get(), gt_pool_queue(): hook context, irqs off; O(1).
 *   gt_cpu_room(), gt_cpu_handover(): the CPU's own hooks, irqs off, or
 *   the stop path once every hook is done.
 *   gt_pool_next_full(), gt_pool_put(): reader, any context.
 * Locking:
 *   pool->lock (in the module a raw spinlock: probes run with the
 *   runqueue lock held, where a sleeping lock is not allowed, also on
 *   PREEMPT_RT), taken with irqsave; it nests inside task bucket locks
 *   and nothing nests inside it.
 */
#include "model_state.h"

/**
 * gt_pool_init() - allocate @nr chunks
 * @pool:	the pool
 * @nr:		chunks in all
 * @reserve:	chunks only the stop path may take (one per CPU), so that
 *		every CPU can close its P even after the hooks emptied
 *		the pool; also the number of CPUs, none of which holds a
 *		chunk yet
 *
 * Context: session start.
 * Return: 0 or -ENOMEM.
 */
int gt_pool_init(struct gt_pool *pool, unsigned int nr, unsigned int reserve)
{
	unsigned int i;

	gt_lock_init(&pool->lock);
	pool->free = NULL;
	pool->full = NULL;
	pool->full_tail = &pool->full;
	pool->stopped = false;
	pool->nr = nr;
	pool->reserve = reserve;
	pool->nr_idle = reserve;
	pool->chunks = gt_env_zalloc(nr, sizeof(*pool->chunks));
	pool->area = gt_env_big_alloc((size_t)nr * GT_CHUNK_SIZE);
	if (!pool->chunks || !pool->area) {
		gt_pool_free(pool);
		return -ENOMEM;
	}
	for (i = nr; i-- > 0;) {
		pool->chunks[i].data = (u8 *)pool->area + (size_t)i * GT_CHUNK_SIZE;
		pool->chunks[i].next = pool->free;
		pool->free = &pool->chunks[i];
	}
	pool->nr_free = nr;
	return 0;
}

void gt_pool_free(struct gt_pool *pool)
{
	gt_env_big_free(pool->area);
	gt_env_free(pool->chunks);
	pool->area = NULL;
	pool->chunks = NULL;
}

/* The first free chunk, if more than @keep are free.  Pool lock held. */
static struct gt_chunk *pool_take(struct gt_pool *pool, unsigned int keep)
{
	struct gt_chunk *chunk;

	if (pool->nr_free <= keep)
		return NULL;
	chunk = pool->free;
	pool->free = chunk->next;
	chunk->next = NULL;
	chunk->len = 0;
	pool->nr_free--;
	return chunk;
}

/* Link @chunk at the end of the full list.  Pool lock held. */
static void pool_link_full(struct gt_pool *pool, struct gt_chunk *chunk)
{
	chunk->next = NULL;
	*pool->full_tail = chunk;
	pool->full_tail = &chunk->next;
}

/**
 * gt_pool_get() - take a free chunk for a CPU that holds none
 * @pool:	the pool
 * @use_reserve: the caller closes the trace and may take reserved chunks
 *
 * Context: any, O(1).
 * Return: an empty chunk, or NULL when none is left.
 */
struct gt_chunk *gt_pool_get(struct gt_pool *pool, bool use_reserve)
{
	struct gt_chunk *chunk;
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	chunk = pool_take(pool, use_reserve ? 0 : pool->reserve);
	if (chunk && pool->nr_idle)
		pool->nr_idle--;
	gt_unlock_irqrestore(&pool->lock, flags);
	return chunk;
}

/**
 * gt_pool_swap() - queue @old for the reader and take a free chunk in its
 * place, if that leaves a chunk for every CPU that holds none
 * @pool:	the pool
 * @old:	the caller's chunk, partly written (@old->len set)
 *
 * For the periodic flush, which must never take from another CPU the
 * chunk it needs for its next event: a CPU that has not written yet (the
 * pool is at its smallest, two chunks per CPU, and some CPU has been
 * idle since the start), or one that went offline, would then find the
 * pool empty and end the session.
 *
 * Context: any, O(1).
 * Return: the new chunk, or NULL: then @old stays the caller's.
 */
struct gt_chunk *gt_pool_swap(struct gt_pool *pool, struct gt_chunk *old)
{
	struct gt_chunk *chunk;
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	chunk = pool_take(pool, pool->reserve + pool->nr_idle);
	if (chunk)
		pool_link_full(pool, old);
	gt_unlock_irqrestore(&pool->lock, flags);
	return chunk;
}

/* Give a chunk back to the free list.  Context: any. */
void gt_pool_put(struct gt_pool *pool, struct gt_chunk *chunk)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	chunk->next = pool->free;
	pool->free = chunk;
	pool->nr_free++;
	gt_unlock_irqrestore(&pool->lock, flags);
}

/*
 * Queue a written chunk (chunk->len set) for the reader; the CPU that
 * wrote it holds none now.  Context: any.
 */
void gt_pool_queue(struct gt_pool *pool, struct gt_chunk *chunk)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	pool_link_full(pool, chunk);
	pool->nr_idle++;
	gt_unlock_irqrestore(&pool->lock, flags);
}

/**
 * gt_pool_next_full() - take the oldest full chunk
 * @pool:	the pool
 * @stopped:	set to true when no chunk is left and none will come
 *
 * Checking the list and the stopped flag under one lock is what lets the
 * reader tell "nothing yet" from "nothing more".
 *
 * Context: any.
 * Return: the chunk, now owned by the caller, or NULL.
 */
struct gt_chunk *gt_pool_next_full(struct gt_pool *pool, bool *stopped)
{
	struct gt_chunk *chunk;
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	chunk = pool->full;
	if (chunk) {
		pool->full = chunk->next;
		if (!pool->full)
			pool->full_tail = &pool->full;
		chunk->next = NULL;
	}
	*stopped = !chunk && pool->stopped;
	gt_unlock_irqrestore(&pool->lock, flags);
	return chunk;
}

bool gt_pool_has_full(struct gt_pool *pool)
{
	unsigned long flags = 0;
	bool ret;

	gt_lock_irqsave(&pool->lock, flags);
	ret = pool->full || pool->stopped;
	gt_unlock_irqrestore(&pool->lock, flags);
	return ret;
}

/* Every CPU's last chunk is queued: nothing else will be. */
void gt_pool_mark_stopped(struct gt_pool *pool)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	pool->stopped = true;
	gt_unlock_irqrestore(&pool->lock, flags);
}

/*
 * A CPU that came online after the start joins the pool: it holds no
 * chunk yet, and one more chunk is kept for closing its P while the pool
 * has chunks to spare.  Context: any.
 */
void gt_pool_reserve_more(struct gt_pool *pool)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	pool->nr_idle++;
	if (pool->reserve < pool->nr / 2)
		pool->reserve++;
	gt_unlock_irqrestore(&pool->lock, flags);
}

unsigned int gt_pool_in_use(struct gt_pool *pool)
{
	return pool->nr - READ_ONCE(pool->nr_free);
}

/* ---- A CPU's current chunk ------------------------------------------ */

/*
 * Hand the CPU's chunk to the reader; @wake: and wake it (deferred, for
 * probes; the stop and hotplug paths wake it themselves).
 */
void gt_cpu_handover(struct gt_model *m, struct gt_cpu *c, bool wake)
{
	c->chunk->len = c->enc.len;
	gt_atomic64_add(c->chunk->len, &m->bytes_produced);
	gt_pool_queue(&m->pool, c->chunk);
	c->chunk = NULL;
	if (wake)
		gt_env_chunk_queued(m);
}

/* Make @chunk the CPU's current one, starting its batch at @ts. */
static void cpu_chunk_start(struct gt_cpu *c, struct gt_chunk *chunk, u64 ts,
			    unsigned long flush)
{
	c->chunk = chunk;
	gt_enc_init(&c->enc, chunk->data, GT_CHUNK_SIZE);
	gt_enc_batch(&c->enc, c->id, ts);
	c->chunk_hdr = c->enc.len;
	c->flush_seq = flush;
}

/*
 * The periodic flush: hand the CPU's chunk to the reader if a spare chunk
 * can take its place (gt_pool_swap()).  False if none can: the CPU keeps
 * writing into its chunk, which still has room.
 */
static bool cpu_flush(struct gt_model *m, struct gt_cpu *c, u64 ts,
		      unsigned long flush)
{
	struct gt_chunk *old = c->chunk, *next;

	old->len = c->enc.len;
	next = gt_pool_swap(&m->pool, old);
	if (!next)
		return false;
	gt_atomic64_add(old->len, &m->bytes_produced);
	gt_env_chunk_queued(m);
	cpu_chunk_start(c, next, ts, flush);
	return true;
}

/*
 * Make sure the CPU's chunk has @need bytes free (plus the close reserve
 * unless @closing), starting a new chunk and batch when needed.  A chunk
 * started before the last periodic flush request is handed over first,
 * so a reader sees a quiet CPU's events within flush_ms, but only if a
 * spare chunk takes its place: a flush never ends a session whose CPU
 * still has room.
 */
bool gt_cpu_make_room(struct gt_model *m, struct gt_cpu *c, u64 ts, u32 need,
		      bool closing)
{
	unsigned long flush = READ_ONCE(m->flush_seq);
	u32 reserve = closing ? 0 : GT_CLOSE_RESERVE;
	struct gt_chunk *next;

	if (c->chunk) {
		bool has_events = c->enc.len > c->chunk_hdr;

		if (gt_enc_room(&c->enc) >= need + reserve) {
			if (c->flush_seq == flush || !has_events) {
				c->flush_seq = flush;
				return true;
			}
			/* If it cannot, try again at the next flush. */
			if (!cpu_flush(m, c, ts, flush))
				c->flush_seq = flush;
			return true;
		}
		if (!has_events && gt_enc_room(&c->enc) >= need)
			return true;
		gt_cpu_handover(m, c, true);
	}
	next = gt_pool_get(&m->pool, closing);
	if (!next) {
		gt_atomic64_inc(&m->chunk_overflows);
		c->chunk_overflows++;
		return false;
	}
	cpu_chunk_start(c, next, ts, flush);
	return true;
}
