/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umaps.h - the BPF backend's naming of user frames: raw addresses of
 * an address space as a file and an offset in it
 *
 * The BPF programs record raw user PCs and the identity of their
 * address space (record.h, struct gtb_ustack).  What file an address
 * was in is a question of the process's mappings, which a BPF program
 * cannot look up where it runs (the VMA tree needs mmap_lock), so the
 * reader asks /proc/TID/maps, as soon as it sees a space, and keeps the
 * answer for the whole session: the process may exit, or exec, long
 * before its stacks' generation is written.  The model then asks
 * gt_umaps_resolve() and gt_umaps_file() when it writes its tables
 * (gtmodel.h: uresolve, ufile).
 *
 * Lossy where the process is gone, or runs another program, before the
 * reader reads its maps: its frames are then "[unknown]+0x..." (counted
 * in gt_umaps_stats.gone).  The reader reads them when the ring record
 * carrying the space's first stack is consumed, not when it is merged.
 *
 * One thread: nothing here locks.
 */
#ifndef GOTRACE_BPF_UMAPS_H
#define GOTRACE_BPF_UMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_umaps;

struct gt_umaps_stats {
	uint64_t spaces;	/* address spaces seen */
	uint64_t reads;		/* maps files read */
	uint64_t gone;		/* spaces whose process was gone at the first read */
	uint64_t changed;	/* spaces whose process ran another program by then */
	uint64_t files;		/* distinct files named */
};

/* @proc: the proc file system's mount ("/proc"; another for tests). */
struct gt_umaps *gt_umaps_new(const char *proc);
void gt_umaps_free(struct gt_umaps *u);

/**
 * struct gt_umaps_who - whose mappings: a user stack's (record.h)
 * @space:	its address space
 * @exe_ino:	the inode of the program it ran (0: unknown)
 * @tid:	the thread it was of
 * @tgid:	its process
 */
struct gt_umaps_who {
	uint64_t space;
	uint64_t exe_ino;
	int tid;
	int tgid;
};

/*
 * The user PCs @pcs[0..@n) of @w were seen: read its mappings if the
 * space is new, or again (at most every few ms per space) if a PC is in
 * none of those read so far.  Read from /proc/TID (or /proc/TGID, the
 * thread gone), only while that process runs the same program: one
 * that ran another since (exec) keeps the space unread.
 */
void gt_umaps_see(struct gt_umaps *u, const struct gt_umaps_who *w,
		  const uint64_t *pcs, unsigned int n);

/*
 * gtmodel.h's uresolve: the file (an index for gt_umaps_file()) and the
 * offset in it of @pc in @space (48 bits); false if @pc is in no file,
 * or the space's mappings were never read.
 */
bool gt_umaps_resolve(void *u, uint64_t space, uint64_t pc, uint32_t *file,
		      uint64_t *off);
/* gtmodel.h's ufile: the absolute path of file index @file, or NULL. */
const char *gt_umaps_file(void *u, uint32_t file);

void gt_umaps_stats(const struct gt_umaps *u, struct gt_umaps_stats *st);

/*
 * Call @fn each time the mappings of a space are read (a new space, or
 * a PC in none of those read so far): the unwind tables load the same
 * spaces (user/unwind/unwind.h).  NULL: none.
 */
void gt_umaps_on_read(struct gt_umaps *u,
		      void (*fn)(void *arg, const struct gt_umaps_who *w),
		      void *arg);

#endif /* GOTRACE_BPF_UMAPS_H */
