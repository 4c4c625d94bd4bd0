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
		"recordings of the BPF backend ('gotrace record --backend bpf'):\n"
		"all of them, naming each recorder's pid when there are several.\n");
}

/*
 * No module: stop the BPF recorders, which have no device to be told
 * through.  Each takes GT_STOP_SIGNAL as the module's stop: it writes the
 * end of its trace, and its COMMAND runs on.  All of them, as the
 * module's stop ends its one session whoever reads it (trace-cmd stop
 * stops the tracing, not one reader); with several, each is named.  -1
 * when there is none (GT_EXIT_* otherwise).
 */
static int stop_bpf(void)
{
#ifdef GT_HAVE_BPF
	pid_t pids[GT_BPF_MAX_SESSIONS] = { 0 };
	int n = gt_bpf_sessions(pids, GT_BPF_MAX_SESSIONS);
	int ret = GT_EXIT_OK;

	if (n < 0)
		return GT_EXIT_FAIL;
	if (!n)
		return -1;
	for (int i = 0; i < n && i < GT_BPF_MAX_SESSIONS; i++) {
		if (!pids[i]) {
			gt_err("a BPF session records, but its process was not found");
			ret = GT_EXIT_FAIL;
		} else if (kill(pids[i], GT_STOP_SIGNAL)) {
			gt_err("cannot stop the BPF recording of pid %d: %s",
			       (int)pids[i], strerror(errno));
			ret = GT_EXIT_FAIL;
		} else if (n > 1) {
			fprintf(stderr, "%s: stopped the BPF recording of pid %d\n",
				GT_NAME, (int)pids[i]);
		}
	}
	if (n > GT_BPF_MAX_SESSIONS) {
		gt_err("%d more BPF sessions record: run gotrace stop again",
		       n - GT_BPF_MAX_SESSIONS);
		ret = GT_EXIT_FAIL;
	}
	return ret;
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
