/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source.h - where a recording's trace comes from: the module's device
 * (source_kmod.c) or the BPF programs feeding the model in this process
 * (source_bpf.c)
 *
 * record.c runs one loop over either: it owns the output, rotation,
 * flight snapshots, signals, COMMAND, the progress line, systemd's
 * STATUS= and the summary; a source only turns "record" into bytes of
 * trace.  Its life: open (options checked, nothing recorded yet), start
 * (recording; COMMAND may run from here), then wait and drain until a
 * drain says GT_SOURCE_END, with one stop on the way (asked for, or the
 * source stopped by itself: its status says why), then close.
 */
#ifndef GOTRACE_SOURCE_H
#define GOTRACE_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <linux/gotrace.h>

/* What a source needs to open: the options, as the module takes them. */
struct gt_source_args {
	struct gotrace_options opts;
	bool send_opts;			/* given: else the module's own */
	const char *opt_names;		/* "--pid, --comm": for errors */
	const struct gotrace_trigger *trig;	/* --trigger, or none */
	const char *dev_path;		/* the module's device */
	uint64_t unwind_bytes;		/* GOTRACE_OPT_UNWIND_TABLES: the
					 * tables' memory (0: default) */
	bool unwind_required;		/* --unwind=eh-frame: a module
					 * without tables fails, rather
					 * than walk frame pointers */
};

/*
 * Takes @len bytes of trace.  It cannot fail: once the output failed,
 * record.c drops the rest and stops the source, which still drains to
 * its end.
 */
typedef void (*gt_source_write_fn)(void *arg, const void *buf, size_t len);

enum gt_source_drained {
	GT_SOURCE_AGAIN,	/* all there was is written: wait */
	GT_SOURCE_END,		/* the trace's end (flight: a snapshot's) */
	GT_SOURCE_ERROR,	/* the recording failed, said already */
};

struct gt_source;

/**
 * struct gt_source_ops - a backend
 * @start:	start recording; 0 or -1 (said already)
 * @wait:	sleep until there may be trace to drain, @timeout passed
 *		(NULL: none) or a signal came, with the signals of @mask
 *		open meanwhile; -1 only on an error (said already)
 * @drain:	hand what is ready to @write
 * @stop:	ask the source to stop: it drains its rest, then its end;
 *		0, or -1 when the recording cannot end cleanly (said)
 * @status:	the counters, as the module's status has them; 0 or -errno
 * @progress:	(optional) what the progress line adds for this backend:
 *		", ..." into @buf; snprintf()'s return
 * @report:	the backend's own lines after the summary: what it lost
 *		and why, which only it can explain (with @quiet, only the
 *		warnings)
 * @snapshot:	(flight mode, the module) take a snapshot; 0 or -errno
 * @snapshot_info: (flight mode) the snapshot whose end was drained
 * @close:	free everything; an unfinished session is abandoned
 */
struct gt_source_ops {
	int (*start)(struct gt_source *s);
	int (*wait)(struct gt_source *s, const struct timespec *timeout,
		    const sigset_t *mask);
	enum gt_source_drained (*drain)(struct gt_source *s,
					gt_source_write_fn write, void *arg);
	int (*stop)(struct gt_source *s);
	int (*status)(struct gt_source *s, struct gotrace_status *st);
	int (*progress)(struct gt_source *s, char *buf, size_t len);
	void (*report)(struct gt_source *s, const struct gotrace_status *st,
		       bool quiet);
	int (*snapshot)(struct gt_source *s);
	int (*snapshot_info)(struct gt_source *s,
			     struct gotrace_snapshot *info);
	void (*close)(struct gt_source *s);
};

struct gt_source {
	const struct gt_source_ops *ops;
};

/*
 * The sources; NULL after saying why.  The module's takes its options
 * and trigger at open; the BPF one is built only where BPF is
 * (backend.h).
 */
struct gt_source *gt_source_kmod_open(const struct gt_source_args *a);
struct gt_source *gt_source_bpf_open(const struct gt_source_args *a);

#endif /* GOTRACE_SOURCE_H */
