// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuild.c - trace files built byte by byte for the unit tests
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebuild.h"
#include "../../model/go111_encode.h"

/* A test that outgrows the buffer is a broken test: stop it loudly. */
static void room(const struct tb *t, size_t n)
{
	if (n > sizeof(t->b) - t->n) {
		fprintf(stderr, "tracebuild: a test trace outgrew %zu bytes\n",
			sizeof(t->b));
		abort();
	}
}

void tb_put(struct tb *t, const void *p, size_t n)
{
	room(t, n);
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

void tb_byte(struct tb *t, uint8_t v)
{
	tb_put(t, &v, 1);
}

void tb_leb(struct tb *t, uint64_t v)
{
	room(t, GT_LEB_MAX);
	t->n += gt_leb_put(t->b + t->n, v);
}

void tb_header(struct tb *t)
{
	t->n = 0;
	t->last = 0;
	tb_put(t, GOTRACE_HEADER, GOTRACE_HEADER_LEN);
}

void tb_ev(struct tb *t, unsigned int type, int n, ...)
{
	struct tb vals = { .n = 0 };
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		tb_leb(&vals, va_arg(ap, uint64_t));
	va_end(ap);
	if (n <= 3) {
		tb_byte(t, (uint8_t)(type | (unsigned int)(n - 1) << 6));
	} else {
		tb_byte(t, (uint8_t)(type | 3 << 6));
		tb_leb(t, vals.n);
	}
	tb_put(t, vals.b, vals.n);
}

void tb_batch(struct tb *t, uint64_t p, uint64_t ts)
{
	tb_ev(t, GOTRACE_EV_BATCH, 2, p, ts);
	t->last = ts;
}

void tb_str(struct tb *t, uint64_t id, const char *s)
{
	tb_byte(t, GOTRACE_EV_STRING);
	tb_leb(t, id);
	tb_leb(t, strlen(s));
	tb_put(t, s, strlen(s));
}
