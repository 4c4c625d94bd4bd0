// SPDX-License-Identifier: GPL-2.0
/*
 * ftpages FILE... - what the ftrace raw files of the benchmark hold
 *
 * A file read from tracefs per_cpu/cpuN/trace_pipe_raw is a series of
 * ring-buffer pages of the kernel's page size (4096 bytes on x86-64 and
 * on Debian's arm64 kernels, more on an arm64 kernel built for 16 or
 * 64 KiB pages: the program runs in the guest, so it asks): a 16-byte
 * header (u64 timestamp, long commit: bytes of data, flags in bits
 * 30-31), then events, each a 4-byte header (type_len:5, time_delta:27)
 * and its data; the rest of the page is padding.  Prints one line:
 *
 *   pages=N payload=BYTES events=N
 *
 * payload counts the page headers and committed data, events the data
 * records (not padding or time extends).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDR	16

int main(int argc, char **argv)
{
	long psize = sysconf(_SC_PAGESIZE);
	size_t page_size = psize > HDR ? (size_t)psize : 4096;
	unsigned char *page = malloc(page_size);
	uint64_t pages = 0, payload = 0, events = 0;
	int i;

	if (!page) {
		perror("malloc");
		return 1;
	}

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		while (fread(page, 1, page_size, f) == page_size) {
			uint64_t commit;
			uint32_t off = 0, h, type, len;

			memcpy(&commit, page + 8, 8);
			commit &= 0xfffff;
			if (commit > page_size - HDR)
				commit = page_size - HDR;
			pages++;
			payload += HDR + commit;
			while (off + 4 <= commit) {
				memcpy(&h, page + HDR + off, 4);
				type = h & 31;
				if (type == 29 && !(h >> 5))
					break;		/* the rest is padding */
				if (type == 0 || type == 29) {
					if (off + 8 > commit)
						break;
					memcpy(&len, page + HDR + off + 4, 4);
					len += 4;
				} else if (type >= 30) {
					len = 8;		/* time extend/stamp */
				} else {
					len = 4 + type * 4;
				}
				if (type <= 28)
					events++;
				if (!len)
					break;
				off += len;
			}
		}
		fclose(f);
	}
	printf("pages=%llu payload=%llu events=%llu\n",
	       (unsigned long long)pages, (unsigned long long)payload,
	       (unsigned long long)events);
	free(page);
	return 0;
}
