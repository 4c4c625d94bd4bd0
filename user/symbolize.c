// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize.c - gotrace symbolize: name the user frames of a trace
 *
 * The recorders write a user frame as the binary it is in and the offset
 * in that file (Documentation/user-stacks.rst): naming it needs the
 * binary, which may be read later, elsewhere, or with debug files the
 * recording machine lacked.  This copies a trace with those frames
 * named (trace/usym.c, through elfutils) and every other byte as it
 * was.  The output is written to a temporary file beside OUT and renamed
 * over it once whole, so OUT may be IN and is never left half-written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "subcommands.h"
#include "trace/go111_sym.h"
#include "trace/go123_read.h"
#include "trace/go123_sym.h"
#include "trace/usym.h"
#include "util.h"

static void symbolize_usage(FILE *f)
{
	fprintf(f, "usage: gotrace symbolize [-q] IN OUT\n\n"
		"Copy the trace IN (- = stdin) to OUT (- = stdout) with its user-space\n"
		"frames named: a frame written as \"BINARY+0xOFFSET\" with the binary's\n"
		"path as its file becomes the function, source file and line that\n"
		"the binary (its symbol table and DWARF, or its separate debug file)\n"
		"gives that offset.  Frames that cannot be named, and every other\n"
		"byte, are copied as they are.  Reads generational traces (\"go 1.22\"\n"
		"to \"go 1.26 trace\") and \"go 1.11 trace\" files.\n\n"
		"  -q, --quiet    print nothing when it worked\n");
}

/* A temporary file beside @out, its name into *@tmp; NULL on failure. */
static FILE *open_tmp(const char *out, char **tmp)
{
	size_t n = strlen(out) + sizeof(".symbolize.XXXXXX");
	FILE *f;
	int fd;

	*tmp = malloc(n);
	if (!*tmp)
		return NULL;
	snprintf(*tmp, n, "%s.symbolize.XXXXXX", out);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	/* mkstemp's 0600 stays: a trace is its owner's, as a recording's. */
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/* A format's copy with its frames named (go123_sym.h, go111_sym.h). */
typedef int (*symbolize_fn)(const struct gt_src *src, FILE *out,
			    struct gt_usym *u, struct gt_sym_counts *n,
			    struct gt_trace_error *err);

static int symbolize(const char *in, struct gt_src *src, const char *out,
		     bool quiet, symbolize_fn fn)
{
	struct gt_sym_counts n;
	struct gt_trace_error err = { 0 };
	struct gt_usym *u = gt_usym_open();
	bool to_stdout = !strcmp(out, "-");
	char *tmp = NULL;
	size_t opened, failed;
	bool in_place = false, exists;
	struct stat st;
	FILE *f;
	int ret;

	if (!u) {
		gt_err("symbolize: out of memory");
		return GT_EXIT_FAIL;
	}
	exists = !to_stdout && !stat(out, &st);
	if (exists && S_ISDIR(st.st_mode)) {
		gt_err("symbolize: %s is a directory: OUT names the file", out);
		gt_usym_close(u);
		return GT_EXIT_FAIL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/*
		 * A device or a FIFO (/dev/null): written in place, as
		 * stdout is.  A temporary file renamed over it would put a
		 * regular file in its place, which for root's /dev/null
		 * breaks the whole machine.
		 */
		in_place = true;
		f = fopen(out, "wb");
	} else {
		f = to_stdout ? stdout : open_tmp(out, &tmp);
	}
	if (!f) {
		gt_err("symbolize: cannot %s %s: %s",
		       in_place ? "open" : "create a file beside", out,
		       strerror(errno));
		gt_usym_close(u);
		return GT_EXIT_FAIL;
	}
	ret = fn(src, f, u, &n, &err);
	if (ret != -2 && fflush(f))
		ret = -2;
	if (ret != -2 && tmp && fsync(fileno(f)))
		ret = -2;
	if (!to_stdout && fclose(f) && ret != -2)
		ret = -2;
	if (ret == -2) {
		gt_err("%s: %s: %s", in, out, err.msg[0] ? err.msg :
		       "cannot write the output");
	} else if (tmp && rename(tmp, out)) {
		gt_err("symbolize: cannot rename %s to %s: %s", tmp, out,
		       strerror(errno));
		ret = -2;
	}
	if (ret == -2 && tmp)
		unlink(tmp);
	free(tmp);
	gt_usym_counts(u, &opened, &failed);
	gt_usym_close(u);
	if (ret == -1)
		gt_err("%s: offset %zu (0x%zx): %s; %s", in, err.off, err.off,
		       err.msg, fn == gt_v2_symbolize ?
		       "the generations before it are symbolised, the rest "
		       "copied unchanged" : "copied unchanged");
	if (ret == -2)
		return GT_EXIT_FAIL;
	if (!quiet)
		fprintf(stderr, "%s: %" PRIu64 " generations, %" PRIu64 " of %"
			PRIu64 " user frames named (%" PRIu64 " strings added), "
			"%zu binaries read, %zu unreadable\n", out,
			n.generations, n.named, n.frames, n.strings,
			opened - failed, failed);
	return ret ? GT_EXIT_FAIL : GT_EXIT_OK;
}

int cmd_symbolize(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	uint8_t hdr[16] = { 0 };
	bool quiet = false;
	struct gt_src src;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+hq", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			symbolize_usage(stdout);
			return GT_EXIT_OK;
		case 'q':
			quiet = true;
			break;
		default:
			gt_usage_hint("symbolize");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc - 2) {
		gt_err("symbolize takes IN and OUT");
		gt_usage_hint("symbolize");
		return GT_EXIT_USAGE;
	}
	ret = gt_src_open(&src, argv[optind]);
	if (ret) {
		gt_err_input(argv[optind], src.spool_dir, -ret);
		return GT_EXIT_FAIL;
	}
	gt_src_read(&src, 0, hdr, sizeof(hdr));
	ret = symbolize(argv[optind], &src, argv[optind + 1], quiet,
			gt_v2_header(hdr, sizeof(hdr)) ? gt_v2_symbolize :
			gt_v1_symbolize);
	gt_src_close(&src);
	return ret;
}
