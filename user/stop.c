// SPDX-License-Identifier: GPL-2.0
/*
 * stop.c - gotrace stop: stop the recording in progress
 *
 * Uses a control handle (O_WRONLY), which never starts a session; the
 * recording process then receives the rest of the trace and its footer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "subcommands.h"
#ifdef GT_HAVE_BPF
#include "bpf/loader.h"
#endif
#include "control_args.h"
#include "device.h"
#include "recsig.h"
#include "util.h"

static void stop_usage(FILE *f)
{
	fprintf(f, "usage: gotrace stop\n\n"
		"Stop the recording in progress; 'gotrace record' then writes\n"
		"the end of the trace and exits.  Without gotrace.ko, stops the\n"
		"recording of the BPF backend ('gotrace record --backend bpf').\n");
}

/*
 * No module: stop a BPF recorder, which has no device to be told
 * through.  It takes GT_STOP_SIGNAL as the module's stop: it writes the
 * end of the trace, and its COMMAND runs on.  -1 when there is none
 * (GT_EXIT_* otherwise).
 */
static int stop_bpf(void)
{
#ifdef GT_HAVE_BPF
	pid_t pid = 0;
	int n = gt_bpf_sessions(&pid);

	if (n < 0)
		return GT_EXIT_FAIL;
	if (!n)
		return -1;
	if (!pid) {
		gt_err("a BPF session records, but its process was not found");
		return GT_EXIT_FAIL;
	}
	if (kill(pid, GT_STOP_SIGNAL)) {
		gt_err("cannot stop the BPF recording of pid %d: %s", (int)pid,
		       strerror(errno));
		return GT_EXIT_FAIL;
	}
	return GT_EXIT_OK;
#else
	return -1;
#endif
}

int cmd_stop(int argc, char **argv)
{
	const char *device;
	int fd, ret;

	ret = gt_control_args(argc, argv, "stop", stop_usage, &device);
	if (ret >= 0)
		return ret;

	if (!device && access(GOTRACE_DEVICE_PATH, F_OK)) {
		ret = stop_bpf();
		if (ret >= 0)
			return ret;
	}
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
