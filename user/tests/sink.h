/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sink.h - the tests' memory for what the user-space model writes
 *
 * gt_umodel_drain() and gt_umodel_finish() hand their bytes to a
 * callback; the tests keep them in a buffer that grows (model_test.c,
 * model_check.c).  Out of memory a test cannot go on: it aborts.
 */
#ifndef GOTRACE_TESTS_SINK_H
#define GOTRACE_TESTS_SINK_H

#include <stdlib.h>
#include <string.h>

/* Append @n bytes at @buf to *@out (*@len bytes used of *@cap). */
static inline int test_sink_put(unsigned char **out, size_t *len, size_t *cap,
				const void *buf, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*out = realloc(*out, *cap);
		if (!*out)
			abort();
	}
	memcpy(*out + *len, buf, n);
	*len += n;
	return 0;
}

#endif /* GOTRACE_TESTS_SINK_H */
