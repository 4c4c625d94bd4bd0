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
 * Context:
 *   gt_pool_get(), gt_pool_queue(): probe context, irqs off; O(1).
 *   gt_pool_next_full(), gt_pool_put(): reader, any context.
 * Locking:
 *   pool->lock, a raw spinlock (probes run with the runqueue lock held,
 *   where a sleeping lock is not allowed, also on PREEMPT_RT), taken with
 *   irqsave; it nests inside task bucket locks and nothing nests inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "gotrace.h"

/**
 * gt_pool_init() - allocate @nr chunks
 * @pool:	the pool
 * @nr:		chunks in all
 * @reserve:	chunks only the stop path may take (one per CPU), so that
 *		every CPU can close its P even after the probes emptied
 *		the pool
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int gt_pool_init(struct gt_pool *pool, unsigned int nr, unsigned int reserve)
{
	unsigned int i;

	raw_spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	INIT_LIST_HEAD(&pool->full);
	pool->stopped = false;
	pool->nr = nr;
	pool->reserve = reserve;
	pool->chunks = kcalloc(nr, sizeof(*pool->chunks), GFP_KERNEL);
	pool->area = vmalloc(array_size(nr, GT_CHUNK_SIZE));
	if (!pool->chunks || !pool->area) {
		gt_pool_free(pool);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		pool->chunks[i].data = pool->area + (size_t)i * GT_CHUNK_SIZE;
		list_add_tail(&pool->chunks[i].node, &pool->free);
	}
	pool->nr_free = nr;
	return 0;
}

void gt_pool_free(struct gt_pool *pool)
{
	vfree(pool->area);
	kfree(pool->chunks);
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
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	if (pool->nr_free > (use_reserve ? 0 : pool->reserve)) {
		chunk = list_first_entry(&pool->free, struct gt_chunk, node);
		list_del_init(&chunk->node);
		pool->nr_free--;
	}
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	if (chunk)
		chunk->len = 0;
	return chunk;
}

/* Give a chunk back to the free list.  Context: any. */
void gt_pool_put(struct gt_pool *pool, struct gt_chunk *chunk)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	list_add(&chunk->node, &pool->free);
	pool->nr_free++;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
}

/* Queue a written chunk (chunk->len set) for the reader.  Context: any. */
void gt_pool_queue(struct gt_pool *pool, struct gt_chunk *chunk)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	list_add_tail(&chunk->node, &pool->full);
	raw_spin_unlock_irqrestore(&pool->lock, flags);
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
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	chunk = list_first_entry_or_null(&pool->full, struct gt_chunk, node);
	if (chunk)
		list_del_init(&chunk->node);
	*stopped = !chunk && pool->stopped;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	return chunk;
}

bool gt_pool_has_full(struct gt_pool *pool)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&pool->lock, flags);
	ret = !list_empty(&pool->full) || pool->stopped;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	return ret;
}

/* Every CPU's last chunk is queued: nothing else will be. */
void gt_pool_mark_stopped(struct gt_pool *pool)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	pool->stopped = true;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * One more chunk kept for closing the trace, for a CPU that came online
 * after the start, while the pool has chunks to spare.  Context: any.
 */
void gt_pool_reserve_more(struct gt_pool *pool)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	if (pool->reserve < pool->nr / 2)
		pool->reserve++;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
}

unsigned int gt_pool_in_use(struct gt_pool *pool)
{
	return pool->nr - READ_ONCE(pool->nr_free);
}
