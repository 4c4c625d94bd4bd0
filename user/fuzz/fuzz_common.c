// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_common.c - the fuzz targets' stand-in for the binaries, and the
 * symbolize pass both formats share
 *
 * symbolize names a user frame "BINARY+0xOFFSET" by reading BINARY.  A
 * fuzzed trace names binaries that are not there (or, worse, files of
 * this machine), so the targets are linked with
 * -Wl,--wrap=gt_usym_resolve: the symbolizers' calls come here, and
 * every frame is named from its offset alone, without opening anything.
 * Some offsets stay unnamed and some get names of thousands of bytes, so
 * that every path of the writers is taken: frames left as they were,
 * records past a format's size limit, stack and string batches split.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../trace/go111_check.h"
#include "../trace/input.h"
#include "../trace/usym.h"
#include "../trace/usym_frames.h"

int __wrap_gt_usym_resolve(struct gt_usym *u, const char *path, uint64_t off,
			   bool exact, struct gt_usym_loc *loc);

int __wrap_gt_usym_resolve(struct gt_usym *u, const char *path, uint64_t off,
			   bool exact, struct gt_usym_loc *loc)
{
	/* The namer copies the strings before the next call. */
	static char func[4096], file[64];
	size_t len;

	(void)u;
	(void)path;
	off += exact;
	if (off % 5 == 0)
		return 0;
	len = off % 7 == 1 ? 3000 : 8 + off % 23;
	memset(func, 'f', len);
	snprintf(func, len, "fz.%llx", (unsigned long long)off);
	func[strlen(func)] = '_';
	func[len] = 0;
	snprintf(file, sizeof(file), "/src/f%u.c", (unsigned int)(off % 11));
	loc->func = func;
	loc->file = file;
	loc->line = off % 3 == 0 ? 0 : off % 4096;
	return 1;
}

FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		fuzz_fail("cannot open /dev/null");
	return f;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void fuzz_symbolize(const struct gt_src *src, bool valid,
		    fuzz_symbolize_fn symbolize, fuzz_check_fn check)
{
	struct gt_trace_error err = { 0 };
	struct gt_usym *u = gt_usym_open();
	struct gt_sym_counts n;
	struct gt_src out;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!u)
		return;
	f = open_memstream(&buf, &len);
	if (!f) {
		gt_usym_close(u);
		return;
	}
	ret = symbolize(src, f, u, &n, &err);
	gt_usym_close(u);
	if (fclose(f))
		fuzz_fail("symbolize: cannot write to memory");
	if (valid) {
		if (ret)
			fuzz_fail("symbolize failed on a valid trace: %s",
				  err.msg);
		gt_src_mem(&out, (const uint8_t *)buf, len);
		if (check(&out, &err))
			fuzz_fail("symbolize (%llu frames named) made a valid trace invalid: offset %zu: %s",
				  (unsigned long long)n.named, err.off,
				  err.msg);
	}
	free(buf);
}
