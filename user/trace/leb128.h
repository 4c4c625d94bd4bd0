/* SPDX-License-Identifier: GPL-2.0 */
/*
 * leb128.h - the one unsigned LEB128 decoder of user space
 *
 * Every number of a trace record is unsigned LEB128: seven bits per byte,
 * low bits first, the top bit set on every byte but the last.  A 64-bit
 * value takes at most ten bytes, and the tenth may only hold bit 63.
 * The encoder is the module's (model/go111_encode.c, gt_leb_put()).
 */
#ifndef GOTRACE_LEB128_H
#define GOTRACE_LEB128_H

#include <stddef.h>
#include <stdint.h>

#define GT_LEB_BYTES_MAX	10

/* What gt_leb_get() returns for a value it cannot decode. */
enum {
	GT_LEB_TRUNCATED = 0,	/* the bytes end inside the value */
	GT_LEB_TOO_BIG = -1,	/* the tenth byte holds more than bit 63 */
	GT_LEB_TOO_LONG = -2,	/* more than ten bytes */
};

/*
 * Decode the value at @p, of which @n bytes are readable, into *@v.
 * Returns the bytes it takes (1..10) or one of GT_LEB_*.
 */
static inline int gt_leb_get(const uint8_t *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	for (int i = 0; i < GT_LEB_BYTES_MAX; i++) {
		uint8_t b;

		if ((size_t)i >= n)
			return GT_LEB_TRUNCATED;
		b = p[i];
		if (i == GT_LEB_BYTES_MAX - 1 && (b & 0x7f) > 1)
			return GT_LEB_TOO_BIG;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return GT_LEB_TOO_LONG;
}

#endif /* GOTRACE_LEB128_H */
