// SPDX-License-Identifier: GPL-2.0
/*
 * tables.c - stack and comm tables, and the footer that dumps them
 *
 * Events carry stack ids; the stacks themselves (and the strings their
 * frames name) are written once, in the footer, as Go's runtime does
 * (1.11 format), or with each generation (go 1.23, below).  A stack is
 * an array of PCs, innermost first.  Three kinds of PC exist:
 *
 *   kernel PCs, from the environment's stack capture, symbolised (in
 *   the module with kallsyms) only when the footer is built;
 *
 *   comm PCs, synthetic (GT_COMM_PC_BASE + 16 * index of the comm; in
 *   go 1.23 GT_COMM2_PC_BASE + 16 * a hash of it): the frame that
 *   names a task.  A task's goroutine is created with a
 *   one-frame stack holding its comm PC, and every stack of the task ends
 *   with it, so both Go readers name and group goroutines by command;
 *
 *   syscall PCs, synthetic (syscalls.c): the frame that names a syscall,
 *   just above the comm frame in the stacks of syscall events;
 *
 *   user PCs (GOTRACE_OPT_USER_STACKS), raw addresses of a process,
 *   between the kernel frames and the synthetic ones, after a space
 *   marker that names the address space and counts them, and maybe
 *   followed by a truncation marker (model_state.h).  The marker makes
 *   the same address of two processes two stacks.  They are written per
 *   Documentation/user-stacks.rst: the environment names each (space,
 *   address) as a file and an offset in it, off the event path
 *   (gt_env_ustack_queue(), gt_env_ustack_sync()), and the frame's PC is
 *   one per file and offset, GT_UPC_FILE below.
 *
 * Probes intern stacks and comms in O(length) with no allocation: the
 * tables are fixed-size, open-addressed, sized when the session starts.
 * When they fill up, kernel stacks are no longer added (events then carry
 * the task's comm stack) and the miss is counted; the last tenth of the
 * stack table is kept for comm stacks, which GoCreate cannot do without
 * (in go 1.23, more if the last generation written had more: its sweep
 * states every task alive with its comm stack, gt_tables_w123()).
 *
 * A "go 1.11 trace" names its stacks in one footer: one table (struct
 * gt_stab) for the whole session.  A "go 1.23 trace" names them in each
 * generation's own tables, so the session has two, by the parity of the
 * generation (as the CPUs' buffers, go123_writer.h): the table of generation
 * G is filled while G is the session's generation, written out with G
 * (gt_tables_w123()) and emptied there for generation G + 2, once every
 * CPU writes G + 1.  Its ids are meaningful only within G, and it holds
 * what G names, however long the session: memory is bounded by one
 * generation, and a generation whose table passes three quarters asks
 * to end early (gt_tables_due()).
 *
 * So the model holds stack references, not ids: the id and, in the
 * generational format, the generation whose table gave it (gen << 32 |
 * id; the 1.11 format's generation is 0, its references its ids).  A
 * reference cached from an earlier hook (a task's comm stack, a CPU's
 * syscall stacks, a pending GoSysCall) is interned again when its
 * generation is not the session's (model.c).  One interned during a
 * hook may reach the trace in the next generation, if the reader ended
 * the generation meanwhile: gt_tables_w123_id() copies it into that
 * generation's table, from the previous one, which is still whole: the
 * reader empties a table only once every CPU has taken the IPI that
 * moves it to the next generation, and a hook runs with interrupts off.
 *
 * Context:
 *   gt_tables_stack(), gt_tables_comm_stack(), gt_tables_w123_id(): any,
 *   irqs off or on.
 *   gt_tables_footer(): process context, after every probe is detached.
 *   gt_tables_w123(): the reader, once no CPU writes the generation.
 * Locking:
 *   t->lock (raw spinlock, irqsave) guards all tables; it nests inside
 *   task bucket locks and nothing nests inside it.  gt_tables_w123() reads
 *   and empties its generation's table without it: no hook adds to that
 *   table any more, and none reads it (every CPU is in the next one).
 *   gt_tables_stack() looks a stack up without it first (stab_find()):
 *   the lock, which every CPU takes, is then taken only to add a stack
 *   the table does not hold yet, not for the same preemption or blocking
 *   place met again.
 */
#include "model_state.h"

/* Synthetic PCs: far below any kernel text address, never zero. */
#define GT_COMM_PC_BASE		0x10000000ULL
#define GT_KPC_BASE		0x20000000ULL	/* hidden kernel addresses */
#define GT_PC_STEP		16

/* Distinct comms a session names; more share the comm "?". */
#define GT_MAX_COMMS		8192

/*
 * The comm PCs of the generational format: GT_COMM2_PC_BASE + GT_PC_STEP
 * * a 32-bit hash of the name (its code), above the other synthetic PCs.
 * Go 1.23's profiles name a PC once for the whole trace, so a comm keeps
 * its PC across generations.  Two comms whose hashes meet in one
 * generation (about once in 200 generations of 6144 comms) take the next
 * free code; another generation may give it to the other.  The 1.11
 * format's comm PCs are the comms' indices from GT_COMM_PC_BASE, as they
 * always were.
 */
#define GT_COMM2_PC_BASE	0x100000000ULL

/*
 * The hidden kernel PCs of the generational format, for the same reason:
 * GT_KPC2_BASE + GT_PC_STEP * a hash of the symbol ("func+0x1c/0x80
 * [mod]", which the frame shows anyway), below 4 GiB; the 1.11 format
 * numbers them from GT_KPC_BASE in the order the footer meets them.
 */
#define GT_KPC2_BASE		0x40000000ULL
#define GT_KPC2_CODES		((0x100000000ULL - GT_KPC2_BASE) / GT_PC_STEP)

/*
 * The PCs of user frames (Documentation/user-stacks.rst): one per file
 * and offset, the same in every process and generation, so that Go's
 * profiles, which name a PC once for the whole trace, neither merge two
 * functions nor split one: GT_UPC_FILE | file index << 32 | offset.  An
 * address in no file: GT_UPC_UNKNOWN | the address (below 2^56), its
 * name "[unknown]+0x<address>"; where kernel addresses are hidden the
 * user ones are too: GT_UPC_UNKNOWN alone, named "[unknown]".  Above
 * 2^56, no user address (57-bit at most) nor synthetic PC; far below
 * kernel ones.  A truncated walk's frame: GT_UPC_TRUNC | its reason, a
 * PC per reason, as its name is (one PC 0 for all would give every
 * truncation frame of a profile the name of the first one met).  An
 * exact PC in a file (model_state.h) is GT_UPC_FILE_EXACT | file index
 * << 32 | offset: its name is the same, "<basename>+0x<off>", but it is
 * named by its own byte, not the one before (gotrace symbolize), so it
 * is another PC.  The tags are the trace's, in the uapi header.
 */
#define GT_UPC_FILE		((u64)GOTRACE_UPC_FILE << GOTRACE_UPC_TAG_SHIFT)
#define GT_UPC_UNKNOWN		((u64)GOTRACE_UPC_UNKNOWN << GOTRACE_UPC_TAG_SHIFT)
#define GT_UPC_TRUNC		((u64)GOTRACE_UPC_TRUNC << GOTRACE_UPC_TAG_SHIFT)
#define GT_UPC_FILE_EXACT	((u64)GOTRACE_UPC_FILE_EXACT << GOTRACE_UPC_TAG_SHIFT)
#define GT_UPC_FILES		0x1000000U	/* file indices: 24 bits */
#define GT_UPC_ADDR_MASK	(GT_UPC_FILE - 1)

struct gt_stack_ent {
	u32 hash;
	u32 off;	/* first PC in stab->pcs */
	u32 n;
	u32 slot;	/* its hash slot, to empty the table */
};

/*
 * The stacks and comms of the session (1.11) or of one generation (go
 * 1.23): @gen, then @gen + 2 once it is written out.
 */
struct gt_stab {
	u64 gen;
	struct gt_stack_ent *stacks;	/* stack id = index + 1 */
	u32 nr_stacks;
	u32 *stack_slots;		/* hash slots: stack id or 0 */
	u64 *pcs;
	u32 nr_pcs;

	char (*comms)[GT_IN_COMM_LEN];	/* comm index -> name */
	u32 *comm_stack;		/* comm index -> its stack id */
	u32 *comm_code;			/* comm index -> its comm PC's code */
	u32 nr_comms;
	u32 *comm_slots;		/* hash slots: comm index + 1 or 0 */
	u32 *code_slots;		/* the same, by code */
	u32 nr_comm_stacks;		/* of @stacks */
	unsigned long *kwait_used;	/* go 1.23: stack ids of kernel waits */
};

struct gt_tables {
	gt_lock_t lock;

	u32 max_stacks;			/* of each table */
	u32 comm_reserve;		/* of them kept for comm stacks */
	u32 stack_mask;
	u32 max_pcs;
	u32 comm_mask;
	unsigned int nr_tabs;		/* 1: the session's; 2: by parity */
	struct gt_stab tab[2];

	/*
	 * The generational format: the block reasons that name a syscall
	 * (GT_W123_NR_SYS_REASONS) a generation uses, by its parity.
	 */
	unsigned long *reasons_used[2];

	/* The most one generation's table held (go 1.23). */
	u32 peak_stacks;
	u32 peak_pcs;
	u32 peak_comms;
};

/* The table of generation @gen. */
static struct gt_stab *tab_of(struct gt_tables *t, u64 gen)
{
	return &t->tab[t->nr_tabs == 2 ? gen & 1 : 0];
}

static void *tables_zalloc(size_t n, size_t size)
{
	return gt_env_zalloc(n, size);
}

static void stab_free(struct gt_stab *st)
{
	gt_env_free(st->stacks);
	gt_env_free(st->stack_slots);
	gt_env_free(st->pcs);
	gt_env_free(st->comms);
	gt_env_free(st->comm_stack);
	gt_env_free(st->comm_code);
	gt_env_free(st->comm_slots);
	gt_env_free(st->code_slots);
	gt_env_free(st->kwait_used);
}

void gt_tables_free(struct gt_tables *t)
{
	if (!t)
		return;
	stab_free(&t->tab[0]);
	stab_free(&t->tab[1]);
	gt_env_free(t->reasons_used[0]);
	gt_env_free(t->reasons_used[1]);
	gt_env_free(t);
}

static u32 tables_comm_locked(struct gt_tables *t, struct gt_stab *st,
			      const char *comm);

/* Comm index 0 is "?", for tasks beyond GT_MAX_COMMS. */
static void stab_comm_none(struct gt_tables *t, struct gt_stab *st)
{
	st->nr_comms = 0;
	tables_comm_locked(t, st, "?");
}

static int stab_alloc(struct gt_tables *t, struct gt_stab *st, u64 gen)
{
	unsigned long flags = 0;

	st->gen = gen;
	st->stacks = tables_zalloc(t->max_stacks, sizeof(*st->stacks));
	st->stack_slots = tables_zalloc(t->stack_mask + 1, sizeof(u32));
	st->pcs = tables_zalloc(t->max_pcs, sizeof(u64));
	st->comms = tables_zalloc(GT_MAX_COMMS, GT_IN_COMM_LEN);
	st->comm_stack = tables_zalloc(GT_MAX_COMMS, sizeof(u32));
	st->comm_code = tables_zalloc(GT_MAX_COMMS, sizeof(u32));
	st->comm_slots = tables_zalloc(t->comm_mask + 1, sizeof(u32));
	st->code_slots = tables_zalloc(t->comm_mask + 1, sizeof(u32));
	st->kwait_used = tables_zalloc(BITS_TO_LONGS(t->max_stacks + 1),
				       sizeof(long));
	if (!st->stacks || !st->stack_slots || !st->pcs || !st->comms ||
	    !st->comm_stack || !st->comm_code || !st->comm_slots ||
	    !st->code_slots || !st->kwait_used)
		return -ENOMEM;
	/* Not shared yet: for tables_comm_locked()'s assertion. */
	gt_lock_irqsave(&t->lock, flags);
	stab_comm_none(t, st);
	gt_unlock_irqrestore(&t->lock, flags);
	return 0;
}

/**
 * gt_tables_alloc() - tables for one session
 * @max_stacks:	distinct stacks of a table
 * @max_pcs:	PCs over all distinct stacks of a table
 * @gens:	the generational format: a table per generation, two by
 *		parity, the first one generation 1's; else one
 *
 * Context: session start.
 * Return: the tables, or NULL.
 */
struct gt_tables *gt_tables_alloc(unsigned int max_stacks, unsigned int max_pcs,
				  bool gens)
{
	struct gt_tables *t = gt_env_zalloc(1, sizeof(*t));
	unsigned int i;

	if (!t)
		return NULL;
	gt_lock_init(&t->lock);
	t->max_stacks = max_stacks;
	t->comm_reserve = max_stacks / 10;
	t->max_pcs = max_pcs;
	t->stack_mask = roundup_pow_of_two(max_stacks * 2) - 1;
	t->comm_mask = roundup_pow_of_two(GT_MAX_COMMS * 2) - 1;
	t->nr_tabs = gens ? 2 : 1;
	for (i = 0; i < t->nr_tabs; i++)
		if (stab_alloc(t, &t->tab[i], gens ? 2 - i : 0))
			goto err;
	t->reasons_used[0] = tables_zalloc(BITS_TO_LONGS(GT_W123_NR_SYS_REASONS),
					   sizeof(long));
	t->reasons_used[1] = tables_zalloc(BITS_TO_LONGS(GT_W123_NR_SYS_REASONS),
					   sizeof(long));
	if (!t->reasons_used[0] || !t->reasons_used[1])
		goto err;
	return t;
err:
	gt_tables_free(t);
	return NULL;
}

/* A stack reference: @id of the table of generation @gen (0: none). */
static u64 stack_ref(u64 gen, u32 id)
{
	return id ? gen << 32 | id : 0;
}

/* The hash of a stack of @n PCs. */
static u32 stack_hash(const u64 *pcs, unsigned int n)
{
	return gt_env_jhash(pcs, n * sizeof(u64), n);
}

/*
 * Find a stack in @st without the lock: its id, or 0 if @st does not
 * hold it (or not yet: an entry being added may be missed, never seen
 * half written).  An entry is written whole before its hash slot is
 * published (release, in tables_stack_locked()), and is not changed or
 * removed while a hook may use @st: only when the generation is written
 * out, once every CPU is in the next one (stab_reset()).  The table is
 * at most half full: the probe ends at an empty slot.
 */
static u32 stab_find(const struct gt_tables *t, const struct gt_stab *st,
		     const u64 *pcs, unsigned int n, u32 hash)
{
	u32 i = hash & t->stack_mask;
	const struct gt_stack_ent *e;
	u32 id;

	for (;;) {
		/* Pairs with the release in tables_stack_locked(). */
		id = gt_load_acquire(&st->stack_slots[i]);
		if (!id)
			return 0;
		e = &st->stacks[id - 1];
		if (e->hash == hash && e->n == n &&
		    !memcmp(&st->pcs[e->off], pcs, n * sizeof(u64)))
			return id;
		i = (i + 1) & t->stack_mask;
	}
}

/*
 * Find or add a stack of hash @hash in @st; t->lock held.  Returns its
 * id, or 0 when full.
 */
static u32 tables_stack_locked(struct gt_tables *t, struct gt_stab *st,
			       const u64 *pcs, unsigned int n, u32 hash,
			       bool is_comm)
{
	u32 i = hash & t->stack_mask;
	struct gt_stack_ent *e;
	u32 id, limit;

	gt_lockdep_assert_held(&t->lock);
	for (;;) {
		id = st->stack_slots[i];
		if (!id)
			break;
		e = &st->stacks[id - 1];
		if (e->hash == hash && e->n == n &&
		    !memcmp(&st->pcs[e->off], pcs, n * sizeof(u64)))
			return id;
		i = (i + 1) & t->stack_mask;
	}

	/* Kernel stacks leave the comm reserve to comm stacks. */
	limit = t->max_stacks - (is_comm ? 0 : READ_ONCE(t->comm_reserve));
	if (st->nr_stacks >= limit || t->max_pcs - st->nr_pcs < n)
		return 0;
	id = st->nr_stacks + 1;
	e = &st->stacks[id - 1];
	e->hash = hash;
	e->n = n;
	e->off = st->nr_pcs;
	e->slot = i;
	memcpy(&st->pcs[st->nr_pcs], pcs, n * sizeof(u64));
	WRITE_ONCE(st->nr_pcs, st->nr_pcs + n);
	/* Read without the lock by gt_tables_due(), as a bound only. */
	WRITE_ONCE(st->nr_stacks, id);
	/* The entry is whole: stab_find() may see it. */
	gt_store_release(&st->stack_slots[i], id);
	return id;
}

/**
 * gt_tables_stack() - a stack, added if new
 * @t:		tables
 * @gen:	the generation whose table it goes to (0 in the 1.11 format)
 * @pcs:	PCs, innermost first; a comm PC is of @gen's table
 * @n:		number of PCs, at most GT_STACK_PCS
 *
 * Context: any.
 * Return: its reference, or 0 if the table is full.
 */
u64 gt_tables_stack(struct gt_tables *t, u64 gen, const u64 *pcs,
		    unsigned int n)
{
	struct gt_stab *st = tab_of(t, gen);
	u32 hash = stack_hash(pcs, n);
	unsigned long flags = 0;
	u32 id;

	/* A stack seen before (most are) takes no lock. */
	id = stab_find(t, st, pcs, n, hash);
	if (likely(id))
		return stack_ref(gen, id);
	gt_lock_irqsave(&t->lock, flags);
	id = tables_stack_locked(t, st, pcs, n, hash, false);
	gt_unlock_irqrestore(&t->lock, flags);
	return stack_ref(gen, id);
}

/**
 * gt_tables_stack_new() - gt_tables_stack(), saying whether it was added
 * @t:		tables
 * @gen:	the generation whose table it goes to (0 in the 1.11 format)
 * @pcs:	PCs, innermost first; a comm PC is of @gen's table
 * @n:		number of PCs, at most GT_STACK_PCS
 * @added:	set to true if the table did not hold it yet (so that the
 *		caller hands its user frames on once per table, not at
 *		every event that meets it again)
 *
 * Context: any.
 * Return: its reference, or 0 if the table is full.
 */
u64 gt_tables_stack_new(struct gt_tables *t, u64 gen, const u64 *pcs,
			unsigned int n, bool *added)
{
	struct gt_stab *st = tab_of(t, gen);
	u32 hash = stack_hash(pcs, n);
	unsigned long flags = 0;
	u32 id, before;

	*added = false;
	id = stab_find(t, st, pcs, n, hash);
	if (likely(id))
		return stack_ref(gen, id);
	gt_lock_irqsave(&t->lock, flags);
	/* Ids are given in order: an id past the count is the new entry. */
	before = st->nr_stacks;
	id = tables_stack_locked(t, st, pcs, n, hash, false);
	*added = id > before;
	gt_unlock_irqrestore(&t->lock, flags);
	return stack_ref(gen, id);
}

/*
 * The slot of code @code in @st->code_slots: its own, or the empty one
 * where it would go.
 */
static u32 code_slot(const struct gt_tables *t, const struct gt_stab *st,
		     u32 code)
{
	u32 i = code & t->comm_mask, idx;

	for (;;) {
		idx = st->code_slots[i];
		if (!idx || st->comm_code[idx - 1] == code)
			return i;
		i = (i + 1) & t->comm_mask;
	}
}

/* The first code from @hash that no comm of @st has; t->lock held. */
static u32 tables_code_locked(const struct gt_tables *t,
			      const struct gt_stab *st, u32 hash)
{
	u32 code = hash;

	/* At most GT_MAX_COMMS codes are taken: this ends. */
	while (st->code_slots[code_slot(t, st, code)])
		code++;
	return code;
}

/* Index of @comm in the comm table of @st, added if new; t->lock held. */
static u32 tables_comm_locked(struct gt_tables *t, struct gt_stab *st,
			      const char *comm)
{
	char name[GT_IN_COMM_LEN] = { 0 };
	u32 i, idx;

	gt_lockdep_assert_held(&t->lock);
	/* Up to its NUL, at most GT_IN_COMM_LEN - 1 bytes, as strscpy(). */
	memcpy(name, comm, strnlen(comm, sizeof(name) - 1));
	i = gt_env_jhash(name, sizeof(name), 0) & t->comm_mask;
	for (;;) {
		idx = st->comm_slots[i];
		if (!idx)
			break;
		if (!memcmp(st->comms[idx - 1], name, sizeof(name)))
			return idx - 1;
		i = (i + 1) & t->comm_mask;
	}
	if (st->nr_comms >= GT_MAX_COMMS)
		return 0;
	idx = st->nr_comms;
	memcpy(st->comms[idx], name, sizeof(name));
	st->comm_code[idx] = t->nr_tabs == 1 ? idx :
		tables_code_locked(t, st, gt_env_jhash(name, sizeof(name), 1));
	st->code_slots[code_slot(t, st, st->comm_code[idx])] = idx + 1;
	/* Read without the lock by gt_tables_due(), as a bound only. */
	WRITE_ONCE(st->nr_comms, idx + 1);
	st->comm_slots[i] = idx + 1;
	return idx;
}

/* Where the comm PCs of @t start. */
static u64 comm_pc_base(const struct gt_tables *t)
{
	return t->nr_tabs == 1 ? GT_COMM_PC_BASE : GT_COMM2_PC_BASE;
}

/* The comm PC of comm index @idx of @st. */
static u64 comm_pc(const struct gt_tables *t, const struct gt_stab *st,
		   u32 idx)
{
	return comm_pc_base(t) + (u64)st->comm_code[idx] * GT_PC_STEP;
}

/* Is @pc a comm PC of @st?  Its comm index then in @idx. */
static bool is_comm_pc(const struct gt_tables *t, const struct gt_stab *st,
		       u64 pc, u32 *idx)
{
	u64 off = pc - comm_pc_base(t);
	u32 slot;

	if (pc < comm_pc_base(t) || off % GT_PC_STEP ||
	    off / GT_PC_STEP > 0xffffffffULL)
		return false;
	slot = st->code_slots[code_slot(t, st, off / GT_PC_STEP)];
	if (!slot)
		return false;
	*idx = slot - 1;
	return true;
}

/**
 * gt_tables_reason() - the string id of "<reason>: <syscall>"
 * @t:		tables
 * @gen:	the generation the block event is written in
 * @reason:	enum gt_w123_string, a reason before GT_W123_R_NET
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
	u32 i = reason * GT_W123_SYS_SLOTS + slot;

	if (!gt_test_bit(i, used))
		gt_set_bit(i, used);
	return GT_W123_NR_STRINGS + 1 + i;
}

/* The first string id of the kernel waits: the one of stack id 0. */
#define GT_W123_KWAIT_BASE	(GT_W123_NR_STRINGS + GT_W123_NR_SYS_REASONS)

/**
 * gt_tables_kwait() - the string id of "blocked: <kernel function>"
 * @t:		tables
 * @gen:	the generation the block event is written in
 * @stack:	the block's stack, an id of that generation's table
 *
 * A plain block outside any syscall is named by the kernel function the
 * task waits in, the innermost frame of @stack that is not the
 * scheduler's; the string is made when the generation is written
 * (w123_kwaits()), its id is the stack's above the fixed ones.
 *
 * Context: any (a hook, on its CPU's generation).
 * Return: the id, whose string the generation's tables then hold.
 */
u64 gt_tables_kwait(struct gt_tables *t, u64 gen, u64 stack)
{
	unsigned long *used = tab_of(t, gen)->kwait_used;

	if (!gt_test_bit(stack, used))
		gt_set_bit(stack, used);
	return GT_W123_KWAIT_BASE + stack;
}

/* The first string id of the units: the one of unit 0 (none). */
static u64 units_base(const struct gt_tables *t)
{
	return GT_W123_KWAIT_BASE + t->max_stacks;
}

/* Does the session name work items (and so keep string ids for them)? */
static bool works_named(const struct gt_model *m)
{
	return m->irqs && m->opts.flags & GOTRACE_OPT_WORKQUEUE;
}

/**
 * gt_work_string() - the string id of work function @idx's region name
 * @m:		the model, naming work items
 * @idx:	the function's index (model.c, work_intern())
 *
 * The 1.11 format's footer gives these ids first, from 1; the
 * generational format's tables after the units'.  Both only in a
 * session that records work items: others keep their ids as they were.
 *
 * Context: any.
 */
u64 gt_work_string(const struct gt_model *m, u32 idx)
{
	if (m->format != GT_FORMAT_GO123)
		return 1 + idx;
	return units_base(m->tables) + GT_UNITS_MAX + 1 + idx;
}

/**
 * gt_work_name() - "[work] FUNC", the region name of work function @idx
 * @m:		the model
 * @idx:	the function's index, below gt_irqs.nr_works
 * @buf:	set to the name
 * @len:	its size
 *
 * The function's symbol without its offset; "[work] [unknown]" where
 * addresses are hidden and it has none (a module gone).
 *
 * Context: the tables' writer (module: process context).
 * Return: false if @idx names no function.
 */
bool gt_work_name(struct gt_model *m, u32 idx, char *buf, size_t len)
{
	char sym[GT_ENV_SYM_LEN];
	struct gt_irqs *q = m->irqs;

	/* Pairs with the release of work_intern(). */
	if (!q || idx >= gt_load_acquire(&q->nr_works))
		return false;
	gt_env_symbolise(m, q->works[idx], sym);
	sym[strcspn(sym, "+ ")] = '\0';
	if (!sym[0] || !strncmp(sym, "0x", 2))
		snprintf(sym, sizeof(sym), "[unknown]");
	snprintf(buf, len, "[work] %s", sym);
	return true;
}

/**
 * gt_tables_unit() - the string id of unit @unit's name (units.c)
 * @t:		tables
 * @unit:	a unit's number, from 1
 *
 * Every generation's tables hold the names of every unit named so far,
 * under ids after those of the kernel waits (gt_tables_w123()).
 *
 * Context: any.
 */
u64 gt_tables_unit(const struct gt_tables *t, u32 unit)
{
	return units_base(t) + unit;
}

/**
 * gt_tables_comm_pc() - the synthetic PC of the frame that names @comm
 * @t:		tables
 * @gen:	the generation of the stack it goes into
 * @comm:	the task's command name
 *
 * Context: any.
 */
u64 gt_tables_comm_pc(struct gt_tables *t, u64 gen, const char *comm)
{
	struct gt_stab *st = tab_of(t, gen);
	unsigned long flags = 0;
	u64 pc;

	gt_lock_irqsave(&t->lock, flags);
	pc = comm_pc(t, st, tables_comm_locked(t, st, comm));
	gt_unlock_irqrestore(&t->lock, flags);
	return pc;
}

/* The one-frame stack of comm index @idx of @st; t->lock held. */
static u32 tables_comm_stack_locked(struct gt_tables *t, struct gt_stab *st,
				    u32 idx)
{
	u64 pc = comm_pc(t, st, idx);
	u32 id = st->comm_stack[idx];

	if (!id) {
		id = tables_stack_locked(t, st, &pc, 1, stack_hash(&pc, 1),
					 true);
		st->comm_stack[idx] = id;
		st->nr_comm_stacks += !!id;
	}
	return id;
}

/**
 * gt_tables_comm_stack() - the one-frame stack naming @comm
 * @t:		tables
 * @gen:	the generation whose table it goes to (0 in the 1.11 format)
 * @comm:	the task's command name
 *
 * Context: any.
 * Return: its reference, or 0 if even the comm reserve is full.
 */
u64 gt_tables_comm_stack(struct gt_tables *t, u64 gen, const char *comm)
{
	struct gt_stab *st = tab_of(t, gen);
	unsigned long flags = 0;
	u32 id;

	gt_lock_irqsave(&t->lock, flags);
	id = tables_comm_stack_locked(t, st, tables_comm_locked(t, st, comm));
	gt_unlock_irqrestore(&t->lock, flags);
	return stack_ref(gen, id);
}

/**
 * gt_tables_name_stack() - the one-frame stack of a synthetic frame @pc
 * that names a goroutine, as a comm's does (an interrupt's: model.c)
 * @t:		tables
 * @gen:	the generation whose table it goes to (0 in the 1.11 format)
 * @pc:		the frame
 *
 * It may take the comm reserve, as a comm stack: a goroutine is made
 * with it.
 *
 * Context: any.
 * Return: its reference, or 0 if even the comm reserve is full.
 */
u64 gt_tables_name_stack(struct gt_tables *t, u64 gen, u64 pc)
{
	struct gt_stab *st = tab_of(t, gen);
	u32 hash = stack_hash(&pc, 1);
	unsigned long flags = 0;
	u32 id;

	id = stab_find(t, st, &pc, 1, hash);
	if (likely(id))
		return stack_ref(gen, id);
	gt_lock_irqsave(&t->lock, flags);
	id = tables_stack_locked(t, st, &pc, 1, hash, true);
	gt_unlock_irqrestore(&t->lock, flags);
	return stack_ref(gen, id);
}

/**
 * gt_tables_w123_id() - the id of a stack in the table of generation @gen
 * @t:		tables, of the generational format
 * @gen:	the generation an event naming @ref is written in
 * @ref:	a stack reference interned during this hook, of @gen or of
 *		the one before it (the reader ended that one meanwhile)
 * @scratch:	room for GT_STACK_PCS PCs
 *
 * A stack of the previous generation is copied into @gen's table, its
 * comm frame named in that table's comms.
 *
 * Context: a hook (interrupts off: the previous table is whole).
 * Return: the id, or 0 (none: @gen's table is full, or @ref is older).
 */
u32 gt_tables_w123_id(struct gt_tables *t, u64 gen, u64 ref, u64 *scratch)
{
	u64 from_gen = ref >> 32;
	struct gt_stab *from = tab_of(t, from_gen), *to = tab_of(t, gen);
	const struct gt_stack_ent *e;
	unsigned long flags = 0;
	u32 id = 0, i, n, idx;

	if (!ref || from_gen == gen)
		return (u32)ref;
	if (from_gen + 1 != gen)
		return 0;
	gt_lock_irqsave(&t->lock, flags);
	/* Never expected otherwise: see the comment at the top. */
	if (from->gen == from_gen && (u32)ref <= from->nr_stacks) {
		e = &from->stacks[(u32)ref - 1];
		n = min_t(u32, e->n, GT_STACK_PCS);
		for (i = 0; i < n; i++) {
			scratch[i] = from->pcs[e->off + i];
			/* User PCs may look like anything: copied as they are. */
			if (gt_is_ustack_marker(scratch[i])) {
				u32 k = gt_ustack_marker_nr(scratch[i]);

				for (; k && i + 1 < n; k--, i++)
					scratch[i + 1] = from->pcs[e->off + i + 1];
				continue;
			}
			if (!is_comm_pc(t, from, scratch[i], &idx))
				continue;
			idx = tables_comm_locked(t, to, from->comms[idx]);
			scratch[i] = comm_pc(t, to, idx);
		}
		if (n == 1 && is_comm_pc(t, to, scratch[0], &idx))
			id = tables_comm_stack_locked(t, to, idx);
		else
			id = tables_stack_locked(t, to, scratch, n,
						 stack_hash(scratch, n), false);
	}
	gt_unlock_irqrestore(&t->lock, flags);
	return id;
}

/**
 * gt_tables_due() - should generation @gen end before its time?
 * @t:		tables, of the generational format
 * @gen:	the generation
 *
 * Context: any.
 * Return: true once its table holds three quarters of the stacks or PCs
 * it may hold, or of the comms.
 */
bool gt_tables_due(struct gt_tables *t, u64 gen)
{
	const struct gt_stab *st = tab_of(t, gen);
	u32 kernel = t->max_stacks - READ_ONCE(t->comm_reserve);

	return READ_ONCE(st->nr_stacks) >= kernel / 4 * 3 ||
	       READ_ONCE(st->nr_pcs) >= t->max_pcs / 4 * 3 ||
	       READ_ONCE(st->nr_comms) >= GT_MAX_COMMS / 4 * 3;
}

/**
 * gt_tables_peak() - the most one generation's table held
 * @t:		tables, of the generational format
 * @stacks:	set to its stacks
 * @pcs:	set to its PCs
 * @comms:	set to its comms
 *
 * Context: the reader.
 */
void gt_tables_peak(struct gt_tables *t, u32 *stacks, u32 *pcs, u32 *comms)
{
	*stacks = t->peak_stacks;
	*pcs = t->peak_pcs;
	*comms = t->peak_comms;
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
	struct gt_stab *st;		/* the table written */
	u32 nr_comms;			/* comms the stacks written may name */
	bool show_addrs;
	struct gt_enc strings;		/* EvString records */
	struct footer_str *strs;	/* hash set of strings, by content */
	u32 str_mask;
	u32 str_used;			/* strings in @strs */
	u32 nr_strs;			/* the last string id given */
	struct footer_pc *pcs;		/* hash map: kernel PC -> frame */
	u32 pc_mask;			/* of @pcs and @kpcs */
	u32 nr_kpcs;			/* kernel PCs in @pcs */
	bool gen_kpcs;			/* go 1.23, hidden: @kpcs is used */
	u64 *kpcs;			/* go 1.23, hidden: the hidden PCs given */
	u32 file_kernel;		/* string id of "[kernel]" */
	u32 file_comm;			/* string id of "[comm]" */
	u32 file_syscall;		/* string id of "[syscall]" */
};

/*
 * The maps of the footer (of a generation's tables) grow with what they
 * hold, the distinct strings and kernel PCs, which a kernel has few of,
 * not with the PCs of every stack: sized by those (2 slots of 40 bytes
 * per PC), the PC map passed the INT_MAX bytes that kvmalloc() takes
 * (with a warning) from 2^24 PCs, within max_stacks, and the footer was
 * lost.  A map that would pass GT_ALLOC_MAX is refused: -ENOMEM.
 */
#define FOOTER_MAP_MIN		1024U

static void *footer_map_alloc(u32 n, size_t size)
{
	if ((u64)n * size > GT_ALLOC_MAX)
		return NULL;
	return gt_env_zalloc(n, size);
}

/* Room in the string set for one more string: at most 3/4 full. */
static int footer_strs_room(struct footer *f)
{
	u32 n = f->str_mask + 1, i, j;
	struct footer_str *old = f->strs, *strs;

	if (old && ((u64)f->str_used + 1) * 4 <= (u64)n * 3)
		return 0;
	n = old ? 2 * n : FOOTER_MAP_MIN;
	strs = footer_map_alloc(n, sizeof(*strs));
	if (!strs)
		return -ENOMEM;
	for (i = 0; old && i <= f->str_mask; i++) {
		if (!old[i].s)
			continue;
		j = gt_env_jhash(old[i].s, old[i].len, 0) & (n - 1);
		while (strs[j].s)
			j = (j + 1) & (n - 1);
		strs[j] = old[i];
	}
	gt_env_free(old);
	f->strs = strs;
	f->str_mask = n - 1;
	return 0;
}

/* Insert @pc into the hidden PCs @kpcs of @n slots. */
static void footer_kpcs_put(u64 *kpcs, u32 n, u64 pc)
{
	u32 i = gt_env_hash64(pc, ilog2(n));

	while (kpcs[i])
		i = (i + 1) & (n - 1);
	kpcs[i] = pc;
}

/*
 * Room in the PC map, and in the hidden PCs given (which hold as many),
 * for one more kernel PC: at most half full, so that footer_kpc() finds
 * a free slot.
 */
static int footer_pcs_room(struct footer *f)
{
	u32 n = f->pc_mask + 1, i, j;
	struct footer_pc *old = f->pcs, *pcs;
	u64 *kpcs = NULL;

	if (old && ((u64)f->nr_kpcs + 1) * 2 <= n)
		return 0;
	n = old ? 2 * n : FOOTER_MAP_MIN;
	pcs = footer_map_alloc(n, sizeof(*pcs));
	if (f->gen_kpcs)
		kpcs = footer_map_alloc(n, sizeof(*kpcs));
	if (!pcs || (f->gen_kpcs && !kpcs)) {
		gt_env_free(pcs);
		gt_env_free(kpcs);
		return -ENOMEM;
	}
	for (i = 0; old && i <= f->pc_mask; i++) {
		if (!old[i].pc)
			continue;
		j = gt_env_hash64(old[i].pc, ilog2(n));
		while (pcs[j].pc)
			j = (j + 1) & (n - 1);
		pcs[j] = old[i];
		if (kpcs)
			footer_kpcs_put(kpcs, n, old[i].frame.pc);
	}
	gt_env_free(old);
	gt_env_free(f->kpcs);
	f->pcs = pcs;
	f->kpcs = kpcs;
	f->pc_mask = n - 1;
	return 0;
}

/* Make room for @need more bytes in a growing buffer. */
static int footer_grow(struct gt_enc *e, u32 need)
{
	size_t cap;
	u8 *buf;

	if (gt_enc_room(e) >= need)
		return 0;
	cap = gt_grow_cap(e->cap, (size_t)e->len + need);
	if (!cap)
		return -ENOMEM;
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
	struct footer_str *e;
	char *copy;
	u32 i;

	if (footer_strs_room(f))
		return 0;
	i = gt_env_jhash(s, len, 0) & f->str_mask;
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
	f->str_used++;
	gt_enc_string(&f->strings, e->id, s, len);
	return e->id;
}

/*
 * The PC that stands for a kernel PC whose symbol is @sym, where kernel
 * addresses are hidden: in the generational format, the same in every
 * generation, unless another symbol of this generation took it.
 */
static u64 footer_kpc(struct footer *f, const char *sym)
{
	u64 code, pc;
	u32 i;

	if (!f->gen_kpcs)
		return GT_KPC_BASE + (u64)f->nr_kpcs * GT_PC_STEP;
	code = gt_env_jhash(sym, strlen(sym), 2) % GT_KPC2_CODES;
	/* At most half full (footer_pcs_room()): this ends. */
	for (;;) {
		pc = GT_KPC2_BASE + code * GT_PC_STEP;
		i = gt_env_hash64(pc, ilog2(f->pc_mask + 1));
		while (f->kpcs[i] && f->kpcs[i] != pc)
			i = (i + 1) & f->pc_mask;
		if (!f->kpcs[i]) {
			f->kpcs[i] = pc;
			return pc;
		}
		code = (code + 1) % GT_KPC2_CODES;
	}
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
	fr->pc = f->show_addrs ? pc : footer_kpc(f, sym);
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
	f->nr_kpcs++;
	return fr->func && fr->file ? 0 : -ENOMEM;
}

/* The frame of one PC, symbolised once per distinct PC. */
static int footer_frame(struct footer *f, u64 pc, struct gt_frame *fr)
{
	char name[64];
	const char *comm;
	struct footer_pc *e;
	unsigned int nr;
	u32 i, idx;

	if (gt_syscall_frame_name(pc, name, sizeof(name), &nr)) {
		fr->pc = pc;
		fr->func = footer_string(f, name, strlen(name));
		fr->file = f->file_syscall;
		fr->line = nr;
		return fr->func ? 0 : -ENOMEM;
	}

	if (gt_irq_frame_name(f->m, pc, name, sizeof(name))) {
		fr->pc = pc;
		fr->func = footer_string(f, name, strlen(name));
		fr->file = footer_string(f, "[interrupt]", 11);
		fr->line = 0;
		return fr->func && fr->file ? 0 : -ENOMEM;
	}

	if (is_comm_pc(f->t, f->st, pc, &idx) && idx < f->nr_comms) {
		comm = f->st->comms[idx];
		fr->pc = pc;
		fr->func = footer_string(f, comm, strnlen(comm, GT_IN_COMM_LEN));
		fr->file = f->file_comm;
		fr->line = 0;
		return fr->func ? 0 : -ENOMEM;
	}

	if (footer_pcs_room(f))
		return -ENOMEM;
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

/* The reasons of a truncated user stack (enum gt_ustack_stop). */
static const char *const ustop_names[GT_USTOP_NR] = {
	[GT_USTOP_BAD_FP] = "bad frame pointer",
	[GT_USTOP_FAULT] = "fault",
	[GT_USTOP_DEPTH] = "depth limit",
	[GT_USTOP_NO_TABLE] = "no unwind table",
	[GT_USTOP_NO_RULE] = "no unwind rule",
	[GT_USTOP_SIGNAL] = "signal frame",
	[GT_USTOP_BAD_CFA] = "bad unwind step",
};

/* The frame that ends a truncated user stack: a PC per reason, no file. */
static int footer_utrunc(struct footer *f, u64 marker, struct gt_frame *fr)
{
	u32 stop = (u32)marker;
	char name[64];
	int len;

	len = snprintf(name, sizeof(name), "[user stack truncated: %s]",
		       stop < GT_USTOP_NR && ustop_names[stop] ?
		       ustop_names[stop] : "?");
	fr->pc = GT_UPC_TRUNC | (stop < GT_USTOP_NR ? stop : 0);
	fr->func = footer_string(f, name, min_t(u32, len, sizeof(name) - 1));
	fr->file = 0;
	fr->line = 0;
	return fr->func ? 0 : -ENOMEM;
}

/*
 * The frame of user PC @pc of address space @space: "<basename>+0x<off>"
 * in the file the environment found it in (its absolute path), or
 * "[unknown]+0x<pc>" in none (the environment found no file, or had no
 * room to look); see GT_UPC_FILE.  @exact: @pc is no return address.
 */
static int footer_uframe(struct footer *f, u64 space, u64 pc, bool exact,
			 struct gt_frame *fr)
{
	char name[GT_ENV_SYM_LEN];
	const char *path = NULL, *base;
	u32 file = 0;
	u64 off = 0;
	int len;

	if (gt_env_ustack_resolve(f->m, space, pc, &file, &off) &&
	    file < GT_UPC_FILES && off <= 0xffffffffULL)
		path = gt_env_ustack_file(f->m, file);
	if (path) {
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		len = snprintf(name, sizeof(name), "%s+0x%llx", base,
			       (unsigned long long)off);
		fr->pc = (exact ? GT_UPC_FILE_EXACT : GT_UPC_FILE) |
			 (u64)file << 32 | off;
		fr->file = footer_string(f, path, strlen(path));
		if (!fr->file)
			return -ENOMEM;
	} else if (f->show_addrs) {
		len = snprintf(name, sizeof(name), "[unknown]+0x%llx",
			       (unsigned long long)pc);
		fr->pc = GT_UPC_UNKNOWN | (pc & GT_UPC_ADDR_MASK);
		fr->file = 0;
	} else {
		/* A process's layout is no more for this reader than ours. */
		len = snprintf(name, sizeof(name), "[unknown]");
		fr->pc = GT_UPC_UNKNOWN;
		fr->file = 0;
	}
	fr->func = footer_string(f, name, min_t(u32, len, sizeof(name) - 1));
	fr->line = 0;
	return fr->func ? 0 : -ENOMEM;
}

/*
 * The frames of a stack of @n PCs into @frames: a frame per PC, but for
 * the space marker, which only says whose the user PCs after it are.
 * Returns the frames written, or -ENOMEM.
 */
static int footer_stack(struct footer *f, const u64 *pcs, u32 n,
			struct gt_frame *frames)
{
	u32 j, k, nu;
	bool exact;
	int w = 0;
	u64 space;

	for (j = 0; j < n; j++) {
		if (gt_is_ustack_marker(pcs[j])) {
			space = pcs[j] & GT_USPACE_MASK;
			nu = gt_ustack_marker_nr(pcs[j]);
			exact = gt_ustack_marker_exact(pcs[j]);
			for (k = 0; k < nu && j + 1 < n; k++) {
				j++;
				if (footer_uframe(f, space, pcs[j],
						  exact && !k, &frames[w++]))
					return -ENOMEM;
			}
			continue;
		}
		if (gt_is_utrunc_marker(pcs[j])) {
			if (footer_utrunc(f, pcs[j], &frames[w++]))
				return -ENOMEM;
			continue;
		}
		if (footer_frame(f, pcs[j], &frames[w++]))
			return -ENOMEM;
	}
	return w;
}

static void footer_release(struct footer *f)
{
	u32 i;

	if (f->strs)
		for (i = 0; i <= f->str_mask; i++)
			gt_env_free((void *)f->strs[i].s);
	gt_env_free(f->strs);
	gt_env_free(f->pcs);
	gt_env_free(f->kpcs);
	gt_env_free(f->strings.buf);
}

/* The 1.11 footer: every work function's name, ids 1 on. */
static int footer_works(struct footer *f)
{
	char name[GT_ENV_SYM_LEN + 8];
	u32 idx, len;

	for (idx = 0; gt_work_name(f->m, idx, name, sizeof(name)); idx++) {
		len = strlen(name);
		if (footer_grow(&f->strings, gt_enc_string_size(~0U, len)))
			return -ENOMEM;
		gt_enc_string(&f->strings, gt_work_string(f->m, idx), name, len);
	}
	return 0;
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
	struct gt_stab *t = &m->tables->tab[0];
	struct gt_frame *frames;
	struct footer f = { .m = m, .t = m->tables, .st = t,
			    .nr_comms = t->nr_comms, .show_addrs = show_addrs };
	struct gt_enc stacks = { 0 }, head;
	u8 head_buf[GT_BATCH_MAX_BYTES + 1 + GT_LEB_MAX];
	u32 i, n;
	int ret = -ENOMEM, w;

	/* Every PC of a stack is a frame, but for the user space marker. */
	BUILD_BUG_ON(GT_STACK_PCS - 1 > GT_STACK_MAX_FRAMES);
	/* Off the stack: GT_STACK_PCS frames exceed a kernel frame's limit. */
	frames = gt_env_zalloc(GT_STACK_PCS, sizeof(*frames));
	if (!frames)
		goto out;
	gt_env_ustack_sync(m);
	/* The work items' names take the first ids (gt_work_string()). */
	if (works_named(m)) {
		f.nr_strs = GT_WORK_FUNCS;
		if (footer_works(&f))
			goto out;
	}
	f.file_kernel = footer_string(&f, "[kernel]", 8);
	f.file_comm = footer_string(&f, "[comm]", 6);
	f.file_syscall = footer_string(&f, "[syscall]", 9);
	if (!f.file_kernel || !f.file_comm || !f.file_syscall)
		goto out;

	for (i = 0; i < t->nr_stacks; i++) {
		const struct gt_stack_ent *e = &t->stacks[i];

		n = min_t(u32, e->n, GT_STACK_PCS);
		w = footer_stack(&f, &t->pcs[e->off], n, frames);
		if (w < 0)
			goto out;
		if (footer_grow(&stacks, 1 + 2 * GT_LEB_MAX +
				GT_STACK_MAX_VALUE_BYTES))
			goto out;
		gt_enc_stack(&stacks, i + 1, frames, w);
	}

	gt_enc_init(&head, head_buf, sizeof(head_buf));
	gt_enc_batch(&head, 0, ts);
	gt_enc_frequency(&head, GOTRACE_FREQUENCY);

	*len = head.len + f.strings.len + stacks.len;
	*out = gt_env_alloc(*len);
	if (!*out)
		goto out;
	memcpy(*out, head.buf, head.len);
	/* A trace of no goroutine has no stack (user space: no buffer). */
	if (f.strings.len)
		memcpy(*out + head.len, f.strings.buf, f.strings.len);
	if (stacks.len)
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
 * strings, with ids 1 to GT_W123_NR_STRINGS (go123_writer.c names them so),
 * with the user log that marks lost events.
 * Every generation has its own table (the comment at the top), written
 * whole: what the generation's hooks interned, and the comm stacks of
 * the tasks its sweep states.
 */

/* Make room for @need more bytes in a growing generational buffer. */
static int w123_grow(struct gt_enc123 *e, u32 need)
{
	size_t cap;
	u8 *buf;

	if (e->cap - e->len >= need)
		return 0;
	cap = gt_grow_cap(e->cap, (size_t)e->len + need);
	if (!cap)
		return -ENOMEM;
	buf = gt_env_alloc(cap);
	if (!buf)
		return -ENOMEM;
	if (e->len)
		memcpy(buf, e->buf, e->len);
	gt_env_free(e->buf);
	e->buf = buf;
	e->cap = cap;
	e->limit = e->size_at ?
		min_t(u32, e->size_at + GT_E123_SIZE_BYTES + GT_E123_BATCH_DATA_MAX,
		      cap) : cap;
	return 0;
}

/* A table batch of @kind (GT_E123_STRINGS or GT_E123_STACKS) with room. */
static int w123_table_room(struct gt_enc123 *e, u64 gen, u8 kind, u32 need)
{
	if (w123_grow(e, need + GT_E123_BATCH_HDR_MAX + 1))
		return -ENOMEM;
	if (e->size_at && gt_enc123_room(e) >= need)
		return 0;
	gt_enc123_batch_end(e);
	if (w123_grow(e, need + GT_E123_BATCH_HDR_MAX + 1))
		return -ENOMEM;
	if (!(kind == GT_E123_STRINGS ? gt_enc123_strings(e, gen) :
				      gt_enc123_stacks(e, gen)))
		return -ENOMEM;
	return 0;
}

/* The strings of the reasons that name a syscall, @used of them. */
static int w123_reasons(struct gt_enc123 *e, u64 gen, const unsigned long *used)
{
	char name[64], s[96];
	unsigned int nr;
	u32 i, len;

	for (i = 0; i < GT_W123_NR_SYS_REASONS; i++) {
		u32 slot = i % GT_W123_SYS_SLOTS;
		bool compat = slot >= GOTRACE_SYSCALL_MAX;

		if (!gt_test_bit(i, used))
			continue;
		if (!gt_syscall_frame_name(gt_syscall_pc(slot % GOTRACE_SYSCALL_MAX,
							 compat),
					   name, sizeof(name), &nr))
			return -EINVAL;
		/* "sys_read" reads "read" there; "compat_sys_read" stays. */
		len = snprintf(s, sizeof(s), "%s: %s",
			       gt_w123_strings[i / GT_W123_SYS_SLOTS],
			       strncmp(name, "sys_", 4) ? name : name + 4);
		len = min_t(u32, len, sizeof(s) - 1);
		if (w123_table_room(e, gen, GT_E123_STRINGS,
				    1 + 2 * GT_LEB_MAX + len) ||
		    !gt_enc123_string(e, GT_W123_NR_STRINGS + 1 + i, s, len))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Is @name one of the scheduler's own functions, which every sleeping
 * task's stack begins with, rather than the code that chose to wait?
 */
static bool sched_function(const char *name)
{
	static const char *const prefixes[] = {
		"__schedule", "schedule", "io_schedule", "preempt_schedule",
		"__cond_resched", "rt_mutex_schedule",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * The kernel function a block with stack @f->st->stacks[@id - 1] waits
 * in, into @sym (GT_ENV_SYM_LEN bytes): its innermost kernel frame that
 * is not the scheduler's.  False if it has none (no kernel stack was
 * taken).
 */
static bool kwait_function(struct footer *f, u32 id, char *sym)
{
	const struct gt_stack_ent *s = &f->st->stacks[id - 1];
	char frame[64];
	unsigned int nr;
	u32 j, idx;

	for (j = 0; j < min_t(u32, s->n, GT_STACK_PCS); j++) {
		u64 pc = f->st->pcs[s->off + j];

		/* The user, syscall and comm frames end the kernel's. */
		if (gt_is_ustack_marker(pc) || gt_is_utrunc_marker(pc) ||
		    gt_syscall_frame_name(pc, frame, sizeof(frame), &nr) ||
		    is_comm_pc(f->t, f->st, pc, &idx))
			return false;
		gt_env_symbolise(f->m, pc, sym);
		/* "func+0x1c/0x80 [mod]": the function. */
		sym[strcspn(sym, "+ ")] = '\0';
		if (!sym[0] || !strncmp(sym, "0x", 2))
			return false;
		if (!sched_function(sym))
			return true;
	}
	return false;
}

/*
 * The strings of the kernel waits the generation's blocks name
 * (gt_tables_kwait()).  Go's block profile takes any reason that
 * contains "chan", "sync" or "select": a function whose name does (as
 * synchronize_rcu) keeps the plain "blocked", which no profile takes, as
 * a plain block outside a syscall always was.
 */
static int w123_kwaits(struct footer *f, struct gt_enc123 *e, u64 gen)
{
	const char *blocked = gt_w123_strings[GT_W123_R_BLOCKED];
	u32 pre = strlen(blocked) + 2;	/* "blocked: " */
	char buf[GT_ENV_SYM_LEN + 16];
	char *name = buf + 16, *str;
	u32 id, len;

	if (pre > 16)
		return -EINVAL;
	for (id = 1; id <= f->st->nr_stacks; id++) {
		if (!gt_test_bit(id, f->st->kwait_used))
			continue;
		if (kwait_function(f, id, name) && !strstr(name, "chan") &&
		    !strstr(name, "sync") && !strstr(name, "select")) {
			str = name - pre;
			memcpy(str, blocked, pre - 2);
			memcpy(str + pre - 2, ": ", 2);
			len = pre + strlen(name);
		} else {
			str = (char *)blocked;
			len = pre - 2;
		}
		if (w123_table_room(e, gen, GT_E123_STRINGS,
				    1 + 2 * GT_LEB_MAX + len) ||
		    !gt_enc123_string(e, GT_W123_KWAIT_BASE + id, str, len))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The names of the units (units.c): all of them, in every generation, so
 * that a region may name its unit in any generation, however the trace
 * was cut (a flight snapshot starts at any generation).  Every unit an
 * event of @gen names is among them: the hook named the unit before it
 * wrote the event, and no CPU writes @gen any more.
 */
static int w123_units(struct gt_model *m, struct gt_enc123 *e, u64 gen)
{
	u32 i, nr = gt_units_nr(m), len;
	const char *name;

	for (i = 1; i <= nr; i++) {
		name = gt_units_name(m, i);
		len = strlen(name);
		if (w123_table_room(e, gen, GT_E123_STRINGS,
				    1 + 2 * GT_LEB_MAX + len) ||
		    !gt_enc123_string(e, gt_tables_unit(m->tables, i), name, len))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The names of the work functions whose regions the generation's events
 * name (go123_writer.c marks them), and none for the generation after
 * next, which has the same parity.
 */
static int w123_works(struct gt_model *m, struct gt_enc123 *e, u64 gen)
{
	char name[GT_ENV_SYM_LEN + 8];
	unsigned long *used;
	u32 idx, len;

	if (!works_named(m))
		return 0;
	used = m->irqs->work_used[gen & 1];
	for (idx = 0; idx < GT_WORK_FUNCS; idx++) {
		if (!gt_test_bit(idx, used))
			continue;
		if (!gt_work_name(m, idx, name, sizeof(name)))
			continue;
		len = strlen(name);
		if (w123_table_room(e, gen, GT_E123_STRINGS,
				    1 + 2 * GT_LEB_MAX + len) ||
		    !gt_enc123_string(e, gt_work_string(m, idx), name, len))
			return -ENOMEM;
	}
	memset(used, 0, sizeof(m->irqs->work_used[0]));
	return 0;
}

/*
 * Empty the table of generation @gen, written out, for generation @gen + 2:
 * the hash slots its entries took (not the whole array: a long session's
 * table may be large and hold little), the comms.
 */
static void stab_reset(struct gt_tables *t, struct gt_stab *st, u64 gen)
{
	unsigned long flags = 0;
	u32 i;

	for (i = 0; i < st->nr_stacks; i++)
		st->stack_slots[st->stacks[i].slot] = 0;
	memset(st->comm_slots, 0, (t->comm_mask + 1) * sizeof(u32));
	memset(st->code_slots, 0, (t->comm_mask + 1) * sizeof(u32));
	memset(st->comm_stack, 0, st->nr_comms * sizeof(u32));
	memset(st->kwait_used, 0, BITS_TO_LONGS(t->max_stacks + 1) * sizeof(long));
	t->peak_stacks = max(t->peak_stacks, st->nr_stacks);
	t->peak_pcs = max(t->peak_pcs, st->nr_pcs);
	t->peak_comms = max(t->peak_comms, st->nr_comms);
	/*
	 * A generation's table holds the comm stacks of every task its
	 * sweep states, one per comm alive: the next generations keep room
	 * for as many, and a quarter more, of at most half the table.
	 */
	WRITE_ONCE(t->comm_reserve,
		   min(max(st->nr_comm_stacks + st->nr_comm_stacks / 4,
			   t->max_stacks / 10), t->max_stacks / 2));
	st->nr_comm_stacks = 0;
	WRITE_ONCE(st->nr_stacks, 0);
	WRITE_ONCE(st->nr_pcs, 0);
	/* For tables_comm_locked()'s assertion: nobody else uses @st. */
	gt_lock_irqsave(&t->lock, flags);
	stab_comm_none(t, st);
	gt_unlock_irqrestore(&t->lock, flags);
	st->gen = gen + 2;
}

/**
 * gt_tables_w123() - the string and stack tables, for generation @gen
 * @m:		the model; hooks may run, in the next generation
 * @gen:	the generation the batches belong to
 * @show_addrs:	write real kernel addresses (else synthetic ones)
 * @out:	set to a buffer the caller frees with gt_env_free()
 * @len:	set to its length
 *
 * The generation's table is emptied for generation @gen + 2.
 *
 * Return: 0 or -ENOMEM.
 */
int gt_tables_w123(struct gt_model *m, u64 gen, bool show_addrs, u8 **out,
		   size_t *len)
{
	struct gt_tables *t = m->tables;
	struct gt_stab *st = tab_of(t, gen);
	struct footer f = { .m = m, .t = t, .st = st,
			    .show_addrs = show_addrs };
	struct gt_enc123 e = { 0 };
	struct gt_frame *frames;
	u32 i, n, need;
	int ret = -ENOMEM, w;

	f.nr_comms = st->nr_comms;
	f.gen_kpcs = !show_addrs;
	frames = gt_env_zalloc(GT_STACK_PCS, sizeof(*frames));
	if (!frames)
		goto out;
	/* The user frames of the generation's stacks are named by now. */
	gt_env_ustack_sync(m);
	for (i = 0; i < GT_W123_NR_STRINGS; i++)
		if (footer_string(&f, gt_w123_strings[i],
				  strlen(gt_w123_strings[i])) != i + 1)
			goto out;
	/*
	 * The ids of the reasons that name a syscall come next, then those
	 * of the kernel waits, one per stack id, then the units'.
	 */
	f.nr_strs = units_base(t) + GT_UNITS_MAX +
		    (works_named(m) ? GT_WORK_FUNCS : 0);
	f.file_kernel = footer_string(&f, "[kernel]", 8);
	f.file_comm = footer_string(&f, "[comm]", 6);
	f.file_syscall = footer_string(&f, "[syscall]", 9);
	if (!f.file_kernel || !f.file_comm || !f.file_syscall)
		goto out;
	/* The rate of the CPU samples, which no event of Go's says. */
	if (m->opts.cpu_hz) {
		char hz[sizeof(GT_W123_CPU_HZ_FMT) + 10];

		n = snprintf(hz, sizeof(hz), GT_W123_CPU_HZ_FMT, m->opts.cpu_hz);
		if (!footer_string(&f, hz, n))
			goto out;
	}

	for (i = 0; i < st->nr_stacks; i++) {
		const struct gt_stack_ent *s = &st->stacks[i];

		n = min_t(u32, s->n, GT_STACK_PCS);
		w = footer_stack(&f, &st->pcs[s->off], n, frames);
		if (w < 0)
			goto out;
		need = 1 + 2 * GT_LEB_MAX + w * 4 * GT_LEB_MAX;
		if (w123_table_room(&e, gen, GT_E123_STACKS, need) ||
		    !gt_enc123_stack(&e, i + 1, frames, w))
			goto out;
	}
	gt_enc123_batch_end(&e);

	for (i = 0; i <= f.str_mask; i++) {
		const struct footer_str *s = &f.strs[i];

		if (!s->s)
			continue;
		need = 1 + 2 * GT_LEB_MAX + s->len;
		if (w123_table_room(&e, gen, GT_E123_STRINGS, need) ||
		    !gt_enc123_string(&e, s->id, s->s, s->len))
			goto out;
	}
	if (w123_reasons(&e, gen, t->reasons_used[gen & 1]) ||
	    w123_kwaits(&f, &e, gen) || w123_units(m, &e, gen) ||
	    w123_works(m, &e, gen))
		goto out;
	gt_enc123_batch_end(&e);
	*out = e.buf;
	*len = e.len;
	e.buf = NULL;
	/* The generation after the next one starts with none. */
	stab_reset(t, st, gen);
	memset(t->reasons_used[gen & 1], 0,
	       BITS_TO_LONGS(GT_W123_NR_SYS_REASONS) * sizeof(long));
	ret = 0;
out:
	gt_env_free(e.buf);
	gt_env_free(frames);
	footer_release(&f);
	return ret;
}
