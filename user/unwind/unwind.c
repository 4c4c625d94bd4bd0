// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - a session's unwind tables, built and loaded off the
 * reader's thread (unwind.h)
 *
 * The worker takes the address spaces asked for one at a time: it reads
 * the process's executable mappings, gets the table of each file (built
 * once per file, by device and inode), places the rows of a table not
 * loaded in the array, evicting the least recently used tables until
 * they fit, and hands the space's mappings to the sink last, so that a
 * walker never finds a mapping whose rows are not there yet.
 *
 * A slot's generation (gotrace_unwind.h) makes an eviction safe: it is
 * odd while the slot's rows are rewritten and changes with every table
 * the slot holds, and a mapping names the generation it was made for,
 * so a walker never applies another file's rows.
 *
 * Locking: @lock guards the queue and the statistics; the files, the
 * allocator and the sink are the worker's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "eh_table.h"
#include "unwind.h"
#include "../trace/u64map.h"
#include "../trace/base.h"

/* How often the worker drops the spaces of processes that are gone. */
#define SWEEP_NS	(2ULL * 1000 * 1000 * 1000)

/*
 * An executable PT_LOAD segment: where the file's bytes go in its
 * address space (only those are the executable mappings read here).
 */
struct seg {
	uint64_t off, vaddr, filesz;
};

/* An executable file the processes run. */
struct ufile {
	uint64_t dev, ino;
	struct gt_eh_table t;
	/*
	 * The slots the table takes in the array (its rows, then its
	 * index, four entries a slot: gotrace_unwind.h), built with it.
	 */
	struct gotrace_unwind_row *slots;
	uint32_t nr_slots, nr_pages;
	bool built;			/* tried: @t or @no_table says */
	bool no_table;
	struct seg *segs;
	unsigned int nr_segs;
	uint32_t slot;			/* table slot + 1 while loaded, 0 */
	uint64_t used;			/* the worker's tick at last use */
};

/* A table slot: its file, or none. */
struct slot {
	struct ufile *file;
	uint32_t first, nr;		/* its rows' extent */
	uint32_t gen;
};

/* A request: a space to load. */
struct req {
	uint64_t space;
	int tid, tgid;
};

/* A space the sink holds: whose it is, to drop it once gone. */
struct kspace {
	uint64_t space;
	int tgid;
};

/*
 * How long the start waits for the tables of the processes running
 * (gt_unwind_settle()), and the stop for the worker: a read of a
 * process's maps waits for its mmap_lock, which a fault on FUSE or NFS
 * can hold for as long as the file system takes.
 */
#define UNWIND_SETTLE_WAIT_S	10
#define UNWIND_STOP_WAIT_S	2

struct gt_unwind {
	struct gt_unwind_params p;
	struct gt_unwind_sink sink;
	char proc[256];
	pthread_t worker;
	bool started;

	pthread_mutex_t lock;
	pthread_cond_t more;		/* a request queued, or stop */
	pthread_cond_t idle;		/* the queue emptied */
	struct req *q;			/* ring of requests */
	size_t q_head, q_len, q_cap;
	bool busy;			/* the worker is on a request */
	bool stop;
	struct gt_unwind_stats st;

	/* The worker's. */
	struct u64map by_inode;		/* dev ^ ino hash -> file index + 1 */
	struct ufile **files;
	size_t nr_files, files_cap;
	struct slot *slots;
	uint64_t tick;
	struct kspace *spaces;
	size_t nr_spaces, spaces_cap;
	uint64_t swept_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void stat_add(struct gt_unwind *u, uint64_t *field, uint64_t n)
{
	pthread_mutex_lock(&u->lock);
	*field += n;
	pthread_mutex_unlock(&u->lock);
}

/* ---- Files and their tables -------------------------------------------- */

/* The executable PT_LOAD segments of the ELF @e; false if none. */
static bool elf_segs(Elf *e, struct ufile *f)
{
	size_t n = 0;

	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n) || !n)
		return false;
	f->segs = calloc(n, sizeof(*f->segs));
	if (!f->segs)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		f->segs[f->nr_segs].off = ph.p_offset;
		f->segs[f->nr_segs].vaddr = ph.p_vaddr;
		f->segs[f->nr_segs].filesz = ph.p_filesz;
		f->nr_segs++;
	}
	return f->nr_segs > 0;
}

/* The PT_LOAD segments of the ELF file open at @fd; false if none. */
static bool read_segs(int fd, struct ufile *f)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = elf_segs(e, f);

	if (e)
		elf_end(e);
	return ok;
}

/*
 * Open the file of the mapping [@start, @end) of process @id: through
 * map_files, which is the very file mapped whatever the process's root
 * or mount namespace, else by its path as the process sees it.
 */
static int open_mapped(const struct gt_unwind *u, int id, uint64_t start,
		       uint64_t end, const char *path)
{
	char p[4400];
	int fd;

	snprintf(p, sizeof(p), "%s/%d/map_files/%" PRIx64 "-%" PRIx64,
		 u->proc, id, start, end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(p, sizeof(p), "%s/%d/root%s", u->proc, id, path);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : open(path, O_RDONLY | O_CLOEXEC);
}

/* The file (@dev, @ino), added if new; NULL: out of memory. */
static struct ufile *file_get(struct gt_unwind *u, uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ULL) ^ ino, *slot;
	struct ufile *f;
	bool added;

	/* Another file with this hash: the next key. */
	for (;; h++) {
		slot = u64map_put(&u->by_inode, h, 0, &added);
		if (!slot)
			return NULL;
		if (!*slot)
			break;
		f = u->files[*slot - 1];
		if (f->dev == dev && f->ino == ino)
			return f;
	}
	if (u->nr_files == u->files_cap) {
		size_t cap = u->files_cap ? 2 * u->files_cap : 64;
		struct ufile **v = realloc(u->files, cap * sizeof(*v));

		if (!v)
			return NULL;
		u->files = v;
		u->files_cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	u->files[u->nr_files++] = f;
	*slot = u->nr_files;
	stat_add(u, &u->st.files, 1);
	return f;
}

/*
 * The slots of @f's table in the array: its rows, then its index, the
 * row that applies at the start of each GOTRACE_UNWIND_PAGE of table
 * positions.  False: out of memory, or too large for the array.
 */
static bool file_slots(struct ufile *f)
{
	uint64_t pages = (f->t.end - f->t.base) / GOTRACE_UNWIND_PAGE + 1;
	uint32_t *index, r = 0;

	if (pages > UINT32_MAX / 2 || f->t.nr > UINT32_MAX / 2)
		return false;
	f->nr_pages = (uint32_t)pages;
	f->nr_slots = f->t.nr + (f->nr_pages + 3) / 4;
	f->slots = calloc(f->nr_slots, sizeof(*f->slots));
	if (!f->slots)
		return false;
	memcpy(f->slots, f->t.rows, f->t.nr * sizeof(*f->slots));
	index = (uint32_t *)&f->slots[f->t.nr];
	/* Rows are sorted and the first is at position 0 (the base). */
	for (uint32_t p = 0; p < f->nr_pages; p++) {
		uint64_t at = (uint64_t)p * GOTRACE_UNWIND_PAGE;

		while (r + 1 < f->t.nr && f->t.rows[r + 1].pc <= at)
			r++;
		index[p] = r;
	}
	/* The rows are in the slots now: the table keeps no copy. */
	free(f->t.rows);
	f->t.rows = NULL;
	return true;
}

/* Build @f's table from the mapping it was seen in; once per file. */
static void file_build(struct gt_unwind *u, struct ufile *f, int id,
		       uint64_t start, uint64_t end, const char *path)
{
	char err[256];
	uint64_t t0 = mono_ns();
	int fd;

	f->built = true;
	f->no_table = true;
	fd = open_mapped(u, id, start, end, path);
	if (fd < 0)
		goto out;
	if (read_segs(fd, f) &&
	    !gt_eh_table_build(fd, path, 0, &f->t, err, sizeof(err)) &&
	    f->t.nr && !f->t.go && file_slots(f))
		f->no_table = false;
	close(fd);
out:
	stat_add(u, &u->st.build_ns, mono_ns() - t0);
	stat_add(u, f->no_table ? &u->st.no_table : &u->st.tables, 1);
}

/*
 * The vDSO's table (@f): it has no file, but every native process maps
 * the same image, the command's own (gt_eh_vdso()): built from that,
 * once for all of them.
 */
static void vdso_build(struct gt_unwind *u, struct ufile *f)
{
	char err[256], *copy = NULL;
	uint64_t t0 = mono_ns();
	size_t size = 0;
	const void *image = gt_eh_vdso(&size);
	Elf *e = NULL;

	f->built = true;
	f->no_table = true;
	/* libelf may write to an image it reads: a copy, a few KiB. */
	if (image)
		copy = malloc(size);
	if (copy) {
		memcpy(copy, image, size);
		e = elf_memory(copy, size);
	}
	if (elf_segs(e, f) &&
	    !gt_eh_table_build_mem(image, size, "[vdso]", 0, &f->t, err,
				   sizeof(err)) &&
	    f->t.nr && file_slots(f))
		f->no_table = false;
	if (e)
		elf_end(e);
	free(copy);
	stat_add(u, &u->st.build_ns, mono_ns() - t0);
	stat_add(u, f->no_table ? &u->st.no_table : &u->st.tables, 1);
}

/*
 * Whether process @id runs a 64-bit program of @machine, by its
 * executable's ELF header: its [vdso] is then the command's image.  A
 * 32-bit (or x32) process maps another, and no walker walks it.
 */
static bool vdso_native(const struct gt_unwind *u, int id, uint16_t machine)
{
	unsigned char native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
			       ELFDATA2LSB : ELFDATA2MSB;
	Elf64_Ehdr eh;
	char p[300];
	bool ok;
	int fd;

	snprintf(p, sizeof(p), "%s/%d/exe", u->proc, id);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	     !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	     eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	     eh.e_ident[EI_DATA] == native && eh.e_machine == machine;
	close(fd);
	return ok;
}

/* ---- The array of rows ------------------------------------------------- */

/*
 * The first free extent of @n rows, by the loaded tables' extents; false
 * if none.  Tables are few (at most max_tables): a scan of the slots
 * sorted by their first row is cheap next to building a table.
 */
static int cmp_u64pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static bool find_room(struct gt_unwind *u, uint32_t n, uint32_t *first)
{
	uint64_t (*ext)[2] = malloc(u->p.max_tables * sizeof(*ext));
	uint32_t k = 0, at = 0;
	bool ok = false;

	if (!ext)
		return false;
	for (uint32_t i = 0; i < u->p.max_tables; i++)
		if (u->slots[i].file) {
			ext[k][0] = u->slots[i].first;
			ext[k][1] = u->slots[i].nr;
			k++;
		}
	qsort(ext, k, sizeof(*ext), cmp_u64pair);
	for (uint32_t i = 0; i <= k && !ok; i++) {
		uint64_t next = i < k ? ext[i][0] : u->p.max_rows;

		if (next >= at && next - at >= n) {
			*first = at;
			ok = true;
		} else if (i < k) {
			at = (uint32_t)(ext[i][0] + ext[i][1]);
		}
	}
	free(ext);
	return ok;
}

/* Unload the table in slot @s: its rows become room, its mappings none. */
static void slot_evict(struct gt_unwind *u, uint32_t s)
{
	struct slot *sl = &u->slots[s];

	sl->file->slot = 0;
	sl->file = NULL;
	/* Odd until it holds another table: every mapping of it is stale. */
	sl->gen |= 1;
	u->sink.table(u->sink.arg, s, &(struct gotrace_unwind_table){
			      .gen = sl->gen });
	stat_add(u, &u->st.rows, -(uint64_t)sl->nr);
	stat_add(u, &u->st.evictions, 1);
}

/* The least recently used loaded table, not used at tick @now. */
static bool lru_slot(const struct gt_unwind *u, uint64_t now, uint32_t *s)
{
	bool found = false;

	for (uint32_t i = 0; i < u->p.max_tables; i++) {
		const struct ufile *f = u->slots[i].file;

		if (f && f->used < now &&
		    (!found || f->used < u->slots[*s].file->used)) {
			*s = i;
			found = true;
		}
	}
	return found;
}

/* Load @f's table: a slot and its rows; false if it cannot be. */
static bool file_load(struct gt_unwind *u, struct ufile *f)
{
	uint32_t s = 0, first = 0;
	struct slot *sl;
	uint64_t t0;
	bool free_slot = false;

	if (f->slot)
		return true;
	if (f->nr_slots > u->p.max_rows) {
		stat_add(u, &u->st.too_big, 1);
		return false;
	}
	for (uint32_t i = 0; i < u->p.max_tables && !free_slot; i++)
		if (!u->slots[i].file) {
			s = i;
			free_slot = true;
		}
	while (!free_slot || !find_room(u, f->nr_slots, &first)) {
		uint32_t old = 0;

		if (!lru_slot(u, u->tick, &old))
			return false;
		slot_evict(u, old);
		if (!free_slot) {
			s = old;
			free_slot = true;
		}
	}
	t0 = mono_ns();
	sl = &u->slots[s];
	/* Odd while its rows are written (it may be odd already). */
	sl->gen |= 1;
	if (u->sink.table(u->sink.arg, s, &(struct gotrace_unwind_table){
				  .gen = sl->gen }) ||
	    u->sink.rows(u->sink.arg, first, f->slots, f->nr_slots))
		return false;
	sl->gen++;
	if (u->sink.table(u->sink.arg, s, &(struct gotrace_unwind_table){
				  .first = first, .nr = f->t.nr,
				  .index = first + f->t.nr,
				  .nr_pages = f->nr_pages, .gen = sl->gen }))
		return false;
	sl->file = f;
	sl->first = first;
	sl->nr = f->nr_slots;
	f->slot = s + 1;
	stat_add(u, &u->st.load_ns, mono_ns() - t0);
	pthread_mutex_lock(&u->lock);
	u->st.rows += f->nr_slots;
	if (u->st.rows > u->st.rows_peak)
		u->st.rows_peak = u->st.rows;
	pthread_mutex_unlock(&u->lock);
	return true;
}

/* ---- Address spaces ---------------------------------------------------- */

/*
 * The mapping @m of file @f at [@start, @end) from file offset @off:
 * its bias, through the segment that holds @off.  False if none does.
 */
static bool map_bias(const struct ufile *f, uint64_t start, uint64_t off,
		     uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (unsigned int i = 0; i < f->nr_segs; i++) {
		const struct seg *g = &f->segs[i];

		/*
		 * Mapped from the page of its offset, which need not be
		 * aligned: lld's code segment begins in the last page of the
		 * read-only one before it, so the mapping's @off is that
		 * segment's bytes.
		 */
		if (off >= (g->off & ~(page - 1)) && off < g->off + g->filesz) {
			*bias = start - off + g->off - g->vaddr + f->t.base;
			return true;
		}
	}
	return false;
}

static int cmp_map(const void *a, const void *b)
{
	const struct gotrace_unwind_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Remember that the sink holds @space, of @tgid. */
static void space_keep(struct gt_unwind *u, uint64_t space, int tgid)
{
	for (size_t i = 0; i < u->nr_spaces; i++)
		if (u->spaces[i].space == space)
			return;
	if (u->nr_spaces == u->spaces_cap) {
		size_t cap = u->spaces_cap ? 2 * u->spaces_cap : 256;
		struct kspace *v = realloc(u->spaces, cap * sizeof(*v));

		if (!v)
			return;
		u->spaces = v;
		u->spaces_cap = cap;
	}
	u->spaces[u->nr_spaces++] = (struct kspace){ space, tgid };
}

/*
 * Read the executable mappings of /proc/@id into @maps (at most
 * GOTRACE_UNWIND_MAPS_MAX), their files' tables loaded; the count, -1
 * if the process is gone, -2 if its maps may not be read.
 */
static int space_read(struct gt_unwind *u, int id,
		      struct gotrace_unwind_map *maps, bool *cut)
{
	char path[300], line[4352], file[4097];
	int n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d/maps", u->proc, id);
	fp = fopen(path, "re");
	if (!fp)
		return errno == EACCES || errno == EPERM ? -2 : -1;
	*cut = false;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t start, end, off, ino, bias = 0;
		unsigned int maj, min;
		char perm[8];
		struct ufile *f;
		bool vdso;
		int at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %x:%x %" SCNu64 " %n", &start, &end, perm, &off,
			   &maj, &min, &ino, &at) < 7 || !at)
			continue;
		snprintf(file, sizeof(file), "%s", line + at);
		file[strcspn(file, "\n")] = '\0';
		/* Code of a file or the vDSO: not anonymous or deleted code. */
		vdso = !strcmp(file, "[vdso]");
		if (perm[2] != 'x' || (!vdso && (file[0] != '/' || !ino ||
						 strstr(file, " (deleted)"))))
			continue;
		if (n == GOTRACE_UNWIND_MAPS_MAX) {
			*cut = true;
			break;
		}
		/* The vDSO's key: no file has inode 0. */
		f = vdso ? file_get(u, 0, 0) : file_get(u, makedev(maj, min),
							 ino);
		if (!f)
			continue;
		if (!f->built && vdso)
			vdso_build(u, f);
		else if (!f->built)
			file_build(u, f, id, start, end, file);
		/* Another vDSO than ours, or no table: left out, as before. */
		if (vdso && (f->no_table || !vdso_native(u, id, f->t.machine)))
			continue;
		f->used = u->tick;
		maps[n] = (struct gotrace_unwind_map){ .start = start,
						       .end = end };
		if (!f->no_table && map_bias(f, start, off, &bias) &&
		    file_load(u, f)) {
			maps[n].bias = bias;
			maps[n].table = f->slot;
			maps[n].gen = u->slots[f->slot - 1].gen;
		}
		n++;
	}
	fclose(fp);
	return n;
}

static void space_load(struct gt_unwind *u, const struct req *r)
{
	struct gotrace_unwind_map maps[GOTRACE_UNWIND_MAPS_MAX];
	int ids[2] = { r->tid, r->tgid }, n = -1, err;
	int tgid = r->tgid > 0 ? r->tgid : r->tid;
	bool cut = false;

	u->tick++;
	for (int i = 0; i < 2 && n < 0; i++)
		if (ids[i] > 0)
			n = space_read(u, ids[i], maps, &cut);
	if (n <= 0) {
		stat_add(u, n == -2 ? &u->st.denied : &u->st.gone, 1);
		return;
	}
	/*
	 * A table loaded for a later mapping may have evicted an earlier
	 * one's: such a mapping is walked by frame pointers.
	 */
	for (int i = 0; i < n; i++)
		if (maps[i].table &&
		    u->slots[maps[i].table - 1].gen != maps[i].gen)
			maps[i].table = 0;
	qsort(maps, (size_t)n, sizeof(*maps), cmp_map);
	err = u->sink.space(u->sink.arg, r->space, tgid, maps, (uint32_t)n);
	/* The process went, or executed another program, since it was read. */
	if (err == -ESTALE || err == -ESRCH) {
		stat_add(u, &u->st.gone, 1);
		return;
	}
	if (err) {
		stat_add(u, &u->st.spaces_full, 1);
		return;
	}
	space_keep(u, r->space, tgid);
	stat_add(u, &u->st.spaces, 1);
	if (cut)
		stat_add(u, &u->st.maps_cut, 1);
}

/* Drop the spaces of processes that are gone: room for new ones. */
static void space_sweep(struct gt_unwind *u)
{
	size_t k = 0;

	for (size_t i = 0; i < u->nr_spaces; i++) {
		if (kill(u->spaces[i].tgid, 0) && errno == ESRCH) {
			u->sink.space(u->sink.arg, u->spaces[i].space,
				      u->spaces[i].tgid, NULL, 0);
			continue;
		}
		u->spaces[k++] = u->spaces[i];
	}
	u->nr_spaces = k;
}

/* ---- The worker -------------------------------------------------------- */

static void *worker(void *arg)
{
	struct gt_unwind *u = arg;
	struct timespec ts;
	struct req r;
	bool have;

	pthread_mutex_lock(&u->lock);
	while (!u->stop) {
		have = u->q_len > 0;
		if (have) {
			r = u->q[u->q_head];
			u->q_head = (u->q_head + 1) % u->q_cap;
			u->q_len--;
		} else {
			/* Idle: say so, and wake for a request or a sweep. */
			u->busy = false;
			pthread_cond_broadcast(&u->idle);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&u->more, &u->lock, &ts);
		}
		pthread_mutex_unlock(&u->lock);
		if (have)
			space_load(u, &r);
		if (mono_ns() - u->swept_ns > SWEEP_NS) {
			space_sweep(u);
			u->swept_ns = mono_ns();
		}
		pthread_mutex_lock(&u->lock);
	}
	u->busy = false;
	pthread_cond_broadcast(&u->idle);
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

struct gt_unwind *gt_unwind_new(const struct gt_unwind_params *p,
				const struct gt_unwind_sink *sink)
{
	struct gt_unwind *u = calloc(1, sizeof(*u));
	sigset_t all, old;
	int err;

	if (!u) {
		gt_err("out of memory");
		return NULL;
	}
	u->p = *p;
	u->sink = *sink;
	snprintf(u->proc, sizeof(u->proc), "%s", p->proc ? p->proc : "/proc");
	elf_version(EV_CURRENT);
	u->slots = calloc(p->max_tables ? p->max_tables : 1, sizeof(*u->slots));
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->more, NULL);
	pthread_cond_init(&u->idle, NULL);
	u->swept_ns = mono_ns();
	if (!u->slots) {
		gt_err("out of memory");
		gt_unwind_free(u);
		return NULL;
	}
	/*
	 * The worker takes no signal: the recorder's thread waits for
	 * them (recsig.c), and a signal the worker took would be lost to
	 * it.  It starts with every one blocked.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&u->worker, NULL, worker, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		gt_err("cannot start the unwind tables' thread: %s",
		       strerror(err));
		gt_unwind_free(u);
		return NULL;
	}
	u->started = true;
	return u;
}

void gt_unwind_request(struct gt_unwind *u, uint64_t space, int tid, int tgid)
{
	if (!u || !space || (tid <= 0 && tgid <= 0))
		return;
	pthread_mutex_lock(&u->lock);
	u->st.requests++;
	/*
	 * The same space queued already: one load serves both, moved to
	 * the front (below), its place closed up.
	 */
	for (size_t i = 0; i < u->q_len; i++) {
		if (u->q[(u->q_head + i) % u->q_cap].space != space)
			continue;
		for (; i + 1 < u->q_len; i++)
			u->q[(u->q_head + i) % u->q_cap] =
				u->q[(u->q_head + i + 1) % u->q_cap];
		u->q_len--;
		break;
	}
	if (u->q_len == u->q_cap) {
		size_t cap = u->q_cap ? 2 * u->q_cap : 64;
		struct req *v = malloc(cap * sizeof(*v));

		if (!v)
			goto out;
		for (size_t i = 0; i < u->q_len; i++)
			v[i] = u->q[(u->q_head + i) % u->q_cap];
		free(u->q);
		u->q = v;
		u->q_head = 0;
		u->q_cap = cap;
	}
	/*
	 * Newest first: the space asked for last is the one a walk is
	 * waiting for now (a program just started, a library just
	 * mapped, a process the start's snapshot queued and that runs
	 * already); the rest of the start's processes can wait.
	 */
	u->q_head = (u->q_head + u->q_cap - 1) % u->q_cap;
	u->q[u->q_head] = (struct req){ space, tid, tgid };
	u->q_len++;
	u->busy = true;
	pthread_cond_signal(&u->more);
out:
	pthread_mutex_unlock(&u->lock);
}

void gt_unwind_settle(struct gt_unwind *u)
{
	struct timespec until;

	if (!u)
		return;
	/* Bounded: a read of maps may wait for a busy mmap_lock (above). */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += UNWIND_SETTLE_WAIT_S;
	pthread_mutex_lock(&u->lock);
	while (u->busy && !u->stop)
		if (pthread_cond_timedwait(&u->idle, &u->lock, &until))
			break;
	pthread_mutex_unlock(&u->lock);
}

void gt_unwind_stats(struct gt_unwind *u, struct gt_unwind_stats *st)
{
	if (!u) {
		memset(st, 0, sizeof(*st));
		return;
	}
	pthread_mutex_lock(&u->lock);
	*st = u->st;
	pthread_mutex_unlock(&u->lock);
}

void gt_unwind_free(struct gt_unwind *u)
{
	if (!u)
		return;
	if (u->started) {
		struct timespec until;

		pthread_mutex_lock(&u->lock);
		u->stop = true;
		pthread_cond_broadcast(&u->more);
		pthread_mutex_unlock(&u->lock);
		/*
		 * The worker may be in a read of /proc/PID/maps that waits
		 * for the process's mmap_lock, which it may hold as long as
		 * it likes (a fault on FUSE or NFS): the stop does not wait
		 * for it.  Left running, with what it uses, until the
		 * process ends (its read then fails or returns, and it sees
		 * the stop).
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += UNWIND_STOP_WAIT_S;
		if (pthread_timedjoin_np(u->worker, NULL, &until)) {
			pthread_detach(u->worker);
			return;
		}
	}
	for (size_t i = 0; i < u->nr_files; i++) {
		gt_eh_table_free(&u->files[i]->t);
		free(u->files[i]->slots);
		free(u->files[i]->segs);
		free(u->files[i]);
	}
	free(u->files);
	u64map_free(&u->by_inode);
	free(u->slots);
	free(u->spaces);
	free(u->q);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->more);
	pthread_cond_destroy(&u->idle);
	free(u);
}
