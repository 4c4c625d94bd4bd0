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
#include "source.h"
#include "util.h"

#define KMOD_READ_SIZE		(64 * 1024)
#define KMOD_READS_PER_DRAIN	64	/* then back to signals and timers */

struct kmod_source {
	struct gt_source src;
	int fd;
	const char *dev_path;
	bool not_device;	/* a stop found no gotrace device: read out */
	char *buf;
};

static struct kmod_source *kmod(struct gt_source *s)
{
	return (struct kmod_source *)s;
}

/* Send the options, before anything is read: reading starts recording. */
static int kmod_set_options(struct kmod_source *k,
			    const struct gt_source_args *a)
{
	if (!a->send_opts ||
	    !ioctl(k->fd, GOTRACE_IOC_SET_OPTIONS, &a->opts)) {
		if (!a->trig || !a->trig->type ||
		    !ioctl(k->fd, GOTRACE_IOC_SET_TRIGGER, a->trig))
			return 0;
		gt_err("gotrace.ko refused the trigger: %s",
		       gt_dev_strerror(errno));
		return -1;
	}
	switch (errno) {
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
		gt_err("cannot set the options: %s", strerror(errno));
	}
	return -1;
}

/*
 * The module starts recording at the first read() or poll(): start it
 * now, so that COMMAND, started next, is recorded from its first
 * instruction.
 */
static int kmod_start(struct gt_source *s)
{
	struct pollfd pfd = { .fd = kmod(s)->fd, .events = POLLIN };

	if (poll(&pfd, 1, 0) < 0 && errno != EINTR) {
		gt_err("cannot start the recording: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int kmod_wait(struct gt_source *s, const struct timespec *timeout,
		     const sigset_t *mask)
{
	struct pollfd pfd = { .fd = kmod(s)->fd, .events = POLLIN };

	if (kmod(s)->not_device)
		return 0;	/* what is there is drained at once */
	if (ppoll(&pfd, 1, timeout, mask) >= 0 || errno == EINTR)
		return 0;
	gt_err("poll %s: %s", kmod(s)->dev_path, strerror(errno));
	return -1;
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

	if (!ret || ret == -ENOENT)
		return 0;
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
	(void)s;
	if (!quiet && st->ustack_walks)
		fprintf(stderr, "%s: user stacks: %" PRIu64 " walked, "
			"truncated: bad frame pointer %" PRIu64
			", fault %" PRIu64 ", depth limit %" PRIu64
			"; unnamed: queue full %" PRIu64
			", maps full %" PRIu64 ", mm busy %" PRIu64
			"\n", GT_NAME,
			(uint64_t)st->ustack_walks,
			(uint64_t)st->ustack_bad_fp,
			(uint64_t)st->ustack_faults,
			(uint64_t)st->ustack_depth,
			(uint64_t)st->ustack_queue_full,
			(uint64_t)st->ustack_map_full,
			(uint64_t)st->ustack_mm_busy);
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
