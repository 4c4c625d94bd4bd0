// SPDX-License-Identifier: GPL-2.0
/*
 * u64map.c - a small open-addressing hash map from u64 to u64
 *
 * Linear probing, grown at 50% load; never shrinks.  A deletion moves
 * back the entries after it that would no longer be found (Knuth's
 * algorithm R), so that no tombstones are left.
 */
#include <stdlib.h>

#include "u64map.h"

static size_t u64map_hash(uint64_t k, size_t cap)
{
	/* splitmix64 finaliser: ids are dense, spread them out. */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return (size_t)k & (cap - 1);
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	*m = (struct u64map){ 0 };
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = u64map_hash(key, m->cap); m->used[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}

static int u64map_grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct u64map n = {
		.keys = malloc(ncap * sizeof(*n.keys)),
		.vals = malloc(ncap * sizeof(*n.vals)),
		.used = calloc(ncap, 1),
		.cap = ncap,
	};
	bool added;

	if (!n.keys || !n.vals || !n.used) {
		u64map_free(&n);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			u64map_put(&n, m->keys[i], m->vals[i], &added);
	u64map_free(m);
	*m = n;
	return 0;
}

uint64_t *u64map_put(struct u64map *m, uint64_t key, uint64_t val,
		     bool *added)
{
	uint64_t *v = u64map_get(m, key);
	size_t i;

	*added = false;
	if (v)
		return v;
	if ((m->len + 1) * 2 > m->cap && u64map_grow(m))
		return NULL;
	for (i = u64map_hash(key, m->cap); m->used[i];
	     i = (i + 1) & (m->cap - 1))
		;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	*added = true;
	return &m->vals[i];
}

bool u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j, home;

	if (!m->cap)
		return false;
	for (i = u64map_hash(key, m->cap); m->used[i] && m->keys[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->used[i])
		return false;
	/* i is the hole; an entry after it whose home is not in (i, j] fills it. */
	for (j = i;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->used[j])
			break;
		home = u64map_hash(m->keys[j], m->cap);
		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
	m->used[i] = 0;
	m->len--;
	return true;
}

bool u64map_next(const struct u64map *m, size_t *i, uint64_t *key,
		 uint64_t *val)
{
	for (; *i < m->cap; (*i)++) {
		if (m->used[*i]) {
			*key = m->keys[*i];
			*val = m->vals[*i];
			(*i)++;
			return true;
		}
	}
	return false;
}
