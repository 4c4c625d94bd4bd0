// SPDX-License-Identifier: GPL-2.0
/*
 * go123_repair.c - write a trimmed copy of a trace
 */
#include <errno.h>

#include "go123_repair.h"
#include "base.h"

int gt_go123_write_prefix(const struct gt_src *src, uint64_t len, int fd)
{
	static uint8_t buf[1 << 16];
	int ret = 0;

	for (uint64_t off = 0; off < len && !ret;) {
		size_t k = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);

		if (gt_src_read(src, off, buf, k))
			ret = -EIO;
		else
			ret = gt_write_all(fd, buf, k);
		off += k;
	}
	return ret;
}
