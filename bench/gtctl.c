// SPDX-License-Identifier: GPL-2.0
/*
 * gtctl - the benchmark's view of /dev/gotrace
 *
 *   gtctl rec FILE [NICE]
 *                    read /dev/gotrace into FILE until end of file, as
 *                    "cat /dev/gotrace > FILE" does (128 KiB reads), then,
 *                    before closing the session, print its final status;
 *                    with NICE, at that nice value (busybox may lack nice)
 *   gtctl status     print the current status (from a control handle)
 *
 * Status is one line of key=value words: events bytes lost overflows
 * task_overflows stack_overflows stop state cpus chunks format (1: go
 * 1.11, 2: go 1.23, 0: not started) generations, then the user stacks'
 * counters: ustack_walks ustack_bad_fp ustack_faults ustack_depth
 * ustack_queue_full ustack_map_full (0 where the module has none).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/gotrace.h>

static int print_status(int fd)
{
	struct gotrace_status st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	if (ioctl(fd, GOTRACE_IOC_GET_STATUS, &st)) {
		perror("GOTRACE_IOC_GET_STATUS");
		return 1;
	}
	printf("events=%" PRIu64 " bytes=%" PRIu64 " lost=%" PRIu64
	       " overflows=%" PRIu64 " task_overflows=%" PRIu64
	       " stack_overflows=%" PRIu64 " stop=%u state=%u cpus=%u chunks=%"
	       PRIu64 " format=%u generations=%" PRIu64 " ustack_walks=%" PRIu64
	       " ustack_bad_fp=%" PRIu64 " ustack_faults=%" PRIu64
	       " ustack_depth=%" PRIu64 " ustack_queue_full=%" PRIu64
	       " ustack_map_full=%" PRIu64 " cpu_samples=%" PRIu64
	       " cpu_samples_idle=%" PRIu64 " cpu_samples_lost=%" PRIu64 "\n",
	       (uint64_t)st.events, (uint64_t)st.bytes_produced,
	       (uint64_t)st.lost_events, (uint64_t)st.chunk_overflows,
	       (uint64_t)st.task_overflows, (uint64_t)st.stack_overflows,
	       st.stop_reason, st.state, st.nr_cpus,
	       (uint64_t)st.chunks_total, st.format,
	       (uint64_t)st.generations, (uint64_t)st.ustack_walks,
	       (uint64_t)st.ustack_bad_fp, (uint64_t)st.ustack_faults,
	       (uint64_t)st.ustack_depth, (uint64_t)st.ustack_queue_full,
	       (uint64_t)st.ustack_map_full, (uint64_t)st.cpu_samples,
	       (uint64_t)st.cpu_samples_idle, (uint64_t)st.cpu_samples_lost);
	fflush(stdout);
	return 0;
}

static int rec(const char *path)
{
	static char buf[128 * 1024];
	int in, out, ret;
	ssize_t n;

	in = open(GOTRACE_DEVICE_PATH, O_RDONLY);
	if (in < 0) {
		perror(GOTRACE_DEVICE_PATH);
		return 1;
	}
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		perror(path);
		return 1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			perror("write");
			return 1;
		}
	if (n < 0) {
		perror("read");
		return 1;
	}
	close(out);
	ret = print_status(in);
	close(in);
	return ret;
}

int main(int argc, char **argv)
{
	int fd;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "rec")) {
		if (argc == 4 && setpriority(PRIO_PROCESS, 0, atoi(argv[3]))) {
			perror("setpriority");
			return 1;
		}
		return rec(argv[2]);
	}
	if (argc == 2 && !strcmp(argv[1], "status")) {
		fd = open(GOTRACE_DEVICE_PATH, O_WRONLY);
		if (fd < 0) {
			perror(GOTRACE_DEVICE_PATH);
			return 1;
		}
		return print_status(fd);
	}
	fprintf(stderr, "usage: gtctl rec FILE [NICE] | gtctl status\n");
	return 2;
}
