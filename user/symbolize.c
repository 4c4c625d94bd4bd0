// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize.c - gotrace symbolize: name the user frames of a trace
 *
 * The recorders write a user frame as the binary it is in and the offset
 * in that file (Documentation/user-stacks.rst): naming it needs the
 * binary, which may be read later, elsewhere, or with debug files the
 * recording machine lacked.  This copies a trace with those frames
 * named (trace/usym.c, through elfutils) and every other byte as it
 * was.  OUT is written as output.h says: under a temporary name beside
 * it, renamed over it once whole, so OUT may be IN and is never left
 * half-written; a device or a FIFO is written in place.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "subcommands.h"
#include "symbolize.h"
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
	struct gt_output o;
	size_t opened, failed;
	FILE *f = NULL;
	int fd, ret;

	if (!u) {
		gt_err("symbolize: out of memory");
		return GT_EXIT_FAIL;
	}
	/* The same trace, named: it may replace IN, never be written into it. */
	if (gt_output_open_from(&o, out, "trace", GT_OUTPUT_MAY_BE_INPUT, in)) {
		gt_usym_close(u);
		return GT_EXIT_FAIL;
	}
	/* The stream closes its own descriptor; the output's is synced. */
	fd = dup(o.fd);
	if (fd >= 0)
		f = fdopen(fd, "wb");
	if (!f) {
		gt_err("symbolize: %s: %s", gt_output_name(&o),
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		gt_output_abandon(&o, false);
		gt_output_free(&o);
		gt_usym_close(u);
		return GT_EXIT_FAIL;
	}
	ret = fn(src, f, u, &n, &err);
	if (ret != -2 && fflush(f))
		ret = -2;
	if (fclose(f) && ret != -2)
		ret = -2;
	if (ret == -2) {
		gt_err("%s: %s: %s", in, gt_output_name(&o), err.msg[0] ?
		       err.msg : "cannot write the output");
		gt_output_abandon(&o, false);
	} else if (gt_output_commit(&o)) {
		ret = -2;	/* it said where the output is */
	}
	gt_output_free(&o);
	gt_usym_counts(u, &opened, &failed);
	gt_usym_close(u);
	if (ret == -1)
		gt_err("%s: offset %zu (0x%zx): %s; %s", in, err.off, err.off,
		       err.msg, fn == gt_go123_symbolize ?
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
	bool quiet = false;
	int c;

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
	return gt_symbolize_path(argv[optind], argv[optind + 1], quiet);
}

int gt_symbolize_path(const char *in, const char *out, bool quiet)
{
	uint8_t hdr[16] = { 0 };
	struct gt_src src;
	int ret;

	ret = gt_src_open(&src, in);
	if (ret) {
		gt_err_input(in, src.spool_dir, -ret);
		return GT_EXIT_FAIL;
	}
	gt_src_read(&src, 0, hdr, sizeof(hdr));
	ret = symbolize(in, &src, out, quiet,
			gt_go123_header(hdr, sizeof(hdr)) ? gt_go123_symbolize :
			gt_v1_symbolize);
	gt_src_close(&src);
	return ret;
}
