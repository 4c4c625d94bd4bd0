// SPDX-License-Identifier: GPL-2.0
/*
 * record_unwind.c - a recording's unwind tables: the summary line, and
 * the module's sink, start and misses (record_unwind.h)
 *
 * The sink runs on the manager's thread, the misses on the reader's;
 * both on the reader's handle, the only one the module takes them on.
 * The manager's thread blocks every signal: its ioctls are never
 * interrupted, the reader's may be (retried).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/gotrace.h>

#include "record_unwind.h"
#include "util.h"

/*
 * Rows per GOTRACE_IOC_UNWIND_ROWS: 128 KiB a copy, so that no ioctl
 * holds the module long, yet a C library's table takes four.
 */
#define ROWS_BATCH	8192U
/* Misses taken per ioctl, and ioctls per wake at most. */
#define MISSES_BATCH	64U
#define MISSES_ROUNDS	8

struct gt_recunw {
	int fd;				/* the reader's handle */
	struct gt_unwind *u;
	bool said;			/* the misses failed: said once */
};

void gt_recunw_summary(struct gt_unwind *u)
{
	struct gt_unwind_stats ws;

	gt_unwind_stats(u, &ws);
	fprintf(stderr, "%s: unwind tables: %" PRIu64 " built (%" PRIu64
		" files without: Go, no .eh_frame, unreadable) in %.1f ms, %"
		PRIu64 " KiB at most, %" PRIu64 " evicted, %" PRIu64
		" too big; %" PRIu64 " address spaces loaded (%" PRIu64
		" gone first, %" PRIu64 " with mappings cut, %" PRIu64
		" not held)\n", GT_NAME, ws.tables, ws.no_table,
		ws.build_ns / 1e6,
		ws.rows_peak * sizeof(struct gotrace_unwind_row) >> 10,
		ws.evictions, ws.too_big, ws.spaces, ws.gone,
		ws.maps_cut, ws.spaces_full);
	if (ws.denied)
		gt_warn("the maps of %" PRIu64 " processes could not be read (reading another user's, or a more privileged process's, takes CAP_SYS_PTRACE): their stacks were walked by frame pointers",
			ws.denied);
}

uint32_t gt_recunw_rows(uint64_t bytes)
{
	uint64_t rows = (bytes ? bytes : GT_UNWIND_MEMORY_DEFAULT) /
			sizeof(struct gotrace_unwind_row);

	/* --unwind-memory takes up to 2G, which the BPF maps can hold. */
	if (rows > GOTRACE_UNWIND_ROWS_MAX) {
		gt_warn("--unwind-memory: the module holds at most %zu MiB of unwind tables: that much then",
			GOTRACE_UNWIND_ROWS_MAX *
			sizeof(struct gotrace_unwind_row) >> 20);
		rows = GOTRACE_UNWIND_ROWS_MAX;
	}
	if (rows < GOTRACE_UNWIND_ROWS_MIN)
		rows = GOTRACE_UNWIND_ROWS_MIN;
	return (uint32_t)rows;
}

/* ioctl(): 0 or -errno; a signal's interruption retried. */
static int unw_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

/* ---- The sink (unwind.h), on the manager's thread ------------------- */

static int put_rows(void *arg, uint32_t first,
		    const struct gotrace_unwind_row *rows, uint32_t n)
{
	struct gt_recunw *r = arg;
	int err = 0;

	for (uint32_t at = 0; at < n && !err; at += ROWS_BATCH) {
		struct gotrace_unwind_rows q = {
			.first = first + at,
			.nr = n - at < ROWS_BATCH ? n - at : ROWS_BATCH,
			.rows = (uintptr_t)&rows[at],
		};

		err = unw_ioctl(r->fd, GOTRACE_IOC_UNWIND_ROWS, &q);
	}
	return err;
}

static int put_table(void *arg, uint32_t slot,
		     const struct gotrace_unwind_table *t)
{
	struct gt_recunw *r = arg;
	struct gotrace_unwind_set_table q = { .slot = slot, .table = *t };

	return unw_ioctl(r->fd, GOTRACE_IOC_UNWIND_TABLE, &q);
}

/*
 * The module sets @maps only if @tgid's space is still @space (-ESTALE:
 * it executed another program since its maps were read; -ESRCH: gone),
 * which the manager counts as gone.  A space is forgotten by its id
 * alone: its process is gone by then.
 */
static int put_space(void *arg, uint64_t space, int tgid,
		     const struct gotrace_unwind_map *maps, uint32_t n)
{
	struct gt_recunw *r = arg;
	struct gotrace_unwind_space q = {
		.space = space,
		.tgid = n ? tgid : 0,
		.nr = n,
		.maps = (uintptr_t)maps,
	};

	return unw_ioctl(r->fd, GOTRACE_IOC_UNWIND_SPACE, &q);
}

/* ---- The reader's side ---------------------------------------------- */

struct gt_recunw *gt_recunw_new(int fd, uint32_t rows)
{
	struct gt_recunw *r = calloc(1, sizeof(*r));
	struct gt_unwind_params p = {
		.max_rows = rows ? rows : GOTRACE_UNWIND_ROWS_DEFAULT,
		.max_tables = GOTRACE_UNWIND_TABLES_MAX,
	};
	struct gt_unwind_sink sink = {
		.rows = put_rows,
		.table = put_table,
		.space = put_space,
		.arg = r,
	};

	if (!r) {
		gt_err("out of memory");
		return NULL;
	}
	r->fd = fd;
	r->u = gt_unwind_new(&p, &sink);
	if (!r->u) {
		free(r);
		return NULL;
	}
	return r;
}

/*
 * Every process of /proc (its directories are the thread groups'), by
 * the module's identity of its space; a kernel thread has none (ESRCH),
 * as a process gone since the directory was read.
 */
int gt_recunw_start(struct gt_recunw *r)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int err = 0;

	if (!d) {
		gt_err("cannot read /proc for the unwind tables: %s",
		       strerror(errno));
		return -1;
	}
	while (!err && (e = readdir(d))) {
		struct gotrace_unwind_space q = { 0 };
		char *end;
		long pid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid > INT_MAX)
			continue;
		q.tgid = (int)pid;
		err = unw_ioctl(r->fd, GOTRACE_IOC_UNWIND_SPACE_ID, &q);
		if (!err)
			gt_unwind_request(r->u, q.space, q.tgid, q.tgid);
		else if (err == -ESRCH)
			err = 0;
	}
	closedir(d);
	if (err == -ENOTTY)
		return err;
	if (err) {
		gt_err("cannot find the processes' address spaces for the unwind tables: %s",
		       strerror(-err));
		return -1;
	}
	gt_unwind_settle(r->u);
	return 0;
}

void gt_recunw_misses(struct gt_recunw *r)
{
	struct gotrace_unwind_miss m[MISSES_BATCH];

	/* A few rounds at most: the trace is waiting to be read. */
	for (int round = 0; round < MISSES_ROUNDS; round++) {
		struct gotrace_unwind_misses q = {
			.nr = MISSES_BATCH,
			.misses = (uintptr_t)m,
		};
		int err = unw_ioctl(r->fd, GOTRACE_IOC_UNWIND_MISSES, &q);

		if (err) {
			if (!r->said)
				gt_warn("cannot take the module's unwind misses (their processes are walked by frame pointers): %s",
					strerror(-err));
			r->said = true;
			return;
		}
		/* tgid 0: not in this pid namespace, not ours to read. */
		for (uint32_t i = 0; i < q.nr && i < MISSES_BATCH; i++)
			gt_unwind_request(r->u, m[i].space, m[i].tgid,
					  m[i].tgid);
		if (q.nr < MISSES_BATCH)
			return;
	}
}

struct gt_unwind *gt_recunw_tables(struct gt_recunw *r)
{
	return r ? r->u : NULL;
}

void gt_recunw_free(struct gt_recunw *r)
{
	if (!r)
		return;
	gt_unwind_free(r->u);
	free(r);
}
