/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eh_table.h - one ELF file's unwind table (linux/gotrace_unwind.h),
 * built from its .eh_frame and .debug_frame with elfutils' libdw
 *
 * The walker of user stacks (a BPF program, the module) cannot read
 * DWARF call frame information where it runs: it binary-searches
 * compact rows by PC instead, one row per range of instructions whose
 * rules agree.  This builds those rows in user space, for x86-64 and
 * arm64 files alike, whatever the machine it runs on: what libdw says
 * at each PC of each FDE, translated to the few rules a walker follows,
 * and every rule it cannot follow (an expression) made a row that stops
 * the walk (GOTRACE_UNW_NONE) rather than one that guesses.
 *
 * .eh_frame is preferred; .debug_frame (a binary built without
 * asynchronous unwind tables, or a separate debug file) only fills the
 * ranges .eh_frame leaves without an FDE.  Go binaries are walked by
 * their frame pointers, which Go always keeps: their table is built
 * only when asked.
 */
#ifndef GOTRACE_UNWIND_EH_TABLE_H
#define GOTRACE_UNWIND_EH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/gotrace_unwind.h>

/* gt_eh_table_build()'s @flags: a Go binary's table too. */
#define GT_EH_BUILD_GO	(1U << 0)

/**
 * struct gt_eh_stats - what a build found
 * @fdes:	FDEs whose rows are in the table (both sections)
 * @fdes_debug:	of them, from .debug_frame
 * @fdes_skipped: FDEs left out: empty, outside the file's code (those of
 *		code the linker discarded), or an address encoding not read
 * @overlaps:	FDEs that began inside an earlier one's range: cut to
 *		begin after it (libdw still gives the rules of each PC)
 * @errors:	PCs of an FDE libdw found no rules for: NONE to the FDE's end
 * @rows:	rows of the table, after merging
 * @rows_raw:	rows libdw gave, and the gaps between FDEs, before merging
 * @cfa_expr:	rows (of @rows_raw, as the counters below) whose CFA is
 *		neither sp nor fp plus an offset (another register, an
 *		expression) nor the PLT's expression: NONE
 * @ra_expr:	rows whose return address is found otherwise than at an
 *		offset from the CFA (or, on arm64, in the link register): NONE
 * @fp_expr:	rows whose caller's fp is lost (undefined, an expression):
 *		GOTRACE_UNW_FP_LOST
 * @plt:	rows of x86-64 PLT entries (GOTRACE_UNW_CFA_PLT)
 * @signal:	rows of signal frames (the 'S' augmentation)
 * @undefined_ra: rows whose return address is undefined (GOTRACE_UNW_END)
 * @entry_end:	the ELF entry point, if no FDE covers it and it got an END
 *		row (the dynamic loader's _start, written without CFI) for
 *		up to GT_EH_ENTRY_SPAN bytes; 0: none
 * @build_ns:	the build's time, CLOCK_MONOTONIC
 */
/* The bytes from an uncovered entry point taken as the outermost frame. */
#define GT_EH_ENTRY_SPAN	128

struct gt_eh_stats {
	uint32_t fdes;
	uint32_t fdes_debug;
	uint32_t fdes_skipped;
	uint32_t overlaps;
	uint32_t errors;
	uint32_t rows;
	uint32_t rows_raw;
	uint32_t cfa_expr;
	uint32_t ra_expr;
	uint32_t fp_expr;
	uint32_t plt;
	uint32_t signal;
	uint32_t undefined_ra;
	uint64_t entry_end;
	uint64_t build_ns;
};

/**
 * struct gt_eh_table - one ELF file's unwind table
 * @machine:	EM_X86_64 or EM_AARCH64, the file's
 * @go:		a Go binary (a .gopclntab or .go.buildinfo section): walked
 *		by its frame pointers, no rows unless GT_EH_BUILD_GO
 * @base:	the ELF address the rows' pc are relative to (the lowest
 *		FDE's start)
 * @end:	the address after the last range an FDE describes, where
 *		the last row (NONE) begins
 * @rows:	sorted by pc, no two in a row alike but for their pc, but
 *		the last: a NONE row at @end, whatever the one before it
 * @nr:		rows in @rows
 * @build_id:	the NT_GNU_BUILD_ID note's bytes
 * @build_id_len: their number, 0 without the note
 * @st:		what the build found
 */
struct gt_eh_table {
	uint16_t machine;
	bool go;
	uint64_t base;
	uint64_t end;
	struct gotrace_unwind_row *rows;
	uint32_t nr;
	uint8_t build_id[64];
	uint32_t build_id_len;
	struct gt_eh_stats st;
};

/*
 * Build the table of the ELF file open at @fd (@path names it in
 * messages; the file offset of @fd is left alone).  A file with neither
 * .eh_frame nor .debug_frame gives no rows, and a Go binary none unless
 * @flags has GT_EH_BUILD_GO; both return 0.  Returns 0, else -ENOMEM,
 * or -1 with one line for the user in @err (@errlen bytes): not an ELF
 * file, another machine than x86-64 or arm64, rules libdw cannot read,
 * a span of code of 4 GiB or more.  @t is whole after a success, empty
 * (and safe to free) after a failure.
 */
int gt_eh_table_build(int fd, const char *path, unsigned int flags,
		      struct gt_eh_table *t, char *err, size_t errlen);
/*
 * The same of the ELF image of @size bytes at @image, which has no file
 * (the vDSO's: gt_eh_vdso()), @name naming it in messages.  The image
 * is only read (libelf reads a copy), and not kept.
 */
int gt_eh_table_build_mem(const void *image, size_t size, const char *name,
			  unsigned int flags, struct gt_eh_table *t, char *err,
			  size_t errlen);
void gt_eh_table_free(struct gt_eh_table *t);

/*
 * This process's vDSO: the ELF image the kernel maps into every native
 * process ("[vdso]" in /proc/PID/maps), with no file to read it from,
 * the same image for all of them.  Where it is (getauxval()'s
 * AT_SYSINFO_EHDR) and its size, the whole mapping's; NULL without one
 * (a kernel booted with vdso=0), or in a 32-bit process, whose vDSO is
 * not the one the walkers meet in 64-bit tasks.  Reads /proc/self/maps.
 */
const void *gt_eh_vdso(size_t *size);

/*
 * The row that applies to @pc (an ELF address of the file), by binary
 * search; NULL before the first row.  At or past @end, the last row: a
 * NONE row.
 */
const struct gotrace_unwind_row *gt_eh_table_find(const struct gt_eh_table *t,
						  uint64_t pc);

/* "sp", "fp", "plt", "end", "none", "signal": a row's kind, for people. */
const char *gt_eh_kind_name(unsigned int cfa_reg);

#endif /* GOTRACE_UNWIND_EH_TABLE_H */
