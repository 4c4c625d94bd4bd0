// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - gotrace status: what /dev/gotrace is doing
 *
 * Uses a control handle (O_WRONLY), so it works while another process
 * records.  --json prints the same as one JSON object, for scripts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "subcommands.h"
#ifdef GT_HAVE_BPF
#include "bpf/loader.h"
#endif
#include "device.h"
#include "trace/json.h"
#include "util.h"

static void status_usage(FILE *f)
{
	fprintf(f, "usage: gotrace status [--json]\n\n"
		"Show the state of /dev/gotrace and of the recording in progress.\n"
		"\n"
		"      --json             one JSON object: the same fields, per CPU in \"cpus\"\n");
}

/* The trace format of a started session (0: a module too old to say). */
static const char *status_format_name(uint32_t format)
{
	const char *name = gt_format_name(format);

	return name ? name : "unknown";
}

static void status_print(const struct gotrace_status *st)
{
	char b1[32], b2[32], line[512];
	uint64_t lost = st->lost_events;

	printf("state:          %s%s\n", gt_state_name(st->state),
	       st->state == GOTRACE_STATE_READY ?
	       " (starts at the first read)" : "");
	printf("backend:        kmod\n");
	if (st->state != GOTRACE_STATE_IDLE) {
		printf("stop reason:    %s\n",
		       gt_stop_reason_name(st->stop_reason));
		printf("reader pid:     %u\n", st->reader_pid);
		if (st->start_ns) {
			uint64_t now = gt_now_ns();

			printf("running for:    %.1f s\n",
			       now > st->start_ns ?
			       (double)(now - st->start_ns) / 1e9 : 0.0);
		}
	}
	printf("cpus (Ps):      %u\n", st->nr_cpus);
	if (st->state == GOTRACE_STATE_IDLE)
		return;
	if (st->format)
		printf("format:         %s, %" PRIu64 " generations\n",
		       status_format_name(st->format),
		       (uint64_t)st->generations);
	if (st->flight_generations)
		printf("flight window:  %" PRIu64 " generations, %s\n",
		       (uint64_t)st->flight_generations,
		       gt_fmt_bytes(st->flight_bytes, b1, sizeof(b1)));
	printf("events:         %" PRIu64 "\n", (uint64_t)st->events);
	printf("bytes produced: %" PRIu64 " (%s)\n",
	       (uint64_t)st->bytes_produced,
	       gt_fmt_bytes(st->bytes_produced, b1, sizeof(b1)));
	printf("bytes read:     %" PRIu64 " (%s)\n",
	       (uint64_t)st->bytes_read,
	       gt_fmt_bytes(st->bytes_read, b2, sizeof(b2)));
	printf("chunks:         %" PRIu64 " of %" PRIu64 " in use\n",
	       (uint64_t)st->chunks_in_use, (uint64_t)st->chunks_total);
	printf("lost events:    %" PRIu64 "%s\n", lost,
	       lost ? "  (the trace ends where the first was lost)" : "");
	printf("overflows:      chunks %" PRIu64 ", tasks %" PRIu64
	       ", stacks %" PRIu64 ", units %" PRIu64 "\n",
	       (uint64_t)st->chunk_overflows, (uint64_t)st->task_overflows,
	       (uint64_t)st->stack_overflows, (uint64_t)st->unit_overflows);
	if (st->ustack_walks) {
		gt_dev_ustack_line(st, line, sizeof(line));
		printf("user stacks:    %s\n", line);
	}
	if (st->cpu_samples || st->cpu_samples_idle || st->cpu_samples_lost)
		printf("cpu samples:    %" PRIu64 " written, %" PRIu64
		       " idle, %" PRIu64 " filtered out, %" PRIu64 " lost\n",
		       (uint64_t)st->cpu_samples, (uint64_t)st->cpu_samples_idle,
		       (uint64_t)st->cpu_samples_hidden,
		       (uint64_t)st->cpu_samples_lost);
	if (st->irq_unmatched || st->irq_too_deep || st->irq_closed ||
	    st->work_unnamed)
		printf("interrupts:     %" PRIu64 " exits unmatched, %" PRIu64
		       " too deep, %" PRIu64 " closed without exit, %" PRIu64
		       " work items unnamed\n",
		       (uint64_t)st->irq_unmatched, (uint64_t)st->irq_too_deep,
		       (uint64_t)st->irq_closed, (uint64_t)st->work_unnamed);
}

/*
 * The status of @cpu; false when there is none.  A module without
 * GOTRACE_IOC_GET_CPU_STATUS (ENOTTY) just has no per-CPU status.
 */
static bool status_cpu(int fd, unsigned int cpu, struct gotrace_cpu_status *cs)
{
	int ret = gt_dev_cpu_status(fd, cpu, cs);

	if (ret && ret != -ENOTTY && ret != -EINVAL)
		gt_warn("cpu %u: %s", cpu, strerror(-ret));
	return !ret;
}

/*
 * One line per CPU: whether it is online and its P started, what it
 * wrote and lost.
 */
static void status_print_cpus(int fd, unsigned int nr_cpus)
{
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		struct gotrace_cpu_status cs;

		if (!status_cpu(fd, cpu, &cs))
			return;
		if (!cpu)
			printf("\n%5s %-8s %-8s %14s %12s %12s %10s %10s\n",
			       "CPU", "online", "P", "events", "lost",
			       "overflows", "samples", "smp.lost");
		printf("%5u %-8s %-8s %14" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %10" PRIu64 " %10" PRIu64 "\n", cpu,
		       cs.online ? "yes" : "no",
		       cs.running ? "started" : "stopped",
		       (uint64_t)cs.events, (uint64_t)cs.lost_events,
		       (uint64_t)cs.chunk_overflows, (uint64_t)cs.cpu_samples,
		       (uint64_t)cs.cpu_samples_lost);
	}
}

/*
 * The status as one JSON object: every field linux/gotrace_fields.h lists
 * (running_ns instead of start_ns), named as the ABI names them, then
 * "cpus", the per-CPU status while a session exists.
 */
#define ST_NUM(name)	gt_json_u64(&j, #name, st->name)
#define ST_START(name)	gt_json_u64(&j, "running_ns", st->name &&	\
				    now > st->name ? now - st->name : 0)
#define ST_STATE(name)	gt_json_str(&j, #name, gt_state_name(st->name))
#define ST_STOP(name)	gt_json_str(&j, #name, gt_stop_reason_name(st->name))
#define ST_FORMAT(name)	gt_json_str(&j, #name, st->name ?		\
				    status_format_name(st->name) : "")
#define ST_PAD(name)
#define ST_FIELD(show, bits, name)	ST_##show(name);
#define CPU_NUM(name)	gt_json_u64(&j, #name, cs.name)
#define CPU_BOOL(name)	gt_json_bool(&j, #name, cs.name)
#define CPU_FIELD(show, bits, name)	CPU_##show(name);

static void status_print_json(int fd, const struct gotrace_status *st)
{
	uint64_t now = gt_now_ns();
	struct gt_json j;

	gt_json_begin(&j, stdout);
	gt_json_u64(&j, "abi_version", st->version);
	gt_json_str(&j, "backend", "kmod");
#define GOTRACE_STATUS_FIELD ST_FIELD
#include <linux/gotrace_fields.h>
#undef GOTRACE_STATUS_FIELD
	gt_json_open(&j, "cpus", '[', false);
	for (unsigned int cpu = 0;
	     st->state != GOTRACE_STATE_IDLE && cpu < st->nr_cpus; cpu++) {
		struct gotrace_cpu_status cs;

		if (!status_cpu(fd, cpu, &cs))
			break;
		gt_json_open(&j, NULL, '{', true);
		gt_json_u64(&j, "cpu", cpu);
#define GOTRACE_CPU_STATUS_FIELD CPU_FIELD
#include <linux/gotrace_fields.h>
#undef GOTRACE_CPU_STATUS_FIELD
		gt_json_close(&j);
	}
	gt_json_end(&j);
}

/*
 * A BPF session keeps its counters in its recorder: all that can be told
 * from here is that it records, and by which process: each session's
 * (reader_pid, the first one's, stays for the scripts that read it).
 * The number of sessions found, or -1 when they cannot be listed (not
 * root).
 */
static int status_bpf(bool json)
{
#ifdef GT_HAVE_BPF
	pid_t pids[GT_BPF_MAX_SESSIONS] = { 0 };
	int n = gt_bpf_sessions(pids, GT_BPF_MAX_SESSIONS);
	int shown = n < GT_BPF_MAX_SESSIONS ? n : GT_BPF_MAX_SESSIONS;

	if (n <= 0)
		return n;
	if (json) {
		struct gt_json j;

		gt_json_begin(&j, stdout);
		gt_json_str(&j, "state", "recording");
		gt_json_str(&j, "backend", "bpf");
		gt_json_i64(&j, "sessions", n);
		gt_json_i64(&j, "reader_pid", pids[0]);
		gt_json_open(&j, "reader_pids", '[', true);
		for (int i = 0; i < shown; i++)
			gt_json_i64(&j, NULL, pids[i]);
		gt_json_end(&j);
		return n;
	}
	printf("state:          recording\nbackend:        bpf (%d session%s; the counters are in the recorder's summary)\n",
	       n, n > 1 ? "s" : "");
	/* One line each: a script that greps "reader pid:" finds them all. */
	for (int i = 0; i < shown; i++)
		printf("reader pid:     %d\n", (int)pids[i]);
	return n;
#else
	(void)json;
	return 0;
#endif
}

/*
 * No module loaded and no BPF session: nothing records, which is a
 * state like any other (exit 0), for scripts as for people.
 */
static void status_print_idle(bool json)
{
	struct gt_json j;

	if (json) {
		gt_json_begin(&j, stdout);
		gt_json_str(&j, "state", "idle");
		gt_json_str(&j, "backend", "none");
		gt_json_i64(&j, "sessions", 0);
		gt_json_end(&j);
	} else {
		printf("state:          idle\nbackend:        none (gotrace.ko is not loaded, no BPF session)\n");
	}
}

int cmd_status(int argc, char **argv)
{
	const char *device = NULL;
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "device",	required_argument,	NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	struct gotrace_status st;
	bool json = false;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			status_usage(stdout);
			return GT_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'D':
			device = optarg;
			break;
		default:
			gt_usage_hint("status");
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		gt_err("status takes no argument ('%s')", argv[optind]);
		return GT_EXIT_USAGE;
	}

	/* No module: a BPF session may be recording instead, or none. */
	if (!device && access(GOTRACE_DEVICE_PATH, F_OK)) {
		ret = status_bpf(json);
		if (ret < 0)
			return GT_EXIT_FAIL;
		if (!ret)
			status_print_idle(json);
		return GT_EXIT_OK;
	}
	fd = gt_dev_open(device, O_WRONLY);
	if (fd < 0)
		return GT_EXIT_FAIL;
	ret = gt_dev_status(fd, &st);
	if (ret) {
		close(fd);
		gt_err("cannot read the status: %s", gt_dev_strerror(-ret));
		return GT_EXIT_FAIL;
	}
	if (st.version != GOTRACE_ABI_VERSION)
		gt_warn("module ABI version %u, this gotrace knows %u",
			st.version, GOTRACE_ABI_VERSION);
	if (json) {
		status_print_json(fd, &st);
	} else {
		status_print(&st);
		if (st.state != GOTRACE_STATE_IDLE)
			status_print_cpus(fd, st.nr_cpus);
	}
	close(fd);
	return GT_EXIT_OK;
}
