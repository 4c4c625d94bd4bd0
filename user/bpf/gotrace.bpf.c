// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace.bpf.c - the BPF capture backend: the module's probes, as
 * tp_btf programs that write compact records (record.h) into one BPF ring
 * buffer per CPU.
 *
 * Nothing here models anything: the reader in user space merges the
 * CPUs' records in time order and feeds the same Linux->Go model as the
 * module.  What must be read in the kernel is read here: kernel stacks,
 * the filters (so that unrecorded tasks cost no ring space), and what a
 * sleeping read or write waits on.
 *
 * Context: tracepoints, preemption or migration disabled, any context
 * up to hard interrupts (wakeups).  No loops but bounded ones.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "record.h"

char LICENSE[] SEC("license") = "GPL";

/* Values of include/uapi/linux/gotrace.h that the programs test. */
#define OPT_TGID		(1U << 0)
#define OPT_CHILDREN		(1U << 1)
#define OPT_NO_KSTACKS		(1U << 2)
#define OPT_NO_UNITS		(1U << 4)
#define OPT_USER_STACKS		(1U << 5)
#define OPT_UNWIND_TABLES	(1U << 7)
#define SYSCALLS_ALL		0
#define SET_OFF			0
#define SET_INCLUDE		1
#define SYSCALL_MAX		1024

#define TASK_DEAD_STATE		0x80	/* TASK_DEAD in prev_state */
#define S_IFMT_BITS		00170000
#define S_IFIFO_BITS		0010000
#define S_IFSOCK_BITS		0140000

/*
 * What differs between the architectures the object is built for
 * (-D__TARGET_ARCH_x86 or _arm64, against that architecture's
 * vmlinux.h): the numbers of the syscalls whose sleep is classified by
 * the kind of fd arg0, and of prctl; the saved user registers (a 64-bit
 * user task's, its PC, frame pointer, stack pointer, syscall number and
 * first argument); a compat (32-bit) syscall; the top of user addresses;
 * and a return address without the pointer authentication code arm64
 * code built with -mbranch-protection signs it with (the user addresses
 * of Debian's 52-bit kernels are below 2^48 unless a program asks for
 * more with mmap()'s hint, so the bits above 48 are the code's).
 */
#if defined(__TARGET_ARCH_x86)
#define NR_READ		0
#define NR_WRITE	1
#define NR_PREAD64	17
#define NR_PWRITE64	18
#define NR_READV	19
#define NR_WRITEV	20
#define NR_PRCTL	157
#define NR_PREADV	295
#define NR_PWRITEV	296
#define NR_PREADV2	327
#define NR_PWRITEV2	328

#define TS_COMPAT_BIT		0x0002	/* thread_info.status */
#define USER64_CS		0x33	/* __USER_CS: a 64-bit task */
/* TASK_SIZE_MAX with 4-level page tables: no user address is above. */
#define USER_ADDR_END		0x00007ffffffff000ULL

#define regs_user64(r)		(BPF_CORE_READ(r, cs) == USER64_CS)
#define regs_pc(r)		BPF_CORE_READ(r, ip)
#define regs_fp(r)		BPF_CORE_READ(r, bp)
#define regs_lr(r)		0	/* x86-64 has no link register */
#define regs_sp(r)		BPF_CORE_READ(r, sp)
#define ustack_lo_slack		0
#define regs_sysnr(r)		BPF_CORE_READ(r, orig_ax)
#define regs_arg0(r)		BPF_CORE_READ(r, di)
#define task_compat(t)		(BPF_CORE_READ(t, thread_info.status) & \
				 TS_COMPAT_BIT)
#define user_ret(ret)		(ret)
#elif defined(__TARGET_ARCH_arm64)
#define NR_READ		63
#define NR_WRITE	64
#define NR_READV	65
#define NR_WRITEV	66
#define NR_PREAD64	67
#define NR_PWRITE64	68
#define NR_PREADV	69
#define NR_PWRITEV	70
#define NR_PRCTL	167
#define NR_PREADV2	286
#define NR_PWRITEV2	287

#define PSR_MODE_BITS		0x1f	/* M[4] (aarch32) and M[3:0] */
#define PSR_MODE_EL0T		0x00	/* aarch64 user mode */
#define TIF_32BIT_FLAG		(1UL << 22)	/* thread_info.flags */
/* TASK_SIZE_64 with 52-bit addresses: no user address is above. */
#define USER_ADDR_END		(1ULL << 52)

#define regs_user64(r)		((BPF_CORE_READ(r, pstate) & PSR_MODE_BITS) == \
				 PSR_MODE_EL0T)
#define regs_pc(r)		BPF_CORE_READ(r, pc)
#define regs_fp(r)		BPF_CORE_READ(r, regs[29])
#define regs_lr(r)		BPF_CORE_READ(r, regs[30])
#define regs_sp(r)		BPF_CORE_READ(r, sp)
/*
 * Go's arm64 functions keep their frame record 8 bytes below their
 * stack pointer (x29 = RSP - 8): the first record may be there.
 */
#define ustack_lo_slack		8
#define regs_sysnr(r)		BPF_CORE_READ(r, syscallno)
#define regs_arg0(r)		BPF_CORE_READ(r, orig_x0)
#define task_compat(t)		(BPF_CORE_READ(t, thread_info.flags) & \
				 TIF_32BIT_FLAG)
#define user_ret(ret)		((ret) & ((1ULL << 48) - 1))
#else
#error "gotrace.bpf.c: -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64"
#endif

/* Set by the loader before loading (rodata). */
const volatile struct gtb_config cfg = {};
/* Wake the reader early once a CPU's ring holds this many bytes. */
const volatile __u64 wake_bytes = 1 << 20;

/*
 * One ring buffer per CPU, indexed by CPU: the loader creates them, sets
 * the first as the inner map's template and inserts them all.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* set to the number of CPUs */
	__type(key, __u32);
	__type(value, __u32);
} rings SEC(".maps");

/* Records lost because a CPU's ring was full (or missing), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/*
 * CPU sample records lost (a full ring, no scratch slot), per CPU, with
 * the samples not taken that they carried (gtb_sample.missed): lost
 * samples, not lost events, so apart from @drops, whose count of a
 * CPU's switch records decides their gaps, which no sample can make.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sample_drops SEC(".maps");

/*
 * Syscall tracepoint hits that the first program skipped (its CPU was
 * inside it already) and its twin recorded, per CPU: the reader takes
 * them off the first program's recursion_misses.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} twin_runs SEC(".maps");

/*
 * What the session decided about a task the first time it saw it, keyed
 * by its task_struct address.  start_time tells a reused address from
 * the task it belonged to; comm is the name its last task record gave.
 * A preallocated hash: safe in any context.
 */
struct task_seen {
	__u64 start_time;
	__u64 comm[2];
	__u8 match;
	__u8 twin;	/* TWIN_*: the first program of a syscall hit ran */
	__u8 pad[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, struct task_seen);
} seen SEC(".maps");

/*
 * A record lost: @n samples if @smp (a sample's record), else an event.
 * @smp is a constant where this is inlined: one map per call site.
 */
static __always_inline void count_lost(bool smp, __u64 n)
{
	__u32 zero = 0;
	__u64 *v;

	if (smp)
		v = bpf_map_lookup_elem(&sample_drops, &zero);
	else
		v = bpf_map_lookup_elem(&drops, &zero);
	/* Atomic: a wakeup's program may nest in this CPU's switch's. */
	if (v)
		__sync_fetch_and_add(v, n);
}

/*
 * This CPU's drop count now, for a switch record (record.h).  Its switch
 * programs run one after the other, with interrupts off, so a switch
 * whose record was dropped between two written ones moved the count
 * that the second one reads.
 */
static __always_inline __u32 drops_now(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&drops, &zero);

	return n ? (__u32)*n : 0;
}

/*
 * This CPU's ring; a record that finds none is dropped (and counted: a
 * sample's if @smp).
 */
static __always_inline void *ring(bool smp)
{
	__u32 cpu = bpf_get_smp_processor_id();
	void *rb = bpf_map_lookup_elem(&rings, &cpu);

	if (!rb)
		count_lost(smp, 1);
	return rb;
}

static __always_inline void *reserve_as(__u32 size, bool smp)
{
	void *rb = ring(smp);
	void *rec;

	if (!rb)
		return NULL;
	rec = bpf_ringbuf_reserve(rb, size, 0);
	if (!rec)
		count_lost(smp, 1);
	return rec;
}

static __always_inline void *reserve(__u32 size)
{
	return reserve_as(size, false);
}

/*
 * No wakeup per record: the reader polls, or is woken when a ring fills,
 * or (@now) when a record needs it soon.
 */
static __always_inline __u64 wake_flags(void *rb, bool now)
{
	if (now || (rb && bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= wake_bytes))
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void submit_now(void *rec, bool now)
{
	__u32 cpu = bpf_get_smp_processor_id();

	bpf_ringbuf_submit(rec, wake_flags(bpf_map_lookup_elem(&rings, &cpu),
					   now));
}

static __always_inline void submit(void *rec)
{
	submit_now(rec, false);
}

/*
 * Records that carry stacks are built in a scratch slot and copied into
 * the ring at their real size (hdr.size), not reserved there at their
 * worst: a full kernel stack and a full user stack are ~600 bytes,
 * while most records use a fraction of that, and the room reserved but
 * unused filled the rings and dropped records under load.
 *
 * A slot is this CPU's, so only programs nesting on this CPU compete
 * for it: one interrupted by another (a wakeup in an interrupt), or,
 * where tracepoints run their programs preemptibly, one preempted
 * inside its program (migration stays off), or any of them by the CPU
 * sample's interrupt.  The kernel never runs a program nested in itself
 * on one CPU, so one slot per program that uses them is enough for them
 * never to run out: switch, waking, wakeup_new, fork, sys_enter and its
 * twin, and the CPU sample.  A program claims a free
 * slot with an atomic exchange on its busy flag (64-bit: no -mcpu=v3
 * needed) and frees it once the record is in the ring.
 */
#define SCRATCH_SLOTS	7

struct scratch {
	__u64 busy;
	__u64 rec[GTB_MAX_RECORD / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* A free slot of this CPU's, or NULL: then the record is a drop (@smp). */
static __always_inline struct scratch *claim(bool smp)
{
	struct scratch *s;
	__u32 k;

	/* Unrolled: a few tries, cheaper than a bpf_loop() callback. */
#pragma unroll
	for (int i = 0; i < SCRATCH_SLOTS; i++) {
		k = i;
		s = bpf_map_lookup_elem(&scratch, &k);
		if (s && !__sync_lock_test_and_set(&s->busy, 1))
			return s;
	}
	count_lost(smp, 1);
	return NULL;
}

/*
 * Write @s's record into the ring, hdr.size bytes (a multiple of 8, as
 * the ring's records are aligned), wake the reader as submit_now()
 * would, and free the slot.  False if it was dropped (counted as a
 * sample's if @smp).
 */
static __always_inline bool output_now(struct scratch *s, bool now, bool smp)
{
	struct gtb_hdr *h = (struct gtb_hdr *)s->rec;
	__u32 size = h->size;
	bool ok = false;
	void *rb;

	/*
	 * The verifier must see the size bounded by the slot's.  A clamp
	 * compiles to a select that leaves the register it passes
	 * unbounded, so a test, in the register that is passed; never
	 * true (the _Static_asserts below).
	 */
	barrier_var(size);
	if (size > sizeof(s->rec)) {
		count_lost(smp, 1);
		goto out;
	}
	rb = ring(smp);
	if (rb && bpf_ringbuf_output(rb, s->rec, size, wake_flags(rb, now)))
		count_lost(smp, 1);
	else
		ok = rb != NULL;
out:
	/*
	 * The copy is done: a nested program may take the slot now.  A
	 * plain store (clang has no BPF atomic store), after the helper
	 * call that reads the slot, which the compiler keeps before it.
	 */
	*(volatile __u64 *)&s->busy = 0;
	return ok;
}

/*
 * A record of @size bytes or more: in a scratch slot (*@slot) when it may
 * carry @stacks, in the ring otherwise.  NULL if there is no room (the
 * drop is counted).  end_now() writes it.
 */
static __always_inline void *begin(__u32 size, bool stacks,
				   struct scratch **slot)
{
	*slot = NULL;
	if (!stacks)
		return reserve(size);
	*slot = claim(false);
	return *slot ? (void *)(*slot)->rec : NULL;
}

static __always_inline void end_now(void *rec, struct scratch *slot, bool now)
{
	if (slot)
		output_now(slot, now, false);
	else
		submit_now(rec, now);
}

static __always_inline void fill_hdr(struct gtb_hdr *h, __u16 type,
				     __u16 size, __u64 key, __u8 match)
{
	h->ts = bpf_ktime_get_ns();
	h->key = key;
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->match = match;
	h->nr_frames = 0;
}

static __always_inline bool comm_equal(const char *a)
{
	for (int i = 0; i < 16; i++) {
		if (a[i] != cfg.comm[i])
			return false;
		if (!a[i])
			break;
	}
	return true;
}

/* Deepest cgroup level the filter looks at (the root is level 0). */
#define CGROUP_LEVELS	32

/*
 * Is @t in cfg.cgroup_id's cgroup v2, or below it?  The cgroup's
 * ancestors, itself included, are in cgroup->ancestors[] by level.
 */
static __always_inline bool in_cgroup(struct task_struct *t)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	struct cgroup *anc;
	int level;

	if (!cg)
		return false;
	level = BPF_CORE_READ(cg, level);
	for (int i = 0; i < CGROUP_LEVELS; i++) {
		if (i > level)
			break;
		anc = BPF_CORE_READ(cg, ancestors[i]);
		if (anc && BPF_CORE_READ(anc, kn, id) == cfg.cgroup_id)
			return true;
	}
	return false;
}

/* The filters of struct gotrace_options; idle tasks never match. */
static __always_inline bool filters_match(struct task_struct *t)
{
	char comm[16];

	if (!t->pid)
		return false;
	if (cfg.nr_pids) {
		__s32 id = (cfg.flags & OPT_TGID) ? t->tgid : t->pid;
		bool found = false;

		for (int i = 0; i < 64; i++) {
			if (i >= cfg.nr_pids)
				break;
			if (cfg.pids[i] == id) {
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	if (cfg.comm[0]) {
		bpf_probe_read_kernel(comm, sizeof(comm), t->comm);
		if (!comm_equal(comm))
			return false;
	}
	if (cfg.cgroup_id && !in_cgroup(t))
		return false;
	return true;
}

/*
 * Write @t's task record; its comm goes to @comm too (the name the
 * reader now knows it by).  False when the ring had no room (the drop is
 * counted).
 */
static __always_inline bool announce(struct task_struct *t, __u64 *comm)
{
	struct gtb_task *r = reserve(sizeof(*r));

	if (!r)
		return false;
	fill_hdr(&r->hdr, GTB_TASK, sizeof(*r), (__u64)t, GTB_MATCH_KEY);
	r->start_time = t->start_time;
	r->tid = t->pid;
	r->tgid = t->tgid;
	r->flags = t->flags;
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
	__builtin_memcpy(comm, r->comm, 16);
	r->state = 0;
	submit(r);
	return true;
}

/* task_seen.match */
#define SEEN_NO		0
#define SEEN_YES	1
#define SEEN_UNSAID	2	/* recorded, its task record not written yet */

/*
 * Whether @t is recorded, decided the first time the session sees it
 * (its GTB_TASK record is written then, if @say).  @inherit: a child whose parent
 * is recorded, with OPT_CHILDREN.  A task the table has no room for is
 * decided again, and announced again, each time.  A recorded task whose
 * announcement found the ring full keeps its decision (an inherited one
 * too) and is announced again at its next record: nothing is recorded
 * of it until then, so the reader never sees a record of a task it does
 * not know.  (The snapshot, !@say, writes the task record itself.)
 */
static __always_inline bool decide(struct task_struct *t, bool inherit,
				   bool say)
{
	__u64 key = (__u64)t;
	struct task_seen *s = bpf_map_lookup_elem(&seen, &key);
	struct task_seen v = {};

	if (s && s->start_time == t->start_time) {
		if (s->match != SEEN_UNSAID)
			return s->match == SEEN_YES;
		if (say && !announce(t, s->comm))
			return false;
		s->match = SEEN_YES;
		return true;
	}
	if (!t->pid)
		return false;
	v.start_time = t->start_time;
	bpf_probe_read_kernel(v.comm, sizeof(v.comm), t->comm);
	v.match = inherit || filters_match(t) ? SEEN_YES : SEEN_NO;
	if (v.match == SEEN_YES && say && !announce(t, v.comm))
		v.match = SEEN_UNSAID;
	bpf_map_update_elem(&seen, &key, &v, BPF_ANY);
	return v.match == SEEN_YES;
}

static __always_inline bool task_match(struct task_struct *t, bool inherit)
{
	return decide(t, inherit, true);
}

/*
 * Decide again (a new comm from exec or prctl may match the filter): the
 * hdr.match of @t's record, 0 if it is not recorded.  A task recorded
 * from now on is current, and was switched in unrecorded, so maybe with
 * no switch record: GTB_MATCH_NEW tells the reader.
 */
static __always_inline __u8 task_rematch(struct task_struct *t)
{
	__u64 key = (__u64)t;
	struct task_seen *s = bpf_map_lookup_elem(&seen, &key);

	if (!cfg.comm[0] || !s || s->match != SEEN_NO ||
	    s->start_time != t->start_time)
		return task_match(t, false) ? GTB_MATCH_KEY : 0;
	if (!filters_match(t))
		return 0;
	s->match = announce(t, s->comm) ? SEEN_YES : SEEN_UNSAID;
	return s->match == SEEN_YES ? GTB_MATCH_KEY | GTB_MATCH_NEW : 0;
}

/*
 * @t, recorded, may have renamed itself since its last task record
 * (prctl(PR_SET_NAME), a write to /proc/<pid>/comm): the model names a
 * goroutine after its task's comm and looks for a new one where the
 * module does, at a syscall exit and at a switch-out that is not a
 * preemption (a preempted task may be half-way through writing it).  A
 * new comm is told by a new task record, before the record of that
 * event; if it finds the ring full, the next such event tries again.
 */
static __always_inline void comm_check(struct task_struct *t)
{
	__u64 key = (__u64)t;
	struct task_seen *s = bpf_map_lookup_elem(&seen, &key);
	__u64 comm[2];

	if (!s || s->match != SEEN_YES || s->start_time != t->start_time)
		return;
	bpf_probe_read_kernel(comm, sizeof(comm), t->comm);
	if (comm[0] != s->comm[0] || comm[1] != s->comm[1])
		announce(t, s->comm);
}

/*
 * The kernel stack of current, innermost first, without the program's
 * own frame and bpf_trace_run*()'s (the reader drops the tracepoint's
 * iterator, __traceiter_*, when the call went through it), so that it
 * starts where the kernel was: __schedule, try_to_wake_up...
 */
#define STACK_SKIP	2

static __always_inline __u8 get_stack(void *ctx, __u64 *buf)
{
	long n;

	if (cfg.flags & OPT_NO_KSTACKS)
		return 0;
	n = bpf_get_stack(ctx, buf, GTB_MAX_FRAMES * sizeof(__u64),
			  STACK_SKIP & BPF_F_SKIP_FIELD_MASK);
	return n > 0 ? n / sizeof(__u64) : 0;
}

/* ---- User stacks (GOTRACE_OPT_USER_STACKS) ---------------------------- */

/* Room for a user stack: its header and every PC. */
#define USTACK_ROOM	(sizeof(struct gtb_ustack) + GTB_MAX_UFRAMES * 8)
/* A scratch slot holds any record with both stacks full. */
#define STACKS_ROOM	(GTB_MAX_FRAMES * 8 + USTACK_ROOM)
_Static_assert(sizeof(struct gtb_switch) + STACKS_ROOM <= GTB_MAX_RECORD,
	       "a switch record outgrows its scratch slot");
_Static_assert(sizeof(struct gtb_wake) + STACKS_ROOM <= GTB_MAX_RECORD,
	       "a wakeup record outgrows its scratch slot");
_Static_assert(sizeof(struct gtb_fork) + STACKS_ROOM <= GTB_MAX_RECORD,
	       "a fork record outgrows its scratch slot");
_Static_assert(sizeof(struct gtb_sys) + USTACK_ROOM <= GTB_MAX_RECORD,
	       "a syscall record outgrows its scratch slot");
_Static_assert(sizeof(struct gtb_sample) + STACKS_ROOM <= GTB_MAX_RECORD,
	       "a sample record outgrows its scratch slot");

/*
 * Address spaces whose user stacks the reader was woken for: the first
 * stack of each wakes it at once, so that it reads the process's maps
 * (umaps.c) while the process lives, however short its life.  An LRU
 * map, preallocated: an evicted space only wakes the reader once more.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, __u8);
} uspaces SEC(".maps");

/* Tasks whose saved user registers are not theirs: kmod/ustack.c's. */
#define PF_IO_WORKER_BIT	0x00000010
#define PF_USER_WORKER_BIT	0x00004000
#define PF_KTHREAD_BIT		0x00200000
#define NOT_USER_FLAGS		(PF_IO_WORKER_BIT | PF_USER_WORKER_BIT | \
				 PF_KTHREAD_BIT)
/* A frame record this far above the previous one is not on the stack. */
#define USTACK_SPAN		(8ULL << 20)
#define USPACE_MASK		((1ULL << 48) - 1)

/* Set by the loader: THREAD_SIZE, the size of a task's kernel stack. */
const volatile __u64 thread_size = 16384;

/*
 * What walks cost (the loader sets walk_cost_on for the benchmarks,
 * GOTRACE_BPF_WALK_COST=1): per CPU, the time spent walking user
 * stacks (WALK_NS), the walks (WALK_RUNS) and the frames they found
 * (WALK_FRAMES).  Off, the code is not even loaded: two clock reads a
 * walk are no cost to put on every session.
 */
const volatile bool walk_cost_on = false;
#define WALK_NS		0
#define WALK_RUNS	1
#define WALK_FRAMES	2

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} walk_cost SEC(".maps");

static __always_inline void walk_cost_add(__u32 what, __u64 v)
{
	__u64 *p = bpf_map_lookup_elem(&walk_cost, &what);

	if (p)
		*p += v;
}

/*
 * in_task(): an interrupt's wakeup is no work of the task it
 * interrupted, which must not be given its user stack (the module's
 * rule).  preempt_count() is a per-CPU variable, which a BPF program
 * reaches only where the kernel lists its data symbols
 * (CONFIG_KALLSYMS_ALL), so the stack tells instead: on x86-64, hard
 * interrupts, softirqs and NMIs run on stacks of their own, and task
 * context on @t's (task->stack, THREAD_SIZE bytes).  Which stack this
 * is, the context's address says: the arguments bpf_trace_run*() keeps
 * in its frame (a local's would not: a program's locals may be on a
 * per-CPU stack of BPF's own, Linux 6.13 on), read as a number with
 * bpf_probe_read_kernel() so that the verifier sees a number.  On
 * PREEMPT_RT a softirq run in a task's context counts as the task's.
 */
static __always_inline bool in_task_ctx(void *ctx, struct task_struct *t)
{
	__u64 base = (__u64)BPF_CORE_READ(t, stack), here = 0;
	void *p = ctx;

	if (bpf_probe_read_kernel(&here, sizeof(here), &p))
		return false;
	return here - base < thread_size;
}

/*
 * The identity of @t's address space: the module's (kmod/ustack.c), its
 * process, its leader's start time and its exec count, hashed to 48
 * bits (only compared: the reader keeps the mappings under it).
 */
static __always_inline __u64 uspace_hash(struct task_struct *t, __u64 exec_id)
{
	__u64 h = BPF_CORE_READ(t, group_leader, start_time);

	h = (h ^ (__u64)t->tgid) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ exec_id) * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ULL;
	h ^= h >> 32;
	return h & USPACE_MASK;
}

static __always_inline __u64 uspace_of(struct task_struct *t)
{
	return uspace_hash(t, BPF_CORE_READ(t, self_exec_id));
}

/* ---- Unwind tables (GOTRACE_OPT_UNWIND_TABLES) ------------------------ */

/*
 * The tables the reader loaded (user/unwind/, Documentation/unwind.rst):
 * every table's rows and index in one array, sized by the loader to the
 * session's memory limit; where each table's rows are; and, per address
 * space, its executable mappings and the table of each.  Written by the
 * reader only, read here only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the loader sets it */
	__type(key, __u32);
	__type(value, struct gotrace_unwind_row);
} unw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GTB_UNWIND_TABLES);
	__type(key, __u32);
	__type(value, struct gotrace_unwind_table);
} unw_tables SEC(".maps");

/* Allocated as the reader adds spaces: most sessions see a few hundred. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, GTB_UNWIND_SPACES);
	__type(key, __u64);
	__type(value, struct gtb_unwind_space);
} unw_spaces SEC(".maps");

/* Steps of the binary searches: 2^7 mappings, 2^27 rows at most. */
#define UNW_MAP_STEPS		7
#define UNW_ROW_STEPS		27

/*
 * The bytes of the user stack a walk copies at once from its stack
 * pointer: one read of user memory for the frames they hold (most of a
 * blocking thread's), rather than one or two a frame.
 */
#define UNW_COPY		1024
/* Pages of user memory are at least this large (arm64's may be more). */
#define UNW_PAGE		4096

/*
 * A walk by tables, in a per-CPU slot of its own, claimed as the
 * scratch slots are (claim()): the walk is global functions that take
 * the slot's number, which the verifier checks once each, on their
 * own, however many programs and places walk (inlined, the walk's
 * every branch in every caller's state was most of a million
 * instructions to verify a program).  @pc, @sp, @fp: the frame's
 * registers as far as they are known; @lr: arm64's link register, the
 * innermost frame's return address until that frame saves it; @map:
 * the mapping found last, where the next frame often is too.
 */
struct unw_state {
	__u64 busy;
	__u64 space;
	__u64 pc, sp, fp, lr;
	__u64 copy_at;			/* @copy holds the stack from here */
	__u32 n;			/* PCs in @pcs */
	__u32 stop;			/* GTB_USTOP_* */
	__u32 copied;			/* bytes of the stack in @copy */
	__u8 exact;			/* @pc is no return address */
	__u8 fp_lost;			/* @fp is not the frame's any more */
	__u8 untabled;			/* a frame stepped by fp, no table */
	__u8 pad;
	struct gotrace_unwind_map map;	/* @map.end 0: none yet */
	__u64 pcs[GTB_MAX_UFRAMES];
	/*
	 * UNW_COPY bytes used; twice the room, so that the verifier sees
	 * the second read (from @first, of UNW_COPY - @first bytes) in
	 * bounds without relating the two.
	 */
	__u8 copy[2 * UNW_COPY];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct unw_state);
} unw_states SEC(".maps");

/* A free walk slot of this CPU's, its number; -1 if none. */
static __always_inline int unw_claim(void)
{
	struct unw_state *w;
	__u32 k;

#pragma unroll
	for (int i = 0; i < SCRATCH_SLOTS; i++) {
		k = i;
		w = bpf_map_lookup_elem(&unw_states, &k);
		if (w && !__sync_lock_test_and_set(&w->busy, 1))
			return i;
	}
	return -1;
}

/*
 * The mapping of @pc in @sp, or NULL.  Without a branch in its steps,
 * so that the verifier follows one path through them: a step for each
 * halving of GOTRACE_UNWIND_MAPS_MAX (a step past the last is no
 * harm).  1 if x <= y, for values below 2^63: ((y - x) >> 63) ^ 1.
 */
static __always_inline struct gotrace_unwind_map *
unw_map_of(struct gtb_unwind_space *sp, __u64 pc)
{
	struct gotrace_unwind_map *m;
	__u32 lo = 0, n = sp->nr, half, i;
	__u64 start;

	if (!n || n > GOTRACE_UNWIND_MAPS_MAX || pc >> 63)
		return NULL;
	/* The last mapping that starts at or below @pc: lo. */
	for (i = 0; i < UNW_MAP_STEPS; i++) {
		half = n / 2;
		start = sp->maps[(lo + half) &
				 (GOTRACE_UNWIND_MAPS_MAX - 1)].start;
		lo += (((pc - start) >> 63) ^ 1) * half;
		n -= half;
	}
	m = &sp->maps[lo & (GOTRACE_UNWIND_MAPS_MAX - 1)];
	return pc >= m->start && pc < m->end ? m : NULL;
}

/* Entry @i of the index that starts at slot @index: -1 if none. */
static __always_inline long unw_index_at(__u32 index, __u32 i)
{
	__u32 k = index + i / 4;
	__u32 *e = bpf_map_lookup_elem(&unw_rows, &k);

	return e ? e[i & 3] : -1;
}

/*
 * The index in unw_rows of the row for table position @rel (a PC less
 * its mapping's bias) of a table (struct gotrace_unwind_table's
 * fields): the last row whose pc is not above @rel, found between the
 * index entries of its page and the next; -1 if none.
 */
__noinline int unw_row_index(__u32 first, __u32 nr, __u32 index,
			     __u32 nr_pages, __u64 rel)
{
	struct gotrace_unwind_row *r;
	__u32 page, lo, n, half, k;
	long a, b;

	if (!nr || !nr_pages || rel >> 32)
		return -1;
	page = rel >> GOTRACE_UNWIND_PAGE_SHIFT;
	if (page >= nr_pages)
		page = nr_pages - 1;
	a = unw_index_at(index, page);
	b = page + 1 < nr_pages ? unw_index_at(index, page + 1) : nr - 1;
	if (a < 0 || b < a || b >= nr)
		return -1;
	lo = a;
	n = b - a + 1;
	for (int i = 0; i < UNW_ROW_STEPS && n > 1; i++) {
		half = n / 2;
		k = first + lo + half;
		r = bpf_map_lookup_elem(&unw_rows, &k);
		if (!r)
			return -1;
		if (r->pc <= rel)
			lo += half;
		n -= half;
	}
	k = first + lo;
	r = bpf_map_lookup_elem(&unw_rows, &k);
	return r && r->pc <= rel ? (int)k : -1;
}

/*
 * The aligned user word at @addr into @v, from the walk's copy of the
 * stack when it holds it; false if it cannot be read.
 */
static __always_inline bool unw_read(struct unw_state *w, __u64 addr,
				     __u64 *v)
{
	__u64 off = addr - w->copy_at;

	if (addr & 7)
		return false;
	if (off + sizeof(*v) <= w->copied && off <= UNW_COPY - sizeof(*v)) {
		*v = *(__u64 *)&w->copy[off];
		return true;
	}
	return !bpf_probe_read_user(v, sizeof(*v), (void *)addr);
}

/*
 * One frame by its frame pointer, for PCs without a table: the record
 * {caller's fp, return address} at fp, above the stack pointer (less
 * arm64's Go slack, ustack_lo_slack).  The caller's sp is just above
 * the record.  False, with @stop set to @why or FAULT, where there is
 * none.
 */
static __always_inline bool unw_fp_step(struct unw_state *w, __u32 why)
{
	__u64 next, ret, lo = w->sp - ustack_lo_slack;

	if (w->fp_lost || !w->fp || w->fp & 7 || w->fp < lo ||
	    w->fp - lo > USTACK_SPAN) {
		w->stop = why;
		return false;
	}
	if (!unw_read(w, w->fp, &next) || !unw_read(w, w->fp + 8, &ret)) {
		w->stop = GTB_USTOP_FAULT;
		return false;
	}
	w->sp = w->fp + 16;
	w->pc = user_ret(ret);
	w->fp = next;
	return true;
}

/*
 * One frame by its table's row @r (gotrace_unwind.h: what the fields
 * say).  False, with @stop set (GTB_USTOP_NONE at the outermost frame),
 * where the walk ends.
 */
static __always_inline bool unw_row_step(struct unw_state *w,
					 const struct gotrace_unwind_row *r,
					 bool innermost)
{
	__u64 cfa, ra, fp = w->fp;

	switch (r->cfa_reg) {
	case GOTRACE_UNW_CFA_SP:
		cfa = w->sp + (__s64)r->cfa_off;
		break;
	case GOTRACE_UNW_CFA_FP:
		if (w->fp_lost) {
			w->stop = GTB_USTOP_NO_RULE;
			return false;
		}
		cfa = w->fp + (__s64)r->cfa_off;
		break;
	case GOTRACE_UNW_CFA_PLT:
		cfa = w->sp + (__s64)r->cfa_off +
		      ((w->pc & 15) >= r->plt_at ? 8 : 0);
		break;
	case GOTRACE_UNW_END:
		w->stop = GTB_USTOP_NONE;
		return false;
	case GOTRACE_UNW_SIGNAL:
		w->stop = GTB_USTOP_SIGNAL;
		return false;
	default:
		return unw_fp_step(w, GTB_USTOP_NO_RULE);
	}
	/*
	 * A frame's CFA is above its stack pointer, but for arm64's
	 * innermost frame that has not moved it yet (cfa == sp, the
	 * return address still in the link register): each step goes up
	 * the stack, so a walk ends.
	 */
	if (cfa < w->sp || cfa - w->sp > USTACK_SPAN ||
	    (cfa == w->sp && (r->ra_off || !innermost))) {
		w->stop = GTB_USTOP_BAD_CFA;
		return false;
	}
	if (!r->ra_off) {
		if (!innermost || !w->lr) {
			w->stop = GTB_USTOP_BAD_CFA;
			return false;
		}
		ra = w->lr;
	} else if (!unw_read(w, cfa + (__s64)r->ra_off, &ra)) {
		w->stop = GTB_USTOP_FAULT;
		return false;
	}
	if (r->fp_off && !unw_read(w, cfa + (__s64)r->fp_off, &fp)) {
		w->stop = GTB_USTOP_FAULT;
		return false;
	}
	w->fp_lost = r->flags & GOTRACE_UNW_FP_LOST;
	w->fp = fp;
	w->sp = cfa;
	w->pc = user_ret(ra);
	return true;
}

/*
 * The mapping of the walk's PC into @map: the one found last if it
 * holds it, else the space's; false if the reader has not loaded one
 * (a new process, a library mapped since).
 */
static __always_inline bool unw_map_find(struct unw_state *w)
{
	struct gtb_unwind_space *sp;
	struct gotrace_unwind_map *m;
	__u64 key = w->space;

	if (w->map.end && w->pc >= w->map.start && w->pc < w->map.end)
		return true;
	sp = bpf_map_lookup_elem(&unw_spaces, &key);
	m = sp ? unw_map_of(sp, w->pc) : NULL;
	if (!m)
		return false;
	w->map = *m;
	return true;
}

/*
 * The step of walk @slot from its frame to the caller, whose PC it
 * appends: 1 where the walk ends.  A PC whose mapping has a table is
 * stepped by its row; one whose mapping has none (a Go binary, a file
 * without .eh_frame) by its frame pointer; one the reader has not
 * loaded yet, or whose table was evicted, by its frame pointer too,
 * counted as NO_TABLE when that fails.  The row of a return address is
 * the call's: the byte before it.
 */
__noinline int unw_step(__u32 slot, __u32 innermost)
{
	struct unw_state *w = bpf_map_lookup_elem(&unw_states, &slot);
	struct gotrace_unwind_table *t;
	struct gotrace_unwind_row *r;
	__u32 n, id, gen;
	bool ok, tabled = false;
	int k;

	if (!w)
		return 1;
	if (!unw_map_find(w)) {
		ok = unw_fp_step(w, GTB_USTOP_NO_TABLE);
		w->untabled = 1;
	} else if (!w->map.table) {
		ok = unw_fp_step(w, GTB_USTOP_BAD_FP);
	} else {
		id = w->map.table - 1;
		gen = w->map.gen;
		t = bpf_map_lookup_elem(&unw_tables, &id);
		if (!t || t->gen != gen || gen & 1) {
			ok = unw_fp_step(w, GTB_USTOP_NO_TABLE);
			w->untabled = 1;
		} else {
			tabled = true;
			k = unw_row_index(t->first, t->nr, t->index,
					  t->nr_pages,
					  w->pc - w->map.bias - !w->exact);
			r = k < 0 ? NULL : bpf_map_lookup_elem(&unw_rows, &k);
			/*
			 * The reader rewrote the slot meanwhile: the row
			 * may be another table's.
			 */
			if (r && *(volatile __u32 *)&t->gen != gen)
				r = NULL;
			ok = r ? unw_row_step(w, r, innermost) :
				 unw_fp_step(w, GTB_USTOP_NO_RULE);
		}
	}
	w->exact = false;
	if (!ok)
		return 1;
	if (!w->pc) {
		w->stop = GTB_USTOP_NONE;
		return 1;
	}
	if (w->pc >= USER_ADDR_END) {
		w->stop = tabled ? GTB_USTOP_BAD_CFA : GTB_USTOP_BAD_FP;
		return 1;
	}
	n = w->n;
	if (n >= GTB_MAX_UFRAMES) {
		w->stop = GTB_USTOP_DEPTH;
		return 1;
	}
	w->pcs[n] = w->pc;
	w->n = n + 1;
	return 0;
}

/*
 * The walk of slot @slot, one step a frame.  The loop runs one step
 * more than the frames it may keep, so that a stack of exactly
 * GTB_MAX_UFRAMES frames ends whole.
 */
__noinline int unw_run(__u32 slot)
{
	for (int i = 0; i < GTB_MAX_UFRAMES; i++)
		if (unw_step(slot, i == 0))
			break;
	return 0;
}

/*
 * The walk by tables from the registers @regs saved at current's entry
 * to the kernel, into @us, whose pcs[0] is set: the frames it found in
 * all, and why it ended in @stop.  No free slot (every program that
 * may nest on this CPU walking at once): the innermost frame only,
 * counted as a stack cut short by its depth.
 */
static __always_inline __u32 unw_walk(struct gtb_ustack *us,
				      struct pt_regs *regs, __u64 space,
				      __u32 *stop)
{
	int slot = unw_claim();
	struct unw_state *w;
	__u32 k, n, first, rest;

	*stop = GTB_USTOP_DEPTH;
	if (slot < 0)
		return 1;
	k = slot;
	w = bpf_map_lookup_elem(&unw_states, &k);
	if (!w)
		return 1;
	w->space = space;
	w->pc = us->pcs[0];
	w->sp = regs_sp(regs);
	w->fp = regs_fp(regs);
	w->lr = user_ret(regs_lr(regs));
	w->n = 1;
	w->stop = GTB_USTOP_DEPTH;
	w->exact = !!(us->flags & GTB_USTACK_EXACT);
	w->fp_lost = 0;
	w->untabled = 0;
	w->map.end = 0;
	/*
	 * The stack above sp, in a read to the end of its page and one
	 * of the rest: the page above may not be mapped (the top of the
	 * main thread's stack), and a read that faults costs more than
	 * the walk.  Words beyond what was copied are read one by one.
	 */
	w->copy_at = w->sp;
	w->copied = 0;
	first = UNW_PAGE - (w->sp & (UNW_PAGE - 1));
	if (first > UNW_COPY)
		first = UNW_COPY;
	/*
	 * A clamp may compile to a select the verifier does not bound:
	 * a test in the register passed (as output_now()'s).
	 */
	barrier_var(first);
	if (first <= UNW_COPY &&
	    !bpf_probe_read_user(w->copy, first, (void *)w->sp)) {
		w->copied = first;
		rest = UNW_COPY - first;
		barrier_var(rest);
		if (rest && rest <= UNW_COPY && first < UNW_COPY &&
		    !bpf_probe_read_user(&w->copy[first & (UNW_COPY - 1)],
					 rest, (void *)(w->sp + first)))
			w->copied = UNW_COPY;
	}
	unw_run(k);
	n = w->n;
	if (n > GTB_MAX_UFRAMES)
		n = GTB_MAX_UFRAMES;
	if (n > 1)
		bpf_probe_read_kernel(&us->pcs[1], (n - 1) * sizeof(__u64),
				      &w->pcs[1]);
	else
		n = 1;
	/*
	 * Frame pointers that led to the end through code without its
	 * table may have skipped frames (arm64's C library keeps frame
	 * records, the program's functions between them do not): not
	 * whole, as far as the walker knows.
	 */
	*stop = w->stop == GTB_USTOP_NONE && w->untabled ?
		GTB_USTOP_NO_TABLE : w->stop;
	*(volatile __u64 *)&w->busy = 0;
	return n;
}

/*
 * A new process (not a thread) has its parent's mappings, until it
 * executes another program: the parent's unwind space, copied under
 * the child's, walks the child's first stacks by tables before the
 * reader has read its maps (most children of a server, a shell's
 * until their exec).
 */
static __always_inline void unw_fork(struct task_struct *parent,
				     struct task_struct *child)
{
	struct gtb_unwind_space *sp;
	__u64 key;

	if (!(cfg.flags & OPT_UNWIND_TABLES) || child->tgid == parent->tgid ||
	    !child->mm || child->flags & NOT_USER_FLAGS)
		return;
	key = uspace_of(parent);
	sp = bpf_map_lookup_elem(&unw_spaces, &key);
	if (!sp)
		return;
	key = uspace_of(child);
	bpf_map_update_elem(&unw_spaces, &key, sp, BPF_NOEXIST);
}

/*
 * The space a process leaves, executing another program (@exec_id: its
 * exec count before) or ending (the last of its threads): its unwind
 * space goes, so that the map holds the spaces of live programs only
 * (the reader's sweep is the backstop: unwind.c).
 */
static __always_inline void unw_forget(struct task_struct *p, __u64 exec_id)
{
	__u64 key;

	if (!(cfg.flags & OPT_UNWIND_TABLES))
		return;
	key = uspace_hash(p, exec_id);
	bpf_map_delete_elem(&unw_spaces, &key);
}

/*
 * The user stack of current, by its frame pointers, into @us: the walk
 * of the module's gt_ustack_walk(), with its checks and its reasons to
 * stop (record.h), rather than bpf_get_stack(BPF_F_USER_STACK): the
 * kernel's walk says neither why it stopped nor checks that each frame
 * record is above the last, and differs from kernel to kernel.  One
 * bpf_probe_read_user() per frame: copy_from_user_nofault(), which
 * neither faults nor sleeps.  At most GTB_MAX_UFRAMES records read.
 * Returns the bytes written at @us, 0 for none (a kernel thread or a
 * user worker, a 32-bit task, an interrupt, user stacks off); @fresh
 * set if the space is new to the reader (uspaces).
 *
 * @sample: a CPU sample's interrupt, whose user stack is the interrupted
 * task's (the module's rule): its registers saved at its last entry to
 * the kernel, the interrupt's own if it came from user mode.  The mm is
 * current's there too: the scheduler switches both with interrupts off.
 */
static __always_inline __u32 ustack_walk(void *ctx, struct gtb_ustack *us,
					 bool *fresh, bool sample)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct {
		__u64 next;
		__u64 ret;
	} fr;
	struct pt_regs *regs;
	__u64 fp, lo, space, t0 = 0;
	__u32 n = 1, stop = GTB_USTOP_NONE;

	if (!(cfg.flags & OPT_USER_STACKS) || !t->mm ||
	    t->flags & NOT_USER_FLAGS || (!sample && !in_task_ctx(ctx, t)))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs || !regs_user64(regs))
		return 0;
	/*
	 * Inside execve(), between the switch to the new address space
	 * and the loading of the new program (which sets end_code), the
	 * registers are still the old program's: no stack of either.
	 * Not announcing the space then also keeps the reader from
	 * reading its maps before the program is in them.
	 */
	if (!BPF_CORE_READ(t, mm, end_code))
		return 0;
	/*
	 * The key is copied to the stack: before Linux 6.3 or so the
	 * verifier takes no ring buffer memory as a map key.
	 */
	space = uspace_of(t);
	us->space = space;
	if (!bpf_map_lookup_elem(&uspaces, &space)) {
		__u8 one = 1;

		bpf_map_update_elem(&uspaces, &space, &one, BPF_ANY);
		*fresh = true;
	}
	us->tid = t->pid;
	us->tgid = t->tgid;
	us->exe_ino = BPF_CORE_READ(t, mm, exe_file, f_inode, i_ino);
	/* A syscall's number is in the registers, -1 after an interrupt. */
	us->flags = (long)regs_sysnr(regs) < 0 ? GTB_USTACK_EXACT : 0;
	us->pcs[0] = regs_pc(regs);
	if (walk_cost_on)
		t0 = bpf_ktime_get_ns();
	if (cfg.flags & OPT_UNWIND_TABLES) {
		n = unw_walk(us, regs, space, &stop);
		goto out;
	}
	fp = regs_fp(regs);
	lo = regs_sp(regs) - ustack_lo_slack;
	for (int i = 0; i < GTB_MAX_UFRAMES; i++) {
		if (!fp)
			break;
		if (fp & 7 || fp < lo || fp - lo > USTACK_SPAN) {
			stop = GTB_USTOP_BAD_FP;
			break;
		}
		if (bpf_probe_read_user(&fr, sizeof(fr), (void *)fp)) {
			stop = GTB_USTOP_FAULT;
			break;
		}
		fr.ret = user_ret(fr.ret);
		if (!fr.ret)
			break;
		if (fr.ret >= USER_ADDR_END) {
			stop = GTB_USTOP_BAD_FP;
			break;
		}
		if (n >= GTB_MAX_UFRAMES) {
			stop = GTB_USTOP_DEPTH;
			break;
		}
		us->pcs[n++] = fr.ret;
		lo = fp + sizeof(fr);
		fp = fr.next;
	}
out:
	if (walk_cost_on) {
		walk_cost_add(WALK_NS, bpf_ktime_get_ns() - t0);
		walk_cost_add(WALK_RUNS, 1);
		walk_cost_add(WALK_FRAMES, n);
	}
	us->nr = n;
	us->stop = stop;
	return sizeof(*us) + n * 8;
}

/*
 * Current's user stack after the @nk kernel frames at @stack (the
 * record's hdr.nr_frames, passed so that the verifier knows its bound),
 * in a record built in a scratch slot (begin()); hdr.size grows by it.
 * True if the reader should be woken for it now (submit_now()).
 * @sample: see ustack_walk().
 */
static __always_inline bool put_ustack(void *ctx, struct gtb_hdr *h,
				       __u64 *stack, __u32 nk, bool sample)
{
	bool fresh = false;

	if (!(cfg.flags & OPT_USER_STACKS))
		return false;
	if (nk > GTB_MAX_FRAMES)
		nk = GTB_MAX_FRAMES;
	h->size += ustack_walk(ctx, (struct gtb_ustack *)&stack[nk], &fresh,
			       sample);
	return fresh;
}

/*
 * The stacks of a record about current: its kernel frames at @stack,
 * then, when @user (current is a recorded task), its user frames after
 * them (put_ustack()).  Whether the reader must wake at once, as
 * put_ustack() says.
 */
static __always_inline bool put_stacks(void *ctx, struct gtb_hdr *h,
				       __u64 *stack, bool user)
{
	__u32 nk = get_stack(ctx, stack);

	h->nr_frames = nk;
	h->size += nk * 8;
	return user && put_ustack(ctx, h, stack, nk, false);
}

/* What fd @fd of @t is: the check of the module's classify.c. */
static __always_inline __u8 fd_kind(struct task_struct *t, __u64 fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **fds;
	struct file *f = NULL;
	__u32 mode;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return GTB_FD_OTHER;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_core_read(&f, sizeof(f), &fds[fd]) || !f)
		return GTB_FD_OTHER;
	mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT_BITS;
	if (mode == S_IFIFO_BITS)
		return GTB_FD_PIPE;
	if (mode == S_IFSOCK_BITS)
		return GTB_FD_SOCKET;
	return GTB_FD_OTHER;
}

static __always_inline bool is_rw(long nr)
{
	switch (nr) {
	case NR_READ: case NR_WRITE: case NR_PREAD64: case NR_PWRITE64:
	case NR_READV: case NR_WRITEV: case NR_PREADV: case NR_PWRITEV:
	case NR_PREADV2: case NR_PWRITEV2:
		return true;
	}
	return false;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(gt_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	bool pm = task_match(prev, false);
	bool nm = task_match(next, false);
	struct scratch *slot;
	struct gtb_switch *r;
	struct pt_regs *regs;
	__u64 key = (__u64)prev;
	bool fresh = false;

	if (pm && !preempt && prev_state)
		comm_check(prev);
	if (pm || nm) {
		r = begin(sizeof(*r), true, &slot);
		if (!r)
			goto out;
		fill_hdr(&r->hdr, GTB_SWITCH, sizeof(*r), key,
			 (pm ? GTB_MATCH_KEY : 0) | (nm ? GTB_MATCH_OTHER : 0));
		r->next = (__u64)next;
		r->prev_state = prev_state;
		r->preempt = preempt;
		r->sys_nr = -1;
		r->fd_kind = GTB_FD_NONE;
		__builtin_memset(r->pad, 0, sizeof(r->pad));
		r->drops = drops_now();
		/* Its systemd unit, which the reader finds by this id. */
		r->next_cgroup = 0;
		if (nm && !(cfg.flags & OPT_NO_UNITS))
			r->next_cgroup = BPF_CORE_READ(next, cgroups, dfl_cgrp,
						       kn, id);
		if (pm && !(prev->flags & 0x00200000 /* PF_KTHREAD */)) {
			regs = (struct pt_regs *)bpf_task_pt_regs(prev);
			r->sys_nr = regs_sysnr(regs);
			if (prev_state && is_rw(r->sys_nr))
				r->fd_kind = fd_kind(prev, regs_arg0(regs));
		}
		/* prev is current: its own stacks. */
		if (pm)
			fresh = put_stacks(ctx, &r->hdr, r->stack, true);
		end_now(r, slot, fresh);
	}
out:
	/* The last switch of an exited task: forget it. */
	if (prev_state & TASK_DEAD_STATE)
		bpf_map_delete_elem(&seen, &key);
	return 0;
}

static __always_inline int wake(void *ctx, struct task_struct *p, __u16 type,
				bool stack)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct scratch *slot;
	struct gtb_wake *r;
	bool wm, fresh = false;

	if (!task_match(p, false))
		return 0;
	wm = task_match(cur, false);
	/* A wakeup without a stack is written in place, at its size. */
	r = begin(sizeof(*r), stack, &slot);
	if (!r)
		return 0;
	fill_hdr(&r->hdr, type, sizeof(*r), (__u64)p,
		 GTB_MATCH_KEY | (wm ? GTB_MATCH_OTHER : 0));
	r->waker = (__u64)cur;
	r->target_cpu = BPF_CORE_READ(p, wake_cpu);
	r->pad = 0;
	/* The waker's user stack, when it is recorded (the model asks). */
	if (stack)
		fresh = put_stacks(ctx, &r->hdr, r->stack, wm);
	end_now(r, slot, fresh);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(gt_waking, struct task_struct *p)
{
	return wake(ctx, p, GTB_WAKING, true);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(gt_wakeup, struct task_struct *p)
{
	return wake(ctx, p, GTB_WAKEUP, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(gt_wakeup_new, struct task_struct *p)
{
	return wake(ctx, p, GTB_WAKEUP_NEW, true);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(gt_fork, struct task_struct *parent, struct task_struct *child)
{
	bool pm = task_match(parent, false);
	bool cm = task_match(child, pm && (cfg.flags & OPT_CHILDREN));
	struct scratch *slot;
	struct gtb_fork *r;
	bool fresh = false;

	if (!pm && !cm)
		return 0;
	r = begin(sizeof(*r), true, &slot);
	if (!r)
		return 0;
	fill_hdr(&r->hdr, GTB_FORK, sizeof(*r), (__u64)parent,
		 (pm ? GTB_MATCH_KEY : 0) | (cm ? GTB_MATCH_OTHER : 0));
	r->child = (__u64)child;
	/* The parent is current: its user stack, when it is recorded. */
	fresh = put_stacks(ctx, &r->hdr, r->stack, pm);
	end_now(r, slot, fresh);
	if (cm)
		unw_fork(parent, child);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gt_exec, struct task_struct *p, pid_t old_pid)
{
	struct task_seen *s;
	struct gtb_exec *r;
	__u64 key = (__u64)p;
	__u8 match = task_rematch(p);

	/* The exec count was bumped already: the old program's is one less. */
	unw_forget(p, BPF_CORE_READ(p, self_exec_id) - 1);
	if (!match)
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	fill_hdr(&r->hdr, GTB_EXEC, sizeof(*r), (__u64)p, match);
	r->old_tid = old_pid;
	r->tid = p->pid;
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), p->comm);
	/* The reader takes the new comm from this record. */
	s = bpf_map_lookup_elem(&seen, &key);
	if (s)
		__builtin_memcpy(s->comm, r->comm, sizeof(s->comm));
	submit(r);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(gt_exit, struct task_struct *p)
{
	struct gtb_hdr *r;

	/* The last thread of its process: signal->live counts them. */
	if (!BPF_CORE_READ(p, signal, live.counter))
		unw_forget(p, BPF_CORE_READ(p, self_exec_id));
	if (!task_match(p, false))
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	fill_hdr(r, GTB_EXIT, sizeof(*r), (__u64)p, GTB_MATCH_KEY);
	submit(r);
	return 0;
}

/*
 * Does the model write the stack of this syscall's entry?  Only the
 * GoSysCall of an entry has one: with --syscalls all, for a syscall the
 * set selects (model/syscalls.c, gt_syscall_selected()).  A compat
 * syscall's number is mapped to the native one there: taken as selected
 * here, its user frames are walked, as before.
 */
static __always_inline bool entry_stack_written(long nr, bool compat)
{
	bool in;

	if (cfg.syscalls != SYSCALLS_ALL)
		return false;
	if (cfg.syscall_set_mode == SET_OFF || compat)
		return true;
	in = nr >= 0 && nr < SYSCALL_MAX &&
	     (cfg.syscall_set[(nr / 64) & 15] >> (nr % 64) & 1);
	return cfg.syscall_set_mode == SET_INCLUDE ? in : !in;
}

/*
 * Every syscall of a recorded task, whatever --syscalls selects: the
 * model keeps the number of the one a task is in, which classifies its
 * sleeps (futex: sync, nanosleep: sleep, read of a pipe: chan receive),
 * and applies the selection to the events it writes, as in the module.
 * The user frames of an entry are walked only where the model writes
 * them: a walk is the costliest part of a record.
 */
static __always_inline int sys(void *ctx, __u16 type, long nr, long val,
			       bool rematch)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct scratch *slot;
	bool fresh = false, compat, ustack;
	struct gtb_sys *r;
	__u8 m = rematch ? task_rematch(cur) :
		 task_match(cur, false) ? GTB_MATCH_KEY : 0;

	if (!m)
		return 0;
	compat = !!task_compat(cur);
	ustack = type == GTB_SYS_ENTER && (cfg.flags & OPT_USER_STACKS) &&
		 entry_stack_written(nr, compat);
	if (type == GTB_SYS_EXIT)
		comm_check(cur);
	r = begin(sizeof(*r), ustack, &slot);
	if (!r)
		return 0;
	fill_hdr(&r->hdr, type, sizeof(*r), (__u64)cur, m);
	r->val = val;
	r->nr = nr;
	r->compat = compat;
	/* The stack of a syscall's entry is its user frames. */
	if (ustack)
		fresh = put_ustack(ctx, &r->hdr, r->stack, 0, false);
	end_now(r, slot, fresh);
	return 0;
}

/*
 * Twins.  Where tracepoints call their programs preemptibly (Linux 7.x),
 * a task preempted inside a program keeps that program busy on its CPU,
 * and the kernel skips it for every other task's hit there until that
 * task runs again (counted in its recursion_misses only): a whole time
 * slice of syscalls, thousands with two tasks sharing a CPU.  So each
 * syscall tracepoint has two programs, attached in this order (the
 * loader attaches the twins last, once the first programs were seen
 * skipped, see twins_on, and a tracepoint calls its probes in the order
 * they came): the first records the hit and marks the task;
 * the twin, run right after it for the same hit, finds the mark and
 * clears it, or, not finding it, records the hit the first one skipped.
 * A hit is lost only when both are busy: the first one's skip is then
 * counted and no twin run takes it back.  Only the task itself touches
 * its mark, one hit after the other.
 */
#define TWIN_ENTER	1
#define TWIN_EXIT	2

/*
 * Set by the loader just before it attaches the twins, which it does
 * once a first program is seen skipped: where the kernel runs them with
 * preemption off, never, and the marks cost nothing.
 */
volatile bool twins_on;

static __always_inline void twin_mark(__u8 bit)
{
	__u64 key = (__u64)bpf_get_current_task_btf();
	struct task_seen *s;

	if (!twins_on)
		return;
	s = bpf_map_lookup_elem(&seen, &key);
	if (s)
		s->twin |= bit;
}

/*
 * Did the first program run for this hit?  Without a table entry (the
 * first program makes it, unless the table is full) the twin cannot
 * tell, and leaves the hit to it: a loss there is its counted skip.
 */
static __always_inline bool twin_first_ran(__u8 bit)
{
	__u64 key = (__u64)bpf_get_current_task_btf();
	struct task_seen *s = bpf_map_lookup_elem(&seen, &key);
	__u32 zero = 0;
	__u64 *n;

	if (!s)
		return true;
	if (s->twin & bit) {
		s->twin &= ~bit;
		return true;
	}
	n = bpf_map_lookup_elem(&twin_runs, &zero);
	/* Atomic: the other twin may run on this CPU while this one waits preempted. */
	if (n)
		__sync_fetch_and_add(n, 1);
	return false;
}

static __always_inline int sys_enter(void *ctx, struct pt_regs *regs, long id)
{
	return sys(ctx, GTB_SYS_ENTER, id, regs_arg0(regs), false);
}

static __always_inline int sys_exit(void *ctx, struct pt_regs *regs, long ret)
{
	long nr = regs_sysnr(regs);

	/* prctl(PR_SET_NAME) may have given the task the filter's comm. */
	return sys(ctx, GTB_SYS_EXIT, nr, ret, nr == NR_PRCTL);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(gt_sys_enter, struct pt_regs *regs, long id)
{
	sys_enter(ctx, regs, id);
	twin_mark(TWIN_ENTER);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gt_sys_exit, struct pt_regs *regs, long ret)
{
	sys_exit(ctx, regs, ret);
	twin_mark(TWIN_EXIT);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(gt_sys_enter_twin, struct pt_regs *regs, long id)
{
	return twin_first_ran(TWIN_ENTER) ? 0 : sys_enter(ctx, regs, id);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gt_sys_exit_twin, struct pt_regs *regs, long ret)
{
	return twin_first_ran(TWIN_EXIT) ? 0 : sys_exit(ctx, regs, ret);
}

/* ---- CPU samples (--cpu-hz) ------------------------------------------ */

/*
 * The time of each CPU's last sample.  The perf event's timer keeps its
 * phase (hrtimer_forward_now()), so a gap of more than a period means
 * samples not taken: the timer ran late behind a long interrupts-off
 * section, as the module's counts its overruns, or the kernel did not
 * run the program (it skips a perf event's program while a kprobe's or
 * a classic tracepoint's runs on that CPU, and counts that nowhere).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sample_last SEC(".maps");

/*
 * Samples this CPU did not take before this one, at @ts.  The program
 * never nests in itself on a CPU: a plain update.
 */
static __always_inline __u32 samples_missed(__u64 ts)
{
	__u64 period = cfg.sample_ns, *last, gap = 0;
	__u32 zero = 0;

	last = bpf_map_lookup_elem(&sample_last, &zero);
	if (!last || !period)
		return 0;
	if (*last && ts > *last)
		gap = (ts - *last + period / 2) / period;
	*last = ts;
	if (gap <= 1)
		return 0;
	return gap - 1 > 0xffffffffULL ? 0xffffffffU : (__u32)(gap - 1);
}

/*
 * Did the sample interrupt user mode?  The privilege level in the saved
 * cs (x86-64), the exception level in the saved pstate (arm64: EL0 for
 * aarch64 and aarch32 tasks alike).  An 8-byte load: the context allows
 * no narrower one of its registers, and newer x86-64 kernels make cs a
 * 16-bit member of a union.
 */
static __always_inline bool sample_user(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 cs = *(volatile __u64 *)((char *)&ctx->regs +
				       __builtin_offsetof(struct pt_regs, cs));

	return cs & 3;
#else
	__u64 pstate = *(volatile __u64 *)((char *)&ctx->regs +
					   __builtin_offsetof(struct pt_regs,
							      pstate));

	return !(pstate & 0xf);
#endif
}

/*
 * The kernel stack of the code the sample interrupted: on a perf event's
 * context bpf_get_stack() unwinds from the interrupt's saved registers,
 * so it starts at the instruction interrupted, without the interrupt's
 * own frames.  None if that was user code (@user), whose kernel stack
 * the trace must not show.
 */
static __always_inline __u8 sample_kstack(void *ctx, __u64 *buf, bool user)
{
	long n;

	if (user || cfg.flags & OPT_NO_KSTACKS)
		return 0;
	n = bpf_get_stack(ctx, buf, GTB_MAX_FRAMES * sizeof(__u64), 0);
	return n > 0 ? n / sizeof(__u64) : 0;
}

/*
 * Fill a recorded task's sample in its scratch slot @s: its kernel
 * stack, then its user stack, and copy it into the ring.  False if it
 * was dropped (counted).
 */
static __always_inline bool sample_stacks(void *ctx, struct scratch *s,
					  struct gtb_sample *r)
{
	/* A __u8, as get_stack()'s: the verifier sees the bound put_ustack() needs. */
	__u32 nk = sample_kstack(ctx, r->stack, r->user);
	bool fresh;

	r->hdr.nr_frames = nk;
	r->hdr.size += nk * sizeof(__u64);
	fresh = put_ustack(ctx, &r->hdr, r->stack, nk, true);
	return output_now(s, fresh, true);
}

/*
 * A CPU sample: the perf event the loader opened on each CPU (software
 * cpu-clock, every cfg.sample_ns) interrupts it, in a hard interrupt,
 * and this writes the task it caught.  A recorded task's record carries
 * its stacks, built in a scratch slot; the idle task's and those of the
 * tasks the filters leave out carry none, and are written only for the
 * model to count them, as the module's does.  A record lost counts as
 * lost samples (sample_drops), itself and those it said were missed.
 * Returns 0: perf writes no sample of its own.
 */
SEC("perf_event")
int gt_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	bool idle = !cur->pid;
	bool rec = !idle && task_match(cur, false);
	struct scratch *slot = NULL;
	struct gtb_sample *r;
	__u32 missed;

	if (rec) {
		slot = claim(true);
		r = slot ? (struct gtb_sample *)slot->rec : NULL;
	} else {
		r = reserve_as(sizeof(*r), true);
	}
	if (!r) {
		count_lost(true, samples_missed(bpf_ktime_get_ns()));
		return 0;
	}
	fill_hdr(&r->hdr, GTB_SAMPLE, sizeof(*r), (__u64)cur,
		 rec ? GTB_MATCH_KEY : 0);
	missed = samples_missed(r->hdr.ts);
	r->missed = missed;
	r->idle = idle;
	r->user = sample_user(ctx);
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	if (!rec)
		submit(r);
	else if (!sample_stacks(ctx, slot, r))
		count_lost(true, missed);
	return 0;
}

/* ---- Interrupts and work items (Documentation/bpf-backend.rst) ----- */

/*
 * GOTRACE_OPT_HARDIRQS: irq_handler_entry/exit and the architecture's
 * vectors (x86's irq_vectors, arm64's ipi_entry/exit);
 * GOTRACE_OPT_SOFTIRQS: softirq_entry/exit; GOTRACE_OPT_WORKQUEUE:
 * workqueue_execute_start/end.  The loader loads the programs of the
 * kinds the session asks for only, and only those whose tracepoint the
 * kernel has: the options need no test here.
 *
 * They are the most frequent events on a busy CPU (a local timer every
 * tick, NET_RX per batch of packets), so they carry no stack and are
 * reserved in the ring at their size, never built in a scratch slot,
 * and the filters run before anything is reserved.  A program may run
 * inside another on one CPU (a hard IRQ's inside a softirq's, a CPU
 * sample's inside a local timer's): each record reads the clock once,
 * so the nested program's records are wholly before or after it, and
 * the merge, which sorts each CPU's records by time, puts them in the
 * order the interrupts nested, whatever their order in the ring.
 */

/*
 * hdr.match of a record about an interrupt of current @t, or -1 if it
 * is not written: it is when @t is recorded, and when the CPU was idle
 * (@t the idle task) if the session has no task filter.  A task the
 * filters leave out counts as idle: with a filter, its interrupts are
 * not written either.
 */
static __always_inline int irq_match(struct task_struct *t)
{
	if (!t->pid)
		return cfg.nr_pids || cfg.comm[0] || cfg.cgroup_id ? -1 : 0;
	return task_match(t, false) ? GTB_MATCH_KEY : -1;
}

/*
 * An interrupt's record never wakes the reader, however full its ring:
 * the wakeup is an IRQ work, a self-IPI whose own record would wake it
 * again, and so on while the ring stays half full: a storm of IPIs that
 * slowed a getppid() loop fivefold and filled the rings (bench/
 * host-bench.sh).  The other records and the reader's timer wake it.
 */
static __always_inline void submit_quiet(void *rec)
{
	bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
}

/* A record of an interrupt of @kind, @id begun or ended (@type). */
static __always_inline int irq_record(__u16 type, __u8 kind, __u32 id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	int match = irq_match(t);
	struct gtb_irq *r;

	if (match < 0)
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	fill_hdr(&r->hdr, type, sizeof(*r), (__u64)t, match);
	r->id = id;
	r->kind = kind;
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	submit_quiet(r);
	return 0;
}

/*
 * A hard IRQ's entry, with its action's name (struct gtb_irq_named):
 * the reader names its goroutine after it.
 */
SEC("tp_btf/irq_handler_entry")
int BPF_PROG(gt_irq_entry, int irq, struct irqaction *action)
{
	struct task_struct *t = bpf_get_current_task_btf();
	int match = irq_match(t);
	struct gtb_irq_named *r;

	if (match < 0)
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	fill_hdr(&r->irq.hdr, GTB_IRQ_ENTRY, sizeof(*r), (__u64)t, match);
	r->irq.id = irq;
	r->irq.kind = GTB_IRQ_HARD;
	__builtin_memset(r->irq.pad, 0, sizeof(r->irq.pad));
	if (bpf_probe_read_kernel_str(r->name, sizeof(r->name),
				      BPF_CORE_READ(action, name)) < 0)
		r->name[0] = '\0';
	submit_quiet(r);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(gt_irq_exit, int irq, struct irqaction *action, int ret)
{
	return irq_record(GTB_IRQ_EXIT, GTB_IRQ_HARD, irq);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(gt_softirq_entry, unsigned int vec_nr)
{
	return irq_record(GTB_IRQ_ENTRY, GTB_IRQ_SOFT, vec_nr);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(gt_softirq_exit, unsigned int vec_nr)
{
	return irq_record(GTB_IRQ_EXIT, GTB_IRQ_SOFT, vec_nr);
}

/*
 * x86's system vectors, a pair of tracepoints each (irq_vectors:
 * NAME_entry, NAME_exit, their argument the vector's number, which the
 * program knows).  The vector of each program is GTB_VEC_*: the
 * platform IPI and the APIC's own interrupts (thermal, threshold,
 * deferred error, error, spurious) are GTB_VEC_PLATFORM.  Compiled for
 * every architecture, loaded where the tracepoints are.
 */
#define VECTOR_PROGS(tp, vec)						\
SEC("tp_btf/" #tp "_entry")						\
int BPF_PROG(gt_##tp##_entry, int vector)				\
{									\
	return irq_record(GTB_IRQ_ENTRY, GTB_IRQ_VECTOR, vec);		\
}									\
SEC("tp_btf/" #tp "_exit")						\
int BPF_PROG(gt_##tp##_exit, int vector)				\
{									\
	return irq_record(GTB_IRQ_EXIT, GTB_IRQ_VECTOR, vec);		\
}

VECTOR_PROGS(local_timer, GTB_VEC_LOCAL_TIMER)
VECTOR_PROGS(reschedule, GTB_VEC_RESCHEDULE)
VECTOR_PROGS(call_function, GTB_VEC_CALL_FUNCTION)
VECTOR_PROGS(call_function_single, GTB_VEC_CALL_FUNCTION_SINGLE)
VECTOR_PROGS(irq_work, GTB_VEC_IRQ_WORK)
VECTOR_PROGS(x86_platform_ipi, GTB_VEC_PLATFORM)
VECTOR_PROGS(thermal_apic, GTB_VEC_PLATFORM)
VECTOR_PROGS(threshold_apic, GTB_VEC_PLATFORM)
VECTOR_PROGS(deferred_error_apic, GTB_VEC_PLATFORM)
VECTOR_PROGS(error_apic, GTB_VEC_PLATFORM)
VECTOR_PROGS(spurious_apic, GTB_VEC_PLATFORM)

/*
 * Does @s (16 bytes) begin with the constant string @p?  A loop that
 * clang unrolls: BPF has no memcmp() to call.
 */
static __always_inline bool starts(const char *s, const char *p, int n)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		if (i >= n)
			break;
		if (s[i] != p[i])
			return false;
	}
	return true;
}

#define STARTS(s, p)	starts(s, p, sizeof(p) - 1)

/*
 * arm64's IPIs: ipi_entry/exit's argument is the IPI's row of
 * /proc/interrupts (arch/arm64/kernel/smp.c, ipi_types[]): "Rescheduling
 * interrupts", "Function call interrupts", "CPU stop interrupts" (and
 * "CPU stop NMIs", "CPU stop (for crash dump) interrupts"), "Timer
 * broadcast interrupts", "IRQ work interrupts"; the others (CPU
 * backtrace, KGDB roundup, wake-up) are GTB_VEC_OTHER.  16 bytes tell
 * them apart.
 */
static __always_inline __u32 ipi_vector(const char *reason)
{
	char s[16] = {};

	if (bpf_probe_read_kernel_str(s, sizeof(s), reason) < 0)
		return GTB_VEC_OTHER;
	if (STARTS(s, "Rescheduling"))
		return GTB_VEC_RESCHEDULE;
	if (STARTS(s, "Function call"))
		return GTB_VEC_CALL_FUNCTION;
	if (STARTS(s, "CPU stop"))
		return GTB_VEC_CPU_STOP;
	if (STARTS(s, "Timer broadcast"))
		return GTB_VEC_TIMER_BROADCAST;
	if (STARTS(s, "IRQ work"))
		return GTB_VEC_IRQ_WORK;
	return GTB_VEC_OTHER;
}

SEC("tp_btf/ipi_entry")
int BPF_PROG(gt_ipi_entry, const char *reason)
{
	return irq_record(GTB_IRQ_ENTRY, GTB_IRQ_VECTOR, ipi_vector(reason));
}

SEC("tp_btf/ipi_exit")
int BPF_PROG(gt_ipi_exit, const char *reason)
{
	return irq_record(GTB_IRQ_EXIT, GTB_IRQ_VECTOR, ipi_vector(reason));
}

/*
 * A work item run by current, a kworker, if it is recorded: its
 * function, which the reader names from /proc/kallsyms.
 */
static __always_inline int work_record(__u16 type, __u64 func)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct gtb_work *r;

	if (!task_match(t, false))
		return 0;
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	fill_hdr(&r->hdr, type, sizeof(*r), (__u64)t, GTB_MATCH_KEY);
	r->func = func;
	submit(r);
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(gt_work_start, struct work_struct *work)
{
	return work_record(GTB_WORK_START, (__u64)BPF_CORE_READ(work, func));
}

/*
 * The end names the function the kernel passes: the work item may be
 * freed by then (a work function may free its own work_struct).  A raw
 * tracepoint: a tp_btf program may not read an argument that points to
 * a function (the verifier takes every pointer argument for a struct's),
 * a raw one reads the arguments as numbers.
 */
SEC("raw_tp/workqueue_execute_end")
int BPF_PROG(gt_work_end, void *work, __u64 function)
{
	return work_record(GTB_WORK_END, function);
}

/*
 * The snapshot: every task that exists when the session starts, decided
 * by the filters (and remembered, as on first sight), written to the
 * iterator's file for the reader, with its state.  Run once, after the
 * tracepoint programs are attached.
 */
SEC("iter/task")
int gt_snapshot(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct gtb_task r = {};

	/* A task the tracepoints already decided keeps that decision. */
	if (!t || !decide(t, false, false))
		return 0;
	r.hdr.ts = bpf_ktime_get_ns();
	r.hdr.key = (__u64)t;
	r.hdr.type = GTB_TASK;
	r.hdr.size = sizeof(r);
	r.hdr.cpu = bpf_get_smp_processor_id();
	r.hdr.match = GTB_MATCH_KEY;
	r.start_time = t->start_time;
	r.tid = t->pid;
	r.tgid = t->tgid;
	r.flags = t->flags;
	bpf_probe_read_kernel(r.comm, sizeof(r.comm), t->comm);
	r.state = t->__state;
	if (t->mm && !(t->flags & NOT_USER_FLAGS))
		r.space = uspace_of(t);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
