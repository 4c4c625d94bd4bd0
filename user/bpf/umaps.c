// SPDX-License-Identifier: GPL-2.0
/*
 * umaps.c - user frames as file + offset, from /proc/TID/maps (umaps.h)
 *
 * Per address space, every mapping the reads found, newest read first:
 * a library unmapped since keeps its entry, so that a stack taken
 * before names it still.  Per space and PC, whether it was seen already
 * (a hash of both: a PC seen again costs one lookup, no read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "umaps.h"
#include "../trace/u64map.h"

/* A PC in no mapping read so far reads them again, not more often. */
#define REREAD_NS	(5ULL * 1000 * 1000)
/*
 * Reads of a space that may follow one another at once: the first stack
 * of a space can come from inside execve(), after the new address space
 * exists and before the program's segments are mapped in it (the walk
 * then finds the old program's registers), so the first read may lack
 * the program itself.  Beyond these, REREAD_NS apart.
 */
#define QUICK_READS	4

struct umap {
	uint64_t start, end;	/* [start, end) */
	uint64_t off;		/* the file offset of @start */
	int64_t file;		/* index in the file table, -1: no file */
};

struct uspace {
	struct umap *maps;
	size_t n, cap;
	uint64_t read_ns;	/* when last read, 0: never */
	unsigned int reads;	/* how many times read */
	bool gone;		/* the last read found no process (or another
				 * program) */
};

struct gt_umaps {
	char proc[256];
	struct u64map spaces;	/* space -> index + 1 in @sp */
	struct uspace *sp;
	size_t nr_sp, sp_cap;
	struct u64map seen;	/* hash(space, pc) -> 1 */
	struct u64map by_path;	/* hash(path) (+ probe) -> index + 1 */
	char **files;
	size_t nr_files, files_cap;
	struct gt_umaps_stats st;
	void (*on_read)(void *arg, const struct gt_umaps_who *w);
	void *on_read_arg;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

struct gt_umaps *gt_umaps_new(const char *proc)
{
	struct gt_umaps *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	snprintf(u->proc, sizeof(u->proc), "%s", proc ? proc : "/proc");
	return u;
}

void gt_umaps_free(struct gt_umaps *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_sp; i++)
		free(u->sp[i].maps);
	free(u->sp);
	for (size_t i = 0; i < u->nr_files; i++)
		free(u->files[i]);
	free(u->files);
	u64map_free(&u->spaces);
	u64map_free(&u->seen);
	u64map_free(&u->by_path);
	free(u);
}

/* The index of @path in the file table, added if new; -1: no memory. */
static int64_t file_index(struct gt_umaps *u, const char *path)
{
	uint64_t h = 14695981039346656037ULL, *slot;
	bool added;

	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	/* Another path with this hash: the next key. */
	for (;; h++) {
		slot = u64map_put(&u->by_path, h, 0, &added);
		if (!slot)
			return -1;
		if (!added && *slot && !strcmp(u->files[*slot - 1], path))
			return (int64_t)*slot - 1;
		if (added || !*slot)
			break;
	}
	if (u->nr_files == u->files_cap) {
		size_t cap = u->files_cap ? 2 * u->files_cap : 64;
		char **v = realloc(u->files, cap * sizeof(*v));

		if (!v)
			return -1;
		u->files = v;
		u->files_cap = cap;
	}
	u->files[u->nr_files] = strdup(path);
	if (!u->files[u->nr_files])
		return -1;
	*slot = ++u->nr_files;
	u->st.files = u->nr_files;
	return (int64_t)u->nr_files - 1;
}

static bool same_map(const struct umap *a, const struct umap *b)
{
	return a->start == b->start && a->end == b->end && a->off == b->off &&
	       a->file == b->file;
}

enum { EXE_SAME, EXE_OTHER, EXE_GONE };

/* Does /proc/@id run the program of inode @ino (0: any)?  Or is it gone? */
static int exe_of(const struct gt_umaps *u, int id, uint64_t ino)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d/exe", u->proc, id);
	if (stat(path, &st))
		return EXE_GONE;	/* exited, or a zombie: no exe */
	return !ino || (uint64_t)st.st_ino == ino ? EXE_SAME : EXE_OTHER;
}

/* The mappings of /proc/@id, into @v; false if none could be read. */
static bool maps_read(struct gt_umaps *u, int id, struct umap **v, size_t *n,
		      size_t *cap)
{
	char path[300], line[4352], file[4097];
	struct umap *nv;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d/maps", u->proc, id);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t start, end, off;
		struct umap m;
		int at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64
			   " %*s %*u %n", &start, &end, &off, &at) < 3 || !at)
			continue;
		/* The path is the rest of the line: it may hold spaces. */
		snprintf(file, sizeof(file), "%s", line + at);
		file[strcspn(file, "\n")] = '\0';
		m.start = start;
		m.end = end;
		m.off = off;
		/* "[vdso]", "[heap]", anonymous, or a file deleted since. */
		m.file = file[0] == '/' && !strstr(file, " (deleted)") ?
			 file_index(u, file) : -1;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 64;

			nv = realloc(*v, c * sizeof(*nv));
			if (!nv)
				break;
			*v = nv;
			*cap = c;
		}
		(*v)[(*n)++] = m;
	}
	fclose(fp);
	return *n > 0;
}

/*
 * Read @w's maps into @s: the new ones first, then those of earlier
 * reads that are not among them.  From the thread, or its process when
 * the thread is gone; only while it runs the program @w ran, checked
 * before and after (an exec between the two reads another program's
 * maps).  READ_GONE: no such process (or a zombie: no maps).
 */
enum { READ_OK, READ_GONE, READ_CHANGED };

static int space_read(struct gt_umaps *u, struct uspace *s,
		      const struct gt_umaps_who *w)
{
	int ids[2] = { w->tid, w->tgid };
	struct umap *v = NULL, *nv;
	size_t n = 0, cap = 0;
	bool ok = false;

	s->read_ns = mono_ns();
	s->reads++;
	u->st.reads++;
	if (u->on_read)
		u->on_read(u->on_read_arg, w);
	for (int i = 0; i < 2 && !ok; i++) {
		int exe;

		if (ids[i] <= 0 || (i && ids[1] == ids[0]))
			continue;
		exe = exe_of(u, ids[i], w->exe_ino);
		if (exe == EXE_GONE)
			continue;	/* the thread exited: its process? */
		if (exe == EXE_OTHER) {
			/* Running another program: its maps are not these. */
			s->gone = true;
			free(v);
			return READ_CHANGED;
		}
		n = 0;
		ok = maps_read(u, ids[i], &v, &n, &cap) &&
		     exe_of(u, ids[i], w->exe_ino) == EXE_SAME;
	}
	if (!ok) {
		free(v);
		s->gone = true;
		return READ_GONE;
	}
	for (size_t i = 0; i < s->n; i++) {
		bool dup = false;

		for (size_t j = 0; j < n && !dup; j++)
			dup = same_map(&s->maps[i], &v[j]);
		if (dup)
			continue;
		if (n == cap) {
			cap = 2 * cap;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = s->maps[i];
	}
	free(s->maps);
	s->maps = v;
	s->n = n;
	s->cap = cap;
	s->gone = false;
	return READ_OK;
}

static const struct umap *space_find(const struct uspace *s, uint64_t pc)
{
	for (size_t i = 0; i < s->n; i++)
		if (pc >= s->maps[i].start && pc < s->maps[i].end)
			return &s->maps[i];
	return NULL;
}

static struct uspace *space_get(const struct gt_umaps *u, uint64_t space)
{
	uint64_t *slot = u64map_get(&u->spaces, space);

	return slot && *slot ? &u->sp[*slot - 1] : NULL;
}

void gt_umaps_see(struct gt_umaps *u, const struct gt_umaps_who *w,
		  const uint64_t *pcs, unsigned int n)
{
	uint64_t space = w->space;
	struct uspace *s;
	uint64_t *slot;
	bool added, read_now = false;

	if (!u || (w->tid <= 0 && w->tgid <= 0) || !n)
		return;
	slot = u64map_put(&u->spaces, space, 0, &added);
	if (!slot)
		return;
	if (!*slot) {
		if (u->nr_sp == u->sp_cap) {
			size_t cap = u->sp_cap ? 2 * u->sp_cap : 256;
			struct uspace *v = realloc(u->sp, cap * sizeof(*v));

			if (!v)
				return;
			u->sp = v;
			u->sp_cap = cap;
		}
		memset(&u->sp[u->nr_sp], 0, sizeof(u->sp[0]));
		*slot = ++u->nr_sp;
		u->st.spaces++;
		s = &u->sp[*slot - 1];
		switch (space_read(u, s, w)) {
		case READ_GONE:
			u->st.gone++;
			break;
		case READ_CHANGED:
			u->st.changed++;
			break;
		}
		read_now = true;
	}
	s = &u->sp[*slot - 1];
	for (unsigned int i = 0; i < n; i++) {
		uint64_t key = mix(space ^ mix(pcs[i]));

		if (u64map_get(&u->seen, key))
			continue;
		/*
		 * A PC the mappings read do not cover: mapped since?  A
		 * space read too recently is read at a later sighting of
		 * the PC, so the PC is not marked seen yet.
		 */
		if (!space_find(s, pcs[i]) && !read_now && !s->gone) {
			if (s->reads >= QUICK_READS &&
			    mono_ns() - s->read_ns < REREAD_NS)
				continue;
			space_read(u, s, w);
			read_now = true;
		}
		/* Seen: not read again for it, named or not. */
		u64map_put(&u->seen, key, 1, &added);
	}
}

bool gt_umaps_resolve(void *arg, uint64_t space, uint64_t pc, uint32_t *file,
		      uint64_t *off)
{
	struct gt_umaps *u = arg;
	const struct uspace *s = u ? space_get(u, space) : NULL;
	const struct umap *m = s ? space_find(s, pc) : NULL;

	if (!m || m->file < 0)
		return false;
	*file = (uint32_t)m->file;
	*off = pc - m->start + m->off;
	return true;
}

const char *gt_umaps_file(void *arg, uint32_t file)
{
	struct gt_umaps *u = arg;

	return u && file < u->nr_files ? u->files[file] : NULL;
}

void gt_umaps_on_read(struct gt_umaps *u,
		      void (*fn)(void *arg, const struct gt_umaps_who *w),
		      void *arg)
{
	u->on_read = fn;
	u->on_read_arg = arg;
}

void gt_umaps_stats(const struct gt_umaps *u, struct gt_umaps_stats *st)
{
	if (u)
		*st = u->st;
	else
		memset(st, 0, sizeof(*st));
}
