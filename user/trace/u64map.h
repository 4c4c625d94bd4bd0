/* SPDX-License-Identifier: GPL-2.0 */
/*
 * u64map.h - a small open-addressing hash map from u64 to u64
 *
 * Used by the trace checker for stack, string, goroutine and P ids.
 */
#ifndef GOTRACE_U64MAP_H
#define GOTRACE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap;	/* power of two, or 0 */
	size_t len;
};

/* Empty map: struct u64map m = { 0 }. */
void u64map_free(struct u64map *m);
/* Pointer to the value of @key, or NULL. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);
/*
 * Insert @key with value @val unless present.  Returns the value slot, and
 * sets *@added; NULL when out of memory.
 */
uint64_t *u64map_put(struct u64map *m, uint64_t key, uint64_t val,
		     bool *added);
/* Remove @key; false if it was not there.  Not while iterating. */
bool u64map_del(struct u64map *m, uint64_t key);
/* Iterate: for (i = 0; u64map_next(m, &i, &k, &v);) */
bool u64map_next(const struct u64map *m, size_t *i, uint64_t *key,
		 uint64_t *val);

/*
 * FNV-1a of @n bytes at @p: the key under which the readers map a
 * string (a name, a syscall, a frame's function) to its index, the
 * string itself compared on a hit.
 */
static inline uint64_t u64map_str_key(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

#endif /* GOTRACE_U64MAP_H */
