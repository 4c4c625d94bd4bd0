/* SPDX-License-Identifier: GPL-2.0 */
/*
 * subcommands.h - the subcommands; each lives in its own file with its own usage
 *
 * A command gets argv with argv[0] = its name and returns the exit code.
 */
#ifndef GOTRACE_SUBCOMMANDS_H
#define GOTRACE_SUBCOMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_pprof(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_bpf_dump(int argc, char **argv);
int cmd_unwind_table(int argc, char **argv);

/* The kinds of gotrace pprof, "sched, sync, ...", from its one table. */
const char *gt_pprof_kinds(void);

#endif /* GOTRACE_SUBCOMMANDS_H */
