/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usym.h - names for user-space frames: a file offset in a binary to its
 * function, source file and line (Documentation/user-stacks.rst)
 *
 * The recorders write a user frame they cannot name as
 * "<basename>+0x<offset>" with the binary's absolute path as its file;
 * gt_usym_parse() recognises that form and gt_usym_resolve() names the
 * offset with elfutils (libdwfl: the symbol table, DWARF line info, and
 * separate debug files found by build id).  Each binary is opened once
 * per resolver, whether it could be read or not.
 */
#ifndef GOTRACE_USYM_H
#define GOTRACE_USYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_usym;

/* What an offset names; the strings belong to the resolver. */
struct gt_usym_loc {
	const char *func;
	const char *file;	/* the source file, else the binary's path */
	uint64_t line;		/* 0 when the binary has no line info */
};

/* A resolver with an empty cache; NULL out of memory. */
struct gt_usym *gt_usym_open(void);
void gt_usym_close(struct gt_usym *u);

/*
 * Name the code at file offset @off of the binary @path: a return
 * address (the call before it is what is looked up), or with @exact the
 * instruction at @off itself, which may be its function's first.  1:
 * @loc is set; 0: nothing to name (not a readable ELF file, the offset
 * in no loaded segment, no symbol there); -1: out of memory.
 */
int gt_usym_resolve(struct gt_usym *u, const char *path, uint64_t off,
		    bool exact, struct gt_usym_loc *loc);

/*
 * Whether a frame of function @func and file @file (@flen and @filelen
 * bytes, not NUL-terminated) is an unsymbolised user frame: @file an
 * absolute path, @func "<basename of file>+0x<lowercase hex>".  Sets
 * *@off to the offset.
 */
bool gt_usym_parse(const char *func, size_t flen, const char *file,
		   size_t filelen, uint64_t *off);

/* Binaries opened, and of them those that could not be read as ELF. */
void gt_usym_counts(const struct gt_usym *u, size_t *opened, size_t *failed);

#endif /* GOTRACE_USYM_H */
