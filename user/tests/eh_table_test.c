// SPDX-License-Identifier: GPL-2.0
/*
 * eh_table_test.c - unwind tables (unwind/eh_table.c, unwind/eh_walk.c)
 * against sources of truth that are not libdw
 *
 * 1. binutils' readelf: for every FDE of the x86-64 C library, its
 *    dynamic loader, bash and build/eh_prog_* (tests/eh_prog.c built four
 *    ways by the Makefile), at each row readelf interprets (and at the
 *    last byte before the next), our row must give the CFA, the return
 *    address and the fp readelf gives.  A column readelf shows as 'u' is
 *    one the CFI never set, the ABI's "same value", unless the FDE says
 *    DW_CFA_undefined of it (readelf's raw dump tells).
 * 2. The same for the arm64 C library of the cross packages, so that a
 *    table of another machine than the host's is proven too.
 * 3. At each function's entry (the x86-64 C library's .dynsym), the ABI
 *    says CFA = rsp + 8, the return address at CFA - 8.
 * 4. The reference walker over a stack built by hand (both machines).
 * 5. A walk of this very process, from inside a callback of twalk()
 *    (through the C library, built without frame pointers), to _start:
 *    every return address what glibc's backtrace() (libgcc's unwinder)
 *    finds.
 * 6. The vDSO, built from this process's image in memory: as 1., with
 *    its bytes written to a file for readelf, and the same rows as a
 *    build from that file.
 * 7. Walks of this process from a CPU timer's signals that interrupted
 *    clock_gettime() in the vDSO, to _start: backtrace()'s frames.
 *
 * Prints, per file, the table's rows, bytes and build time.
 */
#include <execinfo.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "tap.h"
#include "trace/base.h"
#include "unwind/eh_table.h"
#include "unwind/eh_walk.h"

#define LIBC		"/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO		"/lib64/ld-linux-x86-64.so.2"
#define BASH		"/usr/bin/bash"
#define ARM64_LIBC	"/usr/aarch64-linux-gnu/lib/libc.so.6"
#define GOPROG		"build/usym_go"	/* if Go 1.23 is there */
#define SHOW_MAX	5	/* mismatches printed per file */
/* How readelf prints binutils' CFA of x86-64 PLT entries. */
#define PLT_EXPR_HEAD	"DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 8; " \
	"DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; DW_OP_lit"
#define PLT_EXPR_TAIL	"; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus)"

/* --- readelf's view ------------------------------------------------- */

enum { SEC_EH, SEC_DEBUG };

/* A row as readelf -wF prints it: the CFA's and two columns' rules. */
struct rrow {
	uint64_t loc;
	char cfa[32], fp[32], ra[32];
};

struct rcie {
	int sec;
	uint64_t off;
	unsigned int ra_col;
	bool signal;		/* 'S' in its augmentation */
	bool has_init;
	struct rrow init;	/* its initial rules, for FDEs without rows */
};

struct rfde {
	int sec;
	uint64_t lo, hi, cie;
	size_t first, n;	/* its rows in rf.rows */
	bool undef_ra, undef_fp;	/* DW_CFA_undefined of either */
	int plt_at;		/* binutils' PLT CFA: its literal, else -1 */
};

struct rframes {
	struct rrow *rows;
	struct rfde *fdes;
	struct rcie *cies;
	size_t nr_rows, nr_fdes, nr_cies, rows_cap, fdes_cap, cies_cap;
};

/* The names readelf gives the registers the rows speak of. */
struct mach {
	uint16_t machine;
	const char *sp, *fp;
	unsigned int ra_col, fp_col;
};

static const struct mach x86_64 = { EM_X86_64, "rsp", "rbp", 16, 6 };
static const struct mach arm64 = { EM_AARCH64, "sp", "x29", 30, 29 };
#ifdef __aarch64__
static const struct mach *const host = &arm64;
#else
static const struct mach *const host = &x86_64;
#endif

static void rframes_free(struct rframes *rf)
{
	free(rf->rows);
	free(rf->fdes);
	free(rf->cies);
	memset(rf, 0, sizeof(*rf));
}

static bool hex_word(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return s[len] == ' ';
}

/*
 * The tokens of @line, split at blanks, a "(name)" joined to the token
 * before it ("r9 (r9)": readelf names a register rule so).
 */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(line, " \n"); t; t = strtok(NULL, " \n")) {
		if (t[0] == '(' && n)
			continue;
		if (n == max)
			break;
		tok[n++] = t;
	}
	return n;
}

static void set_rule(char *dst, const char *src)
{
	snprintf(dst, sizeof(((struct rrow *)0)->cfa), "%s", src);
}

/* readelf --debug-dump=frames-interp of @path into @rf; false if none. */
static bool read_interp(const char *path, const struct mach *m,
			struct rframes *rf)
{
	static char hdr[4096];	/* the column names, which @cols points into */
	char cmd[512], line[4096], *tok[128], *cols[128];
	int sec = SEC_EH, ncols = 0;
	bool in_cie = false, any = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C readelf -wF '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		char *q;

		if (strstr(line, "Contents of the ")) {
			sec = strstr(line, "debug_frame") ? SEC_DEBUG : SEC_EH;
			continue;
		}
		if (strlen(line) > 9 && hex_word(line, 8) &&
		    (q = strstr(line, " CIE"))) {
			struct rcie c = { .sec = sec };
			char *ra = strstr(line, " ra=");
			char *aug = strchr(q, '"');
			char *aug_end = aug ? strchr(aug + 1, '"') : NULL;

			c.off = strtoull(line, NULL, 16);
			c.ra_col = ra ? (unsigned int)atoi(ra + 4) : 0;
			c.signal = aug_end && memchr(aug + 1, 'S',
						     (size_t)(aug_end - aug - 1));
			if (gt_grow((void **)&rf->cies, &rf->cies_cap,
				    rf->nr_cies + 1, sizeof(*rf->cies)))
				break;
			rf->cies[rf->nr_cies++] = c;
			in_cie = true;
			ncols = 0;
			continue;
		}
		if (strlen(line) > 9 && hex_word(line, 8) &&
		    (q = strstr(line, " FDE cie="))) {
			struct rfde f = {
				.sec = sec, .first = rf->nr_rows, .plt_at = -1,
			};

			if (sscanf(q, " FDE cie=%" SCNx64 " pc=%" SCNx64 "..%"
				   SCNx64, &f.cie, &f.lo, &f.hi) != 3)
				continue;
			if (gt_grow((void **)&rf->fdes, &rf->fdes_cap,
				    rf->nr_fdes + 1, sizeof(*rf->fdes)))
				break;
			rf->fdes[rf->nr_fdes++] = f;
			in_cie = false;
			ncols = 0;
			any = true;
			continue;
		}
		if (!strncmp(line, "   LOC ", 7)) {
			snprintf(hdr, sizeof(hdr), "%s", line);
			ncols = tokens(hdr, cols, 128);
			continue;
		}
		if (ncols && strlen(line) > 17 && hex_word(line, 16)) {
			int n = tokens(line, tok, 128);
			struct rrow r = { .loc = strtoull(tok[0], NULL, 16) };

			set_rule(r.fp, "u");
			set_rule(r.ra, "u");
			for (int i = 1; i < n && i < ncols; i++) {
				if (!strcmp(cols[i], "CFA"))
					set_rule(r.cfa, tok[i]);
				else if (!strcmp(cols[i], m->fp))
					set_rule(r.fp, tok[i]);
				else if (!strcmp(cols[i], "ra"))
					set_rule(r.ra, tok[i]);
			}
			if (in_cie && rf->nr_cies) {
				rf->cies[rf->nr_cies - 1].init = r;
				rf->cies[rf->nr_cies - 1].has_init = true;
			} else if (!in_cie && rf->nr_fdes) {
				if (gt_grow((void **)&rf->rows, &rf->rows_cap,
					    rf->nr_rows + 1, sizeof(*rf->rows)))
					break;
				rf->rows[rf->nr_rows++] = r;
				rf->fdes[rf->nr_fdes - 1].n++;
			}
		}
	}
	pclose(p);
	return any;
}

/*
 * readelf --debug-dump=frames (the raw instructions): the FDEs (and
 * CIEs) that say DW_CFA_undefined of the return address or the fp, and
 * those whose CFA is binutils' PLT expression (and at which byte of an
 * entry it adds 8).
 */
static void read_raw(const char *path, const struct mach *m,
		     struct rframes *rf)
{
	char cmd[512], line[4096];
	int sec = SEC_EH;
	struct rfde *cur = NULL;
	uint64_t cie_off = 0;
	bool in_cie = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C readelf -wf '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		unsigned int reg;
		uint64_t lo, hi, cie;
		char *q;

		if (strstr(line, "Contents of the ")) {
			sec = strstr(line, "debug_frame") ? SEC_DEBUG : SEC_EH;
			continue;
		}
		if (strlen(line) > 9 && hex_word(line, 8) &&
		    strstr(line, " CIE")) {
			in_cie = true;
			cie_off = strtoull(line, NULL, 16);
			cur = NULL;
			continue;
		}
		if (strlen(line) > 9 && hex_word(line, 8) &&
		    (q = strstr(line, " FDE cie=")) &&
		    sscanf(q, " FDE cie=%" SCNx64 " pc=%" SCNx64 "..%" SCNx64,
			   &cie, &lo, &hi) == 3) {
			in_cie = false;
			cur = NULL;
			for (size_t i = 0; i < rf->nr_fdes; i++) {
				struct rfde *f = &rf->fdes[i];

				if (f->sec == sec && f->lo == lo && f->hi == hi)
					cur = f;
			}
			continue;
		}
		if (cur && (q = strstr(line, PLT_EXPR_HEAD)) &&
		    strstr(q, PLT_EXPR_TAIL)) {
			cur->plt_at = atoi(q + strlen(PLT_EXPR_HEAD));
			continue;
		}
		if (!(q = strstr(line, "DW_CFA_undefined: r")) ||
		    sscanf(q, "DW_CFA_undefined: r%u", &reg) != 1)
			continue;
		for (size_t i = 0; i < rf->nr_fdes; i++) {
			struct rfde *f = &rf->fdes[i];

			if (in_cie ? f->sec != sec || f->cie != cie_off :
				     f != cur)
				continue;
			f->undef_ra |= reg == m->ra_col;
			f->undef_fp |= reg == m->fp_col;
		}
	}
	pclose(p);
}

static const struct rcie *cie_of(const struct rframes *rf,
				 const struct rfde *f)
{
	for (size_t i = 0; i < rf->nr_cies; i++)
		if (rf->cies[i].sec == f->sec && rf->cies[i].off == f->cie)
			return &rf->cies[i];
	return NULL;
}

/* "REG+N" / "REG-N" of a CFA column: whether it parses, REG and N. */
static bool reg_plus(const char *s, char *reg, size_t size, int64_t *off)
{
	const char *sign = strpbrk(s, "+-");

	if (!sign || sign == s || (size_t)(sign - s) >= size)
		return false;
	memcpy(reg, s, (size_t)(sign - s));
	reg[sign - s] = '\0';
	*off = strtoll(sign, NULL, 10);
	return true;
}

/* "c-8": saved at CFA - 8. */
static bool cfa_saved(const char *s, int64_t *off)
{
	if (s[0] != 'c' || (s[1] != '+' && s[1] != '-'))
		return false;
	*off = strtoll(s + 1, NULL, 10);
	return true;
}

static bool fits16(int64_t v)
{
	return v == (int16_t)v;
}

/*
 * Whether @ours says what readelf's row @rr says, in an FDE @f of CIE
 * @c; else why not, in @why.  The order of the checks is the rules' own:
 * a signal frame, then an undefined return address, the CFA, the return
 * address, the fp.
 */
static bool row_agrees(const struct mach *m, const struct rcie *c,
		       const struct rfde *f, const struct rrow *rr,
		       const struct gotrace_unwind_row *ours, char *why,
		       size_t size)
{
	unsigned int kind = ours ? ours->cfa_reg : 255;
	bool ra_same = false;
	char reg[32];
	int64_t off, ra_off = 0;
	unsigned int want;

	if (!ours) {
		snprintf(why, size, "no row");
		return false;
	}
	if (c->signal) {
		snprintf(why, size, "want signal");
		return kind == GOTRACE_UNW_SIGNAL;
	}
	if (c->ra_col != m->ra_col) {
		snprintf(why, size, "return address column %u: want none",
			 c->ra_col);
		return kind == GOTRACE_UNW_NONE;
	}
	if (!strcmp(rr->ra, "u") && f->undef_ra) {
		/* arm64: 'u' is also x30 not yet saved (same value). */
		if (kind == GOTRACE_UNW_END)
			return true;
		if (m->machine == EM_X86_64) {
			snprintf(why, size, "want end");
			return false;
		}
	}
	if (kind == GOTRACE_UNW_END) {
		snprintf(why, size, "end where the return address is known");
		return false;
	}

	/* The CFA. */
	if (!strcmp(rr->cfa, "exp") && f->plt_at < 0) {
		snprintf(why, size, "an expression: want none");
		return kind == GOTRACE_UNW_NONE;
	} else if (!strcmp(rr->cfa, "exp")) {
		snprintf(why, size, "the PLT's expression: want plt_at %d",
			 f->plt_at);
		if (kind != GOTRACE_UNW_CFA_PLT || ours->plt_at != f->plt_at)
			return false;
		want = GOTRACE_UNW_CFA_PLT;
		off = 8;
	} else if (reg_plus(rr->cfa, reg, sizeof(reg), &off) &&
		   off == (int32_t)off && (!strcmp(reg, m->sp) ||
					   !strcmp(reg, m->fp))) {
		want = !strcmp(reg, m->sp) ? GOTRACE_UNW_CFA_SP :
					     GOTRACE_UNW_CFA_FP;
	} else {
		snprintf(why, size, "CFA %s: want none", rr->cfa);
		return kind == GOTRACE_UNW_NONE;
	}

	/* The return address. */
	if (cfa_saved(rr->ra, &ra_off) && ra_off && fits16(ra_off)) {
		ra_same = false;
	} else if (m->machine == EM_AARCH64 &&
		   (!strcmp(rr->ra, "u") || !strcmp(rr->ra, "s"))) {
		ra_same = true;
		ra_off = 0;
	} else {
		snprintf(why, size, "return address %s: want none", rr->ra);
		return kind == GOTRACE_UNW_NONE;
	}
	snprintf(why, size, "want %s%+" PRId64 ", ra %" PRId64 "%s",
		 gt_eh_kind_name(want), off, ra_off, ra_same ? " (lr)" : "");
	if (kind != want || ours->cfa_off != off || ours->ra_off != ra_off)
		return false;

	/* The fp. */
	if (cfa_saved(rr->fp, &off) && off && fits16(off)) {
		snprintf(why, size, "fp at c%+" PRId64, off);
		return ours->fp_off == off && !ours->flags;
	}
	if (!strcmp(rr->fp, "u") || !strcmp(rr->fp, "s")) {
		snprintf(why, size, "fp kept");
		if (ours->fp_off == 0 && !ours->flags)
			return true;
		return f->undef_fp && ours->flags == GOTRACE_UNW_FP_LOST &&
		       !strcmp(rr->fp, "u");
	}
	snprintf(why, size, "fp %s: want lost", rr->fp);
	return ours->flags == GOTRACE_UNW_FP_LOST;
}

/* The executable sections of @path, where FDEs that count must start. */
static size_t code_ranges(const char *path, uint64_t (*r)[2], size_t max)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0;

	while (elf && n < max && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_flags & SHF_EXECINSTR &&
		    sh.sh_flags & SHF_ALLOC && sh.sh_size) {
			r[n][0] = sh.sh_addr;
			r[n][1] = sh.sh_addr + sh.sh_size;
			n++;
		}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

static bool in_ranges(uint64_t (*r)[2], size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= r[i][0] && a < r[i][1])
			return true;
	return false;
}

static void fmt_row(const struct gotrace_unwind_row *r, char *buf, size_t n)
{
	if (!r)
		snprintf(buf, n, "(none)");
	else
		snprintf(buf, n, "%s%+d ra %d fp %d%s plt_at %u",
			 gt_eh_kind_name(r->cfa_reg), r->cfa_off, r->ra_off,
			 r->fp_off, r->flags ? " fp-lost" : "", r->plt_at);
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Between readelf's FDEs (those in the code), from the first to the
 * last, and after the last: none rows, at both ends of each gap.
 */
static void check_gaps(const char *path, const struct rframes *rf,
		       uint64_t (*code)[2], size_t ncode,
		       const struct gt_eh_table *t)
{
	uint64_t (*r)[2] = calloc(rf->nr_fdes + 1, sizeof(*r));
	size_t n = 0, gaps = 0, bad = 0;
	uint64_t covered = 0;

	for (size_t i = 0; r && i < rf->nr_fdes; i++)
		if (in_ranges(code, ncode, rf->fdes[i].lo) &&
		    rf->fdes[i].hi > rf->fdes[i].lo) {
			r[n][0] = rf->fdes[i].lo;
			r[n][1] = rf->fdes[i].hi;
			n++;
		}
	if (n)
		qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < n; i++) {
		uint64_t at[2] = { covered, r[i][0] - 1 };

		if (i && r[i][0] > covered) {
			for (int k = 0; k < 2; k++) {
				const struct gotrace_unwind_row *o =
					gt_eh_table_find(t, at[k]);

				gaps++;
				if (o && o->cfa_reg == GOTRACE_UNW_NONE)
					continue;
				/* The entry point without an FDE: END. */
				if (o && o->cfa_reg == GOTRACE_UNW_END &&
				    t->st.entry_end &&
				    at[k] >= t->st.entry_end &&
				    at[k] < t->st.entry_end + GT_EH_ENTRY_SPAN)
					continue;
				if (bad++ < SHOW_MAX)
					diag("  %#" PRIx64 ", between FDEs: "
					     "not a none row", at[k]);
			}
		}
		if (!i || r[i][1] > covered)
			covered = r[i][1];
	}
	if (n && !(t->end == covered && gt_eh_table_find(t, covered) &&
		   gt_eh_table_find(t, covered)->cfa_reg == GOTRACE_UNW_NONE)) {
		bad++;
		diag("  the end %#" PRIx64 ": not a none row", covered);
	}
	ok(n && !bad, "%s: %zu addresses between FDEs and the end: none rows, "
	   "%zu mismatches", path, gaps + 1, bad);
	free(r);
}

static int build(const char *path, unsigned int flags, struct gt_eh_table *t)
{
	char err[512];
	int fd = open(path, O_RDONLY), r;

	if (fd < 0)
		return -1;
	r = gt_eh_table_build(fd, path, flags, t, err, sizeof(err));
	close(fd);
	if (r)
		diag("%s: %s", path, err);
	return r;
}

static void report(const char *path, const struct gt_eh_table *t)
{
	const struct gt_eh_stats *s = &t->st;

	diag("%s: %s, %u rows, %zu bytes, %u FDEs (%u of .debug_frame, %u "
	     "left out), built in %" PRIu64 " us (sanitized)", path,
	     t->machine == EM_X86_64 ? "x86-64" : "arm64", t->nr,
	     (size_t)t->nr * sizeof(*t->rows), s->fdes, s->fdes_debug,
	     s->fdes_skipped, s->build_ns / 1000);
	diag("  %u raw rows; cfa_expr %u ra_expr %u fp_expr %u plt %u signal "
	     "%u end %u overlaps %u errors %u", s->rows_raw, s->cfa_expr,
	     s->ra_expr, s->fp_expr, s->plt, s->signal, s->undefined_ra,
	     s->overlaps, s->errors);
}

/* A comparison of one file's table with readelf's rows, as it goes. */
struct cmp {
	const struct mach *m;
	const struct rframes *rf;
	const struct gt_eh_table *t;
	size_t checked, bad, ends, plts, eh_over;
};

/* Whether .eh_frame has an FDE for @at: it rules there, not .debug_frame. */
static bool under_eh_frame(const struct rframes *rf, uint64_t at)
{
	for (size_t e = 0; e < rf->nr_fdes; e++)
		if (rf->fdes[e].sec == SEC_EH && at >= rf->fdes[e].lo &&
		    at < rf->fdes[e].hi)
			return true;
	return false;
}

/* Our row for @at against readelf's row @rr of FDE @f (CIE @c). */
static void check_at(struct cmp *x, const struct rcie *c,
		     const struct rfde *f, const struct rrow *rr, uint64_t at)
{
	const struct gotrace_unwind_row *o;
	char why[128], got[96];

	if (f->sec == SEC_DEBUG && under_eh_frame(x->rf, at)) {
		x->eh_over++;
		return;
	}
	o = gt_eh_table_find(x->t, at);
	x->checked++;
	x->ends += o && o->cfa_reg == GOTRACE_UNW_END;
	x->plts += o && o->cfa_reg == GOTRACE_UNW_CFA_PLT;
	if (row_agrees(x->m, c, f, rr, o, why, sizeof(why)) ||
	    x->bad++ >= SHOW_MAX)
		return;
	fmt_row(o, got, sizeof(got));
	diag("  %#" PRIx64 " (FDE %#" PRIx64 "..%#" PRIx64 "): readelf CFA %s "
	     "%s %s ra %s; ours %s: %s", at, f->lo, f->hi, rr->cfa, x->m->fp,
	     rr->fp, rr->ra, got, why);
}

/*
 * Each row of FDE @f at its first address and at the last before the
 * next row; an FDE readelf prints no row of has its CIE's.
 */
static void check_fde(struct cmp *x, const struct rcie *c,
		      const struct rfde *f)
{
	struct rrow init;

	if (!f->n) {
		if (!c->has_init)
			return;
		init = c->init;
		init.loc = f->lo;
		check_at(x, c, f, &init, f->lo);
		if (f->hi - 1 > f->lo)
			check_at(x, c, f, &init, f->hi - 1);
		return;
	}
	for (size_t j = 0; j < f->n; j++) {
		const struct rrow *rr = &x->rf->rows[f->first + j];
		uint64_t next = j + 1 < f->n ?
				x->rf->rows[f->first + j + 1].loc : f->hi;

		check_at(x, c, f, rr, rr->loc);
		if (next - 1 > rr->loc)
			check_at(x, c, f, rr, next - 1);
	}
}

/*
 * The rows of a file's table where readelf says what a row should
 * (@flags: gt_eh_table_build()'s); the table @given if not NULL (built
 * otherwise than from the file, and left to the caller), else the
 * file's.
 */
static void compare_table(const char *path, const struct mach *m,
			  unsigned int flags, const struct gt_eh_table *given)
{
	struct rframes rf = { 0 };
	struct gt_eh_table built;
	const struct gt_eh_table *t = given ? given : &built;
	struct cmp x = { .m = m, .rf = &rf, .t = t };
	uint64_t code[64][2];
	size_t ncode, fdes = 0, outside = 0;

	if (access(path, R_OK)) {
		ok(1, "# SKIP %s: not here", path);
		return;
	}
	if (!ok(read_interp(path, m, &rf), "%s: readelf -wF reads its FDEs",
		path)) {
		rframes_free(&rf);
		return;
	}
	read_raw(path, m, &rf);
	if (!ok((given || build(path, flags, &built) == 0) &&
		t->machine == m->machine, "%s: its table builds", path)) {
		rframes_free(&rf);
		return;
	}
	report(path, t);
	ncode = code_ranges(path, code, 64);
	for (size_t i = 0; i < rf.nr_fdes; i++) {
		const struct rcie *c = cie_of(&rf, &rf.fdes[i]);

		if (!c || !in_ranges(code, ncode, rf.fdes[i].lo)) {
			outside++;
			continue;
		}
		fdes++;
		check_fde(&x, c, &rf.fdes[i]);
	}
	diag("  %zu FDEs compared (%zu outside the code), %zu addresses, %zu "
	     "of them end rows, %zu plt rows; %zu under .eh_frame's rules "
	     "left to them", fdes, outside, x.checked, x.ends, x.plts,
	     x.eh_over);
	ok(x.checked > 0 && !x.bad, "%s: %zu addresses of %zu FDEs agree with "
	   "readelf, %zu mismatches", path, x.checked, fdes, x.bad);
	check_gaps(path, &rf, code, ncode, t);
	if (!given)
		gt_eh_table_free(&built);
	rframes_free(&rf);
}

static void compare_file(const char *path, const struct mach *m,
			 unsigned int flags)
{
	compare_table(path, m, flags, NULL);
}

/* --- 3. function entries --------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_entries(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t n = 0, cap = 0, good = 0, none = 0, special = 0, bad = 0;
	uint64_t *addrs = NULL;
	struct gt_eh_table t;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char got[96];

	if (!elf) {
		ok(1, "# SKIP %s: not here", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			if (gt_grow((void **)&addrs, &cap, n + 1,
				    sizeof(*addrs)))
				break;
			addrs[n++] = sym.st_value;
		}
	}
	elf_end(elf);
	close(fd);
	if (n)
		qsort(addrs, n, sizeof(*addrs), cmp_u64);
	if (!ok(build(path, 0, &t) == 0, "%s: its table builds", path)) {
		free(addrs);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gotrace_unwind_row *r;

		if (i && addrs[i] == addrs[i - 1])
			continue;
		r = gt_eh_table_find(&t, addrs[i]);
		if (r && r->cfa_reg == GOTRACE_UNW_CFA_SP && r->cfa_off == 8 &&
		    r->ra_off == -8)
			good++;
		else if (!r || r->cfa_reg == GOTRACE_UNW_NONE)
			none++;
		else if (r->cfa_reg == GOTRACE_UNW_SIGNAL ||
			 r->cfa_reg == GOTRACE_UNW_END)
			special++;
		else if (bad++ < SHOW_MAX) {
			fmt_row(r, got, sizeof(got));
			diag("  entry %#" PRIx64 ": %s", addrs[i], got);
		}
	}
	diag("%s: %zu function entries: %zu rsp+8 ra -8, %zu without an "
	     "FDE, %zu signal or end, %zu else", path, good + none + special +
	     bad, good, none, special, bad);
	ok(good && !bad && none * 100 <= (good + none) * 3,
	   "%s: every function entry with an FDE has CFA rsp+8, ra at CFA-8; "
	   "%zu of %zu without one", path, none, good + none + special + bad);
	gt_eh_table_free(&t);
	free(addrs);
}

/* --- 4. a walk over a stack built by hand ---------------------------- */

struct image {
	uint64_t base;
	uint64_t words[128];
};

static int read_image(void *arg, uint64_t addr, uint64_t *val)
{
	const struct image *im = arg;

	if (addr < im->base || addr % 8 ||
	    (addr - im->base) / 8 >= sizeof(im->words) / 8)
		return -1;
	*val = im->words[(addr - im->base) / 8];
	return 0;
}

static void put(struct image *im, uint64_t addr, uint64_t v)
{
	im->words[(addr - im->base) / 8] = v;
}

#define ROW(at, kind, off, ra, fp, fl, plt)				\
	{ .pc = (at), .cfa_reg = GOTRACE_UNW_##kind, .cfa_off = (off),	\
	  .ra_off = (ra), .fp_off = (fp), .flags = (fl), .plt_at = (plt) }
#define LOST	GOTRACE_UNW_FP_LOST

/* x86-64, base 0x1000: a leaf, a frame-pointer function, a PLT, ... */
static void synthetic_walk_x86_64(void)
{
	struct gotrace_unwind_row rows[] = {
		ROW(0x000, CFA_SP, 16, -8, -16, 0, 0),	/* leaf */
		ROW(0x100, CFA_FP, 16, -8, -16, 0, 0),	/* mid */
		ROW(0x200, CFA_PLT, 8, -8, 0, 0, 11),	/* plt */
		ROW(0x300, CFA_SP, 32, -8, 0, LOST, 0),	/* outer */
		ROW(0x400, CFA_FP, 16, -8, -16, 0, 0),	/* needs fp */
		ROW(0x500, END, 0, 0, 0, 0, 0),	/* _start */
		ROW(0x600, SIGNAL, 0, 0, 0, 0, 0),	/* restorer */
		ROW(0x700, NONE, 0, 0, 0, 0, 0),
	};
	struct gt_eh_table t = {
		.machine = EM_X86_64, .base = 0x1000, .end = 0x1700,
		.rows = rows, .nr = 8,
	};
	struct image im = { .base = 0x7000 };
	struct gt_eh_regs r = {
		.pc = 0x1010, .sp = 0x7000, .fp = 0x7100, .innermost = true,
	};
	uint64_t bias = 0x10000000;
	enum gt_eh_step s;
	bool good;

	/* leaf at sp 0x7000: CFA 0x7010, ra at 0x7008, fp at 0x7000. */
	/* A return to mid's first byte, looked up as leaf's last. */
	put(&im, 0x7008, bias + 0x1100);
	put(&im, 0x7000, 0x7060);
	r.pc += bias;
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good = s == GT_EH_STEP_OK && r.pc == bias + 0x1100 && r.sp == 0x7010 &&
	       r.fp == 0x7060 && !r.innermost;
	/* Then from leaf's rules again (0x10ff): CFA 0x7020. */
	put(&im, 0x7018, bias + 0x1180);
	put(&im, 0x7010, 0x7070);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.pc == bias + 0x1180 && r.sp == 0x7020 &&
		r.fp == 0x7070;
	/* mid: CFA = fp 0x7070 + 16; ra at 0x7078, fp at 0x7070. */
	put(&im, 0x7078, bias + 0x1301);
	put(&im, 0x7070, 0x70c0);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.pc == bias + 0x1301 && r.sp == 0x7080 &&
		r.fp == 0x70c0;
	/* outer (0x1300): CFA sp + 32 = 0x70a0, ra at 0x7098; fp lost. */
	put(&im, 0x7098, bias + 0x1410);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.pc == bias + 0x1410 && r.sp == 0x70a0 &&
		r.fp_lost;
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	ok(good && s == GT_EH_STEP_NO_FP,
	   "x86-64 walk by hand: sp, fp, a return address at a row's first "
	   "byte looked up before it, fp lost then needed (%s)",
	   gt_eh_step_name(s));

	/* The PLT: innermost at entry byte 6 (before the push), then 11. */
	r = (struct gt_eh_regs){ .pc = bias + 0x1206, .sp = 0x7200,
				 .innermost = true };
	im.base = 0x7200;
	memset(im.words, 0, sizeof(im.words));
	put(&im, 0x7200, bias + 0x1501);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good = s == GT_EH_STEP_OK && r.sp == 0x7208 && r.pc == bias + 0x1501;
	r = (struct gt_eh_regs){ .pc = bias + 0x121b, .sp = 0x7200,
				 .innermost = true };
	put(&im, 0x7208, bias + 0x1501);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.sp == 0x7210 && r.pc == bias + 0x1501;
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	ok(good && s == GT_EH_STEP_END,
	   "x86-64 PLT entry before and after its push (plt_at 11), then "
	   "_start's end row (%s)", gt_eh_step_name(s));

	/* A signal frame: the ucontext at sp, registers in its mcontext. */
	r = (struct gt_eh_regs){ .pc = bias + 0x1601, .sp = 0x7200 };
	put(&im, 0x7200 + 168, bias + 0x1020);
	put(&im, 0x7200 + 160, 0x7300);
	put(&im, 0x7200 + 120, 0x7310);
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good = s == GT_EH_STEP_OK && r.pc == bias + 0x1020 && r.sp == 0x7300 &&
	       r.fp == 0x7310 && r.innermost;
	r.pc = bias + 0x1700;
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	good &= s == GT_EH_STEP_NO_RULE;
	r.pc = bias + 0x0fff;
	s = gt_eh_step(&t, bias, &r, read_image, &im);
	ok(good && s == GT_EH_STEP_NO_RULE,
	   "x86-64 signal frame: the interrupted registers, innermost; no "
	   "rule past the end or before the base");
}

/* arm64: a leaf's return address in x30, valid only innermost. */
static void synthetic_walk_arm64(void)
{
	struct gotrace_unwind_row rows[] = {
		ROW(0x00, CFA_SP, 0, 0, 0, 0, 0),	/* leaf: ra in x30 */
		ROW(0x40, CFA_FP, 16, -8, -16, 0, 0),
		ROW(0x80, CFA_SP, 0, 0, 0, 0, 0),
		ROW(0xc0, SIGNAL, 0, 0, 0, 0, 0),
		ROW(0x100, NONE, 0, 0, 0, 0, 0),
	};
	struct gt_eh_table a = {
		.machine = EM_AARCH64, .base = 0x4000, .end = 0x4100,
		.rows = rows, .nr = 5,
	};
	struct image im = { .base = 0x9000 };
	struct gt_eh_regs r;
	enum gt_eh_step s;
	bool good;

	r = (struct gt_eh_regs){ .pc = 0x4010, .sp = 0x9000, .fp = 0x9000,
				 .lr = 0x4050, .innermost = true };
	s = gt_eh_step(&a, 0, &r, read_image, &im);
	good = s == GT_EH_STEP_OK && r.pc == 0x4050 && r.sp == 0x9000 &&
	       r.fp == 0x9000;
	put(&im, 0x9008, 0x4090);
	put(&im, 0x9000, 0x9100);
	s = gt_eh_step(&a, 0, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.pc == 0x4090 && r.sp == 0x9010 &&
		r.fp == 0x9100;
	s = gt_eh_step(&a, 0, &r, read_image, &im);
	good &= s == GT_EH_STEP_NO_LR;
	/* The kernel's rt_sigframe: siginfo, then the ucontext. */
	r = (struct gt_eh_regs){ .pc = 0x40c4, .sp = 0x9000 };
	put(&im, 0x9000 + 568, 0x4004);
	put(&im, 0x9000 + 560, 0x9020);
	put(&im, 0x9000 + 552, 0x4044);
	put(&im, 0x9000 + 544, 0x9030);
	s = gt_eh_step(&a, 0, &r, read_image, &im);
	good &= s == GT_EH_STEP_OK && r.pc == 0x4004 && r.sp == 0x9020 &&
		r.fp == 0x9030 && r.lr == 0x4044 && r.innermost;
	s = gt_eh_step(&a, 0, &r, read_image, &im);
	ok(good && s == GT_EH_STEP_OK && r.pc == 0x4044,
	   "arm64 walk by hand: x30 innermost, not in a caller; a signal "
	   "frame gives the interrupted x30 back");
}

/* --- 5. this process, through the C library -------------------------- */

struct mapping {
	uint64_t start, end, off;
	char path[256];
	struct gt_eh_table t;
	uint64_t bias;
	int state;		/* 0: not built, 1: built, -1: failed */
};

struct self {
	struct mapping maps[64];
	size_t n;
	uint64_t stack_lo, stack_hi;
};

static void read_maps(struct self *s)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f) && s->n < 64) {
		struct mapping *m = &s->maps[s->n];
		char perm[8], path[256] = "";
		uint64_t lo, hi, off;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*s %255s", &lo, &hi, perm, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]")) {
			s->stack_lo = lo;
			s->stack_hi = hi;
		}
		if (perm[2] != 'x' || (path[0] != '/' &&
					strcmp(path, "[vdso]")))
			continue;
		*m = (struct mapping){ .start = lo, .end = hi, .off = off };
		snprintf(m->path, sizeof(m->path), "%s", path);
		s->n++;
	}
	if (f)
		fclose(f);
}

/*
 * The vDSO's mapping @m: its table built from the image in memory, the
 * bias that of its PT_LOAD at offset 0, the mapping's start.
 */
static struct mapping *vdso_mapping(struct mapping *m)
{
	const ElfW(Ehdr) *eh = (const void *)(uintptr_t)m->start;
	const ElfW(Phdr) *ph = (const void *)(uintptr_t)(m->start +
							  eh->e_phoff);
	char err[512];

	if (gt_eh_table_build_mem(eh, m->end - m->start, m->path, 0, &m->t,
				  err, sizeof(err))) {
		diag("%s", err);
		return NULL;
	}
	for (unsigned int j = 0; j < eh->e_phnum; j++)
		if (ph[j].p_type == PT_LOAD && !ph[j].p_offset) {
			m->bias = m->start - ph[j].p_vaddr;
			m->state = 1;
		}
	return m->state > 0 ? m : NULL;
}

/* The mapping of @pc, its table built on first use; NULL if none. */
static struct mapping *mapping_of(struct self *s, uint64_t pc)
{
	for (size_t i = 0; i < s->n; i++) {
		struct mapping *m = &s->maps[i];
		int fd;
		Elf *elf;
		size_t nph;

		if (pc < m->start || pc >= m->end)
			continue;
		if (m->state)
			return m->state > 0 ? m : NULL;
		m->state = -1;
		if (!strcmp(m->path, "[vdso]"))
			return vdso_mapping(m);
		if (build(m->path, 0, &m->t))
			return NULL;
		/* The load bias: the mapping's file offset as an address. */
		fd = open(m->path, O_RDONLY);
		elf = elf_begin(fd, ELF_C_READ, NULL);
		for (size_t j = 0; elf && !elf_getphdrnum(elf, &nph) && j < nph;
		     j++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)j, &ph) &&
			    ph.p_type == PT_LOAD && m->off >= ph.p_offset &&
			    m->off < ph.p_offset + ph.p_filesz) {
				m->bias = m->start - (ph.p_vaddr + m->off -
						      ph.p_offset);
				m->state = 1;
			}
		}
		if (elf)
			elf_end(elf);
		close(fd);
		return m->state > 0 ? m : NULL;
	}
	return NULL;
}

/* The stack's own memory, read as it is (no sanitizer check on it). */
__attribute__((no_sanitize_address))
static int read_self(void *arg, uint64_t addr, uint64_t *val)
{
	const struct self *s = arg;

	if (addr < s->stack_lo || addr + 8 > s->stack_hi || addr % 8)
		return -1;
	*val = *(const volatile uint64_t *)(uintptr_t)addr;
	return 0;
}

#define WALK_MAX	64

/* What the callback found, while the frames it walked were there. */
static struct {
	struct self *self;
	bool done;
	uint64_t pcs[WALK_MAX];
	int nr_pcs;
	enum gt_eh_step stop;
	void *bt[WALK_MAX];
	int nr_bt;
} here;

/* Walk from @r, outwards, each PC into here.pcs. */
__attribute__((noinline)) static void walk_from(struct gt_eh_regs r)
{
	here.stop = GT_EH_STEP_OK;
	while (here.nr_pcs < WALK_MAX) {
		struct mapping *m = mapping_of(here.self, r.pc);

		here.pcs[here.nr_pcs++] = r.pc;
		if (!m) {
			here.stop = GT_EH_STEP_NO_RULE;
			break;
		}
		here.stop = gt_eh_step(&m->t, m->bias, &r, read_self,
				       here.self);
		if (here.stop != GT_EH_STEP_OK)
			break;
	}
}

/*
 * The walk's start: this function's own registers, then backtrace()'s
 * view, then the walk, deeper on the stack than every frame it reads.
 */
__attribute__((noinline)) static void capture(void)
{
	struct gt_eh_regs r = { .innermost = true };

#ifdef __x86_64__
	__asm__ volatile("lea 0(%%rip), %0\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2"
			 : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp));
#else
	return;		/* walk_self() skips */
#endif
	here.nr_bt = backtrace(here.bt, WALK_MAX);
	walk_from(r);
	here.done = true;
	__asm__ volatile("" ::: "memory");
}

/* twalk()'s action: the C library calls it, from its own recursion. */
static void visit(const void *node, VISIT which, int level)
{
	(void)node;
	(void)level;
	if (!here.done && (which == leaf || which == postorder))
		capture();
}

static void keep(void *node)
{
	(void)node;
}

static void walk_self(void)
{
	static uint64_t v[] = { 4, 2, 6, 1, 3, 5, 7 };
	int n, from = -1, agree = 0;
	void *root = NULL;

#ifndef __x86_64__
	ok(1, "# SKIP the walk of this process is x86-64's");
	return;
#endif
	here.self = calloc(1, sizeof(*here.self));
	if (!here.self)
		return;
	read_maps(here.self);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		tsearch(&v[i], &root, cmp_u64);
	twalk(root, visit);
	tdestroy(root, keep);
	n = here.nr_pcs;
	/* backtrace()'s first frames are its own caller's: find ours. */
	for (int i = 0; n > 1 && i < here.nr_bt && from < 0; i++)
		if ((uint64_t)(uintptr_t)here.bt[i] == here.pcs[1])
			from = i;
	for (int i = 0; i < n; i++) {
		struct mapping *m = mapping_of(here.self, here.pcs[i]);
		const char *base = m ? strrchr(m->path, '/') : NULL;
		int at = from + i - 1;
		bool same = i && from >= 0 && at < here.nr_bt &&
			    here.pcs[i] == (uint64_t)(uintptr_t)here.bt[at];

		agree += same;
		diag("  frame %d: %s+%#" PRIx64 "%s", i, base ? base + 1 : "?",
		     m ? here.pcs[i] - m->bias : here.pcs[i],
		     !i ? " (where the walk starts)" :
		     same ? "" : " (not backtrace()'s)");
	}
	ok(here.done && here.stop == GT_EH_STEP_END && from >= 0 &&
	   agree == n - 1 && from + n - 1 == here.nr_bt,
	   "a walk of this process from a twalk() callback: %d frames to "
	   "_start's end row (%s), %d return addresses backtrace()'s, of %d",
	   n, gt_eh_step_name(here.stop), agree, from >= 0 ?
	   here.nr_bt - from : 0);
	for (size_t i = 0; i < here.self->n; i++)
		gt_eh_table_free(&here.self->maps[i].t);
	free(here.self);
}

/* --- 6. the vDSO ------------------------------------------------------ */

/*
 * The kernel's vDSO has no file: its table is built from this process's
 * image in memory (gt_eh_table_build_mem()).  Those bytes, written to a
 * file as far as its headers reach, are what readelf reads: the table
 * built in memory must agree with readelf at every row, as a file's
 * does, and be the very rows a build from that file gives.
 */
static void check_vdso(void)
{
	char path[] = "/tmp/eh_table_vdso.XXXXXX", err[512];
	const uint8_t *image = (const void *)(uintptr_t)
			       getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const void *)image;
	const ElfW(Phdr) *ph;
	const ElfW(Shdr) *sh;
	struct gt_eh_table mem, file;
	size_t size = 0, len = 0;
	const void *vdso = gt_eh_vdso(&size);
	bool same;
	int fd, r;

	if (!image || sizeof(void *) != 8) {
		ok(1, "# SKIP no 64-bit vDSO (%p)", (const void *)image);
		return;
	}
	/* Its extent: every segment, the section headers, every section. */
	ph = (const void *)(image + eh->e_phoff);
	for (unsigned int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > len)
			len = ph[i].p_offset + ph[i].p_filesz;
	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > len)
		len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (!ok(vdso == image && len <= size,
		"gt_eh_vdso(): AT_SYSINFO_EHDR (%p), its mapping's %zu bytes "
		"hold the %zu its headers describe", vdso, size, len))
		return;
	sh = (const void *)(image + eh->e_shoff);
	for (unsigned int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    sh[i].sh_offset + sh[i].sh_size > len &&
		    sh[i].sh_offset + sh[i].sh_size <= size)
			len = sh[i].sh_offset + sh[i].sh_size;
	fd = mkstemp(path);
	r = fd >= 0 && gt_write_all(fd, image, len) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	if (!ok(r == 0, "the vDSO's %zu bytes written to %s", len, path))
		goto out;
	r = gt_eh_table_build_mem(vdso, size, "[vdso]", 0, &mem, err,
				  sizeof(err));
	if (!ok(r == 0 && mem.nr > 1 && mem.machine == host->machine,
		"[vdso]: its table builds from memory (%s)", r ? err : "ok"))
		goto out;
	diag("[vdso]: %u rows, %zu bytes, %u FDEs, built in %" PRIu64 " us",
	     mem.nr, (size_t)mem.nr * sizeof(*mem.rows), mem.st.fdes,
	     mem.st.build_ns / 1000);
	compare_table(path, host, 0, &mem);
	r = build(path, 0, &file);
	same = r == 0 && file.nr == mem.nr && file.base == mem.base &&
	       file.end == mem.end && file.build_id_len == mem.build_id_len &&
	       !memcmp(file.build_id, mem.build_id, mem.build_id_len) &&
	       !memcmp(file.rows, mem.rows, mem.nr * sizeof(*mem.rows));
	ok(same, "[vdso]: the table built in memory is the one built from "
	   "the file (%u rows, %u)", mem.nr, r ? 0 : file.nr);
	if (!r)
		gt_eh_table_free(&file);
	gt_eh_table_free(&mem);
out:
	unlink(path);
}

/*
 * 7. Walks of this process from inside the vDSO: a CPU timer's signals
 * that interrupt clock_gettime() in the vDSO walk, in the handler, from
 * the interrupted registers through the vDSO's table, the C library's
 * wrapper, this file's loop, to _start; every PC of each what
 * backtrace() (libgcc's unwinder, which reads the vDSO's .eh_frame
 * itself, through the signal frame) finds after the handler's frames.
 */
#define VDSO_WALKS	32

struct vwalk {
	uint64_t pcs[WALK_MAX];
	int nr_pcs;
	enum gt_eh_step stop;
	void *bt[WALK_MAX];
	int nr_bt;
};

static struct {
	struct self *self;
	struct mapping *vdso;
	volatile sig_atomic_t n;	/* walks done */
	unsigned long misses;		/* signals outside the vDSO */
	struct vwalk w[VDSO_WALKS];
} vw;

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;
	struct gt_eh_regs r = { .innermost = true };
	struct vwalk *w;

	(void)sig;
	(void)si;
	if (vw.n == VDSO_WALKS)
		return;
#ifdef __x86_64__
	r.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	r.sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	r.fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
#else
	(void)uc;
#endif
	if (r.pc < vw.vdso->start || r.pc >= vw.vdso->end) {
		vw.misses++;
		return;
	}
	w = &vw.w[vw.n];
	/* Every table is built: the walk allocates nothing here. */
	w->nr_bt = backtrace(w->bt, WALK_MAX);
	w->stop = GT_EH_STEP_OK;
	while (w->nr_pcs < WALK_MAX) {
		struct mapping *m = mapping_of(vw.self, r.pc);

		w->pcs[w->nr_pcs++] = r.pc;
		if (!m || m->state <= 0) {
			w->stop = GT_EH_STEP_NO_RULE;
			break;
		}
		w->stop = gt_eh_step(&m->t, m->bias, &r, read_self, vw.self);
		if (w->stop != GT_EH_STEP_OK)
			break;
	}
	vw.n++;
}

/* Reads the clock until the signals have walked, 3 s at most. */
__attribute__((noinline)) static void spin_in_vdso(void)
{
	struct timespec ts, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 3;
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (vw.n < VDSO_WALKS && (ts.tv_sec < end.tv_sec ||
				     (ts.tv_sec == end.tv_sec &&
				      ts.tv_nsec < end.tv_nsec)));
	__asm__ volatile("" ::: "memory");
}

/* Whether walk @w is backtrace()'s, shown if it is the first not. */
static bool vwalk_agrees(const struct vwalk *w, bool show)
{
	int from = -1, agree = 0, n = w->nr_pcs;

	/* backtrace()'s own frames, the handler's and the signal frame's. */
	for (int i = 0; n && i < w->nr_bt && from < 0; i++)
		if ((uint64_t)(uintptr_t)w->bt[i] == w->pcs[0])
			from = i;
	for (int i = 0; i < n; i++)
		agree += from >= 0 && from + i < w->nr_bt &&
			 w->pcs[i] == (uint64_t)(uintptr_t)w->bt[from + i];
	if (w->stop == GT_EH_STEP_END && n > 3 && agree == n &&
	    from + n == w->nr_bt)
		return true;
	for (int i = 0; show && i < n; i++) {
		struct mapping *m = mapping_of(vw.self, w->pcs[i]);
		const char *base = !m ? NULL : m->path[0] == '/' ?
				   strrchr(m->path, '/') + 1 : m->path;

		diag("  frame %d: %s+%#" PRIx64, i, base ? base : "?",
		     m ? w->pcs[i] - m->bias : w->pcs[i]);
	}
	if (show)
		diag("  %d frames (%s), %d of them backtrace()'s, of %d", n,
		     gt_eh_step_name(w->stop), agree,
		     from >= 0 ? w->nr_bt - from : 0);
	return false;
}

static void walk_vdso(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { 0 };
	struct sigaction sa = { .sa_sigaction = on_prof,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	uint64_t pcs[VDSO_WALKS];
	int good = 0, frames = 0, npcs = 0;
	void *warm[4];

#ifndef __x86_64__
	ok(1, "# SKIP the walks from the vDSO are x86-64's");
	return;
#endif
	vw.self = calloc(1, sizeof(*vw.self));
	if (!vw.self)
		return;
	read_maps(vw.self);
	for (size_t i = 0; i < vw.self->n; i++) {
		struct mapping *m = mapping_of(vw.self,
					       vw.self->maps[i].start);

		if (m && !strcmp(m->path, "[vdso]"))
			vw.vdso = m;
	}
	if (!vw.vdso) {
		ok(1, "# SKIP no [vdso] mapping with a table");
		goto out;
	}
	/* libgcc loaded, and its unwinder's caches made, out of the handler. */
	backtrace(warm, 4);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	spin_in_vdso();
	setitimer(ITIMER_PROF, &off, NULL);
	signal(SIGPROF, SIG_DFL);
	for (int i = 0; i < vw.n; i++) {
		bool seen = false;

		good += vwalk_agrees(&vw.w[i], good == i);
		frames += vw.w[i].nr_pcs;
		for (int j = 0; j < npcs; j++)
			seen |= pcs[j] == vw.w[i].pcs[0];
		if (!seen)
			pcs[npcs++] = vw.w[i].pcs[0];
	}
	ok(vw.n == VDSO_WALKS && good == vw.n,
	   "walks of this process from a CPU timer's signals in the vDSO "
	   "(%d PCs): %d of %d to _start's end row, every frame "
	   "backtrace()'s (%d frames; %lu signals outside the vDSO)", npcs,
	   good, (int)vw.n, frames, vw.misses);
out:
	for (size_t i = 0; i < vw.self->n; i++)
		gt_eh_table_free(&vw.self->maps[i].t);
	free(vw.self);
}

/* --- the rest -------------------------------------------------------- */

static void misc(void)
{
	struct gt_eh_table t;
	bool ibt = false;
	char err[256];
	int fd = open("tests/eh_prog.c", O_RDONLY), r;

	r = gt_eh_table_build(fd, "tests/eh_prog.c", 0, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "not an ELF file") && !t.nr,
	   "a file that is not ELF: %s", err);
	if (fd >= 0)
		close(fd);

	fd = open("build/eh_prog_O2", O_RDONLY);
	r = gt_eh_table_build(fd, "build/eh_prog_O2", 0, &t, err, sizeof(err));
	ok(r == 0 && t.build_id_len == 20 && t.nr > 2 &&
	   t.rows[t.nr - 1].cfa_reg == GOTRACE_UNW_NONE &&
	   t.rows[t.nr - 1].pc == t.end - t.base &&
	   gt_eh_table_find(&t, t.base - 1) == NULL &&
	   gt_eh_table_find(&t, t.base) == &t.rows[0] &&
	   gt_eh_table_find(&t, t.end + 100) == &t.rows[t.nr - 1],
	   "build/eh_prog_O2: its build id, the last row a none row at the "
	   "end, the search at both ends");
	for (uint32_t i = 1; r == 0 && i + 1 < t.nr; i++) {
		const struct gotrace_unwind_row *a = &t.rows[i - 1];
		const struct gotrace_unwind_row *b = &t.rows[i];

		if (a->pc >= b->pc || (a->cfa_reg == b->cfa_reg &&
		    a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
		    a->fp_off == b->fp_off && a->flags == b->flags &&
		    a->plt_at == b->plt_at)) {
			r = -1;
			diag("  rows %u and %u: unsorted or alike", i - 1, i);
		}
	}
	ok(r == 0, "build/eh_prog_O2: its rows sorted, no two alike in a row");
	gt_eh_table_free(&t);
	if (fd >= 0)
		close(fd);

	fd = open("build/eh_prog_ibt", O_RDONLY);
	r = gt_eh_table_build(fd, "build/eh_prog_ibt", 0, &t, err, sizeof(err));
	for (uint32_t i = 0; r == 0 && i < t.nr; i++)
		ibt |= t.rows[i].cfa_reg == GOTRACE_UNW_CFA_PLT &&
		       t.rows[i].plt_at == 9;
	ok(ibt || host != &x86_64,
	   "build/eh_prog_ibt: its IBT PLT (endbr64 first) pushes at byte 9");
	gt_eh_table_free(&t);
	if (fd >= 0)
		close(fd);

	fd = open("build/eh_prog_dbg", O_RDONLY);
	r = gt_eh_table_build(fd, "build/eh_prog_dbg", 0, &t, err, sizeof(err));
	ok(r == 0 && t.st.fdes_debug > 0,
	   "build/eh_prog_dbg: its functions' rules from a compressed "
	   ".debug_frame (%u FDEs)", t.st.fdes_debug);
	gt_eh_table_free(&t);
	if (fd >= 0)
		close(fd);
}

/*
 * The dynamic loader's entry point (_start, then _dl_start_user) has no
 * FDE: its table takes it as the outermost frame, an END row from the
 * entry on, where every process's first stacks end (the return address
 * of its call of _dl_start() is 8 bytes in, of _dl_init() 48).
 */
static void check_ldso_entry(void)
{
	const struct gotrace_unwind_row *r8, *r48;
	struct gt_eh_table t;
	GElf_Ehdr eh = { 0 };
	Elf *elf;
	int fd;

	fd = open(LDSO, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		gelf_getehdr(elf, &eh);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (build(LDSO, 0, &t)) {
		ok(0, "%s: its entry point's END row", LDSO);
		return;
	}
	r8 = gt_eh_table_find(&t, eh.e_entry + 7);
	r48 = gt_eh_table_find(&t, eh.e_entry + 47);
	ok(eh.e_entry && t.st.entry_end == eh.e_entry && r8 && r48 &&
	   r8->cfa_reg == GOTRACE_UNW_END && r48->cfa_reg == GOTRACE_UNW_END,
	   "%s: its entry point %#" PRIx64 " without an FDE is the outermost "
	   "frame (END rows at +7 and +47)", LDSO, (uint64_t)eh.e_entry);
	gt_eh_table_free(&t);
}

int main(void)
{
	static const char *const sizes[] = {
		LIBC, LDSO, BASH, "/lib/systemd/systemd", ARM64_LIBC,
	};

	elf_version(EV_CURRENT);
	compare_file(LIBC, &x86_64, 0);
	compare_file(LDSO, &x86_64, 0);
	compare_file(BASH, &x86_64, 0);
	compare_file("build/eh_prog_O2", host, 0);
	compare_file("build/eh_prog_O0", host, 0);
	compare_file("build/eh_prog_ibt", host, 0);
	compare_file("build/eh_prog_dbg", host, 0);
	/* Go's linker writes only .debug_frame, compressed. */
	compare_file(GOPROG, host, GT_EH_BUILD_GO);
	compare_file(ARM64_LIBC, &arm64, 0);
	check_entries(LIBC);
	check_ldso_entry();
	synthetic_walk_x86_64();
	synthetic_walk_arm64();
	walk_self();
	check_vdso();
	walk_vdso();
	misc();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct gt_eh_table t;

		if (!access(sizes[i], R_OK) && !build(sizes[i], 0, &t)) {
			diag("size: %s: %u rows, %zu bytes, %" PRIu64
			     " us (sanitized)",
			     sizes[i], t.nr, (size_t)t.nr * sizeof(*t.rows),
			     t.st.build_ns / 1000);
			gt_eh_table_free(&t);
		}
	}
	return tap_done();
}
