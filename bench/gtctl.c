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
 * Status is one line of NAME=value words: every field of struct
 * gotrace_status in the order of linux/gotrace_fields.h (the module's
 * status directory has the same names), the named ones (state,
 * stop_reason, format) as their numbers; a field the module does not
 * have is 0.
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

/* Is a field of linux/gotrace_fields.h shown (not padding)? */
#define SHOWN_NUM	1
#define SHOWN_START	1
#define SHOWN_STATE	1
#define SHOWN_STOP	1
#define SHOWN_FORMAT	1
#define SHOWN_PAD	0

static int print_status(int fd)
{
	struct gotrace_status st;
	const char *sep = "";

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	if (ioctl(fd, GOTRACE_IOC_GET_STATUS, &st)) {
		perror("GOTRACE_IOC_GET_STATUS");
		return 1;
	}
	/* The list is the struct's: a new field needs nothing here. */
#define GOTRACE_STATUS_FIELD(SHOW, BITS, NAME)				\
	do {								\
		if (SHOWN_##SHOW)					\
			printf("%s" #NAME "=%" PRIu64, sep,		\
			       (uint64_t)st.NAME);			\
		sep = " ";						\
	} while (0);
#include <linux/gotrace_fields.h>
#undef GOTRACE_STATUS_FIELD
	printf("\n");
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
