// SPDX-License-Identifier: GPL-2.0
/*
 * flight_test.c - the files of 'gotrace record --flight': names by time
 * and reason, written under a temporary name and renamed once complete,
 * the summary's words, and the parsers of --flight-size and --trigger
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flight.h"
#include "options.h"
#include "tap.h"

/* Files in @dir (not . and ..); the first one's name in @first. */
static int count_files(const char *dir, char *first, size_t len)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!n && first)
			snprintf(first, len, "%s", d->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

static void test_names(void)
{
	struct gotrace_snapshot info = { .reason = GOTRACE_SNAP_TRIGGER,
					 .trigger = GOTRACE_TRIGGER_SCHED_LATENCY,
					 .seq = 3 };
	struct timespec wall = { .tv_sec = 1795617005, .tv_nsec = 123456789 };
	char *name = gt_flight_name("d", &info, &wall);

	ok(name && !strcmp(name, "d/flight-20261125T143005.123Z-0003-latency.trace"),
	   "a trigger's snapshot is named by UTC time, sequence and reason (%s)",
	   name ? name : "NULL");
	diag("%s", name ? name : "NULL");
	free(name);
	info.reason = GOTRACE_SNAP_USER;
	ok(!strcmp(gt_flight_reason(&info), "user"), "asked for: user");
	info.reason = GOTRACE_SNAP_STOP;
	ok(!strcmp(gt_flight_reason(&info), "stop"), "the stop's: stop");
}

static void test_describe(void)
{
	struct gotrace_snapshot info = {
		.reason = GOTRACE_SNAP_TRIGGER,
		.trigger = GOTRACE_TRIGGER_SCHED_LATENCY,
		.tid = 812, .tgid = 800, .value_ns = 152311000,
		.comm = "gt_victim",
	};
	char buf[192], want[192];

	gt_flight_describe(&info, buf, sizeof(buf));
	ok(!strcmp(buf, "trigger sched-latency: tid 812 (gt_victim, pid 800) runnable 152.311 ms before it ran"),
	   "the summary names trigger, task and value (%s)", buf);
	info.trigger = GOTRACE_TRIGGER_OFFCPU;
	gt_flight_describe(&info, buf, sizeof(buf));
	ok(!strcmp(buf, "trigger off-cpu: tid 812 (gt_victim, pid 800) blocked 152.311 ms before it was woken") &&
	   !strcmp(gt_flight_reason(&info), "offcpu"),
	   "off-cpu: the summary says blocked (%s)", buf);
	/* The syscall trigger names the number in this machine's table. */
	info.trigger = GOTRACE_TRIGGER_SYSCALL;
	info.value_ns = (uint64_t)gt_syscall_nr("getppid");
	gt_flight_describe(&info, buf, sizeof(buf));
	snprintf(want, sizeof(want),
		 "trigger syscall: tid 812 (gt_victim, pid 800) entered getppid (syscall %d)",
		 gt_syscall_nr("getppid"));
	ok(!strcmp(buf, want), "syscall: the summary names the syscall (%s)",
	   buf);
	info.value_ns = GOTRACE_SYSCALL_MAX + 5;
	gt_flight_describe(&info, buf, sizeof(buf));
	snprintf(want, sizeof(want),
		 "trigger syscall: tid 812 (gt_victim, pid 800) entered syscall %d",
		 GOTRACE_SYSCALL_MAX + 5);
	ok(!strcmp(buf, want), "syscall: a number with no name stays a number (%s)",
	   buf);
	memcpy(info.comm, "0123456789abcdef", 16);	/* no NUL */
	gt_flight_describe(&info, buf, sizeof(buf));
	ok(strstr(buf, "(0123456789abcdef, pid") != NULL,
	   "a comm of 16 characters without its NUL stops at 16 (%s)", buf);
}

static void test_files(void)
{
	char dir[] = "/tmp/gt-flight-XXXXXX", first[256], sub[300];
	struct gotrace_snapshot info = { .reason = GOTRACE_SNAP_USER,
					 .seq = 1 };
	struct timespec wall = { .tv_sec = 1000, .tv_nsec = 0 };
	struct gt_flight f = { .fd = -1 };
	char *name = NULL;
	FILE *fp;
	long size;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/snaps", dir);
	ok(!gt_flight_open(&f, sub), "the directory is created");
	ok(!gt_flight_write(&f, "go 1.23 trace\0\0\0", 16) &&
	   !gt_flight_write(&f, "abcd", 4), "a snapshot is written");
	ok(count_files(sub, first, sizeof(first)) == 1 &&
	   strstr(first, ".tmp") != NULL,
	   "while written, it has a temporary name (%s)", first);
	ok(!gt_flight_commit(&f, &info, &wall, &name) && name,
	   "once complete, it is renamed");
	ok(count_files(sub, first, sizeof(first)) == 1 &&
	   !strcmp(first, "flight-19700101T001640.000Z-0001-user.trace"),
	   "to its final name, nothing else left (%s)", first);
	fp = name ? fopen(name, "rb") : NULL;
	size = -1;
	if (fp) {
		fseek(fp, 0, SEEK_END);
		size = ftell(fp);
		fclose(fp);
	}
	ok(size == 20 && f.files == 1 && f.bytes == 20 && f.last_seq == 1,
	   "with every byte (%ld), counted", size);
	if (name)
		unlink(name);
	free(name);
	/* A snapshot cut short keeps its temporary name. */
	ok(!gt_flight_write(&f, "go 1.23", 7), "a second snapshot starts");
	gt_flight_close(&f);
	ok(count_files(sub, first, sizeof(first)) == 1 &&
	   strstr(first, ".tmp") != NULL,
	   "cut short, it keeps its temporary name (%s)", first);
	snprintf(sub, sizeof(sub), "%s/snaps/%s", dir, first);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/snaps", dir);
	rmdir(sub);
	rmdir(dir);
}

static void test_parse(void)
{
	struct gotrace_trigger t = { 0 };
	uint64_t v = 0;

	ok(gt_flight_parse_size("256M", &v) && v == 256ULL << 20, "256M");
	ok(gt_flight_parse_size("1G", &v) && v == 1ULL << 30, "1G");
	ok(gt_flight_parse_size("512KiB", &v) && v == 512ULL << 10, "512KiB");
	ok(gt_flight_parse_size("4096", &v) && v == 4096, "bytes");
	ok(!gt_flight_parse_size("0", &v) && !gt_flight_parse_size("M", &v) &&
	   !gt_flight_parse_size("12X", &v) && !gt_flight_parse_size("-1M", &v) &&
	   !gt_flight_parse_size("99999999999999999999G", &v),
	   "0, no number, a unit it does not know, negative, too large: refused");
	ok(gt_flight_parse_trigger("sched-latency:50ms", &t) &&
	   t.type == GOTRACE_TRIGGER_SCHED_LATENCY &&
	   t.threshold_ns == 50000000 && t.size == sizeof(t),
	   "sched-latency:50ms");
	ok(gt_flight_parse_trigger("latency:1.5", &t) &&
	   t.threshold_ns == 1500000000, "latency:1.5 (seconds)");
	ok(gt_flight_parse_trigger("off-cpu:2s", &t) &&
	   t.type == GOTRACE_TRIGGER_OFFCPU && t.threshold_ns == 2000000000ULL,
	   "off-cpu:2s");
	ok(gt_flight_parse_trigger("syscall:kill", &t) &&
	   t.type == GOTRACE_TRIGGER_SYSCALL && t.syscall == 62 &&
	   !t.threshold_ns, "syscall:kill (62)");
	ok(!gt_flight_parse_trigger("latency:5us", &t) &&
	   !gt_flight_parse_trigger("syscall:nosuch", &t) &&
	   !gt_flight_parse_trigger("fault:10ms", &t) &&
	   !gt_flight_parse_trigger("latency:", &t),
	   "a unit it does not know, a trigger it does not know, no time: refused");
}

/*
 * --keep N: the newest N snapshots of the recording stay, the oldest
 * go; a file the recording did not write is left alone.
 */
static void test_keep(void)
{
	char dir[] = "/tmp/gt-flight-XXXXXX", path[300], first[256];
	struct gotrace_snapshot info = { .reason = GOTRACE_SNAP_TRIGGER };
	struct timespec wall = { .tv_sec = 2000, .tv_nsec = 0 };
	struct gt_flight f = { .fd = -1 };
	char *names[4] = { NULL };
	bool written = true;
	FILE *fp;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/other.trace", dir);
	fp = fopen(path, "w");
	if (fp)
		fclose(fp);
	if (gt_flight_open(&f, dir)) {
		ok(0, "gt_flight_open");
		return;
	}
	f.kept.keep = 2;
	for (unsigned int i = 0; i < 4; i++) {
		info.seq = i + 1;
		wall.tv_sec = 2000 + i;
		written &= !gt_flight_write(&f, "go 1.23 trace\0\0\0", 16) &&
			   !gt_flight_commit(&f, &info, &wall, &names[i]) &&
			   names[i];
	}
	ok(written && f.files == 4 && f.kept.removed == 2,
	   "four snapshots with --keep 2: two removed (%llu)",
	   (unsigned long long)f.kept.removed);
	ok(names[0] && names[1] && access(names[0], F_OK) &&
	   access(names[1], F_OK) && names[2] && names[3] &&
	   !access(names[2], F_OK) && !access(names[3], F_OK),
	   "the two oldest are gone, the two newest stay");
	ok(!access(path, F_OK) && count_files(dir, first, sizeof(first)) == 3,
	   "a file the recording did not write stays");
	gt_flight_close(&f);
	ok(f.kept.files == NULL && f.kept.nr == 0, "closing forgets the files");
	for (unsigned int i = 0; i < 4; i++) {
		if (names[i])
			unlink(names[i]);
		free(names[i]);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_names();
	test_describe();
	test_files();
	test_keep();
	test_parse();
	return tap_done();
}
