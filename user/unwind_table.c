// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_table.c - gotrace unwind-table: the unwind tables of files, as
 * the recorder would build them (unwind/eh_table.c)
 *
 * For a person deciding whether user stacks through a binary can be
 * walked without frame pointers, and at what cost: per file, its rows
 * and their bytes, how long the build took, and what made rows that
 * stop a walk (expressions libdw gives and a walker cannot follow);
 * every row with --rows.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "subcommands.h"
#include "unwind/eh_table.h"
#include "util.h"

static void unwind_table_usage(FILE *f)
{
	fprintf(f, "usage: gotrace unwind-table [--rows] [--go] [--vdso] FILE...\n\n"
		"Build the unwind table of each ELF FILE (x86-64 or arm64) from its\n"
		".eh_frame and .debug_frame, as the BPF recorder does for user stacks\n"
		"without frame pointers, and print its size, build time and counts:\n"
		"the rows a walk stops at (a rule given by an expression), the PLT,\n"
		"signal and outermost frames.\n\n"
		"  -r, --rows    every row too: address, kind, CFA offset, where the\n"
		"                return address and the frame pointer are\n"
		"      --go      build a Go binary's table too (walked by its frame\n"
		"                pointers otherwise)\n"
		"      --vdso    the table of the kernel's vDSO too (the recorder's,\n"
		"                for every 64-bit process's [vdso]), from this\n"
		"                command's own; no FILE needed\n");
}

static void print_row(const struct gt_eh_table *t,
		      const struct gotrace_unwind_row *r)
{
	uint64_t at = t->base + r->pc;

	switch (r->cfa_reg) {
	case GOTRACE_UNW_CFA_SP:
	case GOTRACE_UNW_CFA_FP:
	case GOTRACE_UNW_CFA_PLT:
		printf("  %#" PRIx64 " cfa=%s%+" PRId32, at,
		       gt_eh_kind_name(r->cfa_reg), r->cfa_off);
		if (r->cfa_reg == GOTRACE_UNW_CFA_PLT)
			printf("(+8 from byte %u)", r->plt_at);
		if (r->ra_off)
			printf(" ra=cfa%+d", r->ra_off);
		else
			printf(" ra=lr");
		if (r->flags & GOTRACE_UNW_FP_LOST)
			printf(" fp=lost\n");
		else if (r->fp_off)
			printf(" fp=cfa%+d\n", r->fp_off);
		else
			printf(" fp=same\n");
		break;
	default:
		printf("  %#" PRIx64 " %s\n", at, gt_eh_kind_name(r->cfa_reg));
	}
}

/* The table of FILE @path, or (@path NULL) of this process's vDSO. */
static int one_file(const char *path, unsigned int flags, bool rows)
{
	struct gt_eh_table t;
	struct gt_eh_stats *s = &t.st;
	const void *vdso;
	size_t size;
	char err[512];
	int fd, ret;

	if (!path) {
		path = "[vdso]";
		vdso = gt_eh_vdso(&size);
		if (!vdso) {
			gt_err("unwind-table: this process has no 64-bit vDSO");
			return -1;
		}
		ret = gt_eh_table_build_mem(vdso, size, path, flags, &t, err,
					    sizeof(err));
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			gt_err("unwind-table: %s: %s", path, strerror(errno));
			return -1;
		}
		ret = gt_eh_table_build(fd, path, flags, &t, err, sizeof(err));
		close(fd);
	}
	if (ret) {
		gt_err("unwind-table: %s", err);
		return -1;
	}
	if (t.go && !(flags & GT_EH_BUILD_GO)) {
		printf("%s: %s Go binary: walked by its frame pointers, no "
		       "table (--go builds one)\n", path,
		       t.machine == EM_X86_64 ? "x86-64" : "arm64");
		gt_eh_table_free(&t);
		return 0;
	}
	printf("%s: %s%s, %" PRIu32 " rows, %zu bytes, %" PRIu32 " FDEs, "
	       "built in %" PRIu64 " us\n", path,
	       t.machine == EM_X86_64 ? "x86-64" : "arm64",
	       t.go ? " Go binary" : "", t.nr,
	       (size_t)t.nr * sizeof(*t.rows), s->fdes, s->build_ns / 1000);
	printf("  base %#" PRIx64 ", end %#" PRIx64 ", build id ", t.base,
	       t.end);
	for (uint32_t i = 0; i < t.build_id_len; i++)
		printf("%02x", t.build_id[i]);
	printf("%s\n", t.build_id_len ? "" : "none");
	printf("  fdes_debug %" PRIu32 " fdes_skipped %" PRIu32 " overlaps %"
	       PRIu32 " errors %" PRIu32 " rows_raw %" PRIu32 "\n",
	       s->fdes_debug, s->fdes_skipped, s->overlaps, s->errors,
	       s->rows_raw);
	printf("  cfa_expr %" PRIu32 " ra_expr %" PRIu32 " fp_expr %" PRIu32
	       " plt %" PRIu32 " signal %" PRIu32 " undefined_ra %" PRIu32
	       "\n", s->cfa_expr, s->ra_expr, s->fp_expr, s->plt, s->signal,
	       s->undefined_ra);
	for (uint32_t i = 0; rows && i < t.nr; i++)
		print_row(&t, &t.rows[i]);
	gt_eh_table_free(&t);
	return 0;
}

int cmd_unwind_table(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,	NULL, 'h' },
		{ "rows",	no_argument,	NULL, 'r' },
		{ "go",		no_argument,	NULL, 'g' },
		{ "vdso",	no_argument,	NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int flags = 0;
	bool rows = false, vdso = false;
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "+hr", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			unwind_table_usage(stdout);
			return GT_EXIT_OK;
		case 'r':
			rows = true;
			break;
		case 'g':
			flags |= GT_EH_BUILD_GO;
			break;
		case 'v':
			vdso = true;
			break;
		default:
			gt_usage_hint("unwind-table");
			return GT_EXIT_USAGE;
		}
	}
	if (optind == argc && !vdso) {
		gt_err("unwind-table takes one FILE or more, or --vdso");
		gt_usage_hint("unwind-table");
		return GT_EXIT_USAGE;
	}
	if (vdso)
		failed |= one_file(NULL, flags, rows) != 0;
	for (int i = optind; i < argc; i++)
		failed |= one_file(argv[i], flags, rows) != 0;
	return failed ? GT_EXIT_FAIL : GT_EXIT_OK;
}
