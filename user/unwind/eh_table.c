// SPDX-License-Identifier: GPL-2.0
/*
 * eh_table.c - an ELF file's call frame information as the compact rows
 * of an unwind table (eh_table.h, linux/gotrace_unwind.h)
 *
 * libdw answers "what are the rules at this PC" (dwarf_cfi_addrframe),
 * and says for how long they hold (dwarf_frame_info's range), but not
 * which PCs have rules at all: the FDEs are enumerated here, with
 * dwarf_next_cfi() over the section's bytes, each FDE's start decoded as
 * its CIE's augmentation says (.eh_frame: pc-relative 4-byte values
 * everywhere on x86-64 and arm64; .debug_frame: absolute addresses).
 * Then each FDE is walked from its start, one row per range libdw gives,
 * to its end; where no FDE follows at once, a NONE row marks the gap.
 *
 * The rules are trusted only in the forms a walker can apply without
 * evaluating DWARF: the CFA a register (sp or fp) plus an offset, or the
 * x86-64 PLT's expression, which binutils emits the same way for every
 * lazy PLT; the return address at an offset from the CFA, or arm64's
 * link register untouched; the fp saved at an offset, or left alone.
 * The rest stops a walk (NONE) or loses the fp (FP_LOST), counted.
 *
 * libdw's defaults come from the file's machine, not the host's (its
 * backends for x86-64 and arm64 are built in): rbp, x29 and x30 are
 * "same value" where the CFI does not mention them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "eh_table.h"
#include "../trace/base.h"

/* DWARF register numbers of the two machines (their psABIs). */
#define X86_64_RBP	6
#define X86_64_RSP	7
#define X86_64_RA	16
#define ARM64_X29	29
#define ARM64_X30	30
#define ARM64_SP	31

/* One FDE's range, or what is left of it once overlaps are cut. */
struct piece {
	uint64_t start, end;
	uint64_t order;		/* the FDE's offset in its section: ties */
	bool debug;		/* from .debug_frame, else .eh_frame */
	bool entry;		/* the ELF entry point without an FDE: END */
};

/*
 * GT_EH_ENTRY_SPAN, the bytes from an ELF entry point that no FDE covers
 * taken as its outermost frame (entry_piece()): the dynamic loader's
 * _start and _dl_start_user, which glibc writes by hand without CFI,
 * call _dl_start() 8 bytes in and _dl_init() 48 bytes in.
 */

/* A CIE: how its FDEs encode their start (DW_EH_PE_*), if known. */
struct cie_enc {
	uint64_t off;
	uint8_t enc;
	bool known;
};

/* An FDE found by the pass over a section, decoded once its CIE is. */
struct raw_fde {
	uint64_t off, cie_off;
	const uint8_t *start, *end;	/* after the CIE pointer; its end */
};

struct range {
	uint64_t start, end;
};

struct build {
	struct gt_eh_table *t;
	Elf *elf;
	const char *path;
	char *err;
	size_t errlen;
	bool big_endian;
	bool image;		/* an image in memory (the vDSO), no file */
	int sp_reg, fp_reg, ra_reg;
	struct range *code;	/* the executable sections */
	size_t nr_code, code_cap;
	struct piece *eh, *dbg;
	size_t nr_eh, eh_cap, nr_dbg, dbg_cap;
	size_t rows_cap;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct build *b, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!b->errlen)
		return -1;
	n = (size_t)snprintf(b->err, b->errlen, "%s: ", b->path);
	if (n < b->errlen) {
		va_start(ap, fmt);
		vsnprintf(b->err + n, b->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

const char *gt_eh_kind_name(unsigned int cfa_reg)
{
	static const char *const names[] = {
		[GOTRACE_UNW_CFA_SP] = "sp", [GOTRACE_UNW_CFA_FP] = "fp",
		[GOTRACE_UNW_CFA_PLT] = "plt", [GOTRACE_UNW_END] = "end",
		[GOTRACE_UNW_NONE] = "none", [GOTRACE_UNW_SIGNAL] = "signal",
	};

	if (cfa_reg >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[cfa_reg];
}

/* --- the FDEs' ranges ------------------------------------------------ */

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t byte = *(*p)++;

		*v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
		if (!(byte & 0x80))
			return 0;
	}
	return -1;
}

static int read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;
	uint8_t byte = 0x80;

	*v = 0;
	while (*p < end && shift < 64 && byte & 0x80) {
		byte = *(*p)++;
		*v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	}
	if (byte & 0x80)
		return -1;
	if (shift < 64 && byte & 0x40)
		*v |= ~0ULL << shift;
	return 0;
}

/* A @size-byte integer of the file's byte order, sign-extended if asked. */
static int read_fixed(const struct build *b, const uint8_t **p,
		      const uint8_t *end, unsigned int size, bool sign,
		      uint64_t *v)
{
	if ((size_t)(end - *p) < size)
		return -1;
	*v = 0;
	for (unsigned int i = 0; i < size; i++) {
		unsigned int at = b->big_endian ? i : size - 1 - i;

		*v = *v << 8 | (*p)[at];
	}
	if (sign && size < 8 && *v >> (size * 8 - 1))
		*v |= ~0ULL << (size * 8);
	*p += size;
	return 0;
}

/*
 * The value encoded as @enc (DW_EH_PE_*) at *@p, which is at address
 * @addr; its application (pc-relative) only with @apply, as an FDE's
 * start has it and its length not.  -1: an encoding these machines'
 * .eh_frame never uses (text- or data-relative, indirect), or the bytes
 * end first.
 */
static int read_encoded(const struct build *b, const uint8_t **p,
			const uint8_t *end, uint8_t enc, uint64_t addr,
			bool apply, uint64_t *v)
{
	int r;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		r = read_fixed(b, p, end, 8, false, v);
		break;
	case DW_EH_PE_uleb128:
		r = read_uleb(p, end, v);
		break;
	case DW_EH_PE_sleb128:
		r = read_sleb(p, end, v);
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		r = read_fixed(b, p, end, 2, enc & DW_EH_PE_signed, v);
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		r = read_fixed(b, p, end, 4, enc & DW_EH_PE_signed, v);
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		r = read_fixed(b, p, end, 8, false, v);
		break;
	default:
		return -1;
	}
	if (r || !apply)
		return r;
	switch (enc & 0xf0) {
	case DW_EH_PE_absptr:
		return 0;
	case DW_EH_PE_pcrel:
		*v += addr;
		return 0;
	default:
		return -1;
	}
}

/*
 * How the FDEs of @cie encode their start: the 'R' augmentation's byte
 * (after 'P''s personality pointer and 'L''s byte, which come first when
 * present), absolute without it.  false: an augmentation not understood
 * before 'R' (the data of an unknown letter has no known size).
 */
static bool cie_encoding(const struct build *b, const Dwarf_CIE *cie,
			 uint8_t *enc)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p + cie->augmentation_data_size;
	const char *aug = cie->augmentation;
	uint64_t skip;

	*enc = DW_EH_PE_absptr;
	if (!aug[0])
		return true;
	if (aug[0] != 'z')
		return false;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p;
			return true;
		case 'P':
			if (p >= end)
				return false;
			skip = *p++;
			if (read_encoded(b, &p, end, (uint8_t)(skip & 0x0f), 0,
					 false, &skip))
				return false;
			break;
		case 'L':
			p++;
			break;
		case 'S':	/* a signal frame: dwarf_frame_info says */
		case 'B':	/* arm64: pointer authentication's B key */
		case 'G':	/* arm64: memory tagging */
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Whether @addr is in an executable section of the file. */
static bool in_code(const struct build *b, uint64_t addr)
{
	for (size_t i = 0; i < b->nr_code; i++)
		if (addr >= b->code[i].start && addr < b->code[i].end)
			return true;
	return false;
}

static int cmp_cie(const void *key, const void *elem)
{
	uint64_t off = *(const uint64_t *)key;
	const struct cie_enc *c = elem;

	return off < c->off ? -1 : off > c->off;
}

/*
 * Every FDE of the section @data (at address @addr; .eh_frame with
 * @eh_frame) into *@out with its range: two passes, since an FDE of
 * .debug_frame may name a CIE that comes after it.  FDEs that are empty,
 * or start outside the file's code (those of functions the linker
 * discarded: .debug_frame keeps them, at address 0), are counted and
 * left out.
 */
static int section_fdes(struct build *b, Elf_Data *data, uint64_t addr,
			bool eh_frame, struct piece **out, size_t *nr,
			size_t *cap)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(b->elf,
									  NULL);
	struct cie_enc *cies = NULL;
	struct raw_fde *fdes = NULL;
	size_t nr_cies = 0, cies_cap = 0, nr_fdes = 0, fdes_cap = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int r, ret = -ENOMEM;

	while (!(r = dwarf_next_cfi(ident, data, eh_frame, off, &next, &e))) {
		if (dwarf_cfi_cie_p(&e)) {
			if (gt_grow((void **)&cies, &cies_cap, nr_cies + 1,
				    sizeof(*cies)))
				goto out;
			cies[nr_cies].off = off;
			cies[nr_cies].known = cie_encoding(b, &e.cie,
							   &cies[nr_cies].enc);
			nr_cies++;
		} else {
			/* libdw makes .eh_frame's CIE pointer an offset too. */
			if (gt_grow((void **)&fdes, &fdes_cap, nr_fdes + 1,
				    sizeof(*fdes)))
				goto out;
			fdes[nr_fdes++] = (struct raw_fde){
				.off = off, .cie_off = e.fde.CIE_pointer,
				.start = e.fde.start, .end = e.fde.end,
			};
		}
		off = next;
	}
	if (r < 0) {
		ret = fail(b, "cannot read %s at offset %#llx: %s",
			   eh_frame ? ".eh_frame" : ".debug_frame",
			   (unsigned long long)off, dwarf_errmsg(-1));
		goto out;
	}
	for (size_t i = 0; i < nr_fdes; i++) {
		const struct raw_fde *f = &fdes[i];
		const struct cie_enc *c = bsearch(&f->cie_off, cies, nr_cies,
						  sizeof(*cies), cmp_cie);
		const uint8_t *p = f->start;
		uint64_t at = addr + (uint64_t)(p - (uint8_t *)data->d_buf);
		uint64_t start, len;
		uint8_t enc = c ? c->enc : DW_EH_PE_absptr;

		/* The start as encoded; the length as a plain number. */
		if (!c || !c->known ||
		    read_encoded(b, &p, f->end, enc, at, true, &start) ||
		    read_encoded(b, &p, f->end, enc & 0x0f, 0, false, &len) ||
		    !len || start + len < start || !in_code(b, start)) {
			b->t->st.fdes_skipped++;
			continue;
		}
		if (gt_grow((void **)out, cap, *nr + 1, sizeof(**out)))
			goto out;
		(*out)[(*nr)++] = (struct piece){
			.start = start, .end = start + len, .order = f->off,
			.debug = !eh_frame,
		};
	}
	ret = 0;
out:
	free(cies);
	free(fdes);
	return ret;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* the longer first */
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Sort @p and cut the FDEs that begin inside an earlier one to begin
 * where it ends (dropping those inside it): the table's ranges must not
 * overlap.  Which rules apply there stays libdw's answer for each PC.
 */
static size_t disjoint(struct build *b, struct piece *p, size_t n)
{
	uint64_t covered = 0;
	size_t kept = 0;

	if (!n)
		return 0;
	qsort(p, n, sizeof(*p), cmp_piece);
	for (size_t i = 0; i < n; i++) {
		if (kept && p[i].start < covered) {
			b->t->st.overlaps++;
			if (p[i].end <= covered)
				continue;
			p[i].start = covered;
		}
		covered = p[i].end;
		p[kept++] = p[i];
	}
	return kept;
}

/*
 * The .debug_frame FDEs, less what .eh_frame covers, appended to the
 * .eh_frame ones (both disjoint and sorted already): an FDE may leave
 * several pieces, one per gap between .eh_frame's.
 */
static int add_debug_pieces(struct build *b)
{
	size_t nr_eh = b->nr_eh, j = 0;

	for (size_t i = 0; i < b->nr_dbg; i++) {
		uint64_t cur = b->dbg[i].start, end = b->dbg[i].end;
		bool used = false;

		while (j < nr_eh && b->eh[j].end <= cur)
			j++;
		for (size_t k = j; cur < end; k++) {
			uint64_t stop = k < nr_eh && b->eh[k].start < end ?
					b->eh[k].start : end;

			if (stop > cur) {
				if (gt_grow((void **)&b->eh, &b->eh_cap,
					    b->nr_eh + 1, sizeof(*b->eh)))
					return -ENOMEM;
				b->eh[b->nr_eh++] = (struct piece){
					.start = cur, .end = stop,
					.order = b->dbg[i].order, .debug = true,
				};
				used = true;
			}
			if (k >= nr_eh || b->eh[k].start >= end)
				break;
			if (b->eh[k].end > cur)
				cur = b->eh[k].end;
		}
		b->t->st.fdes_debug += used;
	}
	if (b->nr_eh)
		qsort(b->eh, b->nr_eh, sizeof(*b->eh), cmp_piece);
	return 0;
}

/* --- one row of rules ------------------------------------------------ */

/* An offset from the CFA: [DW_OP_call_frame_cfa, DW_OP_plus_uconst N]. */
static bool at_cfa_offset(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (!ops || !n || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		*off = 0;
		return true;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		/* libdw stores the signed factored offset as the operand. */
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/*
 * binutils' CFA of every x86-64 lazy PLT entry: rsp + 8, 8 more once the
 * entry's push is done, at byte @at of the 16-byte entry (11 for the
 * classic one; 9 where it begins with endbr64, -z ibtplt):
 * breg7 8; breg16 0; lit15; and; lit<at>; ge; lit3; shl; plus.
 */
static bool plt_cfa(const Dwarf_Op *ops, size_t n, int64_t *off, uint8_t *at)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};

	if (n != sizeof(shape))
		return false;
	for (size_t i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != shape[i])
			return false;
	if (ops[1].number || ops[4].atom < DW_OP_lit0 ||
	    ops[4].atom > DW_OP_lit15)
		return false;
	*off = (int64_t)ops[0].number;
	*at = (uint8_t)(ops[4].atom - DW_OP_lit0);
	return true;
}

/* The CFA's rule into @r; false if a walker cannot follow it. */
static bool cfa_rule(const struct build *b, Dwarf_Frame *f,
		     struct gotrace_unwind_row *r)
{
	Dwarf_Op *ops;
	size_t n;
	int64_t off;
	int reg;

	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return false;
	if (n == 1 && ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (n == 1 && ops[0].atom >= DW_OP_breg0 &&
		   ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else if (b->t->machine == EM_X86_64 &&
		   plt_cfa(ops, n, &off, &r->plt_at)) {
		r->cfa_reg = GOTRACE_UNW_CFA_PLT;
		r->cfa_off = (int32_t)off;
		return off == r->cfa_off;
	} else {
		return false;
	}
	if (reg == b->sp_reg)
		r->cfa_reg = GOTRACE_UNW_CFA_SP;
	else if (reg == b->fp_reg)
		r->cfa_reg = GOTRACE_UNW_CFA_FP;
	else
		return false;
	r->cfa_off = (int32_t)off;
	return off == r->cfa_off;
}

/*
 * The rules of libdw's frame @f, whose return address is in column
 * @ra_col, for the row @r (its pc set by the caller), counted.
 */
static void translate(struct build *b, Dwarf_Frame *f, int ra_col,
		      bool signal, struct gotrace_unwind_row *r)
{
	struct gt_eh_stats *st = &b->t->st;
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	uint32_t pc = r->pc;
	int kind;

	*r = (struct gotrace_unwind_row){ .pc = pc };
	if (signal) {
		r->cfa_reg = GOTRACE_UNW_SIGNAL;
		st->signal++;
		return;
	}
	/*
	 * Another return address column than the machine's (glibc's arm64
	 * rawmemchr says x15) has no rule a walker knows: it reads x30.
	 */
	if (ra_col != b->ra_reg ||
	    dwarf_frame_register(f, ra_col, mem, &ops, &n)) {
		r->cfa_reg = GOTRACE_UNW_NONE;
		st->ra_expr++;
		return;
	}
	if (ops == mem && !n) {
		r->cfa_reg = GOTRACE_UNW_END;
		st->undefined_ra++;
		return;
	}
	if (!cfa_rule(b, f, r)) {
		*r = (struct gotrace_unwind_row){
			.pc = pc, .cfa_reg = GOTRACE_UNW_NONE,
		};
		st->cfa_expr++;
		return;
	}
	kind = r->cfa_reg;
	if (!ops && b->t->machine == EM_AARCH64) {
		r->ra_off = 0;		/* still in x30 */
	} else if (at_cfa_offset(ops, n, &off) && off &&
		   off == (int16_t)off) {
		r->ra_off = (int16_t)off;
	} else {
		*r = (struct gotrace_unwind_row){
			.pc = pc, .cfa_reg = GOTRACE_UNW_NONE,
		};
		st->ra_expr++;
		return;
	}
	if (kind == GOTRACE_UNW_CFA_PLT)
		st->plt++;
	if (dwarf_frame_register(f, b->fp_reg, mem, &ops, &n) == 0) {
		if (!ops)
			return;		/* same value: fp_off 0 */
		if (at_cfa_offset(ops, n, &off) && off &&
		    off == (int16_t)off) {
			r->fp_off = (int16_t)off;
			return;
		}
	}
	r->flags |= GOTRACE_UNW_FP_LOST;
	st->fp_expr++;
}

/* --- the rows -------------------------------------------------------- */

static bool same_rules(const struct gotrace_unwind_row *a,
		       const struct gotrace_unwind_row *b)
{
	return a->cfa_off == b->cfa_off && a->fp_off == b->fp_off &&
	       a->ra_off == b->ra_off && a->cfa_reg == b->cfa_reg &&
	       a->flags == b->flags && a->plt_at == b->plt_at;
}

/* Append @r (its pc after the last row's), unless it says the same. */
static int add_row(struct build *b, const struct gotrace_unwind_row *r)
{
	struct gt_eh_table *t = b->t;

	t->st.rows_raw++;
	if (t->nr && same_rules(&t->rows[t->nr - 1], r))
		return 0;
	if (gt_grow((void **)&t->rows, &b->rows_cap, (size_t)t->nr + 1,
		    sizeof(*t->rows)))
		return -ENOMEM;
	t->rows[t->nr++] = *r;
	return 0;
}

static int add_none(struct build *b, uint64_t addr)
{
	struct gotrace_unwind_row r = {
		.pc = (uint32_t)(addr - b->t->base),
		.cfa_reg = GOTRACE_UNW_NONE,
	};

	return add_row(b, &r);
}

/* The rows of [@p->start, @p->end), one per range of rules libdw gives. */
static int walk_piece(struct build *b, Dwarf_CFI *cfi, const struct piece *p)
{
	uint64_t pc = p->start;

	while (pc < p->end) {
		struct gotrace_unwind_row r = {
			.pc = (uint32_t)(pc - b->t->base),
		};
		Dwarf_Addr start, end;
		Dwarf_Frame *f;
		bool signal;
		int ra_col;

		if (dwarf_cfi_addrframe(cfi, pc, &f)) {
			b->t->st.errors++;
			return add_none(b, pc);
		}
		ra_col = dwarf_frame_info(f, &start, &end, &signal);
		if (ra_col < 0 || end <= pc) {
			free(f);
			b->t->st.errors++;
			return add_none(b, pc);
		}
		translate(b, f, ra_col, signal, &r);
		free(f);
		if (add_row(b, &r))
			return -ENOMEM;
		pc = end;
	}
	return 0;
}

/*
 * The rows of the pieces b->eh (disjoint, sorted; .eh_frame's looked up
 * in @cfi_eh, .debug_frame's in @cfi_debug), a NONE row in each gap
 * between them, and one at the end.
 */
static int make_rows(struct build *b, Dwarf_CFI *cfi_eh, Dwarf_CFI *cfi_debug)
{
	struct gt_eh_table *t = b->t;
	int ret;

	t->base = b->eh[0].start;
	for (size_t i = 0; i < b->nr_eh; i++)
		if (b->eh[i].end > t->end)
			t->end = b->eh[i].end;
	if (t->end - t->base > UINT32_MAX)
		return fail(b, "its code spans %#llx bytes: more than the 4 "
			    "GiB a table's rows address",
			    (unsigned long long)(t->end - t->base));
	for (size_t i = 0; i < b->nr_eh; i++) {
		const struct piece *p = &b->eh[i];

		ret = 0;
		if (i && p->start > b->eh[i - 1].end)
			ret = add_none(b, b->eh[i - 1].end);
		if (!ret && p->entry)
			ret = add_row(b, &(struct gotrace_unwind_row){
				.pc = (uint32_t)(p->start - t->base),
				.cfa_reg = GOTRACE_UNW_END,
			});
		else if (!ret)
			ret = walk_piece(b, p->debug ? cfi_debug : cfi_eh, p);
		if (ret)
			return ret;
	}
	/* Past the last FDE: a NONE row, even after another NONE one. */
	if (gt_grow((void **)&t->rows, &b->rows_cap, (size_t)t->nr + 1,
		    sizeof(*t->rows)))
		return -ENOMEM;
	t->st.rows_raw++;
	t->rows[t->nr++] = (struct gotrace_unwind_row){
		.pc = (uint32_t)(t->end - t->base),
		.cfa_reg = GOTRACE_UNW_NONE,
	};
	return 0;
}

/*
 * A piece for the ELF entry point @entry, if it is code no FDE covers:
 * the outermost frame of the program (END), up to the next FDE or
 * GT_EH_ENTRY_SPAN bytes.  A program's own _start has an FDE that says so
 * (its return address undefined), but the dynamic loader's, where
 * every process's first stacks are (loading its libraries), has none:
 * without this, a whole stack there ends as if cut ("no unwind rule").
 * b->eh sorted and disjoint; kept so.
 */
static int entry_piece(struct build *b, uint64_t entry)
{
	struct piece p = { .start = entry, .end = entry + GT_EH_ENTRY_SPAN,
			   .entry = true };
	size_t i;

	if (!entry || !in_code(b, entry))
		return 0;
	for (i = 0; i < b->nr_eh && b->eh[i].start <= entry; i++)
		if (entry < b->eh[i].end)
			return 0;	/* covered */
	if (i < b->nr_eh && b->eh[i].start < p.end)
		p.end = b->eh[i].start;
	if (gt_grow((void **)&b->eh, &b->eh_cap, b->nr_eh + 1,
		    sizeof(*b->eh)))
		return -ENOMEM;
	memmove(&b->eh[i + 1], &b->eh[i], (b->nr_eh - i) * sizeof(*b->eh));
	b->eh[i] = p;
	b->nr_eh++;
	b->t->st.entry_end = entry;
	b->t->st.undefined_ra++;
	return 0;
}

/* --- the file -------------------------------------------------------- */

static void read_build_id(struct gt_eh_table *t, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (!t->build_id_len &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4)) {
			t->build_id_len = nh.n_descsz < sizeof(t->build_id) ?
					  nh.n_descsz : sizeof(t->build_id);
			memcpy(t->build_id,
			       (const char *)data->d_buf + desc_off,
			       t->build_id_len);
		}
		off = next;
	}
}

/*
 * The section data of .debug_frame, decompressed if it is (SHF_COMPRESSED,
 * or the older .zdebug_frame): libdw's dwarf_begin_elf() decompresses
 * the sections it reads, in place, but a file whose DWARF it cannot
 * open still has its frames read here.
 */
static Elf_Data *debug_frame_data(Elf_Scn *scn, bool gnu_compressed)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh))
		return NULL;
	if (sh.sh_flags & SHF_COMPRESSED) {
		if (elf_compress(scn, 0, 0) < 0)
			return NULL;
	} else if (gnu_compressed) {
		if (elf_compress_gnu(scn, 0, 0) < 0)
			return NULL;
	}
	return elf_getdata(scn, NULL);
}

/* Whether a section's name marks a Go binary. */
static bool go_section(const char *name)
{
	return !strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo") ||
	       !strcmp(name, ".data.rel.ro.gopclntab") ||
	       !strcmp(name, ".note.go.buildid");
}

struct sections {
	Elf_Scn *eh_frame, *debug_frame;
	uint64_t eh_frame_addr;
	bool zdebug;
};

/*
 * One pass over the section headers: the code's ranges, the two CFI
 * sections, the build id, whether Go built the file.  A file without
 * section headers has no FDE found here: no rows.
 */
static int scan_sections(struct build *b, struct sections *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	if (elf_getshdrstrndx(b->elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(b->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(b->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
		    (SHF_ALLOC | SHF_EXECINSTR) && sh.sh_size) {
			if (gt_grow((void **)&b->code, &b->code_cap,
				    b->nr_code + 1, sizeof(*b->code)))
				return -ENOMEM;
			b->code[b->nr_code++] = (struct range){
				sh.sh_addr, sh.sh_addr + sh.sh_size,
			};
		}
		if (sh.sh_type == SHT_NOTE && !b->t->build_id_len) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d)
				read_build_id(b->t, d);
		}
		if (go_section(name))
			b->t->go = true;
		if (!strcmp(name, ".eh_frame") && sh.sh_type == SHT_PROGBITS &&
		    sh.sh_flags & SHF_ALLOC) {
			s->eh_frame = scn;
			s->eh_frame_addr = sh.sh_addr;
		}
		if ((!strcmp(name, ".debug_frame") ||
		     !strcmp(name, ".zdebug_frame")) &&
		    sh.sh_type == SHT_PROGBITS) {
			s->debug_frame = scn;
			s->zdebug = name[1] == 'z';
		}
	}
	return 0;
}

static int build(struct build *b, unsigned int flags)
{
	struct gt_eh_table *t = b->t;
	Dwarf_CFI *cfi_eh = NULL, *cfi_debug = NULL;
	Dwarf *dw = NULL;
	struct sections s;
	Elf_Data *data;
	GElf_Ehdr eh;
	int ret;

	if (elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh))
		return fail(b, "not an ELF file");
	t->machine = eh.e_machine;
	b->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return fail(b, "not a 64-bit x86-64 or arm64 file (machine %u)",
			    eh.e_machine);
	if (eh.e_machine == EM_X86_64) {
		b->sp_reg = X86_64_RSP;
		b->fp_reg = X86_64_RBP;
		b->ra_reg = X86_64_RA;
	} else {
		b->sp_reg = ARM64_SP;
		b->fp_reg = ARM64_X29;
		b->ra_reg = ARM64_X30;
	}
	ret = scan_sections(b, &s);
	if (ret || (t->go && !(flags & GT_EH_BUILD_GO)))
		return ret;

	data = s.eh_frame ? elf_getdata(s.eh_frame, NULL) : NULL;
	if (data && data->d_size) {
		cfi_eh = dwarf_getcfi_elf(b->elf);
		if (!cfi_eh)
			return fail(b, "libdw cannot read .eh_frame: %s",
				    dwarf_errmsg(-1));
		ret = section_fdes(b, data, s.eh_frame_addr, true, &b->eh,
				   &b->nr_eh, &b->eh_cap);
		if (ret)
			goto out;
	}
	if (s.debug_frame) {
		/* Without a DWARF handle (no .debug_info), no lookups. */
		dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
		cfi_debug = dw ? dwarf_getcfi(dw) : NULL;
		data = cfi_debug ? debug_frame_data(s.debug_frame, s.zdebug) :
				   NULL;
		if (data && data->d_size) {
			ret = section_fdes(b, data, 0, false, &b->dbg,
					   &b->nr_dbg, &b->dbg_cap);
			if (ret)
				goto out;
		}
	}

	b->nr_eh = disjoint(b, b->eh, b->nr_eh);
	b->nr_dbg = disjoint(b, b->dbg, b->nr_dbg);
	t->st.fdes = (uint32_t)b->nr_eh;
	ret = add_debug_pieces(b);
	/* A program's or the loader's entry; the vDSO's is none. */
	if (!ret && b->nr_eh && !b->image &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
		ret = entry_piece(b, eh.e_entry);
	if (ret)
		goto out;
	t->st.fdes += t->st.fdes_debug;
	if (b->nr_eh)
		ret = make_rows(b, cfi_eh, cfi_debug);
out:
	if (cfi_eh)
		dwarf_cfi_end(cfi_eh);
	if (dw)
		dwarf_end(dw);
	return ret;
}

/*
 * The build of the image of @size bytes at @image, or without one of the
 * file open at @fd: everything but where the bytes come from is shared.
 */
static int build_from(int fd, const void *image, size_t size,
		      const char *path, unsigned int flags,
		      struct gt_eh_table *t, char *err, size_t errlen)
{
	struct build b = {
		.t = t, .path = path, .err = err, .errlen = errlen,
		.image = image != NULL,
	};
	uint64_t t0 = mono_ns();
	char *copy = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	elf_version(EV_CURRENT);
	if (!image) {
		b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	} else {
		/*
		 * elf_memory() takes its image as writable memory (libelf
		 * may convert it in place): a copy, never the vDSO's own
		 * read-only pages.  A few KiB.
		 */
		copy = malloc(size ? size : 1);
		if (!copy) {
			fail(&b, "out of memory");
			return -ENOMEM;
		}
		memcpy(copy, image, size);
		b.elf = elf_memory(copy, size);
	}
	if (!b.elf) {
		free(copy);
		return fail(&b, "not an ELF file: %s", elf_errmsg(-1));
	}
	ret = build(&b, flags);
	elf_end(b.elf);
	free(copy);
	free(b.code);
	free(b.eh);
	free(b.dbg);
	if (ret) {
		if (ret == -ENOMEM && errlen && !err[0])
			fail(&b, "out of memory");
		gt_eh_table_free(t);
		return ret;
	}
	t->st.rows = t->nr;
	t->st.build_ns = mono_ns() - t0;
	return 0;
}

int gt_eh_table_build(int fd, const char *path, unsigned int flags,
		      struct gt_eh_table *t, char *err, size_t errlen)
{
	return build_from(fd, NULL, 0, path, flags, t, err, errlen);
}

int gt_eh_table_build_mem(const void *image, size_t size, const char *name,
			  unsigned int flags, struct gt_eh_table *t, char *err,
			  size_t errlen)
{
	/* No image: an empty one, which is not ELF. */
	return build_from(-1, image ? image : "", image ? size : 0, name,
			  flags, t, err, errlen);
}

const void *gt_eh_vdso(size_t *size)
{
	const void *image = NULL;
	uint64_t at, start, end;
	char line[512], name[64];
	size_t len = 0;
	FILE *f;

	/*
	 * The walkers walk native 64-bit tasks only: a 32-bit command's
	 * vDSO is another image than theirs.
	 */
	at = sizeof(void *) == 8 ? getauxval(AT_SYSINFO_EHDR) : 0;
	f = at ? fopen("/proc/self/maps", "re") : NULL;
	/*
	 * The image is the whole mapping: the kernel maps all of it, the
	 * section headers too, past the PT_LOAD's bytes (they say where
	 * .eh_frame and the code are), and nothing may be read beyond it.
	 */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s "
			   "%63s", &start, &end, name) == 3 &&
		    start == at && end > start && !strcmp(name, "[vdso]")) {
			image = (const void *)(uintptr_t)start;
			len = (size_t)(end - start);
			break;
		}
	if (f)
		fclose(f);
	*size = len;
	return image;
}

void gt_eh_table_free(struct gt_eh_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

const struct gotrace_unwind_row *gt_eh_table_find(const struct gt_eh_table *t,
						  uint64_t pc)
{
	uint64_t rel;
	uint32_t lo = 0, hi = t->nr;

	if (!t->nr || pc < t->base)
		return NULL;
	rel = pc - t->base;
	if (rel > UINT32_MAX)
		return &t->rows[t->nr - 1];
	/* The last row whose pc is at or before @rel. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}
