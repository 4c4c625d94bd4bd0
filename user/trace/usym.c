// SPDX-License-Identifier: GPL-2.0
/*
 * usym.c - a file offset in a binary to its function, file and line,
 * through elfutils' libdwfl
 *
 * Each binary gets its own Dwfl session, reported offline at base 0, so
 * that its addresses are the ELF file's own virtual addresses: the
 * recorders give offsets in the file (what a mapping says), and the
 * PT_LOAD program headers turn them into those addresses.  libdwfl then
 * finds the symbol (Go's symbol table names functions as Go does,
 * "main.readLoop") and the line, in the binary or in a separate debug
 * file (build id, .gnu_debuglink) through its standard finder.
 *
 * The sessions are kept until the resolver is closed, failed ones too:
 * a trace names the same few binaries in every generation.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"
#include "usym.h"

struct bin {
	Dwfl *dwfl;		/* NULL: the file could not be read as ELF */
	Dwfl_Module *mod;
};

struct gt_usym {
	struct gt_names paths;	/* index i is bins[i] */
	struct bin *bins;
	size_t cap, failed;
	/* Source paths made absolute with their compilation directory. */
	struct gt_names joined;
};

static char *debuginfo_path;	/* NULL: libdwfl's default search path */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct gt_usym *gt_usym_open(void)
{
	return calloc(1, sizeof(struct gt_usym));
}

void gt_usym_close(struct gt_usym *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->paths.n; i++)
		if (u->bins[i].dwfl)
			dwfl_end(u->bins[i].dwfl);
	free(u->bins);
	gt_names_free(&u->paths);
	gt_names_free(&u->joined);
	free(u);
}

/* Open @path as a binary of its own; a failure leaves @b empty. */
static void bin_open(struct bin *b, const char *path)
{
	struct stat st;
	const char *base = strrchr(path, '/');

	*b = (struct bin){ 0 };
	/* libdwfl would open a directory or a FIFO and fail, or block. */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	b->dwfl = dwfl_begin(&callbacks);
	if (!b->dwfl)
		return;
	dwfl_report_begin(b->dwfl);
	/* Base 0 with p_vaddr added: the module's addresses are the file's. */
	b->mod = dwfl_report_elf(b->dwfl, base ? base + 1 : path, path, -1, 0,
				 true);
	if (dwfl_report_end(b->dwfl, NULL, NULL) || !b->mod) {
		dwfl_end(b->dwfl);
		*b = (struct bin){ 0 };
	}
}

/* The cached session of @path, opened on first use; NULL out of memory. */
static struct bin *bin_get(struct gt_usym *u, const char *path)
{
	size_t before = u->paths.n;
	long i = gt_names_index(&u->paths, path, strlen(path));

	if (i < 0)
		return NULL;
	if ((size_t)i < before)
		return &u->bins[i];
	if (gt_grow((void **)&u->bins, &u->cap, (size_t)i + 1,
		    sizeof(*u->bins)))
		return NULL;
	bin_open(&u->bins[i], path);
	if (!u->bins[i].dwfl)
		u->failed++;
	return &u->bins[i];
}

/*
 * The ELF address of file offset @off through the PT_LOAD headers, if it
 * is in code: an executable segment's.  A return address in data (the
 * read-only data of a static Go binary, after its text) is no frame,
 * but a value a user stack walk took for one (a frame pointer that was
 * none): the symbol before it, or one of the data, is not its name.
 */
static bool off_to_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (ph && ph->p_type == PT_LOAD && ph->p_flags & PF_X &&
		    ph->p_offset <= off && off - ph->p_offset < ph->p_filesz) {
			*vaddr = off - ph->p_offset + ph->p_vaddr;
			return true;
		}
	}
	return false;
}

/*
 * The line of @addr by a walk of the compilation units.  libdwfl finds a
 * unit through .debug_aranges, which Go's linker does not write, and
 * the elfutils of Debian 12 (0.188) then finds none (usym_test's Go
 * binary had no line without this): each unit's own ranges are asked
 * instead.
 */
static Dwarf_Line *line_by_units(Dwfl_Module *mod, Dwarf_Addr addr,
				 Dwarf_Die **unit)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		if (dwarf_haspc(cu, addr - bias) > 0) {
			*unit = cu;
			return dwarf_getsrc_die(cu, addr - bias);
		}
	}
	return NULL;
}

/*
 * @src of unit @cu as a path: a relative one (C compilers name the
 * sources as they were given) joined to the unit's compilation directory,
 * as addr2line does.  NULL out of memory.
 */
static const char *src_path(struct gt_usym *u, Dwarf_Die *cu, const char *src)
{
	Dwarf_Attribute mem;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &mem));
	char *p;
	long i;

	if (src[0] == '/' || !dir || !*dir)
		return src;
	if (asprintf(&p, "%s/%s", dir, src) < 0)
		return NULL;
	i = gt_names_index(&u->joined, p, strlen(p));
	free(p);
	return i < 0 ? NULL : u->joined.v[i];
}

int gt_usym_resolve(struct gt_usym *u, const char *path, uint64_t off,
		    bool exact, struct gt_usym_loc *loc)
{
	struct bin *b = bin_get(u, path);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias, addr, cubias;
	Dwarf_Line *line;
	Dwfl_Line *dl;
	const char *name, *src;
	uint64_t vaddr;
	GElf_Off soff;
	GElf_Sym sym;
	Elf *elf;
	int lineno = 0;

	if (!b)
		return -1;
	if (!b->dwfl)
		return 0;
	elf = dwfl_module_getelf(b->mod, &bias);
	/* vaddr 0 would look up the address before the file's first byte. */
	if (!elf || !off_to_vaddr(elf, off, &vaddr) || (!exact && !vaddr))
		return 0;
	/* A return address: the call is the instruction before it. */
	addr = vaddr - !exact + bias;
	name = dwfl_module_addrinfo(b->mod, addr, &soff, &sym, NULL, NULL,
				    NULL);
	if (!name || !*name)
		return 0;
	loc->func = name;
	loc->file = path;
	loc->line = 0;
	dl = dwfl_module_getsrc(b->mod, addr);
	line = dl ? dwfl_dwarf_line(dl, &cubias) : NULL;
	if (line)
		cu = dwfl_module_addrdie(b->mod, addr, &cubias);
	else
		line = line_by_units(b->mod, addr, &cu);
	src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	if (src && *src && !dwarf_lineno(line, &lineno) && lineno > 0) {
		src = cu ? src_path(u, cu, src) : src;
		if (!src)
			return -1;
		loc->file = src;
		loc->line = (uint64_t)lineno;
	}
	return 1;
}

bool gt_usym_parse(const char *func, size_t flen, const char *file,
		   size_t filelen, uint64_t *off)
{
	const char *base;
	size_t blen, i;
	uint64_t v = 0;

	if (!filelen || file[0] != '/' || memchr(file, 0, filelen))
		return false;
	base = file + filelen;
	while (base[-1] != '/')
		base--;
	blen = (size_t)(file + filelen - base);
	if (!blen || flen < blen + 4 || memcmp(func, base, blen) ||
	    memcmp(func + blen, "+0x", 3))
		return false;
	/* At most 16 digits: a u64. */
	if (flen - blen - 3 > 16)
		return false;
	for (i = blen + 3; i < flen; i++) {
		char c = func[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return false;
	}
	*off = v;
	return true;
}

void gt_usym_counts(const struct gt_usym *u, size_t *opened, size_t *failed)
{
	*opened = u->paths.n;
	*failed = u->failed;
}
