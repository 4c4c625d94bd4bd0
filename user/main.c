// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - gotrace: record the machine's scheduler as a Go execution trace
 *
 * Only dispatches to the subcommands (record.c, stop.c, status.c,
 * check.c, stat.c, symbolize.c, pprof.c, merge.c, unwind_table.c),
 * prints the top-level usage and the version.
 *
 * user/ has four rooms (Documentation/source-map.rst).  This top level
 * is the command: one file per subcommand and the helpers they share
 * (util.c, options.c, output.c, rotate.c, ...).  trace/ is the library
 * that reads and checks trace files, go111_* and go123_* by format.
 * bpf/ is the BPF capture backend: its programs, their loader and the
 * feed into the module's model (bpf/model/).  unwind/ builds the unwind
 * tables of user stacks from binaries.  Includes point down only: the
 * command includes trace/, bpf/ and unwind/, bpf/ includes trace/base.h
 * and trace/u64map.h, unwind/ trace/base.h, and trace/ none of them
 * (scripts/include-graph.sh).
 */
#include <stdio.h>
#include <string.h>

#include <linux/gotrace.h>

#include "notify.h"
#include "output.h"
#include "subcommands.h"
#include "util.h"

/* The Makefile passes the version (../VERSION); a bare build has none. */
#ifndef GT_VERSION
#define GT_VERSION "unknown"
#endif

static const char *const usage_msg[] = {
	"usage: gotrace <command> [<args>]",
	"",
	"Record the whole machine's scheduler as a Go execution trace",
	"(view it with 'go tool trace FILE').",
	"",
	"commands:",
	"  record [-o FILE] [-d TIME] [-q] [-- COMMAND [ARGS...]]",
	"                  record into FILE (default trace.out, - = stdout) until",
	"                  Ctrl-C, TIME elapsed, or COMMAND exited",
	"  stop            stop the recording in progress",
	"  snapshot        a flight-mode recording (record --flight) writes",
	"                  its window to a file now",
	"  status          show what /dev/gotrace is doing",
	"  check FILE      check a trace file: structure, goroutine and P states",
	"  stat FILE       duration, tasks, top tasks and syscalls of a trace file",
	"  symbolize IN OUT",
	"                  copy a trace with its user-space frames named",
	"  pprof KIND -o OUT FILE",
	"  merge -o OUT PROGRAM.trace SYSTEM.trace",
	"                  a Go program's own trace with the kernel's view of its",
	"                  threads added",
	"  unwind-table FILE...",
	"                  the unwind tables of binaries, for user stacks without",
	"                  frame pointers: their size, build time, what stops a walk",
	"  help            show this text",
	"",
	"  --version       the version of gotrace and of the device ABI it speaks",
	"",
	"'gotrace <command> -h' shows the options of a command.",
	NULL,
};

static void usage(FILE *f)
{
	for (int i = 0; usage_msg[i]; i++) {
		fprintf(f, "%s\n", usage_msg[i]);
		/* The kinds from pprof's own table: none can be left out. */
		if (!strncmp(usage_msg[i], "  pprof ", 8))
			fprintf(f, "                  a pprof profile (%s) of a trace\n",
				gt_pprof_kinds());
	}
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "record",	cmd_record },
	{ "stop",	cmd_stop },
	{ "snapshot",	cmd_snapshot },
	{ "status",	cmd_status },
	{ "check",	cmd_check },
	{ "stat",	cmd_stat },
	{ "symbolize",	cmd_symbolize },
	{ "pprof",	cmd_pprof },
	{ "merge",	cmd_merge },
	{ "unwind-table", cmd_unwind_table },
#ifdef GT_HAVE_BPF
	/* Not in the usage: the tests' and benchmark's view of the BPF backend. */
	{ "bpf-dump",	cmd_bpf_dump },
#endif
};

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	static char prog[64];

	gt_output_hold_std();
	if (!cmd) {
		usage(stderr);
		return GT_EXIT_USAGE;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "--help")) {
		usage(stdout);
		return GT_EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		const char *f = gt_notify_feature();

		printf("%s %s (device ABI version %d%s%s)\n", GT_NAME,
		       GT_VERSION, GOTRACE_ABI_VERSION, *f ? ", " : "", f);
		return GT_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		/*
		 * getopt prefixes its messages with argv[0]: make them
		 * "gotrace: record: unrecognized option '--x'".
		 */
		snprintf(prog, sizeof(prog), "%s: %s", GT_NAME, cmd);
		argv[1] = prog;
		return commands[i].fn(argc - 1, argv + 1);
	}

	gt_err("'%s' is not a gotrace command", cmd);
	usage(stderr);
	return GT_EXIT_USAGE;
}
