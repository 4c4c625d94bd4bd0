/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuild.h - build trace files byte by byte in the unit tests, well
 * formed or broken on purpose
 *
 * Numbers go through the module's LEB128 encoder (model/go111_encode.c); the
 * record layout is the one of Documentation/trace-format.rst, written
 * here without the encoder's checks so that a test can write what the
 * encoder refuses (wrong value counts, bad lengths).
 */
#ifndef GOTRACE_TRACEBUILD_H
#define GOTRACE_TRACEBUILD_H

#include <stddef.h>
#include <stdint.h>

struct tb {
	uint8_t b[8192];
	size_t n;
	uint64_t last;		/* time of the current batch's last event */
};

/* Start over: the 16-byte header only. */
void tb_header(struct tb *t);
void tb_put(struct tb *t, const void *p, size_t n);
void tb_byte(struct tb *t, uint8_t v);
void tb_leb(struct tb *t, uint64_t v);
/*
 * A record of @type with @n uint64_t values, as the runtime writes it:
 * count bits n - 1 for up to 3 values, else 3 and a byte length.
 */
void tb_ev(struct tb *t, unsigned int type, int n, ...);
/* EvBatch of P @p at @ts; tb_at() deltas start from @ts. */
void tb_batch(struct tb *t, uint64_t p, uint64_t ts);
/* EvString @id. */
void tb_str(struct tb *t, uint64_t id, const char *s);

#define TB_U(x) ((uint64_t)(x))
#define TB_NARGS(...) (int)(sizeof((uint64_t[]){ __VA_ARGS__ }) / 8)
/* A record of @type with the values given. */
#define TB_EV(t, type, ...) \
	tb_ev(t, type, TB_NARGS(__VA_ARGS__), __VA_ARGS__)

#endif /* GOTRACE_TRACEBUILD_H */
