// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_mgr_test.c - the unwind tables' manager (unwind/unwind.c) read
 * the way the BPF walker reads them
 *
 * The manager hands rows, table slots and mappings to a sink (the BPF
 * maps); the walker (gotrace.bpf.c: unw_map_of(), unw_row_index(),
 * unw_step()) then finds a PC's row by a binary search of the space's
 * mappings, the table's index and a search between two index entries,
 * and refuses a table whose generation is odd or not the mapping's.
 * Nothing of that can be seen from the command: a bias off by a page, an
 * index entry off by one, a slot rewritten under a live mapping give
 * wrong rows, not errors.  So this test's sink keeps what it is handed
 * in memory, and a C copy of the walker's lookup (written from
 * linux/gotrace_unwind.h) reads it; every row it finds must be the very
 * row gt_eh_table_find() gives on a table built directly from the file,
 * at the ELF address this test computes on its own (/proc/PID/maps and
 * the file's PT_LOAD headers, cross-checked with dl_iterate_phdr()).
 *
 * 1. This process's own space (libc, the sanitizers' libraries, libdw,
 *    the test binary, and, if lld is there, a library linked by lld,
 *    whose code segment is not page-aligned in the file): the space's
 *    mappings sorted, disjoint, all of them; at every function symbol of
 *    every file (entry, entry + 4, middle, as a return address at its
 *    end), at PCs spread over every mapping, at libc's read, malloc,
 *    qsort and at return addresses (__builtin_return_address), the rows
 *    agree.  The vDSO, which has no file, has its table too, built from
 *    this process's image: its rows at its symbols and spread PCs.
 * 2. Eviction: an array that holds dash's space (dash, libc, ld.so) and
 *    a few rows more; bash's space then evicts.  The evicted slot's
 *    generation changes, odd while its rows are rewritten (the sink's log
 *    of table() calls), no live table's rows are ever overwritten, the
 *    mapping made before is refused by the lookup, the peak fits.
 * 3. A table larger than the array: too_big, the mapping without table.
 * 4. A process that does not exist: gone, no space() call; a Go binary
 *    (stopped at its exec by ptrace): no table but its vDSO's, no_table
 *    counted; a space the sink refuses as stale or gone (the module's
 *    -ESTALE, -ESRCH) counted gone, another refusal spaces_full.
 * 5. gt_unwind_free() with a thousand requests queued returns after at
 *    most the one in progress; everything freed (LeakSanitizer, at the
 *    end, through its interface when the test is sanitized).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define HAVE_LSAN 1
#endif

#include "tap.h"
#include "unwind/eh_table.h"
#include "unwind/unwind.h"

#define MAPS_MAX	GOTRACE_UNWIND_MAPS_MAX
#define SINK_SPACES	16
#define SHOW_MAX	5		/* mismatches printed per check */
#define GOPROG		"build/usym_go"
#define GO123		"/usr/lib/go-1.23/bin/go"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- The sink: the BPF maps, in memory ------------------------------ */

struct sspace {
	uint64_t id;
	uint32_t nr;
	struct gotrace_unwind_map maps[MAPS_MAX];
};

struct tlog {
	uint32_t slot;
	struct gotrace_unwind_table t;
};

struct sink {
	pthread_mutex_t lock;
	uint32_t max_rows, max_tables;
	struct gotrace_unwind_row *rows;
	struct gotrace_unwind_table *tables;
	struct tlog *log;
	size_t nlog, logcap;
	struct sspace spaces[SINK_SPACES];
	size_t nspaces;
	unsigned long space_calls, space_dels, space_full;
	int space_tgid;			/* of the last space() call */
	int space_err;			/* what space() returns, if not 0 */
	unsigned long rows_calls, oob, live_overwrites;
};

/* The slots a table takes: its rows, its index. */
static bool table_live(const struct gotrace_unwind_table *t)
{
	return !(t->gen & 1) && t->nr;
}

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

static int sink_rows(void *arg, uint32_t first,
		     const struct gotrace_unwind_row *rows, uint32_t n)
{
	struct sink *s = arg;

	pthread_mutex_lock(&s->lock);
	s->rows_calls++;
	if ((uint64_t)first + n > s->max_rows) {
		s->oob++;
		pthread_mutex_unlock(&s->lock);
		return -ENOSPC;
	}
	/* A table a walker may use now must not change under it. */
	for (uint32_t i = 0; i < s->max_tables; i++) {
		const struct gotrace_unwind_table *t = &s->tables[i];

		if (table_live(t) &&
		    (overlaps(first, n, t->first, t->nr) ||
		     overlaps(first, n, t->index, (t->nr_pages + 3) / 4)))
			s->live_overwrites++;
	}
	memcpy(&s->rows[first], rows, (size_t)n * sizeof(*rows));
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int sink_table(void *arg, uint32_t slot,
		      const struct gotrace_unwind_table *t)
{
	struct sink *s = arg;

	pthread_mutex_lock(&s->lock);
	if (slot >= s->max_tables ||
	    (table_live(t) &&
	     ((uint64_t)t->first + t->nr > s->max_rows ||
	      (uint64_t)t->index + (t->nr_pages + 3) / 4 > s->max_rows))) {
		s->oob++;
		pthread_mutex_unlock(&s->lock);
		return -EINVAL;
	}
	s->tables[slot] = *t;
	if (s->nlog == s->logcap) {
		size_t cap = s->logcap ? 2 * s->logcap : 256;
		struct tlog *v = realloc(s->log, cap * sizeof(*v));

		if (!v) {
			pthread_mutex_unlock(&s->lock);
			return -ENOMEM;
		}
		s->log = v;
		s->logcap = cap;
	}
	s->log[s->nlog++] = (struct tlog){ slot, *t };
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int sink_space(void *arg, uint64_t id, int tgid,
		      const struct gotrace_unwind_map *maps, uint32_t n)
{
	struct sink *s = arg;
	size_t i;

	pthread_mutex_lock(&s->lock);
	s->space_tgid = tgid;
	if (n && s->space_err) {
		pthread_mutex_unlock(&s->lock);
		return s->space_err;
	}
	for (i = 0; i < s->nspaces && s->spaces[i].id != id; i++)
		;
	if (!n) {
		s->space_dels++;
		if (i < s->nspaces)
			s->spaces[i] = s->spaces[--s->nspaces];
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	s->space_calls++;
	if (n > MAPS_MAX)
		s->oob++;
	if (i == s->nspaces) {
		if (s->nspaces == SINK_SPACES) {
			s->space_full++;
			pthread_mutex_unlock(&s->lock);
			return -ENOSPC;
		}
		s->nspaces++;
	}
	memset(&s->spaces[i], 0, sizeof(s->spaces[i]));
	s->spaces[i].id = id;
	s->spaces[i].nr = n > MAPS_MAX ? MAPS_MAX : n;
	memcpy(s->spaces[i].maps, maps, s->spaces[i].nr * sizeof(*maps));
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static struct sink *sink_new(uint32_t max_rows, uint32_t max_tables)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->max_rows = max_rows;
	s->max_tables = max_tables;
	s->rows = calloc(max_rows ? max_rows : 1, sizeof(*s->rows));
	s->tables = calloc(max_tables, sizeof(*s->tables));
	if (!s->rows || !s->tables) {
		free(s->rows);
		free(s->tables);
		free(s);
		return NULL;
	}
	return s;
}

static void sink_free(struct sink *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->rows);
	free(s->tables);
	free(s->log);
	free(s);
}

static struct gt_unwind *mgr_new(struct sink *s)
{
	struct gt_unwind_params p = {
		.max_rows = s->max_rows, .max_tables = s->max_tables,
	};
	struct gt_unwind_sink k = {
		.rows = sink_rows, .table = sink_table, .space = sink_space,
		.arg = s,
	};

	return gt_unwind_new(&p, &k);
}

/* A copy of space @id's mappings; false if the sink has none. */
static bool sink_space_copy(struct sink *s, uint64_t id, struct sspace *out)
{
	bool found = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->nspaces; i++)
		if (s->spaces[i].id == id) {
			*out = s->spaces[i];
			found = true;
		}
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* ---- The walker's lookup (gotrace.bpf.c), over the sink -------------- */

enum { LK_OK, LK_NO_SPACE, LK_NO_MAP, LK_NO_TABLE, LK_STALE, LK_NO_ROW };
static const char *const lk_name[] = {
	"row", "no space", "no mapping", "mapping without table",
	"stale generation", "no row",
};

/*
 * The last mapping starting at or below @pc, by halving steps of
 * MAPS_MAX (unw_map_of()), and @pc must be below its end.
 */
static const struct gotrace_unwind_map *lk_map_of(const struct sspace *sp,
						  uint64_t pc)
{
	const struct gotrace_unwind_map *m;
	uint32_t lo = 0, n = sp->nr, half;

	if (!n || n > MAPS_MAX || pc >> 63)
		return NULL;
	for (int i = 0; i < 7; i++) {
		half = n / 2;
		if (sp->maps[(lo + half) & (MAPS_MAX - 1)].start <= pc)
			lo += half;
		n -= half;
	}
	m = &sp->maps[lo & (MAPS_MAX - 1)];
	return pc >= m->start && pc < m->end ? m : NULL;
}

/* Entry @i of the index at slot @index: four u32 to a 16-byte slot. */
static int64_t lk_index_at(const struct sink *s, uint32_t index, uint32_t i)
{
	uint64_t k = (uint64_t)index + i / 4;
	uint32_t e[4];

	if (k >= s->max_rows)
		return -1;
	memcpy(e, &s->rows[k], sizeof(e));
	return e[i & 3];
}

/* The row of position @rel: between the index entries of its page. */
static int64_t lk_row_index(const struct sink *s,
			    const struct gotrace_unwind_table *t, uint64_t rel)
{
	uint32_t page, lo, n, half;
	uint64_t k;
	int64_t a, b;

	if (!t->nr || !t->nr_pages || rel >> 32)
		return -1;
	page = (uint32_t)(rel >> GOTRACE_UNWIND_PAGE_SHIFT);
	if (page >= t->nr_pages)
		page = t->nr_pages - 1;
	a = lk_index_at(s, t->index, page);
	b = page + 1 < t->nr_pages ? lk_index_at(s, t->index, page + 1) :
				     t->nr - 1;
	if (a < 0 || b < a || b >= t->nr)
		return -1;
	lo = (uint32_t)a;
	n = (uint32_t)(b - a + 1);
	for (int i = 0; i < 27 && n > 1; i++) {
		half = n / 2;
		k = (uint64_t)t->first + lo + half;
		if (k >= s->max_rows)
			return -1;
		if (s->rows[k].pc <= rel)
			lo += half;
		n -= half;
	}
	k = (uint64_t)t->first + lo;
	return k < s->max_rows && s->rows[k].pc <= rel ? (int64_t)k : -1;
}

/*
 * The row a walker finds for @pc of space @sp (@ret: a return address,
 * looked up at the byte before), into @row; LK_*.
 */
static int lookup(struct sink *s, const struct sspace *sp, uint64_t pc,
		  bool ret, struct gotrace_unwind_row *row)
{
	const struct gotrace_unwind_map *m = sp ? lk_map_of(sp, pc) : NULL;
	struct gotrace_unwind_table t;
	int64_t k;
	int r = LK_OK;

	if (!sp)
		return LK_NO_SPACE;
	if (!m)
		return LK_NO_MAP;
	if (!m->table)
		return LK_NO_TABLE;
	pthread_mutex_lock(&s->lock);
	if (m->table - 1 >= s->max_tables) {
		r = LK_NO_TABLE;
		goto out;
	}
	t = s->tables[m->table - 1];
	if (t.gen != m->gen || t.gen & 1) {
		r = LK_STALE;
		goto out;
	}
	k = lk_row_index(s, &t, pc - m->bias - (ret ? 1 : 0));
	if (k < 0)
		r = LK_NO_ROW;
	else
		*row = s->rows[k];
out:
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* ---- Files, as this test sees them ----------------------------------- */

struct phdr {
	uint64_t off, vaddr, filesz;
	uint32_t flags;
};

/* A file: its PT_LOAD headers, its table built here, its symbols. */
struct ref {
	char path[PATH_MAX];
	struct phdr ph[16];
	unsigned int nph;
	int state;		/* 1 built, -1 failed */
	struct gt_eh_table t;
};

static struct ref *refs[64];
static size_t nrefs;

/*
 * The vDSO, which has no file: this process's image (the mapping at
 * AT_SYSINFO_EHDR, the same in every 64-bit process), its table built
 * from memory, its program headers read there.
 */
static struct ref *ref_vdso(struct ref *r)
{
	const ElfW(Ehdr) *eh = (const void *)(uintptr_t)
			       getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const void *image;
	char err[512];
	size_t size;

	image = gt_eh_vdso(&size);
	if (!eh || image != eh)
		return NULL;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (unsigned int i = 0; i < eh->e_phnum && r->nph < 16; i++)
		if (ph[i].p_type == PT_LOAD)
			r->ph[r->nph++] = (struct phdr){ ph[i].p_offset,
				ph[i].p_vaddr, ph[i].p_filesz, ph[i].p_flags };
	if (gt_eh_table_build_mem(image, size, "[vdso]", 0, &r->t, err,
				  sizeof(err)))
		diag("[vdso]: %s", err);
	else if (r->nph)
		r->state = 1;
	return r->state > 0 ? r : NULL;
}

static struct ref *ref_get(const char *path)
{
	char err[512];
	struct ref *r;
	size_t n = 0;
	Elf *e;
	int fd;

	for (size_t i = 0; i < nrefs; i++)
		if (!strcmp(refs[i]->path, path))
			return refs[i]->state > 0 ? refs[i] : NULL;
	if (nrefs == sizeof(refs) / sizeof(refs[0]))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	refs[nrefs++] = r;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->state = -1;
	if (!strcmp(path, "[vdso]"))
		return ref_vdso(r);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	e = elf_begin(fd, ELF_C_READ, NULL);
	for (size_t i = 0; e && !elf_getphdrnum(e, &n) && i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    r->nph < 16)
			r->ph[r->nph++] = (struct phdr){ ph.p_offset,
				ph.p_vaddr, ph.p_filesz, ph.p_flags };
	}
	if (e)
		elf_end(e);
	if (gt_eh_table_build(fd, path, 0, &r->t, err, sizeof(err)))
		diag("%s: %s", path, err);
	else if (r->nph)
		r->state = 1;
	close(fd);
	return r->state > 0 ? r : NULL;
}

static void refs_free(void)
{
	for (size_t i = 0; i < nrefs; i++) {
		gt_eh_table_free(&refs[i]->t);
		free(refs[i]);
	}
	nrefs = 0;
}

/* An executable mapping of a file, from /proc/PID/maps. */
struct pmap {
	uint64_t start, end, off;
	char path[PATH_MAX];
};

struct pmaps {
	struct pmap *v;
	size_t n;
};

/*
 * The executable file mappings of @pid, and its vDSO ("[vdso]"), as the
 * manager should see them.
 */
static void pmaps_read(int pid, struct pmaps *pm)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;

	pm->v = NULL;
	pm->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, off, ino;
		char perm[8];
		int at = 0;
		struct pmap *v;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*x:%*x %" SCNu64 " %n", &lo, &hi, perm, &off,
			   &ino, &at) < 5 || !at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (perm[2] != 'x' || (strcmp(line + at, "[vdso]") &&
				       (line[at] != '/' || !ino ||
					strstr(line + at, " (deleted)"))))
			continue;
		v = realloc(pm->v, (pm->n + 1) * sizeof(*v));
		if (!v)
			break;
		pm->v = v;
		v[pm->n] = (struct pmap){ .start = lo, .end = hi, .off = off };
		snprintf(v[pm->n].path, sizeof(v[pm->n].path), "%s",
			 line + at);
		pm->n++;
	}
	if (f)
		fclose(f);
}

static const struct pmap *pmap_of(const struct pmaps *pm, uint64_t pc)
{
	for (size_t i = 0; i < pm->n; i++)
		if (pc >= pm->v[i].start && pc < pm->v[i].end)
			return &pm->v[i];
	return NULL;
}

static const struct pmap *pmap_named(const struct pmaps *pm, const char *name)
{
	for (size_t i = 0; i < pm->n; i++) {
		const char *b = strrchr(pm->v[i].path, '/');

		if (b && !strncmp(b + 1, name, strlen(name)))
			return &pm->v[i];
		if (!b && !strcmp(pm->v[i].path, name))
			return &pm->v[i];	/* "[vdso]" */
	}
	return NULL;
}

/*
 * The ELF address of @pc of mapping @m: its file offset, made an
 * address by the PT_LOAD segment holding that offset (exactly: not the
 * mapping's start, which is rounded down to a page).
 */
static bool elf_addr(const struct ref *r, const struct pmap *m, uint64_t pc,
		     uint64_t *elf)
{
	uint64_t fo = pc - m->start + m->off;

	for (unsigned int i = 0; i < r->nph; i++)
		if ((r->ph[i].flags & PF_X) && fo >= r->ph[i].off &&
		    fo < r->ph[i].off + r->ph[i].filesz) {
			*elf = fo - r->ph[i].off + r->ph[i].vaddr;
			return true;
		}
	return false;
}

/* The PC of ELF address @a of @r's file in @pm; false if not mapped. */
static bool pc_of(const struct ref *r, const struct pmaps *pm, uint64_t a,
		  uint64_t *pc)
{
	uint64_t fo = 0;
	bool in = false;

	for (unsigned int i = 0; i < r->nph && !in; i++)
		if ((r->ph[i].flags & PF_X) && a >= r->ph[i].vaddr &&
		    a < r->ph[i].vaddr + r->ph[i].filesz) {
			fo = a - r->ph[i].vaddr + r->ph[i].off;
			in = true;
		}
	for (size_t i = 0; in && i < pm->n; i++) {
		const struct pmap *m = &pm->v[i];

		if (!strcmp(m->path, r->path) && fo >= m->off &&
		    fo < m->off + (m->end - m->start)) {
			*pc = m->start + fo - m->off;
			return true;
		}
	}
	return false;
}

/* ---- Comparing rows ---------------------------------------------------- */

struct cmp {
	const char *what;
	unsigned long n, bad, shown, skipped;
	unsigned long dl_agree, dl_differ;	/* ELF addresses, two ways */
	bool only_loaded;	/* mappings without a table are not checked */
};

static void fmt_row(const struct gotrace_unwind_row *r, char *b, size_t n)
{
	if (!r) {
		snprintf(b, n, "(none)");
		return;
	}
	snprintf(b, n, "pc %#x %s%+d fp@%d ra@%d flags %#x plt_at %u pad %u",
		 r->pc, gt_eh_kind_name(r->cfa_reg), r->cfa_off, r->fp_off,
		 r->ra_off, r->flags, r->plt_at, r->pad);
}

/* This process's load biases, by dl_iterate_phdr(). */
struct dl_obj {
	uint64_t bias, lo, hi;
};
static struct dl_obj dl_objs[256];
static size_t nr_dl_objs;

static int dl_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    nr_dl_objs < 256)
			dl_objs[nr_dl_objs++] = (struct dl_obj){
				info->dlpi_addr,
				info->dlpi_addr + ph->p_vaddr,
				info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
	}
	return 0;
}

/*
 * @pc of process @pm (space @sp of @s) through the walker's lookup
 * against the file's own table at the ELF address of @pc (less 1 for a
 * return address); @self: cross-check that address with the dynamic
 * loader's bias.
 */
static void compare_pc(struct cmp *c, struct sink *s, const struct sspace *sp,
		       const struct pmaps *pm, uint64_t pc, bool ret, bool self)
{
	const struct gotrace_unwind_row *want;
	const struct pmap *m = pmap_of(pm, pc);
	struct gotrace_unwind_row got;
	struct ref *r;
	char a[160], b[160];
	uint64_t elf;
	int lk;

	if (!m || !(r = ref_get(m->path)) || !elf_addr(r, m, pc, &elf)) {
		c->skipped++;
		return;
	}
	if (self) {
		for (size_t i = 0; i < nr_dl_objs; i++)
			if (pc >= dl_objs[i].lo && pc < dl_objs[i].hi) {
				if (pc - dl_objs[i].bias == elf)
					c->dl_agree++;
				else
					c->dl_differ++;
				break;
			}
	}
	lk = lookup(s, sp, pc, ret, &got);
	if (c->only_loaded && (lk == LK_NO_TABLE || lk == LK_STALE)) {
		c->skipped++;
		return;
	}
	c->n++;
	want = gt_eh_table_find(&r->t, elf - (ret ? 1 : 0));
	if (want ? lk == LK_OK && !memcmp(want, &got, sizeof(got)) :
		   lk == LK_NO_ROW)
		return;
	c->bad++;
	if (c->shown++ < SHOW_MAX) {
		fmt_row(want, a, sizeof(a));
		fmt_row(lk == LK_OK ? &got : NULL, b, sizeof(b));
		diag("%s: %s+%#" PRIx64 " (pc %#" PRIx64 "%s): file's table: "
		     "%s; walker's lookup: %s: %s", c->what, m->path, elf, pc,
		     ret ? ", return address" : "", a, lk_name[lk], b);
	}
}

/* PCs spread over every mapping of @pm, as exact PCs and return addresses. */
static void compare_spread(struct cmp *c, struct sink *s,
			   const struct sspace *sp, const struct pmaps *pm,
			   bool self)
{
	for (size_t i = 0; i < pm->n; i++) {
		uint64_t len = pm->v[i].end - pm->v[i].start;

		for (uint64_t k = 0; k < 96; k++) {
			uint64_t pc = pm->v[i].start + len * k / 96 + k % 7;

			if (pc < pm->v[i].end)
				compare_pc(c, s, sp, pm, pc, k & 1, self);
		}
		compare_pc(c, s, sp, pm, pm->v[i].end - 1, false, self);
	}
}

/*
 * At every function symbol of @path (.symtab, else .dynsym) mapped
 * executable in @pm: its entry, entry + 4, its middle, and its end as
 * a return address.
 */
static void compare_symbols(struct cmp *c, struct sink *s,
			    const struct sspace *sp, const struct pmaps *pm,
			    const char *path, bool self)
{
	struct ref *r = ref_get(path);
	Elf_Scn *scn = NULL, *sym = NULL;
	size_t before = c->n, size;
	const void *vdso;
	char *copy = NULL;
	GElf_Shdr sh;
	Elf *e = NULL;
	int fd = -1;

	if (!r)
		return;
	if (!strcmp(path, "[vdso]")) {
		/* Its image, copied: libelf may write to what it reads. */
		vdso = gt_eh_vdso(&size);
		copy = vdso ? malloc(size) : NULL;
		if (copy) {
			memcpy(copy, vdso, size);
			e = elf_memory(copy, size);
		}
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	}
	while (e && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB ||
		     (sh.sh_type == SHT_DYNSYM && !sym)))
			sym = scn;
	if (sym && gelf_getshdr(sym, &sh)) {
		Elf_Data *d = elf_getdata(sym, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym y;
			uint64_t pc;

			if (!gelf_getsym(d, (int)i, &y) ||
			    GELF_ST_TYPE(y.st_info) != STT_FUNC ||
			    y.st_shndx == SHN_UNDEF || !y.st_value ||
			    !pc_of(r, pm, y.st_value, &pc))
				continue;
			compare_pc(c, s, sp, pm, pc, false, self);
			compare_pc(c, s, sp, pm, pc + 4, false, self);
			if (y.st_size > 1) {
				compare_pc(c, s, sp, pm, pc + y.st_size / 2,
					   false, self);
				compare_pc(c, s, sp, pm, pc + y.st_size, true,
					   self);
			}
		}
	}
	if (e)
		elf_end(e);
	free(copy);
	if (fd >= 0)
		close(fd);
	diag("  %s: %lu symbol PCs", path, c->n - before);
}

/* ---- Check 1: this process ------------------------------------------- */

static uint64_t ret_addrs[16];
static unsigned int nr_ret;

__attribute__((noinline)) static void note_ret(void)
{
	if (nr_ret < 16)
		ret_addrs[nr_ret++] =
			(uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void inner(int n)
{
	note_ret();
	if (n > 0)
		inner(n - 1);
	note_ret();
}

__attribute__((noinline)) static void outer(void)
{
	note_ret();
	inner(2);
	note_ret();
}

/* libc's qsort calls it: its return address is inside libc. */
static int cmp_note(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (nr_ret < 16)
		ret_addrs[nr_ret++] =
			(uint64_t)(uintptr_t)__builtin_return_address(0);
	return (*x > *y) - (*x < *y);
}

static const char lld_src[] =
	"__attribute__((noinline)) int lld_leaf(volatile int *p, int n)\n"
	"{ volatile int a[16]; for (int i = 0; i < 16; i++) a[i] = p[i % 2] + n;\n"
	"  return a[n & 15]; }\n"
	"__attribute__((noinline)) int lld_mid(int n)\n"
	"{ volatile int b[2] = { n, n + 1 }; return lld_leaf(b, n) + 1; }\n"
	"int lld_top(int n) { return lld_mid(n) * 2 + lld_mid(n + 1); }\n";

/*
 * A library linked by lld, whose code segment starts in the file page
 * of the segment before it (p_offset not page-aligned): its mapping's
 * offset is that page's, inside the earlier segment's bytes.  NULL
 * (with @why) if there is no lld; the dlopen() handle else.
 */
static void *lld_library(char *dir, char *lib, size_t n, const char **why)
{
	char src[PATH_MAX + 16], cmd[3 * PATH_MAX];
	const char *cc = getenv("CC");
	void *h;
	FILE *f;

	*why = "no temporary directory";
	if (!mkdtemp(dir))
		return NULL;
	snprintf(src, sizeof(src), "%s/lld.c", dir);
	snprintf(lib, n, "%s/liblld.so", dir);
	f = fopen(src, "w");
	if (!f)
		return NULL;
	fputs(lld_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -O2 -fomit-frame-pointer "
		 "-fasynchronous-unwind-tables -fPIC -shared -fuse-ld=lld "
		 "-o %s %s >/dev/null 2>&1", cc && *cc ? cc : "cc", lib, src);
	*why = "cannot link with -fuse-ld=lld";
	if (system(cmd))
		return NULL;
	*why = "dlopen failed";
	h = dlopen(lib, RTLD_NOW);
	return h;
}

static void lld_cleanup(const char *dir, const char *lib)
{
	char src[PATH_MAX + 16];

	snprintf(src, sizeof(src), "%s/lld.c", dir);
	unlink(src);
	unlink(lib);
	rmdir(dir);
}

/* The sink's space checked against @pm: sorted, disjoint, all there. */
static bool space_matches(const struct sspace *sp, const struct pmaps *pm,
			  const char *what)
{
	size_t found = 0;
	bool sorted = true;

	for (uint32_t i = 0; i < sp->nr; i++) {
		const struct gotrace_unwind_map *m = &sp->maps[i];

		if (m->start >= m->end ||
		    (i + 1 < sp->nr && m->end > sp->maps[i + 1].start))
			sorted = false;
		for (size_t j = 0; j < pm->n; j++)
			if (pm->v[j].start == m->start &&
			    pm->v[j].end == m->end)
				found++;
	}
	return ok(sorted && found == sp->nr &&
		  sp->nr == (pm->n < MAPS_MAX ? pm->n : MAPS_MAX),
		  "%s: the space's %u mappings are sorted and disjoint (%s), "
		  "and are the %zu executable file mappings of /proc/PID/maps "
		  "(%zu of them match)", what, sp->nr,
		  sorted ? "yes" : "no", pm->n, found);
}

static bool has_table(const struct sspace *sp, uint64_t pc)
{
	const struct gotrace_unwind_map *m = lk_map_of(sp, pc);

	return m && m->table;
}

int main(void);

/* The time of check 1's load: what check 5 may wait for at most. */
static uint64_t self_load_ns;

static void check_self(void)
{
	char dir[] = "/tmp/unwind_mgr_test.XXXXXX", lib[PATH_MAX] = "";
	struct sink *s = sink_new(GT_UNWIND_MEMORY_DEFAULT / 16, 64);
	struct gt_unwind_stats st;
	struct gt_unwind *u;
	struct sspace sp;
	struct pmaps pm;
	struct cmp c = { .what = "self" }, cf = { .what = "self, named" };
	const struct pmap *libc, *exe, *lldm = NULL;
	const char *why = "";
	void *lld, *libc_h;
	int (*lld_top)(int) = NULL;
	uint64_t t0;
	int v[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };
	void (*qsort_libc)(void *, size_t, size_t,
			   int (*)(const void *, const void *)) = NULL;

	if (!s) {
		ok(0, "self: a sink");
		return;
	}
	lld = lld_library(dir, lib, sizeof(lib), &why);
	if (!lld)
		diag("no lld-linked library: %s", why);
	else
		lld_top = (int (*)(int))(uintptr_t)dlsym(lld, "lld_top");
	/* Return addresses: this binary's, and inside libc's qsort. */
	outer();
	libc_h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (libc_h)
		qsort_libc = (void (*)(void *, size_t, size_t,
				       int (*)(const void *, const void *)))
			(uintptr_t)dlsym(libc_h, "qsort");
	if (qsort_libc)
		qsort_libc(v, 8, sizeof(v[0]), cmp_note);
	if (lld_top)
		diag("lld_top(3) = %d", lld_top(3));

	u = mgr_new(s);
	if (!u) {
		ok(0, "self: gt_unwind_new()");
		goto out;
	}
	t0 = mono_ns();
	gt_unwind_request(u, 1, gettid(), getpid());
	gt_unwind_settle(u);
	self_load_ns = mono_ns() - t0;
	gt_unwind_stats(u, &st);
	pmaps_read(getpid(), &pm);
	dl_iterate_phdr(dl_cb, NULL);
	diag("self: loaded in %" PRIu64 " ms: %" PRIu64 " files, %" PRIu64
	     " tables, %" PRIu64 " without, %" PRIu64 " rows (slots)",
	     self_load_ns / 1000000, st.files, st.tables, st.no_table,
	     st.rows);
	if (!ok(sink_space_copy(s, 1, &sp) && s->space_calls == 1,
		"self: the sink got the space (%lu space() calls)",
		s->space_calls)) {
		gt_unwind_free(u);
		goto out_maps;
	}
	space_matches(&sp, &pm, "self");
	exe = pmap_of(&pm, (uint64_t)(uintptr_t)&check_self);
	libc = pmap_named(&pm, "libc.so");
	if (lib[0] && lld)
		for (size_t i = 0; i < pm.n; i++)
			if (!strcmp(pm.v[i].path, lib))
				lldm = &pm.v[i];
	ok(exe && libc && has_table(&sp, exe->start) &&
	   has_table(&sp, libc->start) && st.evictions == 0 &&
	   st.too_big == 0,
	   "self: the test binary (%s) and libc (%s) are mapped with tables; "
	   "evictions %" PRIu64 ", too big %" PRIu64,
	   exe ? exe->path : "not found", libc ? libc->path : "not found",
	   st.evictions, st.too_big);

	/* Named functions and return addresses. */
	{
		void *const fns[] = {
			(void *)(uintptr_t)&check_self, (void *)(uintptr_t)&main,
			(void *)(uintptr_t)&note_ret, (void *)(uintptr_t)&inner,
			(void *)(uintptr_t)&read, (void *)(uintptr_t)&malloc,
			(void *)(uintptr_t)&qsort, (void *)(uintptr_t)&free,
			libc_h ? dlsym(libc_h, "read") : NULL,
			libc_h ? dlsym(libc_h, "malloc") : NULL,
			libc_h ? dlsym(libc_h, "qsort") : NULL,
			libc_h ? dlsym(libc_h, "memcpy") : NULL,
			lld ? dlsym(lld, "lld_leaf") : NULL,
			lld ? dlsym(lld, "lld_mid") : NULL,
		};

		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
			uint64_t pc = (uint64_t)(uintptr_t)fns[i];
			const struct pmap *m = pmap_of(&pm, pc);

			if (!pc)
				continue;
			diag("  function %zu at %#" PRIx64 ": %s", i, pc,
			     m ? m->path : "(not mapped)");
			for (unsigned int d = 0; d < 16; d += 4)
				compare_pc(&cf, s, &sp, &pm, pc + d, false,
					   true);
		}
		for (unsigned int i = 0; i < nr_ret; i++) {
			const struct pmap *m = pmap_of(&pm, ret_addrs[i]);

			diag("  return address %#" PRIx64 ": %s", ret_addrs[i],
			     m ? m->path : "(not mapped)");
			compare_pc(&cf, s, &sp, &pm, ret_addrs[i], true, true);
		}
	}
	ok(cf.n >= 40 && !cf.bad && !cf.skipped && nr_ret >= 8,
	   "self: %lu named functions' PCs and %u return addresses (%lu "
	   "lookups): the walker's row is the file's (%lu differ, %lu "
	   "unmapped)", cf.n - nr_ret, nr_ret, cf.n, cf.bad, cf.skipped);

	/* Every function symbol of every file, and PCs spread over all. */
	for (size_t i = 0; i < pm.n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(pm.v[j].path, pm.v[i].path);
		if (!seen)
			compare_symbols(&c, s, &sp, &pm, pm.v[i].path, true);
	}
	compare_spread(&c, s, &sp, &pm, true);
	ok(c.n > 10000 && !c.bad,
	   "self: %lu PCs of %zu mappings (every function symbol, spread PCs): "
	   "the walker's row is the file's (%lu differ, %lu not checked)",
	   c.n, pm.n, c.bad, c.skipped);
	ok(c.dl_agree > 1000 && !c.dl_differ,
	   "self: ELF addresses from /proc/self/maps and PT_LOAD agree with "
	   "dl_iterate_phdr()'s biases (%lu agree, %lu differ)",
	   c.dl_agree, c.dl_differ);
	/* The vDSO: no file, its table built from this process's image. */
	{
		const struct pmap *vm = pmap_named(&pm, "[vdso]");
		struct pmaps one = { (struct pmap *)vm, vm ? 1 : 0 };
		struct cmp cv = { .what = "vdso" };

		compare_symbols(&cv, s, &sp, &pm, "[vdso]", true);
		compare_spread(&cv, s, &sp, &one, true);
		/* Not checked: PCs of its last page, past its PT_LOAD. */
		ok(vm && has_table(&sp, vm->start) && cv.n > 50 && !cv.bad &&
		   cv.dl_agree > 50 && !cv.dl_differ,
		   "self: the [vdso] mapping has a table: %lu PCs (its "
		   "symbols, spread) give its image's rows (%lu differ, %lu "
		   "past its code), at dl_iterate_phdr()'s bias (%lu agree)",
		   cv.n, cv.bad, cv.skipped, cv.dl_agree);
	}
	if (lldm) {
		struct cmp cl = { .what = "lld" };
		struct ref *r = ref_get(lldm->path);
		uint64_t xoff = 0;

		for (unsigned int i = 0; r && i < r->nph; i++)
			if (r->ph[i].flags & PF_X)
				xoff = r->ph[i].off;
		compare_symbols(&cl, s, &sp, &pm, lldm->path, true);
		compare_spread(&cl, s, &sp, &pm, true);
		ok(has_table(&sp, lldm->start) && cl.n > 10 && !cl.bad,
		   "self: the lld-linked library (code at file offset %#" PRIx64
		   ", mapped from %#" PRIx64 "): %lu PCs, %lu differ",
		   xoff, lldm->off, cl.n, cl.bad);
	} else {
		printf("ok %d # SKIP the lld-linked library: %s\n",
		       ++tap_count, why);
	}
	ok(!s->oob && !s->live_overwrites,
	   "self: the sink was never written out of bounds (%lu) nor under "
	   "a live table (%lu)", s->oob, s->live_overwrites);
	gt_unwind_free(u);
out_maps:
	free(pm.v);
out:
	refs_free();
	sink_free(s);
	if (libc_h)
		dlclose(libc_h);
	if (lld)
		dlclose(lld);
	lld_cleanup(dir, lib);
}

/* ---- Checks 2, 3: eviction, a table too big ------------------------ */

/* A shell stopped by itself (its every library mapped); -1 if not. */
static pid_t shell_stopped(const char *sh)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(sh, sh, "-c", "kill -STOP $$; exit 0", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

/* Array slots table @t takes (its rows and its index). */
static uint32_t table_slots(const struct gotrace_unwind_table *t)
{
	return t->nr + (t->nr_pages + 3) / 4;
}

/* The slots of the table of @m's file after a load with room; 0: none. */
static uint32_t slots_of(struct sink *s, const struct sspace *sp,
			 const struct pmap *m)
{
	const struct gotrace_unwind_map *x = m ? lk_map_of(sp, m->start) : NULL;
	uint32_t n;

	if (!x || !x->table)
		return 0;
	pthread_mutex_lock(&s->lock);
	n = table_slots(&s->tables[x->table - 1]);
	pthread_mutex_unlock(&s->lock);
	return n;
}

static void check_evict(void)
{
	pid_t a = shell_stopped("/bin/dash"), b = shell_stopped("/bin/bash");
	struct sink *s0 = NULL, *s = NULL;
	struct gt_unwind *u;
	struct gt_unwind_stats st;
	struct sspace spa, spb, spa2;
	struct pmaps pa = { 0 }, pb = { 0 };
	const struct pmap *libc;
	const struct gotrace_unwind_map *ml;
	uint32_t need = 0, n_libc, n_bash, n_dash, slot, gen_a;
	uint32_t max_rows;
	bool odd_seen = false, mono = true, later = false;
	struct gotrace_unwind_row row;
	uint64_t libc_pc;
	int lk;

	if (access("/bin/dash", X_OK) || access("/bin/bash", X_OK)) {
		printf("ok %d # SKIP eviction, too big: no /bin/dash or "
		       "/bin/bash\n", ++tap_count);
		goto out;
	}
	if (a < 0 || b < 0) {
		ok(0, "evict: dash and bash stopped themselves (%d, %d)", a,
		   b);
		goto out;
	}
	pmaps_read(a, &pa);
	pmaps_read(b, &pb);
	libc = pmap_named(&pa, "libc.so");
	/* A first load with room: the tables' sizes. */
	s0 = sink_new(GT_UNWIND_MEMORY_DEFAULT / 16, 64);
	u = s0 ? mgr_new(s0) : NULL;
	if (!u || !libc) {
		ok(0, "evict: a manager, libc in dash's maps");
		gt_unwind_free(u);
		goto out;
	}
	gt_unwind_request(u, 10, a, a);
	gt_unwind_request(u, 11, b, b);
	gt_unwind_settle(u);
	gt_unwind_free(u);
	if (!sink_space_copy(s0, 10, &spa) || !sink_space_copy(s0, 11, &spb)) {
		ok(0, "evict: the first load gave both spaces");
		goto out;
	}
	for (size_t i = 0; i < pa.n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(pa.v[j].path, pa.v[i].path);
		if (!seen)
			need += slots_of(s0, &spa, &pa.v[i]);
	}
	n_libc = slots_of(s0, &spa, libc);
	n_dash = slots_of(s0, &spa, pmap_named(&pa, "dash"));
	n_bash = slots_of(s0, &spb, pmap_named(&pb, "bash"));
	diag("evict: slots: dash %u, libc %u, bash %u; dash's space %u",
	     n_dash, n_libc, n_bash, need);
	if (!ok(n_libc && n_dash && n_bash > n_dash + 64,
		"evict: bash's table (%u slots) is larger than dash's (%u) "
		"by more than the margin", n_bash, n_dash))
		goto out;

	/* Room for dash's space and 64 slots: bash's must evict. */
	max_rows = need + 64;
	s = sink_new(max_rows, 64);
	u = s ? mgr_new(s) : NULL;
	if (!u) {
		ok(0, "evict: a manager");
		goto out;
	}
	gt_unwind_request(u, 20, a, a);
	gt_unwind_settle(u);
	gt_unwind_stats(u, &st);
	sink_space_copy(s, 20, &spa);
	libc_pc = libc->start + (libc->end - libc->start) / 2;
	ml = lk_map_of(&spa, libc_pc);
	ok(ml && ml->table && st.evictions == 0 &&
	   lookup(s, &spa, libc_pc, false, &row) == LK_OK,
	   "evict: dash's space fits %u slots: libc has table %u, gen %u; "
	   "evictions %" PRIu64, max_rows, ml ? ml->table : 0,
	   ml ? ml->gen : 0, st.evictions);
	if (!ml || !ml->table) {
		gt_unwind_free(u);
		goto out;
	}
	slot = ml->table - 1;
	gen_a = ml->gen;
	{
		size_t mark = s->nlog;

		gt_unwind_request(u, 21, b, b);
		gt_unwind_settle(u);
		gt_unwind_stats(u, &st);
		/* The slot's table() calls since: gens odd, then new. */
		pthread_mutex_lock(&s->lock);
		for (size_t i = mark; i < s->nlog; i++) {
			const struct tlog *l = &s->log[i];

			if (l->slot != slot)
				continue;
			if (l->t.gen < gen_a)
				mono = false;
			if (l->t.gen & 1)
				odd_seen = true;
			else if (l->t.gen > gen_a && odd_seen)
				later = true;
			diag("  table(%u, first %u nr %u index %u pages %u "
			     "gen %u)", l->slot, l->t.first, l->t.nr,
			     l->t.index, l->t.nr_pages, l->t.gen);
		}
		pthread_mutex_unlock(&s->lock);
	}
	sink_space_copy(s, 20, &spa2);
	lk = lookup(s, &spa2, libc_pc, false, &row);
	ok(st.evictions > 0,
	   "evict: bash's space evicted (%" PRIu64 " evictions)",
	   st.evictions);
	pthread_mutex_lock(&s->lock);
	ok(s->tables[slot].gen != gen_a && odd_seen && mono &&
	   (later || (s->tables[slot].gen & 1)),
	   "evict: libc's slot %u: gen %u before, %u now, odd while "
	   "rewritten (%s), never lower (%s)", slot, gen_a,
	   s->tables[slot].gen, odd_seen ? "yes" : "no", mono ? "yes" : "no");
	pthread_mutex_unlock(&s->lock);
	ok(lk == LK_STALE,
	   "evict: dash's libc mapping, made before: the walker refuses it "
	   "(%s)", lk_name[lk]);
	ok(st.rows_peak * sizeof(struct gotrace_unwind_row) <=
	   (uint64_t)max_rows * sizeof(struct gotrace_unwind_row) &&
	   st.rows <= st.rows_peak && !s->oob && !s->live_overwrites,
	   "evict: peak %" PRIu64 " rows (%" PRIu64 " bytes) within %u "
	   "bytes; %lu out of bounds, %lu rows written under a live table",
	   st.rows_peak, st.rows_peak * 16, max_rows * 16, s->oob,
	   s->live_overwrites);
	/* What bash's space kept is right. */
	{
		struct cmp cb = { .what = "bash", .only_loaded = true };

		sink_space_copy(s, 21, &spb);
		space_matches(&spb, &pb, "evict: bash");
		compare_spread(&cb, s, &spb, &pb, false);
		compare_spread(&cb, s, &spa2, &pa, false);
		ok(cb.n > 100 && !cb.bad,
		   "evict: the tables still loaded give the files' rows "
		   "(%lu PCs, %lu differ, %lu refused)", cb.n, cb.bad,
		   cb.skipped);
	}
	gt_unwind_free(u);
	sink_free(s);

	/* 3. An array too small for libc's table. */
	s = sink_new(n_libc - 1, 64);
	u = s ? mgr_new(s) : NULL;
	if (!u) {
		ok(0, "too big: a manager");
		goto out;
	}
	gt_unwind_request(u, 30, a, a);
	gt_unwind_settle(u);
	gt_unwind_stats(u, &st);
	if (sink_space_copy(s, 30, &spa)) {
		const struct pmap *dash = pmap_named(&pa, "dash");

		ml = lk_map_of(&spa, libc_pc);
		ok(st.too_big == 1 && ml && !ml->table && dash &&
		   has_table(&spa, dash->start) &&
		   !s->oob,
		   "too big: libc's %u slots in an array of %u: too_big %"
		   PRIu64 ", its mapping's table %u, dash's loaded",
		   n_libc, n_libc - 1, st.too_big, ml ? ml->table : 0);
	} else {
		ok(0, "too big: the space was loaded");
	}
	gt_unwind_free(u);
out:
	refs_free();
	sink_free(s);
	sink_free(s0);
	free(pa.v);
	free(pb.v);
	reap(a);
	reap(b);
}

/* ---- Check 4: gone, Go ------------------------------------------------ */

static void check_gone_go(void)
{
	struct sink *s = sink_new(1U << 20, 16);
	struct gt_unwind *u = s ? mgr_new(s) : NULL;
	struct gt_unwind_stats st;
	char tmp[] = "/tmp/unwind_mgr_go.XXXXXX", gobin[PATH_MAX];
	const char *prog = GOPROG;
	struct sspace sp;
	bool made = false;
	pid_t pid;
	int w = 0;

	if (!u) {
		ok(0, "gone: a manager");
		sink_free(s);
		return;
	}
	/* Above any pid_max (4194304 at most). */
	gt_unwind_request(u, 40, 0x7ffffff0, 0x7ffffff0);
	gt_unwind_settle(u);
	gt_unwind_stats(u, &st);
	ok(st.gone == 1 && st.spaces == 0 && s->space_calls == 0,
	   "gone: pid %d: gone %" PRIu64 ", spaces %" PRIu64
	   ", space() calls %lu", 0x7ffffff0, st.gone, st.spaces,
	   s->space_calls);

	if (access(prog, X_OK) && !access(GO123, X_OK) && mkdtemp(tmp)) {
		char cmd[3 * PATH_MAX];

		snprintf(gobin, sizeof(gobin), "%s/go", tmp);
		snprintf(cmd, sizeof(cmd), "GOCACHE=${GOCACHE:-%s/cache} "
			 "%s build -o %s tests/usym_go.go "
			 ">/dev/null 2>&1", tmp, GO123, gobin);
		made = true;
		if (!system(cmd))
			prog = gobin;
	}
	if (access(prog, X_OK)) {
		printf("ok %d # SKIP a Go binary: no %s, no %s\n",
		       ++tap_count, GOPROG, GO123);
		goto out;
	}
	pid = fork();
	if (!pid) {
		if (!ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &w, 0) != pid || !WIFSTOPPED(w)) {
		printf("ok %d # SKIP a Go binary: cannot stop it at its exec "
		       "(ptrace)\n", ++tap_count);
		if (pid > 0 && !WIFEXITED(w) && !WIFSIGNALED(w))
			reap(pid);
		goto out;
	}
	gt_unwind_request(u, 41, pid, pid);
	gt_unwind_settle(u);
	gt_unwind_stats(u, &st);
	if (sink_space_copy(s, 41, &sp)) {
		struct pmaps pg;
		const struct pmap *vm;
		uint32_t with = 0, vdso = 0;

		/* Its vDSO has the one table: not Go's code. */
		pmaps_read(pid, &pg);
		vm = pmap_named(&pg, "[vdso]");
		for (uint32_t i = 0; i < sp.nr; i++) {
			if (vm && sp.maps[i].start == vm->start)
				vdso += sp.maps[i].table != 0;
			else
				with += sp.maps[i].table != 0;
		}
		ok(sp.nr > 0 && !with && st.no_table == 1 &&
		   vdso == (vm ? 1 : 0) && st.tables == vdso,
		   "go: %s: %u mappings, %u with a table, and the vDSO's %u; "
		   "no_table %" PRIu64 ", tables %" PRIu64, prog, sp.nr, with,
		   vdso, st.no_table, st.tables);
		free(pg.v);
	} else {
		ok(0, "go: %s: the sink got its space", prog);
	}
	reap(pid);
out:
	if (made) {
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
		if (system(cmd))
			diag("cannot remove %s", tmp);
	}
	gt_unwind_free(u);
	sink_free(s);
}

/*
 * The module's sink refuses the mappings of a process that executed
 * another program since they were read (-ESTALE) or is gone (-ESRCH):
 * counted gone, not as a full sink; the sink is told the process.
 */
static void check_stale(void)
{
	static const int errs[] = { -ESTALE, -ESRCH, -ENOSPC };
	struct sink *s = sink_new(GT_UNWIND_MEMORY_DEFAULT / 16, 64);
	struct gt_unwind *u = s ? mgr_new(s) : NULL;
	struct gt_unwind_stats st;

	if (!u) {
		ok(0, "stale: a manager");
		sink_free(s);
		return;
	}
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		s->space_err = errs[i];
		gt_unwind_request(u, 50 + i, gettid(), getpid());
		gt_unwind_settle(u);
	}
	gt_unwind_stats(u, &st);
	ok(st.gone == 2 && st.spaces_full == 1 && st.spaces == 0 &&
	   s->space_tgid == getpid(),
	   "stale: -ESTALE, -ESRCH, -ENOSPC: gone %" PRIu64 ", spaces_full %"
	   PRIu64 ", spaces %" PRIu64 ", the sink told pid %d (%d)", st.gone,
	   st.spaces_full, st.spaces, s->space_tgid, getpid());
	gt_unwind_free(u);
	sink_free(s);
}

/* ---- Check 5: freed with requests queued --------------------------- */

static void check_free(void)
{
	struct sink *s = sink_new(GT_UNWIND_MEMORY_DEFAULT / 16, 64);
	struct gt_unwind *u = s ? mgr_new(s) : NULL;
	unsigned long calls;
	uint64_t t0, dt;
	const int queued = 1000;

	if (!u) {
		ok(0, "free: a manager");
		sink_free(s);
		return;
	}
	/* Each a space of its own: none merged with another. */
	for (int i = 0; i < queued; i++)
		gt_unwind_request(u, 100 + (uint64_t)i, gettid(), getpid());
	t0 = mono_ns();
	gt_unwind_free(u);
	dt = mono_ns() - t0;
	calls = s->space_calls + s->space_full;
	/* Promptly: after the load under way, if any (a loaded CI). */
	ok(calls <= 1 && dt < 4 * self_load_ns + 10000000000ULL,
	   "free: %d requests queued: gt_unwind_free() took %" PRIu64
	   " ms (one load of this space took %" PRIu64 " ms), %lu loaded",
	   queued, dt / 1000000, self_load_ns / 1000000, calls);
	sink_free(s);
}

int main(void)
{
	elf_version(EV_CURRENT);
	check_self();
	check_evict();
	check_gone_go();
	check_stale();
	check_free();
#ifdef HAVE_LSAN
	ok(!__lsan_do_recoverable_leak_check(),
	   "LeakSanitizer: nothing leaked by the managers");
#else
	printf("ok %d # SKIP no LeakSanitizer in this build\n", ++tap_count);
#endif
	return tap_done();
}
