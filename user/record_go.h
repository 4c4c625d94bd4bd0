/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_go.h - a Go program's own trace beside the recording, merged
 * into it at the end (gotrace record --go URL, --go-trace FILE)
 *
 * With either option -o FILE is the merged trace (go_merge.h): the
 * recording itself goes to FILE.kernel, the program's trace fetched
 * with --go to FILE.go, and both stay, to be merged again or read
 * alone.  --go fetches the program's trace from its net/http/pprof
 * endpoint (gofetch.h) for -d TIME, in a child process started once the
 * recording runs; the recording ends when the fetch does.  --go-trace
 * names the trace a program writes itself (go test -trace,
 * runtime/trace.Start), read once the recording ended.
 */
#ifndef GOTRACE_RECORD_GO_H
#define GOTRACE_RECORD_GO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct gt_recgo {
	const char *url;		/* --go */
	const char *trace;		/* --go-trace */
	const char *merged;		/* -o: the merged trace */
	char *kernel;			/* FILE.kernel: the recording */
	char *fetched;			/* FILE.go: --go's trace */
	unsigned int seconds;		/* --go: of the fetch */
	pid_t pid;			/* the fetch, until reaped */
	int go_fd;			/* held fetch: a byte lets it go; or -1 */
	int status;			/* its wait status */
	bool reaped;
};

static inline bool gt_recgo_on(const struct gt_recgo *g)
{
	return g->url || g->trace;
}

/*
 * Check the options with the recording's: -o @out (the merged trace),
 * @duration_ns, whether a COMMAND, a rotation, a flight recorder or the
 * go1.11 format is asked for.  Sets g->kernel, the recording's file.
 * 0, or -1 after saying why.
 */
int gt_recgo_check(struct gt_recgo *g, const char *out, uint64_t duration_ns,
		   bool cmd, bool rotating, bool flighting, bool go111);

/*
 * --go: fork the fetch, held: before the recording's source opens, so
 * that the child holds none of its descriptors.  0, or -1 said.
 */
int gt_recgo_fork(struct gt_recgo *g);
/* --go: let the fetch go (the recording runs).  0, or -1 said. */
int gt_recgo_start(struct gt_recgo *g);

/* Whether the fetch ended (reaped without blocking); false without one. */
bool gt_recgo_fetched(struct gt_recgo *g);

/*
 * The recording is complete in g->kernel: wait for the fetch, then
 * merge.  @quiet: no report.  0, or -1 said.
 */
int gt_recgo_merge(struct gt_recgo *g, bool quiet);

/* The recording failed: stop a fetch still running. */
void gt_recgo_cancel(struct gt_recgo *g);
void gt_recgo_free(struct gt_recgo *g);

#endif /* GOTRACE_RECORD_GO_H */
