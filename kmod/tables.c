// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - stack and comm tables, and the footer that dumps them
 *
 * Events carry stack ids; the stacks themselves (and the strings their
 * frames name) are written once, in the footer, as Go's runtime does.
 * A stack is an array of PCs, innermost first.  Two kinds of PC exist:
 *
 *   kernel PCs, from the environment's stack capture, symbolised (in
 *   the module with kallsyms) only when the footer is built;
 *
 *   comm PCs, synthetic (GT_COMM_PC_BASE + 16 * index of the comm): the
 *   frame that names a task.  A task's goroutine is created with a
 *   one-frame stack holding its comm PC, and every stack of the task ends
 *   with it, so both Go readers name and group goroutines by command;
 *
 *   syscall PCs, synthetic (syscalls.c): the frame that names a syscall,
 *   just above the comm frame in the stacks of syscall events.
 *
 * Probes intern stacks and comms in O(length) with no allocation: the
 * tables are fixed-size, open-addressed, sized when the session starts.
 * When they fill up, kernel stacks are no longer added (events then carry
 * the task's comm stack) and the miss is counted; the last tenth of the
 * stack table is kept for comm stacks, which GoCreate cannot do without.
 *
 * Context:
 *   gt_tables_stack(), gt_tables_comm_stack(): any, irqs off or on.
 *   gt_tables_footer(): process context, after every probe is detached.
 * Locking:
 *   t->lock (raw spinlock, irqsave) guards all tables; it nests inside
 *   task bucket locks and nothing nests inside it.
 */
#include "model_state.h"

/* Synthetic PCs: far below any kernel text address, never zero. */
#define GT_COMM_PC_BASE		0x10000000ULL
#define GT_KPC_BASE		0x20000000ULL	/* hidden kernel addresses */
#define GT_PC_STEP		16

/* Distinct comms a session names; more share the comm "?". */
#define GT_MAX_COMMS		8192

struct gt_stack_ent {
	u32 hash;
	u32 off;	/* first PC in tables->pcs */
	u32 n;
};

struct gt_tables {
	gt_lock_t lock;

	struct gt_stack_ent *stacks;	/* stack id = index + 1 */
	u32 nr_stacks;
	u32 max_stacks;
	u32 *stack_slots;		/* hash slots: stack id or 0 */
	u32 stack_mask;
	u64 *pcs;
	u32 nr_pcs;
	u32 max_pcs;

	char (*comms)[GT_IN_COMM_LEN];	/* comm PC index -> name */
	u32 *comm_stack;		/* comm index -> its stack id */
	u32 nr_comms;
	u32 *comm_slots;		/* hash slots: comm index + 1 or 0 */
	u32 comm_mask;

	/*
	 * The generational format: the stack ids the events of a
	 * generation name, by the generation's parity; its tables hold
	 * only those (gt_tables_v2()); likewise the block reasons that
	 * name a syscall (GT_V2_NR_SYS_REASONS).
	 */
	unsigned long *used[2];
	unsigned long *reasons_used[2];
};

static void *tables_zalloc(size_t n, size_t size)
{
	return gt_env_zalloc(n, size);
}

void gt_tables_free(struct gt_tables *t)
{
	if (!t)
		return;
	gt_env_free(t->stacks);
	gt_env_free(t->stack_slots);
	gt_env_free(t->pcs);
	gt_env_free(t->comms);
	gt_env_free(t->comm_stack);
	gt_env_free(t->comm_slots);
	gt_env_free(t->used[0]);
	gt_env_free(t->used[1]);
	gt_env_free(t->reasons_used[0]);
	gt_env_free(t->reasons_used[1]);
	gt_env_free(t);
}

/**
 * gt_tables_alloc() - tables for one session
 * @max_stacks:	distinct stacks
 * @max_pcs:	PCs over all distinct stacks
 *
 * Context: session start.
 * Return: the tables, or NULL.
 */
struct gt_tables *gt_tables_alloc(unsigned int max_stacks, unsigned int max_pcs)
{
	struct gt_tables *t = gt_env_zalloc(1, sizeof(*t));
	u32 slots = roundup_pow_of_two(max_stacks * 2);
	u32 cslots = roundup_pow_of_two(GT_MAX_COMMS * 2);

	if (!t)
		return NULL;
	gt_lock_init(&t->lock);
	t->max_stacks = max_stacks;
	t->max_pcs = max_pcs;
	t->stack_mask = slots - 1;
	t->comm_mask = cslots - 1;
	t->stacks = tables_zalloc(max_stacks, sizeof(*t->stacks));
	t->stack_slots = tables_zalloc(slots, sizeof(u32));
	t->pcs = tables_zalloc(max_pcs, sizeof(u64));
	t->comms = tables_zalloc(GT_MAX_COMMS, GT_IN_COMM_LEN);
	t->comm_stack = tables_zalloc(GT_MAX_COMMS, sizeof(u32));
	t->comm_slots = tables_zalloc(cslots, sizeof(u32));
	t->used[0] = tables_zalloc(BITS_TO_LONGS(max_stacks + 1), sizeof(long));
	t->used[1] = tables_zalloc(BITS_TO_LONGS(max_stacks + 1), sizeof(long));
	t->reasons_used[0] = tables_zalloc(BITS_TO_LONGS(GT_V2_NR_SYS_REASONS),
					   sizeof(long));
	t->reasons_used[1] = tables_zalloc(BITS_TO_LONGS(GT_V2_NR_SYS_REASONS),
					   sizeof(long));
	if (!t->stacks || !t->stack_slots || !t->pcs || !t->comms ||
	    !t->comm_stack || !t->comm_slots || !t->used[0] || !t->used[1] ||
	    !t->reasons_used[0] || !t->reasons_used[1]) {
		gt_tables_free(t);
		return NULL;
	}
	/* Comm index 0 is "?", for tasks beyond GT_MAX_COMMS. */
	t->comms[0][0] = '?';
	t->nr_comms = 1;
	return t;
}

/* Find or add a stack; t->lock held.  Returns its id, or 0 when full. */
static u32 tables_stack_locked(struct gt_tables *t, const u64 *pcs,
			       unsigned int n, bool is_comm)
{
	u32 hash = gt_env_jhash(pcs, n * sizeof(u64), n);
	u32 i = hash & t->stack_mask;
	struct gt_stack_ent *e;
	u32 id, limit;

	gt_lockdep_assert_held(&t->lock);
	for (;;) {
		id = t->stack_slots[i];
		if (!id)
			break;
		e = &t->stacks[id - 1];
		if (e->hash == hash && e->n == n &&
		    !memcmp(&t->pcs[e->off], pcs, n * sizeof(u64)))
			return id;
		i = (i + 1) & t->stack_mask;
	}

	/* Kernel stacks may fill nine tenths; the rest is for comm stacks. */
	limit = is_comm ? t->max_stacks : t->max_stacks - t->max_stacks / 10;
	if (t->nr_stacks >= limit || t->max_pcs - t->nr_pcs < n)
		return 0;
	id = t->nr_stacks + 1;
	e = &t->stacks[id - 1];
	e->hash = hash;
	e->n = n;
	e->off = t->nr_pcs;
	memcpy(&t->pcs[t->nr_pcs], pcs, n * sizeof(u64));
	WRITE_ONCE(t->nr_pcs, t->nr_pcs + n);
	t->stack_slots[i] = id;
	/*
	 * Publish the entry, its PCs and the comms they name: the tables of
	 * a generation are written while hooks add stacks, without the lock
	 * (gt_tables_v2()).
	 */
	gt_store_release(&t->nr_stacks, id);
	return id;
}

/**
 * gt_tables_stack() - id of a stack, added if new
 * @t:		tables
 * @pcs:	PCs, innermost first; the last one is a comm PC
 * @n:		number of PCs, at most GT_STACK_PCS
 *
 * Context: any.
 * Return: the stack id, or 0 if the table is full.
 */
u32 gt_tables_stack(struct gt_tables *t, const u64 *pcs, unsigned int n)
{
	unsigned long flags = 0;
	u32 id;

	gt_lock_irqsave(&t->lock, flags);
	id = tables_stack_locked(t, pcs, n, false);
	gt_unlock_irqrestore(&t->lock, flags);
	return id;
}

/* Index of @comm in the comm table, added if new; t->lock held. */
static u32 tables_comm_locked(struct gt_tables *t, const char *comm)
{
	char name[GT_IN_COMM_LEN] = { 0 };
	u32 i, idx;

	gt_lockdep_assert_held(&t->lock);
	/* Up to its NUL, at most GT_IN_COMM_LEN - 1 bytes, as strscpy(). */
	memcpy(name, comm, strnlen(comm, sizeof(name) - 1));
	i = gt_env_jhash(name, sizeof(name), 0) & t->comm_mask;
	for (;;) {
		idx = t->comm_slots[i];
		if (!idx)
			break;
		if (!memcmp(t->comms[idx - 1], name, sizeof(name)))
			return idx - 1;
		i = (i + 1) & t->comm_mask;
	}
	if (t->nr_comms >= GT_MAX_COMMS)
		return 0;
	idx = t->nr_comms;
	memcpy(t->comms[idx], name, sizeof(name));
	/* Read without the lock by gt_tables_v2(), as a bound only. */
	WRITE_ONCE(t->nr_comms, idx + 1);
	t->comm_slots[i] = idx + 1;
	return idx;
}

/**
 * gt_tables_mark() - an event of generation @gen names stack @id
 * @t:		tables
 * @gen:	the generation the event is written in
 * @id:		its stack id, 0 for none
 *
 * Context: any (a hook, on its CPU's generation).
 */
void gt_tables_mark(struct gt_tables *t, u64 gen, u32 id)
{
	unsigned long *used = t->used[gen & 1];

	/* Most events name a stack already named: no write then. */
	if (id && id <= t->max_stacks && !gt_test_bit(id, used))
		gt_set_bit(id, used);
}

/**
 * gt_tables_reason() - the string id of "<reason>: <syscall>"
 * @t:		tables
 * @gen:	the generation the block event is written in
 * @reason:	enum gt_v2_string, a reason before GT_V2_R_NET
 * @nr:		the syscall the task sleeps in
 * @compat:	of the 32-bit ABI
 *
 * Context: any (a hook, on its CPU's generation).
 * Return: the id, whose string the generation's tables then hold.
 */
u64 gt_tables_reason(struct gt_tables *t, u64 gen, unsigned int reason,
		     int nr, bool compat)
{
	unsigned long *used = t->reasons_used[gen & 1];
	u32 slot = (nr >= 0 && nr < GOTRACE_SYSCALL_MAX ? nr :
		    GOTRACE_SYSCALL_MAX - 1) +
		   (compat ? GOTRACE_SYSCALL_MAX : 0);
	u32 i = reason * GT_V2_SYS_SLOTS + slot;

	if (!gt_test_bit(i, used))
		gt_set_bit(i, used);
	return GT_V2_NR_STRINGS + 1 + i;
}

/* The synthetic PC of the frame that names @comm.  Context: any. */
u64 gt_tables_comm_pc(struct gt_tables *t, const char *comm)
{
	unsigned long flags = 0;
	u32 idx;

	gt_lock_irqsave(&t->lock, flags);
	idx = tables_comm_locked(t, comm);
	gt_unlock_irqrestore(&t->lock, flags);
	return GT_COMM_PC_BASE + (u64)idx * GT_PC_STEP;
}

/**
 * gt_tables_comm_stack() - id of the one-frame stack naming @comm
 * @t:		tables
 * @comm:	the task's command name
 *
 * Context: any.
 * Return: the stack id, or 0 if even the comm reserve is full.
 */
u32 gt_tables_comm_stack(struct gt_tables *t, const char *comm)
{
	unsigned long flags = 0;
	u32 idx, id;
	u64 pc;

	gt_lock_irqsave(&t->lock, flags);
	idx = tables_comm_locked(t, comm);
	id = t->comm_stack[idx];
	if (!id) {
		pc = GT_COMM_PC_BASE + (u64)idx * GT_PC_STEP;
		id = tables_stack_locked(t, &pc, 1, true);
		t->comm_stack[idx] = id;
	}
	gt_unlock_irqrestore(&t->lock, flags);
	return id;
}

/*
 * The footer
 *
 * Built once, in process context, when the session stops: EvBatch(0, ts),
 * EvFrequency, every string, every stack.  Strings get their ids here, in
 * the order frames first need them; kernel PCs are symbolised here with
 * sprint_symbol() ("func+0x1c/0x80 [module]"): function, "[kernel]" or
 * "[module]" as the file, and the offset as the line number, so that a
 * PC always maps to the same function, file and line.
 */
struct footer_str {
	const char *s;
	u32 len;
	u32 id;
};

struct footer_pc {
	u64 pc;		/* 0: empty slot */
	struct gt_frame frame;
};

struct footer {
	struct gt_model *m;
	struct gt_tables *t;
	u32 nr_comms;			/* comms the stacks written may name */
	bool show_addrs;
	struct gt_enc strings;		/* EvString records */
	struct footer_str *strs;	/* hash set of strings, by content */
	u32 str_mask;
	u32 nr_strs;
	struct footer_pc *pcs;		/* hash map: kernel PC -> frame */
	u32 pc_mask;
	u32 nr_kpcs;
	u32 file_kernel;		/* string id of "[kernel]" */
	u32 file_comm;			/* string id of "[comm]" */
	u32 file_syscall;		/* string id of "[syscall]" */
};

/* Make room for @need more bytes in a growing buffer. */
static int footer_grow(struct gt_enc *e, u32 need)
{
	u32 cap = e->cap ? e->cap : 64 * 1024;
	u8 *buf;

	if (gt_enc_room(e) >= need)
		return 0;
	while (cap - e->len < need)
		cap *= 2;
	buf = gt_env_alloc(cap);
	if (!buf)
		return -ENOMEM;
	if (e->len)
		memcpy(buf, e->buf, e->len);
	gt_env_free(e->buf);
	e->buf = buf;
	e->cap = cap;
	return 0;
}

/* String id of @s (@len bytes), written as an EvString if new; 0 on error. */
static u32 footer_string(struct footer *f, const char *s, u32 len)
{
	u32 i = gt_env_jhash(s, len, 0) & f->str_mask;
	struct footer_str *e;
	char *copy;

	for (;;) {
		e = &f->strs[i];
		if (!e->s)
			break;
		if (e->len == len && !memcmp(e->s, s, len))
			return e->id;
		i = (i + 1) & f->str_mask;
	}
	copy = gt_env_alloc(len);
	if (!copy || footer_grow(&f->strings, gt_enc_string_size(~0U, len))) {
		gt_env_free(copy);
		return 0;
	}
	memcpy(copy, s, len);
	e->s = copy;
	e->len = len;
	e->id = ++f->nr_strs;
	gt_enc_string(&f->strings, e->id, s, len);
	return e->id;
}

/* Turn "func+0x1c/0x80 [mod]" into a frame. */
static int footer_symbolise(struct footer *f, u64 pc, struct gt_frame *fr)
{
	char sym[GT_ENV_SYM_LEN];
	char *plus, *mod, *end;
	unsigned long off = 0;

	gt_env_symbolise(f->m, pc, sym);
	/*
	 * Without a symbol (code gone by now, as a module unloaded during
	 * the recording) sprint_symbol() prints the address itself: not a
	 * name to show where addresses are hidden.
	 */
	if (!f->show_addrs && !strncmp(sym, "0x", 2))
		snprintf(sym, sizeof(sym), "[unknown]");
	mod = strstr(sym, " [");
	if (mod) {
		*mod = '\0';
		mod += 1;			/* "[mod]" */
		end = strchr(mod, ']');
		if (end)
			end[1] = '\0';
	}
	plus = strchr(sym, '+');
	if (plus) {
		end = strchr(plus, '/');
		if (end)
			*end = '\0';
		if (gt_env_strtoul(plus + 1, 0, &off))
			off = 0;
		*plus = '\0';
	}
	fr->func = footer_string(f, sym, strlen(sym));
	fr->file = mod ? footer_string(f, mod, strlen(mod)) : f->file_kernel;
	fr->line = off;
	fr->pc = f->show_addrs ? pc : GT_KPC_BASE + (u64)f->nr_kpcs * GT_PC_STEP;
	f->nr_kpcs++;
	return fr->func && fr->file ? 0 : -ENOMEM;
}

/* The frame of one PC, symbolised once per distinct PC. */
static int footer_frame(struct footer *f, u64 pc, struct gt_frame *fr)
{
	u64 idx = pc - GT_COMM_PC_BASE;
	char name[64];
	const char *comm;
	struct footer_pc *e;
	unsigned int nr;
	u32 i;

	if (gt_syscall_frame_name(pc, name, sizeof(name), &nr)) {
		fr->pc = pc;
		fr->func = footer_string(f, name, strlen(name));
		fr->file = f->file_syscall;
		fr->line = nr;
		return fr->func ? 0 : -ENOMEM;
	}

	if (pc >= GT_COMM_PC_BASE && idx / GT_PC_STEP < f->nr_comms &&
	    !(idx % GT_PC_STEP)) {
		comm = f->t->comms[idx / GT_PC_STEP];
		fr->pc = pc;
		fr->func = footer_string(f, comm, strnlen(comm, GT_IN_COMM_LEN));
		fr->file = f->file_comm;
		fr->line = 0;
		return fr->func ? 0 : -ENOMEM;
	}

	i = gt_env_hash64(pc, ilog2(f->pc_mask + 1));
	for (;;) {
		e = &f->pcs[i];
		if (!e->pc)
			break;
		if (e->pc == pc) {
			*fr = e->frame;
			return 0;
		}
		i = (i + 1) & f->pc_mask;
	}
	if (footer_symbolise(f, pc, &e->frame))
		return -ENOMEM;
	e->pc = pc;
	*fr = e->frame;
	return 0;
}

static void footer_release(struct footer *f)
{
	u32 i;

	if (f->strs)
		for (i = 0; i <= f->str_mask; i++)
			gt_env_free((void *)f->strs[i].s);
	gt_env_free(f->strs);
	gt_env_free(f->pcs);
	gt_env_free(f->strings.buf);
}

/**
 * gt_tables_footer() - build the footer of the trace
 * @m:		the model, whose tables are no longer written to
 * @ts:		base timestamp of the footer batch (P 0): not earlier than
 *		any event of P 0
 * @show_addrs:	write real kernel addresses (else synthetic ones)
 * @out:	set to a buffer the caller frees with gt_env_free()
 * @len:	set to its length
 *
 * Context: session end (in the module: process context, may sleep).
 * Return: 0 or -ENOMEM.
 */
int gt_tables_footer(struct gt_model *m, u64 ts, bool show_addrs,
		     u8 **out, size_t *len)
{
	struct gt_tables *t = m->tables;
	struct gt_frame *frames;
	struct footer f = { .m = m, .t = t, .nr_comms = t->nr_comms,
			    .show_addrs = show_addrs };
	struct gt_enc stacks = { 0 }, head;
	u8 head_buf[GT_BATCH_MAX_BYTES + 1 + GT_LEB_MAX];
	u32 nstr = 2 * (t->nr_pcs + t->nr_comms) + 4;
	u32 i, j, n;
	int ret = -ENOMEM;

	BUILD_BUG_ON(GT_STACK_PCS > GT_STACK_MAX_FRAMES);
	f.str_mask = roundup_pow_of_two(nstr) - 1;
	f.pc_mask = roundup_pow_of_two(2 * t->nr_pcs + 2) - 1;
	f.strs = gt_env_zalloc(f.str_mask + 1, sizeof(*f.strs));
	f.pcs = gt_env_zalloc(f.pc_mask + 1, sizeof(*f.pcs));
	/* Off the stack: GT_STACK_PCS frames exceed a kernel frame's limit. */
	frames = gt_env_zalloc(GT_STACK_PCS, sizeof(*frames));
	if (!f.strs || !f.pcs || !frames)
		goto out;
	f.file_kernel = footer_string(&f, "[kernel]", 8);
	f.file_comm = footer_string(&f, "[comm]", 6);
	f.file_syscall = footer_string(&f, "[syscall]", 9);
	if (!f.file_kernel || !f.file_comm || !f.file_syscall)
		goto out;

	for (i = 0; i < t->nr_stacks; i++) {
		const struct gt_stack_ent *e = &t->stacks[i];

		n = min_t(u32, e->n, GT_STACK_PCS);
		for (j = 0; j < n; j++)
			if (footer_frame(&f, t->pcs[e->off + j], &frames[j]))
				goto out;
		if (footer_grow(&stacks, 1 + 2 * GT_LEB_MAX +
				GT_STACK_MAX_VALUE_BYTES))
			goto out;
		gt_enc_stack(&stacks, i + 1, frames, n);
	}

	gt_enc_init(&head, head_buf, sizeof(head_buf));
	gt_enc_batch(&head, 0, ts);
	gt_enc_frequency(&head, GOTRACE_FREQUENCY);

	*len = head.len + f.strings.len + stacks.len;
	*out = gt_env_alloc(*len);
	if (!*out)
		goto out;
	memcpy(*out, head.buf, head.len);
	memcpy(*out + head.len, f.strings.buf, f.strings.len);
	memcpy(*out + head.len + f.strings.len, stacks.buf, stacks.len);
	ret = 0;
out:
	gt_env_free(frames);
	gt_env_free(stacks.buf);
	footer_release(&f);
	return ret;
}

/*
 * The tables of one generation of the generational format
 *
 * The same strings and frames as the footer, written as that format's
 * string and stack table batches (several of each when one would pass
 * the readers' 64 KiB).  The reasons of GoStop and GoBlock are the first
 * strings, with ids 1 to GT_V2_NR_STRINGS (model_v2.c names them so),
 * with the user log that marks lost events.
 * The model's stack ids are the session's; a generation carries the
 * stacks its events name (gt_tables_mark()), and the strings of their
 * frames, so that its tables grow with what it holds, not with the
 * session.  Hooks may be adding stacks meanwhile: every stack an event
 * of the generation names was published before the event was written.
 */

/* Make room for @need more bytes in a growing generational buffer. */
static int v2_grow(struct gt_enc2 *e, u32 need)
{
	u32 cap = e->cap ? e->cap : 64 * 1024;
	u8 *buf;

	if (e->cap - e->len >= need)
		return 0;
	while (cap - e->len < need)
		cap *= 2;
	buf = gt_env_alloc(cap);
	if (!buf)
		return -ENOMEM;
	if (e->len)
		memcpy(buf, e->buf, e->len);
	gt_env_free(e->buf);
	e->buf = buf;
	e->cap = cap;
	e->limit = e->size_at ?
		min_t(u32, e->size_at + GT_E2_SIZE_BYTES + GT_E2_BATCH_DATA_MAX,
		      cap) : cap;
	return 0;
}

/* A table batch of @kind (GT_E2_STRINGS or GT_E2_STACKS) with room. */
static int v2_table_room(struct gt_enc2 *e, u64 gen, u8 kind, u32 need)
{
	if (v2_grow(e, need + GT_E2_BATCH_HDR_MAX + 1))
		return -ENOMEM;
	if (e->size_at && gt_enc2_room(e) >= need)
		return 0;
	gt_enc2_batch_end(e);
	if (v2_grow(e, need + GT_E2_BATCH_HDR_MAX + 1))
		return -ENOMEM;
	if (!(kind == GT_E2_STRINGS ? gt_enc2_strings(e, gen) :
				      gt_enc2_stacks(e, gen)))
		return -ENOMEM;
	return 0;
}

/* The strings of the reasons that name a syscall, @used of them. */
static int v2_reasons(struct gt_enc2 *e, u64 gen, const unsigned long *used)
{
	char name[64], s[96];
	unsigned int nr;
	u32 i, len;

	for (i = 0; i < GT_V2_NR_SYS_REASONS; i++) {
		u32 slot = i % GT_V2_SYS_SLOTS;
		bool compat = slot >= GOTRACE_SYSCALL_MAX;

		if (!gt_test_bit(i, used))
			continue;
		if (!gt_syscall_frame_name(gt_syscall_pc(slot % GOTRACE_SYSCALL_MAX,
							 compat),
					   name, sizeof(name), &nr))
			return -EINVAL;
		/* "sys_read" reads "read" there; "compat_sys_read" stays. */
		len = snprintf(s, sizeof(s), "%s: %s",
			       gt_v2_strings[i / GT_V2_SYS_SLOTS],
			       strncmp(name, "sys_", 4) ? name : name + 4);
		len = min_t(u32, len, sizeof(s) - 1);
		if (v2_table_room(e, gen, GT_E2_STRINGS,
				  1 + 2 * GT_LEB_MAX + len) ||
		    !gt_enc2_string(e, GT_V2_NR_STRINGS + 1 + i, s, len))
			return -ENOMEM;
	}
	return 0;
}

/**
 * gt_tables_v2() - the string and stack tables, for generation @gen
 * @m:		the model; hooks may run
 * @gen:	the generation the batches belong to
 * @show_addrs:	write real kernel addresses (else synthetic ones)
 * @out:	set to a buffer the caller frees with gt_env_free()
 * @len:	set to its length
 *
 * Return: 0 or -ENOMEM.
 */
int gt_tables_v2(struct gt_model *m, u64 gen, bool show_addrs, u8 **out,
		 size_t *len)
{
	struct gt_tables *t = m->tables;
	struct footer f = { .m = m, .t = t, .show_addrs = show_addrs };
	/* Pairs with the release in tables_stack_locked(). */
	u32 nr_stacks = gt_load_acquire(&t->nr_stacks);
	unsigned long *used = t->used[gen & 1];
	struct gt_enc2 e = { 0 };
	struct gt_frame *frames;
	u32 i, j, n, need, nstr, nr_pcs = 0;
	int ret = -ENOMEM;

	/*
	 * The scratch maps (strings, symbolised PCs) are sized by the PCs of
	 * the stacks this generation names, not by the session's table: a
	 * long session would otherwise allocate and clear tens of MiB at
	 * every generation.
	 */
	for (i = 0; i < nr_stacks; i++)
		if (gt_test_bit(i + 1, used))
			nr_pcs += min_t(u32, t->stacks[i].n, GT_STACK_PCS);
	f.nr_comms = READ_ONCE(t->nr_comms);
	nstr = 2 * nr_pcs + 8 + GT_V2_NR_STRINGS;
	f.str_mask = roundup_pow_of_two(nstr) - 1;
	f.pc_mask = roundup_pow_of_two(2 * nr_pcs + 2) - 1;
	f.strs = gt_env_zalloc(f.str_mask + 1, sizeof(*f.strs));
	f.pcs = gt_env_zalloc(f.pc_mask + 1, sizeof(*f.pcs));
	frames = gt_env_zalloc(GT_STACK_PCS, sizeof(*frames));
	if (!f.strs || !f.pcs || !frames)
		goto out;
	for (i = 0; i < GT_V2_NR_STRINGS; i++)
		if (footer_string(&f, gt_v2_strings[i],
				  strlen(gt_v2_strings[i])) != i + 1)
			goto out;
	/* The ids of the reasons that name a syscall come next. */
	f.nr_strs = GT_V2_NR_STRINGS + GT_V2_NR_SYS_REASONS;
	f.file_kernel = footer_string(&f, "[kernel]", 8);
	f.file_comm = footer_string(&f, "[comm]", 6);
	f.file_syscall = footer_string(&f, "[syscall]", 9);
	if (!f.file_kernel || !f.file_comm || !f.file_syscall)
		goto out;

	for (i = 0; i < nr_stacks; i++) {
		const struct gt_stack_ent *s = &t->stacks[i];

		if (!gt_test_bit(i + 1, used))
			continue;
		n = min_t(u32, s->n, GT_STACK_PCS);
		for (j = 0; j < n; j++)
			if (footer_frame(&f, t->pcs[s->off + j], &frames[j]))
				goto out;
		need = 1 + 2 * GT_LEB_MAX + n * 4 * GT_LEB_MAX;
		if (v2_table_room(&e, gen, GT_E2_STACKS, need) ||
		    !gt_enc2_stack(&e, i + 1, frames, n))
			goto out;
	}
	gt_enc2_batch_end(&e);

	for (i = 0; i <= f.str_mask; i++) {
		const struct footer_str *s = &f.strs[i];

		if (!s->s)
			continue;
		need = 1 + 2 * GT_LEB_MAX + s->len;
		if (v2_table_room(&e, gen, GT_E2_STRINGS, need) ||
		    !gt_enc2_string(&e, s->id, s->s, s->len))
			goto out;
	}
	if (v2_reasons(&e, gen, t->reasons_used[gen & 1]))
		goto out;
	gt_enc2_batch_end(&e);
	*out = e.buf;
	*len = e.len;
	e.buf = NULL;
	/* The generation after the next one starts with none named. */
	memset(used, 0, BITS_TO_LONGS(t->max_stacks + 1) * sizeof(long));
	memset(t->reasons_used[gen & 1], 0,
	       BITS_TO_LONGS(GT_V2_NR_SYS_REASONS) * sizeof(long));
	ret = 0;
out:
	gt_env_free(e.buf);
	gt_env_free(frames);
	footer_release(&f);
	return ret;
}
