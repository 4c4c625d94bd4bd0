// SPDX-License-Identifier: GPL-2.0
/*
 * stop.c - gotrace stop: stop the recording in progress
 *
 * Uses a control handle (O_WRONLY), which never starts a session; the
 * recording process then receives the rest of the trace and its footer.
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

static void stop_usage(FILE *f)
{
	fprintf(f, "usage: gotrace stop\n\n"
		"Stop the recording in progress; 'gotrace record' then writes\n"
		"the end of the trace and exits.\n");
}

int cmd_stop(int argc, char **argv)
{
	const char *device;
	int fd, ret;

	ret = gt_control_args(argc, argv, "stop", stop_usage, &device);
	if (ret >= 0)
		return ret;

	fd = gt_dev_open(device, O_WRONLY);
	if (fd < 0)
		return GT_EXIT_FAIL;
	ret = gt_dev_stop(fd);
	close(fd);
	if (ret == -ENOENT) {
		gt_err("no recording in progress");
		return GT_EXIT_FAIL;
	}
	if (ret) {
		gt_err("cannot stop the recording: %s", gt_dev_strerror(-ret));
		return GT_EXIT_FAIL;
	}
	return GT_EXIT_OK;
}
