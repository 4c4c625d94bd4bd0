// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - gotrace snapshot: a flight-mode recording writes its
 * window now
 *
 * Uses a control handle (O_WRONLY), which never starts a session: the
 * module ends the current generation and hands the window to the
 * recording process ('gotrace record --flight'), which writes it to a
 * file of its own and goes on recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "subcommands.h"
#include "control_args.h"
#include "device.h"
#include "util.h"

static void snapshot_usage(FILE *f)
{
	fprintf(f, "usage: gotrace snapshot\n\n"
		"Ask the recording in progress, in flight mode ('gotrace record\n"
		"--flight'), to write the window it keeps to a file now; it goes\n"
		"on recording.  SIGUSR1 to the recorder does the same.\n");
}

int cmd_snapshot(int argc, char **argv)
{
	const char *device;
	int fd, ret;

	ret = gt_control_args(argc, argv, "snapshot", snapshot_usage, &device);
	if (ret >= 0)
		return ret;

	fd = gt_dev_open(device, O_WRONLY);
	if (fd < 0)
		return GT_EXIT_FAIL;
	ret = gt_dev_snapshot(fd);
	close(fd);
	switch (-ret) {
	case 0:
		return GT_EXIT_OK;
	case ENOENT:
		gt_err("no recording in progress");
		break;
	case EINVAL:
		gt_err("the recording in progress is not in flight mode (gotrace record --flight)");
		break;
	case EBUSY:
		gt_err("the previous snapshot is still being written: try again");
		break;
	default:
		gt_err("cannot take a snapshot: %s", gt_dev_strerror(-ret));
	}
	return GT_EXIT_FAIL;
}
