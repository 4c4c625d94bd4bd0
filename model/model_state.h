/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_state.h - the state of the Linux -> Go model, shared by its files
 *
 * A struct gt_model is what the hooks of one session touch:
 *   - a pool of fixed-size chunks (go111_chunk.c): every CPU writes its events
 *     into its own current chunk; full chunks are queued for the reader;
 *   - the task table (tasks.c): every task is a goroutine (struct
 *     gt_task, in a hash table), every CPU a P (struct gt_cpu);
 *   - the string and stack tables (tables.c), written in the footer, or
 *     per generation in the generational format.
 *
 * Everything a hook touches is allocated when the session starts and
 * freed when it ends: hooks never allocate.  Nothing here is a kernel
 * type: the environment (model_env.h) supplies locks, atomics, per-CPU
 * storage and the lazy queries, so the same files build into the module
 * and into user space (user/bpf/model/).
 */
#ifndef _GT_MODEL_STATE_H
#define _GT_MODEL_STATE_H

#include "../include/uapi/linux/gotrace.h"
#include "go_trace.h"
#include "go111_encode.h"
#include "model.h"
#include "model_env.h"
#include "transition.h"
#include "go111_writer.h"
#include "go123_writer.h"

/*
 * Go's runtime used 64 KiB buffers; the same size keeps the number of
 * batch headers (about 3 bytes each) negligible and a chunk copy short.
 */
#define GT_CHUNK_SIZE		GOTRACE_CHUNK_BYTES

/*
 * Room a CPU keeps free at the end of its chunk for the events that close
 * the trace (GoPreempt and ProcStop), so a session that ran out of chunks
 * can still end with every goroutine and P closed.
 */
#define GT_CLOSE_RESERVE	(4 * GT_EV_MAX_BYTES)

/*
 * Bytes one allocation of the environment (gt_env_alloc(),
 * gt_env_zalloc()) may take: kvmalloc() refuses more than INT_MAX, with a
 * warning (a panic under panic_on_warn).
 */
#define GT_ALLOC_MAX		0x7fffffffUL

/*
 * The capacity a growing buffer of @cap bytes (0: none yet) takes to hold
 * @need: doubled from 64 KiB as often as needed, but never past
 * GT_ALLOC_MAX, where doubling a buffer of over 1 GiB would go; 0 if
 * @need is past it.
 */
static inline size_t gt_grow_cap(size_t cap, size_t need)
{
	if (need > GT_ALLOC_MAX)
		return 0;
	if (!cap)
		cap = 64 * 1024;
	while (cap < need && cap <= GT_ALLOC_MAX / 2)
		cap *= 2;
	return cap < need ? GT_ALLOC_MAX : cap;
}

/* Kernel frames kept per stack; Go 1.23 caps a stack record at 2 KiB. */
#define GT_KSTACK_MAX		32

/*
 * PCs of the largest stack an event carries: the kernel frames, the user
 * frames (GOTRACE_OPT_USER_STACKS) after their space marker, a truncation
 * marker, then the syscall frame and the comm frame (a blocking
 * syscall's).  Every buffer that holds a stack is this long.  The frames
 * written of one stack (all but the space marker) stay within
 * GT_STACK_MAX_FRAMES: the user walk gets what room the kernel frames
 * leave (model.c, ustack_save()).
 */
#define GT_STACK_PCS		(GT_STACK_MAX_FRAMES + 1)

/*
 * A stack's user frames, in the stack tables: a space marker, then the
 * raw user PCs, then a truncation marker if the walk stopped early.  A
 * raw address means nothing without its address space: the marker names
 * the space (a 48-bit hash of its identity, gt_env_ustack()) and counts
 * the raw PCs after it, so the same address in two processes makes two
 * stacks, and the PCs after it are known as user addresses (which may
 * take any value a synthetic PC has).  Both markers have a top byte no
 * PC has: user addresses are below 2^56, kernel ones 0xff..., synthetic
 * ones small.  Neither is written as a frame (tables.c).
 *
 * The marker also says whether the first PC is exact: the instruction
 * an interrupt or a fault stopped, not the return address a syscall
 * leaves (gt_env_ustack()).  A return address is named by the byte
 * before it, which is in its call; an exact PC by its own byte, which
 * may be its function's first.  The same PCs, exact or not, are two
 * stacks: their first frames may name two functions.
 */
#define GT_USPACE_TAG		0xfaULL
#define GT_UTRUNC_TAG		0xfbULL
#define GT_USPACE_MASK		((1ULL << 48) - 1)
#define GT_USPACE_EXACT		0x0080000000000000ULL	/* bit 55 */
#define GT_USPACE_NR_MAX	0x7fU

static inline u64 gt_ustack_marker(u64 space, unsigned int nr, bool exact)
{
	return GT_USPACE_TAG << 56 | (exact ? GT_USPACE_EXACT : 0) |
	       (u64)(nr & GT_USPACE_NR_MAX) << 48 | (space & GT_USPACE_MASK);
}

static inline bool gt_is_ustack_marker(u64 pc)
{
	return pc >> 56 == GT_USPACE_TAG;
}

static inline unsigned int gt_ustack_marker_nr(u64 pc)
{
	return (pc >> 48) & GT_USPACE_NR_MAX;
}

static inline bool gt_ustack_marker_exact(u64 pc)
{
	return pc & GT_USPACE_EXACT;
}

static inline u64 gt_utrunc_marker(unsigned int stop)
{
	return GT_UTRUNC_TAG << 56 | stop;
}

static inline bool gt_is_utrunc_marker(u64 pc)
{
	return pc >> 56 == GT_UTRUNC_TAG;
}

/*
 * Bounds of max_stacks: a table holds at least the stacks that name a
 * few tasks, and at most what keeps its PCs (GT_STACK_AVG_PCS per stack
 * on average) within 256 MiB (768 MiB with GT_STACK_AVG_UPCS more, for
 * user stacks) and every size computed from it in a u32.
 */
#define GT_STACKS_MIN		64U
#define GT_STACKS_MAX		(4U * 1024 * 1024)
#define GT_STACK_AVG_PCS	8
/*
 * With user stacks (GOTRACE_OPT_USER_STACKS) a stack holds its user
 * frames too, a dozen or two: the tables get room for this many more
 * PCs per stack, so that they end a generation (or, in the 1.11 format,
 * drop stacks) at as many stacks as without.
 */
#define GT_STACK_AVG_UPCS	16

/*
 * The stacks one table holds, of a session allowed @max_stacks: all of
 * them in the 1.11 format; in the generational format, which has a table
 * for each of two generations (tables.c), half, at least GT_STACKS_MIN.
 */
static inline unsigned int gt_table_stacks(unsigned int max_stacks, bool gens)
{
	return gens ? max(max_stacks / 2, GT_STACKS_MIN) : max_stacks;
}

/*
 * gt_task.sys_nr of a user task of which no syscall entry or exit was
 * seen yet (it was in a syscall or in user space when the session
 * started, or it is new).  Its blocks are plain blocks: its registers
 * cannot tell, since io_uring or vhost workers carry the registers of
 * the syscall that created them.
 */
#define GT_SYS_UNKNOWN		(-2)

/* Goroutine states of the model (what the trace says, not what Linux says). */
enum gt_gstate {
	GT_G_NONE,		/* not in the trace yet */
	GT_G_RUNNABLE,		/* created, preempted, or woken */
	GT_G_RUNNING,		/* started on the P of its CPU */
	GT_G_WAITING,		/* blocked (or GoWaiting at start) */
	GT_G_SYSWAIT,		/* blocked in a syscall (GoSysBlock) */
	GT_G_DEAD,		/* GoEnd written */
};

/* A minimal hash list, as the kernel's hlist: one pointer per head. */
struct gt_hnode {
	struct gt_hnode *next;
	struct gt_hnode **pprev;
};

struct gt_hhead {
	struct gt_hnode *first;
};

static inline void gt_hlist_add_head(struct gt_hnode *n, struct gt_hhead *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void gt_hlist_del(struct gt_hnode *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

/**
 * struct gt_task - one Linux task as a goroutine
 * @node:	in its bucket of the task table, or on the free list
 * @key:	gt_in_task.key; only compared
 * @start_time:	gt_in_task.start_time, to tell a reused key apart
 * @goid:	goroutine id, unique in the trace
 * @last_ts:	timestamp of the last event that changed its state
 * @sys_enter_ts: when the current syscall started
 * @comm_stack:	the one-frame stack naming the task by its comm (a stack
 *		reference, tables.c: of the generation it was interned in)
 * @comm:	the comm the goroutine is named after; of a hidden task, the
 *		comm the filters last saw
 * @comm_pc:	the synthetic PC of the frame naming @comm in the table of
 *		generation @comm_pc_gen (tables.c), 0 if not known: every
 *		kernel stack of the task ends with it, and looking it up
 *		hashes @comm under the tables' lock; 0 again whenever
 *		@comm changes
 * @comm_pc_gen: the generation of @comm_pc (0 in the 1.11 format)
 * @sys_nr:	syscall the task is in, -1 if none, GT_SYS_UNKNOWN if no
 *		syscall entry or exit of it was seen
 * @sys_compat:	the syscall number is of the 32-bit ABI
 * @state:	enum gt_gstate
 * @hidden:	left out by the session's task filters: not in the trace
 *		(filters are decided again at exec and comm changes)
 * @adopted:	recorded whatever the filters say (a child of a recorded
 *		task, with GOTRACE_OPT_CHILDREN)
 * @trig_mark:	a trigger fired for it (GOTRACE_TRIGGER_*): its next
 *		GoStart carries a user log saying so (go123_writer.c)
 * @exited:	its task died while the trace had it running on a P that
 *		could not end it then: that P's next hook writes its GoEnd
 * @gone:	its task died (or died unseen: another task has its key),
 *		but the trace still needs the entry: a P runs its goroutine
 *		until that P's next hook takes it off, or the sweep of a
 *		generation still owes the goroutine a status
 *		(gt_w123_sweep_owes()).  It stays in its bucket, where no
 *		lookup finds it, until the last of them gives it back
 *		(gt_tasks_release())
 * @cgroup:	the id of the task's cgroup when its unit was last looked
 *		up (0: never), units.c
 * @unit:	its systemd unit's number in the session's table, 0: none
 * @irq_wait:	an interrupt's goroutine runs on its P in its stead: the
 *		trace has it waiting, Linux running (model.c, interrupts)
 * @irq:	it is an interrupt's goroutine (struct gt_irq_g), not a task
 * @work:	the work item whose region it is in: 1 + its index in the
 *		session's work functions (struct gt_irqs), 0: none
 * @w111:	what the 1.11 writer keeps of it (go111_writer.c)
 * @w123:	what the generational format wrote of it (go123_writer.c)
 *
 * Protected by the lock of its bucket; while the task runs on the P the
 * trace has it on, its syscall fields and @last_ts are written only by
 * that CPU.  The entry goes back to the free list at the task's final
 * switch, whether the task is recorded or hidden, and whatever the trace
 * could write of it, or once the trace no longer needs it (@gone).
 */
struct gt_task {
	struct gt_hnode node;
	u64 key;
	u64 start_time;
	u64 goid;
	u64 last_ts;
	u64 sys_enter_ts;
	u64 comm_stack;
	u64 comm_pc;
	u64 comm_pc_gen;
	char comm[GT_IN_COMM_LEN];
	int sys_nr;
	u8 sys_compat;
	u8 state;
	u8 hidden;
	u8 adopted;
	u8 trig_mark;
	u8 exited;
	u8 gone;
	u64 cgroup;
	u32 unit;
	u8 irq_wait;
	u8 irq;
	u32 work;
	struct gt_w111_task w111;
	struct gt_w123_task w123;
};

struct gt_task_bucket {
	gt_lock_t lock;
	struct gt_hhead head;
};

/*
 * The GoSysCall of a syscall's entry, not written yet: it is written
 * before the next event of the P, unless that event is the block of the
 * same syscall, which then stands for the syscall (a sleep shows only as
 * a sleep) or is written with the stack of the sleep.  Nothing written
 * is ever taken back.
 */
struct gt_sys_pending {
	struct gt_task *task;	/* NULL: nothing pending; else the P's cur */
	u64 ts;			/* the entry's time */
	u64 stack;		/* [syscall frame, comm frame], a reference */
	u64 pc;			/* the syscall frame, to intern it again */
	bool returned;		/* the syscall returned: it cannot block */
};

/*
 * Stacks of [syscall frame, comm frame], by comm stack and syscall: stack
 * references (tables.c), of the generation they were interned in.
 */
#define GT_SYS_CACHE		64
#define GT_SYS_CACHE_BITS	6
struct gt_sys_cache {
	u64 comm_stack;
	u64 id;
	u32 key;			/* syscall number | compat << 16, + 1 */
};

/**
 * struct gt_cpu - one CPU as a P
 * @chunk:	the chunk this CPU writes to, or NULL
 * @enc:	the batch being written into @chunk
 * @chunk_hdr:	bytes of the batch header at the start of @chunk
 * @last_ts:	timestamp of the P's last event (the P's time never goes back)
 * @cur:	the goroutine the trace has running on this P, or NULL
 * @ev:		the input event being handled on this CPU (during a hook)
 * @now:	the time of @ev, or of the close: user space's, or the clock
 *		read at the hook's first event (model_now())
 * @id:		the CPU's number, its P
 * @flush_seq:	value of gt_model.flush_seq when @chunk was started
 * @started:	the P's start step (ProcStart, GoStart of current) is done
 * @p_started:	ProcStart written and no ProcStop since
 * @offline:	the CPU went offline: its hooks write nothing
 * @in_pool:	the pool's reserve holds a chunk for closing this P
 * @events:	events written: in go 1.23 those of the format, several for
 *		some transitions (a syscall's begin and end, a ProcStop and
 *		ProcStart around a switch), as the trace's readers count them
 * @lost:	events not written (pool empty, or after the session halted)
 * @chunk_overflows: times this CPU found the pool empty
 * @sampling:	a CPU sample is being taken: the user stack walked is
 *		the interrupted task's, though not in task context
 * @samples:	CPU samples written (gt_model_cpu_sample())
 * @samples_idle: samples that found the CPU idle
 * @samples_hidden: samples of a task the filters leave out
 * @samples_lost: samples not taken (the sampler ran late) or not written
 * @pcs:	scratch space for a stack being captured
 * @sys_pending: the GoSysCall not written yet
 * @sys_cache:	stacks of syscall events, so entries need no stack walk
 * @irq:	its interrupts (struct gt_irq_cpu), NULL in a session that
 *		records none
 *
 * Written only by its CPU with interrupts off, or by the stop path once
 * every hook is done.
 */
struct gt_cpu {
	struct gt_chunk *chunk;
	struct gt_enc enc;
	u32 chunk_hdr;
	u64 last_ts;
	struct gt_task *cur;
	const struct gt_in_ev *ev;
	u64 now;
	u32 id;
	unsigned long flush_seq;
	bool started;
	bool p_started;
	bool offline;
	bool in_pool;
	bool sampling;
	u64 events;
	u64 lost;
	u64 chunk_overflows;
	u64 samples;
	u64 samples_idle;
	u64 samples_hidden;
	u64 samples_lost;
	u64 pcs[GT_STACK_PCS];
	struct gt_sys_pending sys_pending;
	struct gt_sys_cache sys_cache[GT_SYS_CACHE];
	struct gt_irq_cpu *irq;
};

/**
 * struct gt_chunk - a piece of trace: one batch of one CPU
 * @next:	on the free list or the full list, or NULL (owned)
 * @data:	GT_CHUNK_SIZE bytes
 * @len:	bytes of @data holding records
 */
struct gt_chunk {
	struct gt_chunk *next;
	u8 *data;
	u32 len;
};

/**
 * struct gt_pool - the session's chunks
 * @lock:	guards the lists and counters; taken with irqs off, nests
 *		inside task bucket locks, nothing nests inside it
 * @free:	chunks nobody uses (a stack: the last one given back is
 *		the first taken, still in the cache)
 * @full:	chunks waiting for the reader, oldest first
 * @full_tail:	where the next full chunk is linked
 * @nr_free:	length of @free
 * @nr_idle:	CPUs of the session that hold no chunk: each needs one for
 *		its next event, which a periodic flush must leave free
 * @reserve:	chunks of @free kept for closing the trace at stop
 * @stopped:	the last chunks of every CPU are queued: after @full, only
 *		the footer is left
 * @chunks:	all chunk descriptors
 * @area:	all chunk data, GT_CHUNK_SIZE each
 * @nr:		number of chunks
 */
struct gt_pool {
	gt_lock_t lock;
	struct gt_chunk *free;
	struct gt_chunk *full;
	struct gt_chunk **full_tail;
	unsigned int nr_free;
	unsigned int nr_idle;
	unsigned int reserve;
	bool stopped;
	struct gt_chunk *chunks;
	void *area;
	unsigned int nr;
};

/*
 * Interrupts (Documentation/interrupts.rst).  Each kind, number and CPU
 * is a goroutine of its own (struct gt_irq_g), which the CPU's P runs
 * while the task it interrupted waits.  A CPU keeps a stack of the
 * interrupts it is in: task -> softirq -> hard IRQ, rarely deeper.
 */
#define GT_IRQ_DEPTH		4
/* Hard IRQ goroutines of a CPU (vectors and softirqs have their own). */
#define GT_IRQ_HARD		32
#define GT_IRQ_SLOTS		(GT_IN_VEC_NR + GT_IN_SOFTIRQ_NR + GT_IRQ_HARD)
/* Distinct hard IRQ names ("[irq 24] virtio0-input") of a session. */
#define GT_IRQ_NAMES		256
#define GT_IRQ_NAME_LEN		48
/*
 * The frames that name interrupts' goroutines: GT_IRQ_PC_BASE +
 * GT_IRQ_PC_STEP * the name's index (the vectors', the softirqs', then
 * gt_irqs.names'), far from the other synthetic PCs (tables.c,
 * syscalls.c), the same in every generation.
 */
#define GT_IRQ_PC_BASE		0x38000000ULL
#define GT_IRQ_PC_STEP		16
#define GT_IRQ_FIXED_NAMES	(GT_IN_VEC_NR + GT_IN_SOFTIRQ_NR)
/* Distinct work functions a session names; more are not written. */
#define GT_WORK_FUNCS		1024
/*
 * The goroutine ids of interrupts: above every tid (PID_MAX_LIMIT) and
 * the idle Ms (GT_W123_IDLE_M_BASE + cpu), below the ids of reused
 * tids (a generation in the high 32 bits), one per CPU and slot.
 */
#define GT_IRQ_GOID_BASE	(5ULL * 1024 * 1024)

/**
 * struct gt_irq_g - the goroutine of one interrupt on one CPU
 * @t:		the goroutine, as a task's: goid, state (waiting or
 *		running), name frame (@t.comm_stack), writers' state
 * @used:	created in the trace
 * @kind:	enum gt_in_irq_kind
 * @id:		the interrupt's number (kind's)
 * @name:	the index of its name: the frame that names it (GT_IRQ_PC_BASE)
 * @action:	a hard IRQ's action name, as the hook gave it
 */
struct gt_irq_g {
	struct gt_task t;
	bool used;
	char action[GT_IN_IRQ_NAME_LEN];
	u8 kind;
	u32 id;
	u32 name;
};

/**
 * struct gt_irq_frame - an interrupt a CPU is in
 * @g:		its goroutine, NULL if the trace does not show it (the
 *		task it interrupted is not recorded, no slot was left)
 * @kind:	enum gt_in_irq_kind
 * @id:		its number
 */
struct gt_irq_frame {
	struct gt_irq_g *g;
	u8 kind;
	u32 id;
};

/**
 * struct gt_irq_cpu - a CPU's interrupts
 * @frames:	the interrupts it is in, innermost last
 * @nr:		frames in @frames
 * @over:	entries past GT_IRQ_DEPTH whose exits are still to come
 * @run:	the interrupt goroutine the trace runs on the P (NULL: the
 *		task the P runs, c->cur, or none): the top frame's once
 *		every switch could be written
 * @unmatched:	exits that matched no frame (counted, ignored)
 * @too_deep:	entries past GT_IRQ_DEPTH (counted, not written)
 * @closed:	frames closed without their exit (a deeper exit, a switch
 *		of the task)
 * @gs:		its goroutines: vectors, softirqs, then hard IRQs
 *
 * Written only by its CPU with interrupts off, as struct gt_cpu.
 */
struct gt_irq_cpu {
	struct gt_irq_frame frames[GT_IRQ_DEPTH];
	u32 nr;
	u32 over;
	struct gt_irq_g *run;
	u64 unmatched;
	u64 too_deep;
	u64 closed;
	struct gt_irq_g gs[GT_IRQ_SLOTS];
};

/**
 * struct gt_irqs - a session's interrupts and work items
 * @lock:	guards @names and @works; nests inside task bucket locks,
 *		the tables' lock nests inside it
 * @cpus:	per CPU, gt_cpu.irq points into it
 * @nr_cpus:	of @cpus
 * @nr_names:	hard IRQ names taken
 * @names:	"[irq 24] virtio0-input": its index is its frame's PC
 *		(tables.c, gt_irq_pc())
 * @nr_works:	work functions taken
 * @works:	work function addresses: an index is a region's name
 * @work_slots:	hash slots of @works: index + 1, or 0
 * @work_used:	the work functions a generation's regions name, by its
 *		parity (go 1.23)
 * @work_full:	work items not written: @works was full
 */
struct gt_irqs {
	gt_lock_t lock;
	struct gt_irq_cpu *cpus;
	unsigned int nr_cpus;
	u32 nr_names;
	char names[GT_IRQ_NAMES][GT_IRQ_NAME_LEN];
	u32 nr_works;
	u64 works[GT_WORK_FUNCS];
	u32 work_slots[2 * GT_WORK_FUNCS];
	unsigned long work_used[2][BITS_TO_LONGS(GT_WORK_FUNCS)];
	gt_atomic64_t work_full;
};

struct gt_tables;
struct gt_units;

/*
 * Bytes of a unit's name with its NUL, as systemd's UNIT_NAME_MAX: a
 * longer cgroup name is no unit systemd made.
 */
#define GT_UNIT_NAME_MAX	256
/* Units a session names: more than a big systemd machine runs. */
#define GT_UNITS_MAX		1024

/**
 * struct gt_model - the model of one session
 *
 * Set before the snapshot, then read-only: @nr_ps, @opts, the storage.
 * The rest is written by the hooks as each field's comment says.
 */
struct gt_model {
	unsigned int nr_ps;		/* Gomaxprocs: CPUs online at start */
	unsigned int procs;		/* Gomaxprocs now; grows under close_lock */
	unsigned int nr_cpus;		/* user space: CPUs in @cpus */
	struct gotrace_options opts;	/* fixed once recording starts */
	struct gotrace_trigger trig;	/* fixed once recording starts */

	GT_PERCPU struct gt_cpu *cpus;
	struct gt_pool pool;
	struct gt_task_bucket *buckets;
	unsigned int bucket_bits;
	struct gt_task *tasks;		/* task entry storage */
	struct gt_hhead task_free;	/* unused task entries */
	gt_lock_t task_free_lock;	/* guards task_free, nests inside buckets */
	unsigned long *tid_seen;	/* tids that already had a goroutine */
	unsigned int tid_max;
	gt_atomic64_t goid_gen;		/* generation for reused tids */
	struct gt_tables *tables;
	bool armed;			/* snapshot written: hooks may emit */
	gt_lock_t close_lock;		/* closing a P: stop vs CPU hotplug */
	bool halted;			/* out of space: hooks emit nothing */
	unsigned long flush_seq;	/* bumped to make CPUs hand over chunks */
	gt_atomic64_t bytes_produced;	/* header, queued chunks, footer */
	gt_atomic64_t task_overflows;
	gt_atomic64_t chunk_overflows;
	gt_atomic64_t stack_overflows;
	gt_atomic64_t unit_overflows;	/* units not named: table full */
	/* GOTRACE_OPT_USER_STACKS: walks, and those stopped early, by why */
	gt_atomic64_t ustack_walks;
	gt_atomic64_t ustack_stops[GT_USTOP_NR];
	/* user frames left unnamed: the queue or resolution map was full */
	gt_atomic64_t ustack_queue_full;
	gt_atomic64_t ustack_map_full;
	/* stacks left unnamed: their address space's mmap_lock was busy */
	gt_atomic64_t ustack_mm_busy;
	struct gt_units *units;		/* NULL: the trace names no unit */
	struct gt_irqs *irqs;		/* NULL: no interrupt nor work item */
	struct gt_cpu *snap_cpu;	/* the P the snapshot is written on */
	unsigned int format;		/* enum gt_format, fixed at start */
	struct gt_w123 w123;		/* GT_FORMAT_GO123: go123_writer.c */
	struct gt_env_model env;	/* what the environment keeps */
};

/* syscalls.c */
u64 gt_syscall_pc(long nr, bool compat);
bool gt_syscall_frame_name(u64 pc, char *buf, size_t len, unsigned int *nr);
bool gt_syscall_selected(const struct gotrace_options *o, long nr,
			 bool compat);

/* go111_chunk.c */
int gt_pool_init(struct gt_pool *pool, unsigned int nr, unsigned int reserve);
void gt_pool_free(struct gt_pool *pool);
struct gt_chunk *gt_pool_get(struct gt_pool *pool, bool use_reserve);
struct gt_chunk *gt_pool_swap(struct gt_pool *pool, struct gt_chunk *old);
void gt_pool_put(struct gt_pool *pool, struct gt_chunk *chunk);
void gt_pool_queue(struct gt_pool *pool, struct gt_chunk *chunk);
struct gt_chunk *gt_pool_next_full(struct gt_pool *pool, bool *stopped);
bool gt_pool_has_full(struct gt_pool *pool);
void gt_pool_mark_stopped(struct gt_pool *pool);
unsigned int gt_pool_in_use(struct gt_pool *pool);
void gt_pool_reserve_more(struct gt_pool *pool);
bool gt_cpu_make_room(struct gt_model *m, struct gt_cpu *c, u64 ts, u32 need,
		      bool closing);
void gt_cpu_handover(struct gt_model *m, struct gt_cpu *c, bool wake);

/* tasks.c */
int gt_tasks_init(struct gt_model *m, unsigned int max_tasks,
		  unsigned int tid_max);
void gt_tasks_free(struct gt_model *m);
struct gt_task_bucket *gt_tasks_bucket(struct gt_model *m, u64 key);
bool gt_tasks_match(struct gt_model *m, const struct gt_in_task *p);
struct gt_task *gt_tasks_find(struct gt_model *m, struct gt_task_bucket *b,
			      const struct gt_in_task *p);
struct gt_task *gt_tasks_entry(struct gt_model *m, struct gt_task_bucket *b,
			       const struct gt_in_task *p, bool adopt);
struct gt_task *gt_tasks_get(struct gt_model *m, struct gt_task_bucket *b,
			     const struct gt_in_task *p);
void gt_tasks_release(struct gt_model *m, struct gt_task *t);
u64 gt_tasks_goid(struct gt_model *m, s32 tid);

/* units.c */
int gt_units_init(struct gt_model *m, unsigned int max_units);
void gt_units_free(struct gt_model *m);
void gt_units_track(struct gt_model *m, struct gt_task *t,
		    const struct gt_in_task *p);
bool gt_units_begin(struct gt_model *m, u32 unit);
u32 gt_units_nr(struct gt_model *m);
const char *gt_units_name(struct gt_model *m, u32 unit);

/* model.c: interrupts */
int gt_irqs_init(struct gt_model *m);
void gt_irqs_free(struct gt_model *m);
bool gt_irq_frame_name(const struct gt_model *m, u64 pc, char *buf,
		       size_t len);
bool gt_work_name(struct gt_model *m, u32 idx, char *buf, size_t len);
u64 gt_work_string(const struct gt_model *m, u32 idx);
u64 gt_irq_name_stack(struct gt_model *m, u64 gen, const struct gt_task *t);
void gt_model_irq_status(struct gt_model *m, struct gotrace_status *st);

/* classify.c */
enum gt_block_class gt_block_reason(const struct gt_task *t,
				    const struct gt_in_switch *in);
bool gt_is_sched_yield(const struct gt_task *t);

/* model.c */
int gt_model_init(struct gt_model *m);
void gt_model_halt(struct gt_model *m);
void gt_model_cpu_status(struct gt_model *m, struct gotrace_cpu_status *st);
void gt_model_samples(struct gt_model *m, struct gotrace_status *st);

/* tables.c */
struct gt_tables *gt_tables_alloc(unsigned int max_stacks,
				  unsigned int max_pcs, bool gens);
void gt_tables_free(struct gt_tables *t);
u64 gt_tables_comm_stack(struct gt_tables *t, u64 gen, const char *comm);
u64 gt_tables_stack(struct gt_tables *t, u64 gen, const u64 *pcs,
		    unsigned int n);
u64 gt_tables_stack_new(struct gt_tables *t, u64 gen, const u64 *pcs,
			unsigned int n, bool *added);
u64 gt_tables_comm_pc(struct gt_tables *t, u64 gen, const char *comm);
u64 gt_tables_name_stack(struct gt_tables *t, u64 gen, u64 pc);
u64 gt_tables_unit(const struct gt_tables *t, u32 unit);
u32 gt_tables_w123_id(struct gt_tables *t, u64 gen, u64 ref, u64 *scratch);
bool gt_tables_due(struct gt_tables *t, u64 gen);
void gt_tables_peak(struct gt_tables *t, u32 *stacks, u32 *pcs, u32 *comms);
u64 gt_tables_kwait(struct gt_tables *t, u64 gen, u64 stack);
u64 gt_tables_reason(struct gt_tables *t, u64 gen, unsigned int reason,
		     int nr, bool compat);
int gt_tables_footer(struct gt_model *m, u64 ts, bool show_addrs,
		     u8 **out, size_t *len);
int gt_tables_w123(struct gt_model *m, u64 gen, bool show_addrs, u8 **out,
		   size_t *len);

/*
 * Make sure the CPU's chunk has @need bytes free (go111_chunk.c); the
 * common case inline, as every 1.11 event asks: the chunk has the room,
 * and no flush was asked for since it started.
 */
static inline bool gt_cpu_room(struct gt_model *m, struct gt_cpu *c, u64 ts,
			       u32 need, bool closing)
{
	if (likely(c->chunk && c->flush_seq == READ_ONCE(m->flush_seq) &&
		   gt_enc_room(&c->enc) >=
		   need + (closing ? 0 : GT_CLOSE_RESERVE)))
		return true;
	return gt_cpu_make_room(m, c, ts, need, closing);
}

#endif /* _GT_MODEL_STATE_H */
