/* SPDX-License-Identifier: GPL-2.0 */
/* tap.h - minimal TAP output for the host unit tests. */
#ifndef GT_TAP_H
#define GT_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

/* Evaluates @cond once. */
#define TAP_OK(cond, ...) do {						\
	int tap_ok_ = !!(cond);						\
									\
	tap_n++;							\
	tap_failed += !tap_ok_;						\
	printf("%sok %d - ", tap_ok_ ? "" : "not ", tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!tap_ok_)							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
