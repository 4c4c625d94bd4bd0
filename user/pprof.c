// SPDX-License-Identifier: GPL-2.0
/*
 * pprof.c - gotrace pprof: a pprof profile of a trace file
 *
 * Builds the profile of one kind from a go1.23 trace, generation by
 * generation (trace/go123_pprof.c): a time profile, or a CPU profile of
 * the trace's CPU samples, encodes it as pprof's protocol
 * buffer (trace/pprof_enc.c) and gzips it with zlib, as 'go tool
 * pprof' and pprof's other readers expect of a .pb.gz file.  OUT is
 * opened before the trace is read (an OUT that cannot be written fails
 * at once) and written as output.h says: a temporary file beside it,
 * renamed over it once whole, so that a truncated trace or a full disk
 * leaves OUT as it was; a device or a FIFO is written in place.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "output.h"
#include "subcommands.h"
#include "trace/go123_pprof.h"
#include "trace/go123_read.h"
#include "trace/pprof_enc.h"
#include "util.h"

static void pprof_usage(FILE *f)
{
	fprintf(f, "usage: gotrace pprof KIND [--unit NAME] [--comm NAME]"
		" [--tid N] -o OUT FILE\n\n"
		"Write the pprof profile KIND of the go1.23 trace FILE (- = stdin)\n"
		"to OUT (- = stdout), gzipped, for 'go tool pprof OUT': for sched,\n"
		"sync, syscall and net the profiles of Go's 'go tool trace\n"
		"-pprof=KIND', for cpu a CPU profile as Go's runtime/pprof writes.\n"
		"KIND:\n\n"
		"  sched     time runnable before running (scheduling latency)\n"
		"  sync      time blocked on a channel, select or sync primitive\n"
		"  syscall   time in syscalls\n"
		"  net       time blocked on the network\n"
		"  cpu       the trace's CPU samples: where the CPUs ran\n\n"
		"Each sample is a stack with a count and a time: where the task\n"
		"entered the state, or, for cpu, the stack a CPU sample caught,\n"
		"its time the sampling period.  The options keep only the tasks\n"
		"that match all of them:\n\n"
		"  -o, --output OUT  where to write the profile (required)\n"
		"  --unit NAME       tasks of systemd unit NAME, while in it\n"
		"  --comm NAME       tasks named NAME (their outermost frame)\n"
		"  --tid N           the task with thread id N\n");
}

static const char *const kinds[] = {
	[GT_PPROF_SCHED] = "sched", [GT_PPROF_SYNC] = "sync",
	[GT_PPROF_SYSCALL] = "syscall", [GT_PPROF_NET] = "net",
	[GT_PPROF_CPU] = "cpu",
};

const char *gt_pprof_kinds(void)
{
	static char list[64];

	if (!list[0])
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", i ? ", " : "", kinds[i]);
	return list;
}

static int gz_write(void *ctx, const void *buf, size_t len)
{
	/* The encoder hands over at most a flush's worth (pprof_enc.c). */
	return gzwrite(ctx, buf, (unsigned int)len) == (int)len ? 0 : -1;
}

/*
 * Encode @p gzipped into @o, opened before the trace was read, and put
 * it in place (output.h).  0, or -1 said.
 */
static int out_write(struct gt_output *o, const struct gt_prof *p)
{
	/* zlib closes its own descriptor; the output's is synced. */
	int zfd = dup(o->fd);
	gzFile z = zfd < 0 ? NULL : gzdopen(zfd, "wb");
	int ret;

	if (!z) {
		gt_err("pprof: %s: %s", gt_output_name(o),
		       zfd < 0 ? strerror(errno) : "out of memory");
		if (zfd >= 0)
			close(zfd);
		gt_output_abandon(o, false);
		return -1;
	}
	/*
	 * What fails sets errno: write(2) (ENOSPC, EIO, EPIPE) or malloc();
	 * only zlib's own allocations may not.
	 */
	errno = 0;
	ret = gt_pprof_encode(p, gz_write, z);
	if (gzclose(z) != Z_OK)
		ret = -1;
	if (ret) {
		gt_err("pprof: cannot write %s: %s", gt_output_name(o),
		       errno ? strerror(errno) : "out of memory");
		gt_output_abandon(o, false);
		return -1;
	}
	return gt_output_commit(o);
}

static int parse_tid(const char *s, uint64_t *tid)
{
	char *end;

	errno = 0;
	*tid = strtoull(s, &end, 10);
	/* Linux's thread ids fit in 32 bits (PID_MAX_LIMIT: 2^22). */
	return !*s || *end || s[0] == '-' || errno || *tid > UINT32_MAX ?
	       -1 : 0;
}

int cmd_pprof(int argc, char **argv)
{
	enum { OPT_UNIT = 256, OPT_COMM, OPT_TID };
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "unit",	required_argument,	NULL, OPT_UNIT },
		{ "comm",	required_argument,	NULL, OPT_COMM },
		{ "tid",	required_argument,	NULL, OPT_TID },
		{ NULL, 0, NULL, 0 }
	};
	struct gt_pprof_opts o = { 0 };
	struct gt_pprof_seen seen;
	struct gt_trace_error err;
	const char *out_path = NULL, *path, *kind;
	struct gt_output out;
	uint8_t hdr[16] = { 0 };
	struct gt_src src;
	struct gt_prof p;
	int c, ret, k = -1;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			pprof_usage(stdout);
			return GT_EXIT_OK;
		case 'o':
			out_path = optarg;
			break;
		case OPT_UNIT:
			o.unit = optarg;
			break;
		case OPT_COMM:
			o.comm = optarg;
			break;
		case OPT_TID:
			if (parse_tid(optarg, &o.tid)) {
				gt_err("pprof: invalid thread id '%s' for --tid",
				       optarg);
				gt_usage_hint("pprof");
				return GT_EXIT_USAGE;
			}
			o.by_tid = true;
			break;
		default:
			gt_usage_hint("pprof");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc - 2 || !out_path) {
		gt_err(!out_path ? "pprof: needs -o OUT" :
		       "pprof: takes KIND and FILE");
		gt_usage_hint("pprof");
		return GT_EXIT_USAGE;
	}
	kind = argv[optind];
	path = argv[optind + 1];
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			k = (int)i;
	if (k < 0) {
		gt_err("pprof: unknown profile '%s' (%s)", kind,
		       gt_pprof_kinds());
		gt_usage_hint("pprof");
		return GT_EXIT_USAGE;
	}
	ret = gt_src_open(&src, path);
	if (ret) {
		gt_err_input(path, src.spool_dir, -ret);
		return GT_EXIT_FAIL;
	}
	if (gt_src_read(&src, 0, hdr, sizeof(hdr)) < 0)
		memset(hdr, 0, sizeof(hdr));
	if (!gt_go123_header(hdr, sizeof(hdr))) {
		gt_src_close(&src);
		if (!memcmp(hdr, "go 1.", 5) && k == GT_PPROF_CPU)
			gt_err("%s: a \"%.13s\" has no CPU samples (Go's format"
			       " has them from go 1.19's, gotrace's from the"
			       " generational one): record with --format go1.23",
			       path, (const char *)hdr);
		else if (!memcmp(hdr, "go 1.", 5))
			gt_err("%s: a \"%.13s\": pprof reads generational traces"
			       " (\"go 1.22 trace\" to \"go 1.26 trace\"): record"
			       " with --format go1.23", path, (const char *)hdr);
		else
			gt_err("%s: not a Go execution trace", path);
		return GT_EXIT_FAIL;
	}
	o.kind = (enum gt_pprof_kind)k;
	/* Never over the trace it is made of. */
	if (gt_output_open_from(&out, out_path, "profile", 0, path)) {
		gt_src_close(&src);
		return GT_EXIT_FAIL;
	}
	if (gt_prof_init(&p, k == GT_PPROF_CPU ? GT_PROF_CPU : GT_PROF_TIME)) {
		gt_src_close(&src);
		gt_output_abandon(&out, false);
		gt_output_free(&out);
		gt_err("pprof: out of memory");
		return GT_EXIT_FAIL;
	}
	ret = gt_go123_pprof(&src, &o, &p, &seen, &err);
	gt_src_close(&src);
	if (!ret && k == GT_PPROF_CPU && !seen.samples) {
		/* An empty CPU profile would look like an idle machine. */
		gt_err("%s: no CPU samples in this trace (gotrace records them"
		       " with --cpu-hz); %s left as it was", path,
		       strcmp(out_path, "-") ? out_path : "standard output");
		gt_output_abandon(&out, false);
		ret = -1;
	} else if (ret) {
		/* As gotrace check says it: a cut trace has a way out. */
		gt_err("%s: offset %zu (0x%zx): %s; %s left as it was (if the"
		       " trace was cut short, 'gotrace check --repair' keeps"
		       " its complete generations)", path, err.off, err.off,
		       err.msg, strcmp(out_path, "-") ? out_path :
		       "standard output");
		gt_output_abandon(&out, false);
	} else {
		ret = out_write(&out, &p);
	}
	gt_output_free(&out);
	gt_prof_free(&p);
	return ret ? GT_EXIT_FAIL : GT_EXIT_OK;
}
