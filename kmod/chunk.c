// SPDX-License-Identifier: GPL-2.0
/*
 * chunk.c - the chunk pool: free chunks, and full chunks for the reader
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
 *		the pool
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

/**
 * gt_pool_get() - take a free chunk
 * @pool:	the pool
 * @use_reserve: the caller closes the trace and may take reserved chunks
 *
 * Context: any, O(1).
 * Return: an empty chunk, or NULL when none is left.
 */
struct gt_chunk *gt_pool_get(struct gt_pool *pool, bool use_reserve)
{
	struct gt_chunk *chunk = NULL;
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	if (pool->nr_free > (use_reserve ? 0 : pool->reserve)) {
		chunk = pool->free;
		pool->free = chunk->next;
		chunk->next = NULL;
		pool->nr_free--;
	}
	gt_unlock_irqrestore(&pool->lock, flags);
	if (chunk)
		chunk->len = 0;
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

/* Queue a written chunk (chunk->len set) for the reader.  Context: any. */
void gt_pool_queue(struct gt_pool *pool, struct gt_chunk *chunk)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
	chunk->next = NULL;
	*pool->full_tail = chunk;
	pool->full_tail = &chunk->next;
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
 * One more chunk kept for closing the trace, for a CPU that came online
 * after the start, while the pool has chunks to spare.  Context: any.
 */
void gt_pool_reserve_more(struct gt_pool *pool)
{
	unsigned long flags = 0;

	gt_lock_irqsave(&pool->lock, flags);
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
 * Make sure the CPU's chunk has @need bytes free (plus the close reserve
 * unless @closing), starting a new chunk and batch when needed.  A chunk
 * started before the last periodic flush request is handed over first,
 * so a reader sees a quiet CPU's events within flush_ms, but only if a
 * spare chunk takes its place: a flush never ends a session whose CPU
 * still has room.
 */
bool gt_cpu_room(struct gt_model *m, struct gt_cpu *c, u64 ts, u32 need,
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
			next = gt_pool_get(&m->pool, false);
			if (!next) {
				/* Try again at the next flush. */
				c->flush_seq = flush;
				return true;
			}
			gt_cpu_handover(m, c, true);
			cpu_chunk_start(c, next, ts, flush);
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
