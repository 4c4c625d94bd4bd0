// SPDX-License-Identifier: GPL-2.0
/*
 * usym_frames.c - new strings and named frames of one string table
 */
#include <stdlib.h>
#include <string.h>

#include <linux/gotrace.h>

#include "base.h"
#include "leb128.h"
#include "usym_frames.h"

/* Go's readers take no longer string in a frame (Go 1.23, 1.27). */
#define MAX_STRING	1024

int gt_buf_put(struct gt_buf *b, const void *p, size_t n)
{
	if (gt_grow((void **)&b->p, &b->cap, b->len + n, 1))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int gt_buf_leb(struct gt_buf *b, uint64_t v)
{
	uint8_t t[GT_LEB_BYTES_MAX];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	return gt_buf_put(b, t, n);
}

void gt_namer_free(struct gt_namer *nm)
{
	u64map_free(&nm->by_hash);
	u64map_free(&nm->by_func);
	free(nm->strs);
	free(nm->sdata.p);
	free(nm->memo);
	free(nm->pending.p);
}

/*
 * The id of new string @str, added on first use; 0 out of memory.  A
 * string longer than Go reads keeps its last 1024 bytes, as the module's
 * encoder does.
 */
static uint64_t str_id(struct gt_namer *nm, const char *str)
{
	size_t n = strlen(str);
	uint64_t h, *slot;
	bool added;

	if (n > MAX_STRING) {
		str += n - MAX_STRING;
		n = MAX_STRING;
	}
	h = u64map_str_key(str, n);
	slot = u64map_get(&nm->by_hash, h);
	if (slot && nm->strs[*slot].len == n &&
	    !memcmp(nm->sdata.p + nm->strs[*slot].off, str, n))
		return nm->strs[*slot].id;
	/* New, or a hash met with other bytes: a string of its own. */
	if (gt_grow((void **)&nm->strs, &nm->scap, nm->nstrs + 1,
		    sizeof(*nm->strs)))
		return 0;
	nm->strs[nm->nstrs].off = nm->sdata.len;
	nm->strs[nm->nstrs].len = n;
	nm->strs[nm->nstrs].id = nm->next_id;
	if (gt_buf_put(&nm->sdata, str, n) ||
	    gt_buf_put(&nm->pending, &nm->string_byte, 1) ||
	    gt_buf_leb(&nm->pending, nm->next_id) ||
	    gt_buf_leb(&nm->pending, n) || gt_buf_put(&nm->pending, str, n))
		return 0;
	if (!slot && !u64map_put(&nm->by_hash, h, nm->nstrs, &added))
		return 0;
	nm->nstrs++;
	nm->n->strings++;
	return nm->next_id++;
}

const struct gt_named *gt_namer_frame(struct gt_namer *nm, uint64_t pc,
				      bool exact, uint64_t func, uint64_t file,
				      bool *oom)
{
	const char *fs, *ls;
	size_t fn, ln;
	uint64_t off, *slot;
	struct gt_usym_loc loc;
	struct gt_named m = { .file_of = file };

	exact |= pc >> GOTRACE_UPC_TAG_SHIFT == GOTRACE_UPC_FILE_EXACT;
	m.exact = exact;
	bool added;
	int r;

	slot = u64map_get(&nm->by_func, func);
	if (slot && nm->memo[*slot].file_of == file &&
	    nm->memo[*slot].exact == exact)
		return nm->memo[*slot].named ? &nm->memo[*slot] : NULL;
	if (!nm->string(nm->ctx, func, &fs, &fn) ||
	    !nm->string(nm->ctx, file, &ls, &ln) ||
	    !gt_usym_parse(fs, fn, ls, ln, &off))
		return NULL;
	nm->n->frames++;
	r = gt_usym_resolve(nm->u, ls, off, exact, &loc);
	if (r < 0)
		goto oom;
	if (r > 0) {
		m.func = str_id(nm, loc.func);
		m.file = str_id(nm, loc.file);
		if (!m.func || !m.file)
			goto oom;
		m.line = loc.line;
		m.named = true;
		/* An assembly function: its ELF symbol has the ABI's suffix. */
		m.async_preempt = !strcmp(loc.func, "runtime.asyncPreempt") ||
				  !strcmp(loc.func, "runtime.asyncPreempt.abi0");
		nm->n->named++;
	}
	if (gt_grow((void **)&nm->memo, &nm->mcap, nm->nmemo + 1,
		    sizeof(*nm->memo)))
		goto oom;
	nm->memo[nm->nmemo] = m;
	/*
	 * A func id met with another file, or as the other of an exact PC
	 * and a return address, is looked up again each time.
	 */
	if (!slot && !u64map_put(&nm->by_func, func, nm->nmemo, &added))
		goto oom;
	nm->nmemo++;
	return m.named ? &nm->memo[nm->nmemo - 1] : NULL;
oom:
	*oom = true;
	return NULL;
}

bool gt_namer_stack_frame(struct gt_namer *nm, uint64_t v[4],
			  bool *after_async, bool *oom)
{
	const uint64_t tag = (uint64_t)0xff << GOTRACE_UPC_TAG_SHIFT;
	const struct gt_named *m;
	bool exact = *after_async;
	uint64_t pc = v[0];

	if (exact && pc >> GOTRACE_UPC_TAG_SHIFT == GOTRACE_UPC_FILE)
		pc = (pc & ~tag) |
		     (uint64_t)GOTRACE_UPC_FILE_EXACT << GOTRACE_UPC_TAG_SHIFT;
	m = gt_namer_frame(nm, pc, exact, v[1], v[2], oom);
	*after_async = m && m->async_preempt;
	if (!m)
		return false;
	v[0] = pc;
	v[1] = m->func;
	v[2] = m->file;
	v[3] = m->line;
	return true;
}
