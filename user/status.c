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
	return format == GOTRACE_FORMAT_GO123 ? "go1.23" :
	       format == GOTRACE_FORMAT_GO111 ? "go1.11" : "unknown";
}

static void status_print(const struct gotrace_status *st)
{
	char b1[32], b2[32];
	uint64_t lost = st->lost_events;

	printf("state:          %s\n", gt_state_name(st->state));
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
	if (st->ustack_walks)
		printf("user stacks:    %" PRIu64 " walked, truncated: bad frame"
		       " pointer %" PRIu64 ", fault %" PRIu64 ", depth limit %"
		       PRIu64 "; unnamed: queue full %" PRIu64 ", maps full %"
		       PRIu64 ", mm busy %" PRIu64 "\n",
		       (uint64_t)st->ustack_walks,
		       (uint64_t)st->ustack_bad_fp, (uint64_t)st->ustack_faults,
		       (uint64_t)st->ustack_depth,
		       (uint64_t)st->ustack_queue_full,
		       (uint64_t)st->ustack_map_full,
		       (uint64_t)st->ustack_mm_busy);
	if (st->cpu_samples || st->cpu_samples_idle || st->cpu_samples_lost)
		printf("cpu samples:    %" PRIu64 " written, %" PRIu64
		       " idle, %" PRIu64 " filtered out, %" PRIu64 " lost\n",
		       (uint64_t)st->cpu_samples, (uint64_t)st->cpu_samples_idle,
		       (uint64_t)st->cpu_samples_hidden,
		       (uint64_t)st->cpu_samples_lost);
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

/* The first word of a state's name: "ready", not "ready (starts ...)". */
static void status_json_word(const char *name)
{
	printf("\"%.*s\"", (int)strcspn(name, " "), name);
}

/*
 * The status as one JSON object: every field of struct gotrace_status
 * (running_ns instead of start_ns) and "cpus", the per-CPU status while
 * a session exists.  Names are the ABI's, numbers are plain integers.
 */
static void status_print_json(int fd, const struct gotrace_status *st)
{
	uint64_t now = gt_now_ns();

	printf("{\n  \"abi_version\": %u,\n  \"state\": ", st->version);
	status_json_word(gt_state_name(st->state));
	printf(",\n  \"backend\": \"kmod\"");
	printf(",\n  \"stop_reason\": ");
	status_json_word(gt_stop_reason_name(st->stop_reason));
	printf(",\n  \"reader_pid\": %u,\n", st->reader_pid);
	printf("  \"running_ns\": %" PRIu64 ",\n",
	       st->start_ns && now > st->start_ns ?
	       now - (uint64_t)st->start_ns : (uint64_t)0);
	printf("  \"nr_cpus\": %u,\n", st->nr_cpus);
	printf("  \"events\": %" PRIu64 ",\n", (uint64_t)st->events);
	printf("  \"bytes_produced\": %" PRIu64 ",\n",
	       (uint64_t)st->bytes_produced);
	printf("  \"bytes_read\": %" PRIu64 ",\n", (uint64_t)st->bytes_read);
	printf("  \"chunks_total\": %" PRIu64 ",\n",
	       (uint64_t)st->chunks_total);
	printf("  \"chunks_in_use\": %" PRIu64 ",\n",
	       (uint64_t)st->chunks_in_use);
	printf("  \"lost_events\": %" PRIu64 ",\n", (uint64_t)st->lost_events);
	printf("  \"chunk_overflows\": %" PRIu64 ",\n",
	       (uint64_t)st->chunk_overflows);
	printf("  \"task_overflows\": %" PRIu64 ",\n",
	       (uint64_t)st->task_overflows);
	printf("  \"stack_overflows\": %" PRIu64 ",\n",
	       (uint64_t)st->stack_overflows);
	printf("  \"format\": \"%s\",\n", st->format ?
	       status_format_name(st->format) : "");
	printf("  \"generations\": %" PRIu64 ",\n",
	       (uint64_t)st->generations);
	printf("  \"flight_bytes\": %" PRIu64 ",\n",
	       (uint64_t)st->flight_bytes);
	printf("  \"flight_generations\": %" PRIu64 ",\n",
	       (uint64_t)st->flight_generations);
	printf("  \"unit_overflows\": %" PRIu64 ",\n",
	       (uint64_t)st->unit_overflows);
	printf("  \"ustack_walks\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_walks);
	printf("  \"ustack_bad_fp\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_bad_fp);
	printf("  \"ustack_faults\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_faults);
	printf("  \"ustack_depth\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_depth);
	printf("  \"ustack_queue_full\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_queue_full);
	printf("  \"ustack_map_full\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_map_full);
	printf("  \"ustack_mm_busy\": %" PRIu64 ",\n",
	       (uint64_t)st->ustack_mm_busy);
	printf("  \"cpu_samples\": %" PRIu64 ",\n", (uint64_t)st->cpu_samples);
	printf("  \"cpu_samples_idle\": %" PRIu64 ",\n",
	       (uint64_t)st->cpu_samples_idle);
	printf("  \"cpu_samples_hidden\": %" PRIu64 ",\n",
	       (uint64_t)st->cpu_samples_hidden);
	printf("  \"cpu_samples_lost\": %" PRIu64 ",\n",
	       (uint64_t)st->cpu_samples_lost);
	printf("  \"cpus\": [");
	for (unsigned int cpu = 0;
	     st->state != GOTRACE_STATE_IDLE && cpu < st->nr_cpus; cpu++) {
		struct gotrace_cpu_status cs;

		if (!status_cpu(fd, cpu, &cs))
			break;
		printf("%s\n    { \"cpu\": %u, \"online\": %s, \"running\": %s, \"events\": %"
		       PRIu64 ", \"lost_events\": %" PRIu64
		       ", \"chunk_overflows\": %" PRIu64
		       ", \"cpu_samples\": %" PRIu64
		       ", \"cpu_samples_idle\": %" PRIu64
		       ", \"cpu_samples_hidden\": %" PRIu64
		       ", \"cpu_samples_lost\": %" PRIu64 " }",
		       cpu ? "," : "", cpu, cs.online ? "true" : "false",
		       cs.running ? "true" : "false", (uint64_t)cs.events,
		       (uint64_t)cs.lost_events, (uint64_t)cs.chunk_overflows,
		       (uint64_t)cs.cpu_samples, (uint64_t)cs.cpu_samples_idle,
		       (uint64_t)cs.cpu_samples_hidden,
		       (uint64_t)cs.cpu_samples_lost);
	}
	printf("\n  ]\n}\n");
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
		printf("{\n  \"state\": \"recording\",\n  \"backend\": \"bpf\",\n  \"sessions\": %d,\n  \"reader_pid\": %d,\n  \"reader_pids\": [",
		       n, (int)pids[0]);
		for (int i = 0; i < shown; i++)
			printf("%s%d", i ? ", " : "", (int)pids[i]);
		printf("]\n}\n");
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
	if (json)
		printf("{\n  \"state\": \"idle\",\n  \"backend\": \"none\",\n  \"sessions\": 0\n}\n");
	else
		printf("state:          idle\nbackend:        none (gotrace.ko is not loaded, no BPF session)\n");
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
