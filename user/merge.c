// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - gotrace merge: a Go program's trace with the kernel's view
 * of its threads added (go_merge.c)
 *
 * OUT is opened before anything is read and written as output.h says:
 * under a temporary name, renamed over OUT once whole.  Neither input
 * may be OUT.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "go_merge.h"
#include "output.h"
#include "subcommands.h"
#include "util.h"

static void merge_usage(FILE *f)
{
	fprintf(f, "usage: gotrace merge [--min DURATION] [-q] -o OUT PROGRAM.trace SYSTEM.trace\n\n"
		"Write to OUT the execution trace PROGRAM.trace of a Go program\n"
		"(Go 1.22 or newer: runtime/trace, go test -trace, net/http/pprof's\n"
		"/debug/pprof/trace) with what gotrace's trace SYSTEM.trace, recorded\n"
		"on the same machine meanwhile, says of the program's threads.  OUT\n"
		"is the program's trace, every event of it, in its format; added:\n\n"
		"  a user region on the goroutine Go shows on a thread, for each\n"
		"  time the kernel had that thread off its CPU: \"kernel: runnable,\n"
		"  waiting for a CPU\" (with who ran on the CPU instead), \"kernel:\n"
		"  blocked\" (reason, kernel stack, waker), \"kernel: asleep in a\n"
		"  syscall\" (kernel stack), \"kernel: unknown (events lost)\";\n"
		"  a user log \"kernel\" at each region's start that says so, and\n"
		"  one when the thread changes CPU.\n\n"
		"  -o, --output OUT  where to write the merged trace (required)\n"
		"  --min DURATION    leave out intervals shorter than DURATION\n"
		"                    (e.g. 10us; default: none)\n"
		"  -q, --quiet       no report on stderr\n\n"
		"'go tool trace OUT' shows the regions in each goroutine's timeline\n"
		"and on its \"User-defined regions\" page.  See gotrace(1), MERGE.\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "min",	required_argument,	NULL, 'm' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	struct gt_merge_opts o = { 0 };
	const char *out_path = NULL;
	struct gt_merge_stats st;
	bool quiet = false;
	int c;

	while ((c = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			merge_usage(stdout);
			return GT_EXIT_OK;
		case 'o':
			out_path = optarg;
			break;
		case 'm':
			if (!gt_parse_duration(optarg, &o.min_ns)) {
				gt_err("merge: invalid duration '%s' for --min",
				       optarg);
				gt_usage_hint("merge");
				return GT_EXIT_USAGE;
			}
			break;
		case 'q':
			quiet = true;
			break;
		default:
			gt_usage_hint("merge");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc - 2 || !out_path) {
		gt_err(!out_path ? "merge: needs -o OUT" :
		       "merge: takes PROGRAM.trace and SYSTEM.trace");
		gt_usage_hint("merge");
		return GT_EXIT_USAGE;
	}
	return gt_merge_files(argv[optind], argv[optind + 1], out_path, &o,
			      quiet ? NULL : stderr, &st) ?
	       GT_EXIT_FAIL : GT_EXIT_OK;
}

int gt_merge_files(const char *prog_path, const char *sys_path,
		   const char *out_path, const struct gt_merge_opts *o,
		   FILE *report, struct gt_merge_stats *st)
{
	struct gt_src prog, sys;
	struct gt_output out;
	FILE *f = NULL;
	int ret, fd;

	struct stat a, b;

	/* The output layer checks one input; the other is checked here. */
	if (strcmp(out_path, "-") && !stat(out_path, &a) && !stat(sys_path, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		gt_err("%s is the input %s: the merged trace would replace it; name another file",
		       out_path, sys_path);
		return -1;
	}
	if (gt_output_open_from(&out, out_path, "merged trace", 0, prog_path))
		return -1;
	ret = gt_src_open(&prog, prog_path);
	if (ret) {
		gt_err_input(prog_path, prog.spool_dir, -ret);
		goto abandon;
	}
	ret = gt_src_open(&sys, sys_path);
	if (ret) {
		gt_err_input(sys_path, sys.spool_dir, -ret);
		gt_src_close(&prog);
		goto abandon;
	}
	fd = dup(out.fd);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		gt_err("merge: %s: %s", gt_output_name(&out), strerror(errno));
		if (fd >= 0)
			close(fd);
		ret = -1;
	} else {
		ret = gt_go_merge(&prog, &sys, f, o, st);
		if (fclose(f) && !ret) {
			gt_err("merge: cannot write %s: %s", gt_output_name(&out),
			       strerror(errno));
			ret = -1;
		}
	}
	if (!ret)
		ret = gt_go_merge_verify(&prog, gt_output_name(&out), st);
	gt_src_close(&prog);
	gt_src_close(&sys);
	if (ret)
		goto abandon;
	ret = gt_output_commit(&out);
	gt_output_free(&out);
	if (!ret && report)
		gt_go_merge_report(report, st);
	return ret ? -1 : 0;
abandon:
	gt_output_abandon(&out, false);
	gt_output_free(&out);
	return -1;
}
