// SPDX-License-Identifier: GPL-2.0
/*
 * go123_repair.c - write a trimmed copy of a trace, atomically
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "go123_repair.h"
#include "base.h"

static mode_t out_mode(const char *out)
{
	mode_t um = umask(0);
	struct stat st;

	umask(um);
	if (!stat(out, &st))
		return st.st_mode & 07777;
	return 0600 & ~um;
}

int gt_v2_write_prefix(const struct gt_src *src, uint64_t len,
		       const char *out)
{
	static uint8_t buf[1 << 16];
	size_t n = strlen(out) + sizeof(".repair.XXXXXX");
	char *tmp = malloc(n);
	int fd, ret = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.repair.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	for (uint64_t off = 0; off < len && !ret;) {
		size_t k = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);

		if (gt_src_read(src, off, buf, k))
			ret = -EIO;
		else
			ret = gt_write_all(fd, buf, k);
		off += k;
	}
	/*
	 * The mode of the file it replaces, else a trace's (output.c):
	 * 0600, for it names every process and its kernel stacks.
	 */
	if (!ret && fchmod(fd, out_mode(out)))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, out))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
