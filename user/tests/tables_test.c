// SPDX-License-Identifier: GPL-2.0
/*
 * tables_test.c - the module's stack and comm tables (model/tables.c) in
 * the generational format, where each generation has its own table
 *
 * What model_test.c cannot make happen: in user space the model ends a
 * generation between two events, while in the module a hook may intern
 * a stack in generation G and write its event in G + 1, the reader
 * having ended G meanwhile.  gt_tables_w123_id() then copies the stack
 * into G + 1's table, its comm frame renamed there: the copy must be
 * the stack that G + 1 would have interned itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../model/model_state.h"

#define KPC1	0xffffffff81001230ULL
#define KPC2	0xffffffff81004560ULL

static void test_carry(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, true);
	u64 scratch[GT_STACK_PCS], pcs[3], ref, ref2, cref;
	u32 id, id2;

	if (!t) {
		ok(0, "tables allocated");
		return;
	}
	/* Another comm first, so that "carry" has another index in gen 2. */
	gt_tables_comm_stack(t, 2, "other");

	pcs[0] = KPC1;
	pcs[1] = KPC2;
	pcs[2] = gt_tables_comm_pc(t, 1, "carry");
	ref = gt_tables_stack(t, 1, pcs, 3);
	ok(ref >> 32 == 1 && (u32)ref,
	   "a stack interned in generation 1 is a reference of generation 1");
	ok(gt_tables_w123_id(t, 1, ref, scratch) == (u32)ref,
	   "written in generation 1: its id");

	id = gt_tables_w123_id(t, 2, ref, scratch);
	pcs[2] = gt_tables_comm_pc(t, 2, "carry");
	ref2 = gt_tables_stack(t, 2, pcs, 3);
	diag("stack %u of generation 1 is %u in generation 2", (u32)ref, id);
	ok(id && ref2 >> 32 == 2 && (u32)ref2 == id,
	   "written in generation 2: copied into its table, the stack it "
	   "would intern itself (%u, %u)", id, (u32)ref2);

	cref = gt_tables_comm_stack(t, 1, "carry");
	id2 = gt_tables_w123_id(t, 2, cref, scratch);
	ok(id2 && id2 == (u32)gt_tables_comm_stack(t, 2, "carry") &&
	   id2 != id,
	   "a comm stack of generation 1 written in 2: that comm's stack there");

	ok(!gt_tables_w123_id(t, 3, ref, scratch),
	   "a reference two generations old has no id (its table is gone)");
	ok(!gt_tables_w123_id(t, 2, 0, scratch), "no stack: none");
	gt_tables_free(t);
}

/* The 1.11 format: one table, references are ids, generation 0. */
static void test_one_table(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, false);
	u64 pcs[2], ref;

	if (!t) {
		ok(0, "tables allocated");
		return;
	}
	pcs[0] = KPC1;
	pcs[1] = gt_tables_comm_pc(t, 0, "one");
	ref = gt_tables_stack(t, 0, pcs, 2);
	ok(ref && ref >> 32 == 0,
	   "1.11: a stack reference is its id (%llu)", (unsigned long long)ref);
	ok(pcs[1] == 0x10000000ULL + 16,
	   "1.11: the first comm after '?' has PC 0x10000010, as ever");
	gt_tables_free(t);
}

/* A generation ends early once its table is three quarters full. */
static void test_due(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, true);
	u64 pcs[2];
	unsigned int i, due_at = 0;

	if (!t) {
		ok(0, "tables allocated");
		return;
	}
	for (i = 0; i < 64 && !due_at; i++) {
		pcs[0] = KPC1 + 16 * i;
		pcs[1] = gt_tables_comm_pc(t, 1, "due");
		if (!gt_tables_stack(t, 1, pcs, 2))
			break;
		if (gt_tables_due(t, 1))
			due_at = i + 1;
	}
	/* 64 stacks, nine tenths for kernel stacks: 58, of which 3/4. */
	ok(due_at && due_at <= 58 * 3 / 4 + 1 && !gt_tables_due(t, 2),
	   "generation 1 is due at %u stacks of 64, generation 2 is not",
	   due_at);
	gt_tables_free(t);
}

/* The hash a comm's PC code starts from (tables_comm_locked()). */
static u32 comm_hash(const char *comm)
{
	char name[GT_IN_COMM_LEN] = { 0 };

	/* As tables_comm_locked(): up to the NUL, at most 15 bytes. */
	memcpy(name, comm, strnlen(comm, sizeof(name) - 1));
	return gt_env_jhash(name, sizeof(name), 1);
}

struct named_hash {
	u32 hash;
	u32 i;
};

static int by_hash(const void *a, const void *b)
{
	const struct named_hash *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/*
 * Two comms whose hashes meet, into @a and @b: the first pair among
 * c0 to c262143 (a birthday search of the 32-bit hash).  False if none.
 */
static bool comms_meeting(char *a, char *b, size_t size)
{
	enum { N = 1 << 18 };
	struct named_hash *h = malloc(N * sizeof(*h));
	char name[GT_IN_COMM_LEN];
	bool found = false;
	u32 i;

	if (!h)
		return false;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		h[i] = (struct named_hash){ comm_hash(name), i };
	}
	qsort(h, N, sizeof(*h), by_hash);
	for (i = 1; i < N && !found; i++) {
		if (h[i].hash != h[i - 1].hash)
			continue;
		snprintf(a, size, "c%u", h[i - 1].i);
		snprintf(b, size, "c%u", h[i].i);
		found = true;
	}
	free(h);
	return found;
}

/*
 * A comm keeps its PC across generations, unless another comm of the
 * same hash took it first in a generation: then the PC of a stack
 * carried into that generation must be renamed to the comm's PC there,
 * not keep the one that now names the other comm.
 */
static void test_carry_renamed(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, true);
	u64 scratch[GT_STACK_PCS], pcs[2], ref, ref2, pc1;
	char a[GT_IN_COMM_LEN], b[GT_IN_COMM_LEN];
	u32 id;

	if (!t || !comms_meeting(a, b, sizeof(a))) {
		ok(0, "tables allocated, two comms of one hash found");
		gt_tables_free(t);
		return;
	}
	diag("%s and %s have the same hash %08x", a, b, comm_hash(a));
	pcs[0] = KPC1;
	pcs[1] = pc1 = gt_tables_comm_pc(t, 1, a);
	ref = gt_tables_stack(t, 1, pcs, 2);
	/* Generation 2 meets the other comm first: it takes that PC. */
	ok(gt_tables_comm_pc(t, 2, b) == pc1 && gt_tables_comm_pc(t, 2, a) != pc1,
	   "%s's PC of generation 1 is %s's in generation 2", a, b);
	id = gt_tables_w123_id(t, 2, ref, scratch);
	pcs[1] = gt_tables_comm_pc(t, 2, a);
	ref2 = gt_tables_stack(t, 2, pcs, 2);
	ok(id && (u32)ref2 == id,
	   "carried into generation 2, the stack names %s with its PC there: "
	   "the stack generation 2 interns itself (%u, %u)", a, id, (u32)ref2);
	gt_tables_free(t);
}


/*
 * A stack with user frames carried into the next generation: its raw
 * user PCs are copied as they are, even one whose value is a comm PC of
 * the table it comes from (user addresses may be anything), while its
 * comm frame is renamed as ever.  Here the raw PC is comm @a's PC of
 * generation 1, which is @b's in generation 2: renaming it as a comm
 * frame would write another address.
 */
static void test_carry_user(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, true);
	u64 scratch[GT_STACK_PCS], pcs[5], ref, ref2;
	char a[GT_IN_COMM_LEN], b[GT_IN_COMM_LEN];
	bool added = false;
	u32 id;

	if (!t || !comms_meeting(a, b, sizeof(a))) {
		ok(0, "tables allocated, two comms of one hash found");
		gt_tables_free(t);
		return;
	}
	pcs[0] = KPC1;
	pcs[1] = gt_ustack_marker(0x1234, 2, false);
	pcs[2] = gt_tables_comm_pc(t, 1, a);	/* a raw user PC */
	pcs[3] = 0x401000;
	pcs[4] = gt_tables_comm_pc(t, 1, "user");
	ref = gt_tables_stack_new(t, 1, pcs, 5, &added);
	ok(ref && added, "a stack with user frames is added");
	gt_tables_stack_new(t, 1, pcs, 5, &added);
	ok(!added, "met again, it is not added again");
	gt_tables_comm_pc(t, 2, b);
	id = gt_tables_w123_id(t, 2, ref, scratch);
	pcs[4] = gt_tables_comm_pc(t, 2, "user");
	ref2 = gt_tables_stack(t, 2, pcs, 5);
	ok(id && (u32)ref2 == id && scratch[2] == pcs[2],
	   "carried into generation 2: its user PCs as they were, its comm "
	   "frame renamed (%u, %u)", id, (u32)ref2);
	gt_tables_free(t);
}

/*
 * A comm stack carried into a generation whose table is full: comm
 * stacks have the table's reserve, which kernel stacks leave them, so
 * the event that carries it still names its task.
 */
static void test_carry_full(void)
{
	struct gt_tables *t = gt_tables_alloc(64, 512, true);
	u64 scratch[GT_STACK_PCS], pcs[2], cref, kref;
	unsigned int i, added = 0;
	u32 id;

	if (!t) {
		ok(0, "tables allocated");
		return;
	}
	cref = gt_tables_comm_stack(t, 1, "carried");
	pcs[0] = KPC2;
	pcs[1] = gt_tables_comm_pc(t, 1, "carried");
	kref = gt_tables_stack(t, 1, pcs, 2);
	for (i = 0; i < 64; i++) {
		pcs[0] = KPC1 + 16 * i;
		pcs[1] = gt_tables_comm_pc(t, 2, "filler");
		if (!gt_tables_stack(t, 2, pcs, 2))
			break;
		added++;
	}
	ok(added < 64, "generation 2's table takes %u kernel stacks of 64",
	   added);
	id = gt_tables_w123_id(t, 2, cref, scratch);
	ok(id && id == (u32)gt_tables_comm_stack(t, 2, "carried"),
	   "a comm stack carried into the full table: that comm's stack there "
	   "(%u)", id);
	ok(!gt_tables_w123_id(t, 2, kref, scratch),
	   "a kernel stack carried into the full table: none");
	gt_tables_free(t);
}

/* A distinct name for every kernel PC, as sprint_symbol() would give. */
static bool big_symbolise(void *arg, u64 pc, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "f%llx+0x0/0x10", (unsigned long long)pc);
	return true;
}

/*
 * The footer (1.11) and a generation's tables (go 1.23) of 2^24 PCs, as
 * max_stacks allows (4194304 stacks, 8 PCs each on average): 524288
 * stacks of 32 frames, 524319 distinct kernel PCs.  Their maps were
 * sized by every PC, two 40-byte slots each: 2.5 GiB, which kvmalloc()
 * refuses with a warning (and user space's gt_env_zalloc() refuses).
 */
static void test_big_tables(bool gens)
{
	enum { N = 32, STACKS = (1 << 24) / N };
	const char *name = gens ? "go 1.23 tables" : "1.11 footer";
	struct gt_model *m = calloc(1, sizeof(*m));
	struct gt_tables *t = gt_tables_alloc(2 * STACKS, STACKS * N, gens);
	u64 gen = gens ? 1 : 0, pcs[N];
	size_t len = 0;
	u8 *out = NULL;
	int ret;
	u32 i, j;

	if (!m || !t) {
		ok(0, "%s: tables allocated", name);
		free(m);
		gt_tables_free(t);
		return;
	}
	for (j = 1; j < N; j++)
		pcs[j] = KPC2 + 16 * j;
	for (i = 0; i < STACKS; i++) {
		pcs[0] = KPC1 + 16ULL * i;
		if (!gt_tables_stack(t, gen, pcs, N))
			break;
	}
	ok(i == STACKS, "%s: %u stacks of %d PCs interned", name, i, N);
	m->tables = t;
	m->env.symbolise = big_symbolise;
	ret = gens ? gt_tables_w123(m, gen, false, &out, &len) :
		     gt_tables_footer(m, 1, true, &out, &len);
	diag("%s: %zu bytes", name, len);
	ok(!ret && len > (size_t)STACKS * N,
	   "%s of %d PCs: written (%d, %zu bytes)", name, STACKS * N, ret, len);
	gt_env_free(out);
	gt_tables_free(t);
	free(m);
}

/*
 * The buffers that grow by doubling (a generation's bytes for the reader,
 * the footer's, a generation's tables) never ask for more than
 * GT_ALLOC_MAX: after a generation of 1 GiB, doubling asked for 2 GiB.
 */
static void test_grow_cap(void)
{
	size_t gib = 1UL << 30;

	ok(gt_grow_cap(0, 1) == 64 * 1024 && gt_grow_cap(0, 100000) == 131072,
	   "a buffer starts at 64 KiB and doubles");
	ok(gt_grow_cap(gib, gib + 1) == GT_ALLOC_MAX,
	   "past 1 GiB it grows to GT_ALLOC_MAX, not 2 GiB (%zu)",
	   gt_grow_cap(gib, gib + 1));
	ok(gt_grow_cap(gib, GT_ALLOC_MAX) == GT_ALLOC_MAX &&
	   !gt_grow_cap(GT_ALLOC_MAX, (size_t)GT_ALLOC_MAX + 1),
	   "GT_ALLOC_MAX is the most; beyond, none");
}

int main(void)
{
	test_carry();
	test_carry_renamed();
	test_carry_user();
	test_carry_full();
	test_one_table();
	test_due();
	test_grow_cap();
	test_big_tables(false);
	test_big_tables(true);
	return tap_done();
}
