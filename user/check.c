// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - gotrace check: structure and scheduler states of a trace file
 *
 * Needs no Go.  A "go 1.11 trace": decodes every record
 * (trace/go111_check.c), merges the Ps and replays the goroutine and P
 * states as Go 1.21 does (trace/go111_decode.c).  A generational trace
 * ("go 1.22" to "go 1.26"): reads it one generation at a time as Go's
 * reader does (trace/go123_check.c), and with --repair trims a damaged
 * one to its last complete generation.
 * Prints what it counted.  Streams: memory does not grow with the file.
 * Exits 1 naming the offset of the first malformed record or impossible
 * transition.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "subcommands.h"
#include "trace/go111_decode.h"
#include "trace/go123_check.h"
#include "trace/go123_read.h"
#include "trace/go123_repair.h"
#include "util.h"

static void check_usage(FILE *f)
{
	fprintf(f, "usage: gotrace check [-q] [--repair [-o OUT]] FILE\n\n"
		"Check that FILE (- = stdin) is a well-formed Go execution trace.\n"
		"A \"go 1.11 trace\": every record decodes, the file ends on a record\n"
		"boundary, there is a Frequency record, every stack, string and\n"
		"goroutine an event uses is defined, the Ps merge into one\n"
		"consistent order, and every goroutine and P transition is possible\n"
		"(as in Go 1.21's parser, plus GoSysBlock+ProcStop pairs and\n"
		"ProcStart before GoStart).  A generational trace (\"go 1.22\" to\n"
		"\"go 1.26 trace\"): every batch and event decodes, generations come\n"
		"in order and end where the format says, each has its frequency\n"
		"(and clock snapshot) and defines every stack and string its events\n"
		"use.  Prints what it counted.\n\n"
		"  -q, --quiet    print nothing when the file is fine (or\n"
		"                 repaired)\n"
		"  -r, --repair   a damaged generational trace: keep its complete\n"
		"                 generations, in place (through a temporary file\n"
		"                 and a rename) or into OUT\n"
		"  -o, --output OUT  with --repair: write there, not over FILE\n");
}

static void check_print(const char *path, const struct gt_trace_info *in)
{
	double secs = 0;
	char b[32];

	if (in->frequency && in->max_ts > in->min_ts)
		secs = (double)(in->max_ts - in->min_ts) / (double)in->frequency;
	printf("%s: ok, %s (%" PRIu64 " bytes), go 1.11 trace\n", path,
	       gt_fmt_bytes(in->bytes, b, sizeof(b)), in->bytes);
	printf("  duration    %.6f s (frequency %" PRIu64 " Hz)\n", secs,
	       in->frequency);
	printf("  events      %" PRIu64 " in %" PRIu64 " batches\n",
	       in->events, in->batches);
	printf("  Ps          %" PRIu64 "\n", in->ps);
	printf("  goroutines  %" PRIu64 "\n", in->goroutines);
	printf("  strings     %" PRIu64 "\n", in->strings);
	printf("  stacks      %" PRIu64 "\n", in->stacks);
	printf("  records by type:\n");
	for (unsigned int t = 1; t < GT_TRACE_NR_TYPES; t++)
		if (in->by_type[t])
			printf("    %-18s %" PRIu64 "\n", gt_trace_type_name(t),
			       in->by_type[t]);
}

static void check_print_go123(const char *path, const struct gt_go123_info *in)
{
	char b[32];

	printf("%s: ok, %s (%" PRIu64 " bytes), go 1.%d trace\n", path,
	       gt_fmt_bytes(in->bytes, b, sizeof(b)), in->bytes, in->version);
	printf("  duration    %.6f s\n",
	       (double)(in->max_ts - in->min_ts) / 1e9);
	printf("  generations %" PRIu64 "\n", in->generations);
	printf("  events      %" PRIu64 " in %" PRIu64 " batches\n",
	       in->events, in->batches);
	printf("  CPU samples %" PRIu64 "\n", in->samples);
	printf("  Ms          %" PRIu64 "\n", in->ms);
	printf("  Ps          %" PRIu64 "\n", in->ps);
	printf("  goroutines  %" PRIu64 "\n", in->goroutines);
	printf("  strings     %" PRIu64 " (over all generations)\n", in->strings);
	printf("  stacks      %" PRIu64 " (over all generations)\n", in->stacks);
	/* Valid, but Go's readers may squash the times around them. */
	if (in->ties)
		printf("  ties        %" PRIu64 " events need another M's event of their own time: Go's readers may show the times after them squashed\n",
		       in->ties);
	printf("  events by type:\n");
	for (unsigned int t = 1; t < GT_GO123_NR_TYPES; t++)
		if (in->by_type[t])
			printf("    %-20s %" PRIu64 "\n", gt_go123_type_name(t),
			       in->by_type[t]);
}

/*
 * gotrace check of a generational trace, and its repair into @out (opened
 * before the check, so that an output that cannot be written fails at
 * once; NULL without --repair).
 */
static int check_go123(const char *path, struct gt_src *src, bool quiet,
		       struct gt_output *out)
{
	bool repair = out;
	struct gt_trace_error err;
	struct gt_go123_info in;
	int ret;

	if (!gt_go123_check(src, &in, &err)) {
		if (repair)
			gt_output_abandon(out, false);
		if (repair && !quiet)
			printf("%s: nothing to repair\n", path);
		else if (!quiet)
			check_print_go123(path, &in);
		return GT_EXIT_OK;
	}
	/* Most often a recording cut short: say, on the line, what is saved. */
	if (!repair && in.good_generations)
		gt_err("%s: offset %zu (0x%zx): %s; if it was cut short (a recorder killed, a full disk), 'gotrace check --repair' keeps its %" PRIu64 " complete generations (%" PRIu64 " of %" PRIu64 " bytes)",
		       path, err.off, err.off, err.msg, in.good_generations,
		       in.good_end, in.bytes);
	else
		gt_err("%s: offset %zu (0x%zx): %s", path, err.off, err.off,
		       err.msg);
	if (!repair)
		return GT_EXIT_FAIL;
	if (!in.good_generations) {
		gt_err("%s: no complete generation to keep: not repaired", path);
		gt_output_abandon(out, false);
		return GT_EXIT_FAIL;
	}
	ret = gt_go123_write_prefix(src, in.good_end, out->fd);
	if (ret) {
		gt_err("%s: cannot write %s: %s (the input is unchanged)", path,
		       gt_output_name(out), strerror(-ret));
		gt_output_abandon(out, false);
		return GT_EXIT_FAIL;
	}
	if (gt_output_commit(out))
		return GT_EXIT_FAIL;
	if (!quiet)
		printf("%s: repaired into %s: kept %" PRIu64 " generations, %"
		       PRIu64 " of %" PRIu64 " bytes\n", path,
		       strcmp(out->path, "-") ? out->path : "stdout",
		       in.good_generations, in.good_end, in.bytes);
	return GT_EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "repair",	no_argument,		NULL, 'r' },
		{ "output",	required_argument,	NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	struct gt_trace_error err;
	const char *path, *out = NULL;
	bool quiet = false, repair = false;
	struct gt_output o;
	uint8_t hdr[16] = { 0 };
	struct gt_trace t;
	struct gt_src src;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+hqro:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			check_usage(stdout);
			return GT_EXIT_OK;
		case 'q':
			quiet = true;
			break;
		case 'r':
			repair = true;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			gt_usage_hint("check");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		gt_err("check takes one FILE");
		gt_usage_hint("check");
		return GT_EXIT_USAGE;
	}
	path = argv[optind];
	if (out && !repair) {
		gt_err("check: -o is for --repair");
		gt_usage_hint("check");
		return GT_EXIT_USAGE;
	}
	if (repair && !out && !strcmp(path, "-")) {
		gt_err("check: --repair of stdin needs -o OUT");
		gt_usage_hint("check");
		return GT_EXIT_USAGE;
	}

	ret = gt_src_open(&src, path);
	if (ret) {
		gt_err_input(path, src.spool_dir, -ret);
		return GT_EXIT_FAIL;
	}
	gt_src_read(&src, 0, hdr, sizeof(hdr));
	if (repair && !gt_go123_header(hdr, sizeof(hdr))) {
		gt_err("%s: --repair reads generational traces (go 1.22 to 1.26) only",
		       path);
		gt_src_close(&src);
		return GT_EXIT_FAIL;
	}
	/*
	 * The repaired trace may replace its input (in place, or -o naming
	 * it), keeping its mode; never by writing into it.
	 */
	if (repair && gt_output_open_from(&o, out ? out : path, "trace",
					  GT_OUTPUT_KEEP_MODE |
					  GT_OUTPUT_MAY_BE_INPUT, path)) {
		gt_src_close(&src);
		return GT_EXIT_FAIL;
	}
	if (gt_go123_header(hdr, sizeof(hdr))) {
		ret = check_go123(path, &src, quiet, repair ? &o : NULL);
		if (repair)
			gt_output_free(&o);
		gt_src_close(&src);
		return ret;
	}
	ret = gt_trace_open(&t, &src, &err);
	if (!ret)
		ret = gt_trace_replay(&t, NULL, NULL, &err);
	if (ret) {
		gt_err("%s: offset %zu (0x%zx): %s", path, err.off, err.off,
		       err.msg);
		gt_trace_close(&t);
		return GT_EXIT_FAIL;
	}
	if (!quiet)
		check_print(path, &t.info);
	gt_trace_close(&t);
	return GT_EXIT_OK;
}
