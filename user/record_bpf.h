/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_bpf.h - 'gotrace record' with the BPF backend: capture, model,
 * trace file
 */
#ifndef GOTRACE_RECORD_BPF_H
#define GOTRACE_RECORD_BPF_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/gotrace.h>

struct gt_recsym;

struct gt_rotate_cfg;

/**
 * struct gt_bpf_rec - what record.c parsed
 * @opts:	the options, as the module would take them
 * @out_path:	the output file ("-": stdout)
 * @duration_ns: stop after this long (0: no limit)
 * @quiet:	no summary
 * @cmd:	COMMAND and its arguments, or NULL
 * @cmd_filter:	record only COMMAND and its descendants (its pid, once
 *		forked, is the pid filter)
 * @format_v2:	write "go 1.23 trace" (generations), not "go 1.11 trace"
 * @rotate:	--rotate (with @format_v2): the files, not @out_path; or NULL
 * @sym:	the naming of the user frames of the files written
 */
struct gt_bpf_rec {
	struct gotrace_options opts;
	const char *out_path;
	uint64_t duration_ns;
	bool quiet;
	char **cmd;
	bool cmd_filter;
	bool format_v2;
	const struct gt_rotate_cfg *rotate;
	struct gt_recsym *sym;
};

/* Record; returns the exit status of 'gotrace record'. */
int gt_bpf_record(struct gt_bpf_rec *a);

#endif /* GOTRACE_RECORD_BPF_H */
