// SPDX-License-Identifier: GPL-2.0
/*
 * source_kmod.c - the module's device as a recording's source (source.h)
 *
 * Opening /dev/gotrace for reading makes the session; the options and
 * the trigger go in by ioctl before the first read() or poll(), which
 * starts it.  The module encodes the trace itself: draining is reading
 * the device, a read of 0 its end (or, in flight mode, the end of a
 * snapshot).  Where the ioctls fail with ENOTTY (not a gotrace device:
 * the tests' FIFO, --device) the status is unknown and a stop ends the
 * recording once what was written is read.
 *
 * With GOTRACE_OPT_UNWIND_TABLES the command loads the unwind tables
 * into the session (record_unwind.h): every process before the first
 * read, then those the walks missed, taken each time the reader wakes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"
#include "record_unwind.h"
#include "source.h"
#include "util.h"

#define KMOD_READ_SIZE		(64 * 1024)
#define KMOD_READS_PER_DRAIN	64	/* then back to signals and timers */
/*
 * The longest wait with the unwind tables: a walk's miss is loaded
 * within it (the module reports a space a few times a second at most).
 */
#define KMOD_UNWIND_WAIT_NS	100000000L

struct kmod_source {
	struct gt_source src;
	int fd;
	const char *dev_path;
	bool not_device;	/* a stop found no gotrace device: read out */
	bool stopped;		/* the stop is sent: no walk misses any more */
	char *buf;
	struct gt_recunw *unwind;	/* GOTRACE_OPT_UNWIND_TABLES */
	bool unwind_required;	/* --unwind=eh-frame: not frame pointers only */
};

static struct kmod_source *kmod(struct gt_source *s)
{
	return (struct kmod_source *)s;
}

/*
 * A module without the unwind tables (older than this command): frame
 * pointers then, said once, unless --unwind=eh-frame asked for tables.
 */
static int kmod_no_tables(const struct kmod_source *k)
{
	if (k->unwind_required) {
		gt_err("--unwind=eh-frame: the module walks frame pointers only (a gotrace.ko older than the unwind tables): load this version's module, or use --unwind=fp or --backend bpf");
		return -1;
	}
	gt_warn("the module walks frame pointers only (a gotrace.ko older than the unwind tables): user stacks are walked without the tables");
	return 0;
}

/*
 * GOTRACE_IOC_SET_OPTIONS: 0, an errno to explain, or -1 said.  A module
 * older than the unwind tables refuses them (an unknown flag; with the
 * larger options, their fields set): sent again without them, the
 * options then say whether the rest is fine.
 */
static int kmod_send_options(struct kmod_source *k,
			     struct gotrace_options *o)
{
	if (!ioctl(k->fd, GOTRACE_IOC_SET_OPTIONS, o))
		return 0;
	if (!(o->flags & GOTRACE_OPT_UNWIND_TABLES) ||
	    (errno != EINVAL && errno != E2BIG))
		return errno;
	o->flags &= ~GOTRACE_OPT_UNWIND_TABLES;
	o->unwind_rows = 0;
	o->unwind_spaces = 0;
	if (ioctl(k->fd, GOTRACE_IOC_SET_OPTIONS, o))
		return errno;
	return kmod_no_tables(k);
}

/* Send the options, before anything is read: reading starts recording. */
static int kmod_set_options(struct kmod_source *k,
			    const struct gt_source_args *a)
{
	struct gotrace_options o = a->opts;
	int err = 0;

	if (o.flags & GOTRACE_OPT_UNWIND_TABLES)
		o.unwind_rows = gt_recunw_rows(a->unwind_bytes);
	if (a->send_opts)
		err = kmod_send_options(k, &o);
	if (err < 0)
		return -1;
	if (!err) {
		/* Only options sent can have asked for the tables. */
		if (a->send_opts && (o.flags & GOTRACE_OPT_UNWIND_TABLES)) {
			k->unwind = gt_recunw_new(k->fd, o.unwind_rows);
			if (!k->unwind)
				return -1;
		}
		if (!a->trig || !a->trig->type ||
		    !ioctl(k->fd, GOTRACE_IOC_SET_TRIGGER, a->trig))
			return 0;
		gt_err("gotrace.ko refused the trigger: %s",
		       gt_dev_strerror(errno));
		return -1;
	}
	switch (err) {
	case ENOTTY:
		gt_err("cannot set the options (%s): %s", a->opt_names,
		       gt_dev_strerror(ENOTTY));
		break;
	case EBUSY:
		gt_err("recording already started: the options (%s) cannot be set any more",
		       a->opt_names);
		break;
	case EINVAL:
		gt_err("gotrace.ko refused the options as invalid: check %s",
		       a->opt_names);
		break;
	case ESRCH:
		gt_err("no such process in this pid namespace: check %s",
		       a->opt_names);
		break;
	default:
		/* The tables' array is most of what SET_OPTIONS allocates. */
		if (err == ENOMEM && (o.flags & GOTRACE_OPT_UNWIND_TABLES))
			gt_err("gotrace.ko cannot allocate %zu MiB for the unwind tables: lower --unwind-memory, or use --unwind=fp",
			       (size_t)o.unwind_rows *
			       sizeof(struct gotrace_unwind_row) >> 20);
		else
			gt_err("cannot set the options: %s", strerror(err));
	}
	return -1;
}

/*
 * The unwind tables of every process there is, before the session
 * starts, so that its first stacks find them.  A module that took the
 * option but has no unwind ioctls walks by frame pointers.
 */
static int kmod_unwind_start(struct kmod_source *k)
{
	int ret = gt_recunw_start(k->unwind);

	if (ret != -ENOTTY)
		return ret;
	gt_recunw_free(k->unwind);
	k->unwind = NULL;
	return kmod_no_tables(k);
}

/*
 * The module starts recording at the first read() or poll(): start it
 * now, so that COMMAND, started next, is recorded from its first
 * instruction.
 */
static int kmod_start(struct gt_source *s)
{
	struct kmod_source *k = kmod(s);
	struct pollfd pfd = { .fd = k->fd, .events = POLLIN };

	if (k->unwind && kmod_unwind_start(k))
		return -1;
	if (poll(&pfd, 1, 0) < 0 && errno != EINTR) {
		gt_err("cannot start the recording: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* With the unwind tables, the walks' misses are taken at each wake. */
static int kmod_wait(struct gt_source *s, const struct timespec *timeout,
		     const sigset_t *mask)
{
	static const struct timespec most = { .tv_nsec = KMOD_UNWIND_WAIT_NS };
	struct kmod_source *k = kmod(s);
	struct pollfd pfd = { .fd = k->fd, .events = POLLIN };

	if (k->not_device)
		return 0;	/* what is there is drained at once */
	if (k->unwind && !k->stopped &&
	    (!timeout || timeout->tv_sec || timeout->tv_nsec > most.tv_nsec))
		timeout = &most;
	if (ppoll(&pfd, 1, timeout, mask) < 0 && errno != EINTR) {
		gt_err("poll %s: %s", k->dev_path, strerror(errno));
		return -1;
	}
	if (k->unwind && !k->stopped)
		gt_recunw_misses(k->unwind);
	return 0;
}

static enum gt_source_drained kmod_drain(struct gt_source *s,
					 gt_source_write_fn write, void *arg)
{
	struct kmod_source *k = kmod(s);

	for (int i = 0; i < KMOD_READS_PER_DRAIN; i++) {
		ssize_t n = read(k->fd, k->buf, KMOD_READ_SIZE);

		if (n > 0) {
			write(arg, k->buf, (size_t)n);
			continue;
		}
		if (!n)
			return GT_SOURCE_END;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return k->not_device ? GT_SOURCE_END : GT_SOURCE_AGAIN;
		gt_err("reading %s: %s", k->dev_path, strerror(errno));
		return GT_SOURCE_ERROR;
	}
	return GT_SOURCE_AGAIN;
}

/* ENOENT: the module stopped by itself already. */
static int kmod_stop(struct gt_source *s)
{
	struct kmod_source *k = kmod(s);
	int ret = gt_dev_stop(k->fd);

	if (!ret || ret == -ENOENT) {
		k->stopped = true;
		return 0;
	}
	if (ret == -ENOTTY) {
		gt_warn("%s is not a gotrace device: the recording ends here",
			k->dev_path);
		/* Keep what it has written so far; nothing more will come. */
		k->not_device = true;
		return 0;
	}
	gt_err("cannot stop the recording: %s", strerror(-ret));
	return -1;
}

static int kmod_status(struct gt_source *s, struct gotrace_status *st)
{
	return gt_dev_status(kmod(s)->fd, st);
}

/* What the module lost, and what to do about it. */
static void kmod_report(struct gt_source *s, const struct gotrace_status *st,
			bool quiet)
{
	struct kmod_source *k = kmod(s);
	char line[512];

	if (!quiet && st->ustack_walks) {
		gt_dev_ustack_line(st, line, sizeof(line));
		fprintf(stderr, "%s: user stacks: %s\n", GT_NAME, line);
	}
	if (!quiet && k->unwind)
		gt_recunw_summary(gt_recunw_tables(k->unwind));
	if (st->lost_events || st->chunk_overflows || st->task_overflows ||
	    st->stack_overflows || st->stop_reason == GOTRACE_STOP_OVERFLOW) {
		gt_warn("*** %" PRIu64 " EVENTS LOST *** (chunk overflows %" PRIu64
			", task overflows %" PRIu64 ", stack overflows %" PRIu64 ")",
			(uint64_t)st->lost_events, (uint64_t)st->chunk_overflows,
			(uint64_t)st->task_overflows,
			(uint64_t)st->stack_overflows);
		if (st->format == GOTRACE_FORMAT_GO123)
			gt_warn("the trace goes on past them, marked '[gotrace] events lost here' where they were lost; raise the module's chunks parameter or --buffer-size");
		else
			gt_warn("the trace ends where the first event was lost; raise the module's chunks, max_tasks or max_stacks parameters, or record for less time");
	}
	if (st->cpu_samples_lost)
		gt_warn("%" PRIu64 " CPU samples lost (per CPU: 'gotrace status' while recording): a sampling timer ran late, or a CPU's samples buffer was full",
			(uint64_t)st->cpu_samples_lost);
}

static int kmod_snapshot(struct gt_source *s)
{
	return gt_dev_snapshot(kmod(s)->fd);
}

static int kmod_snapshot_info(struct gt_source *s,
			      struct gotrace_snapshot *info)
{
	return gt_dev_snapshot_info(kmod(s)->fd, info);
}

static void kmod_close(struct gt_source *s)
{
	struct kmod_source *k = kmod(s);

	/* Its thread writes through the handle: first. */
	gt_recunw_free(k->unwind);
	if (k->fd >= 0)
		close(k->fd);
	free(k->buf);
	free(k);
}

static const struct gt_source_ops kmod_ops = {
	.start		= kmod_start,
	.wait		= kmod_wait,
	.drain		= kmod_drain,
	.stop		= kmod_stop,
	.status		= kmod_status,
	.report		= kmod_report,
	.snapshot	= kmod_snapshot,
	.snapshot_info	= kmod_snapshot_info,
	.close		= kmod_close,
};

struct gt_source *gt_source_kmod_open(const struct gt_source_args *a)
{
	struct kmod_source *k = calloc(1, sizeof(*k));

	if (!k || !(k->buf = malloc(KMOD_READ_SIZE))) {
		free(k);
		gt_err("out of memory");
		return NULL;
	}
	k->src.ops = &kmod_ops;
	k->dev_path = a->dev_path;
	k->unwind_required = a->unwind_required;
	/*
	 * Open blocking: on a FIFO that waits for the writer.  Then read
	 * without blocking, so that a poll() that raced never hangs us.
	 */
	k->fd = gt_dev_open(a->dev_path, O_RDONLY);
	if (k->fd < 0 || kmod_set_options(k, a)) {
		kmod_close(&k->src);
		return NULL;
	}
	fcntl(k->fd, F_SETFL, fcntl(k->fd, F_GETFL) | O_NONBLOCK);
	return &k->src;
}
