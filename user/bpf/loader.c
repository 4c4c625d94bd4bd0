// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - load, attach and drain the BPF capture programs
 * (loader.h)
 *
 * bpf/ is the BPF capture backend: the programs (gotrace.bpf.c, their
 * records in record.h), this loader and its preflight, the merge of the
 * CPUs' records (merge.c), the feed into the module's model built for
 * user space (feed.c, bpf/model/, through bpf/model/gtmodel.h only), and what
 * the feed looks up: kernel symbols (ksyms.c) and cgroups' systemd units
 * (cgunits.c).  It includes trace/base.h and trace/u64map.h, never the
 * command's headers; the command's source_bpf.c makes it a recording's
 * source.
 *
 * Each possible CPU gets its own ring buffer, created here and put into
 * the programs' array of maps, so that CPUs never contend for a ring and
 * each ring stays nearly in time order.  Only the CPUs online at the
 * start get the size asked for; the others (128 possible CPUs for 4
 * online is common) one page each, as the module allocates its buffers
 * for online CPUs only.  The programs wake the reader
 * only when a ring is half full; otherwise it drains on its own timer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "record.h"
#include "loader.h"
#include "preflight.h"
#include "gotrace.skel.h"
#include "../trace/base.h"

struct gt_bpf {
	struct gotrace_bpf *skel;
	struct ring_buffer *rb;
	struct gt_merge *merge;
	int *ring_fds;
	unsigned int nr_cpus;
	bool *online;		/* the CPUs online when the rings were made */
	bool failed;		/* out of memory while merging */
	uint64_t unread;	/* records dropped here: counted with drops */
	bool twins;		/* the twins are attached (or failed to) */
	uint64_t twin_check;	/* when to look at the skips again */
	gt_merge_fn early;	/* gt_bpf_set_early() */
	void *early_arg;
	struct sampler *smp;	/* --cpu-hz, or NULL */
	/* The interrupts' tracepoints attached, and those missing. */
	char irq_attached[512];
	char irq_missing[256];
};

/*
 * CPU samples: one software cpu-clock perf event per online CPU, with
 * gt_sample attached.  A perf event is bound to a CPU that is online
 * when it is opened, and the kernel takes it off a CPU that goes
 * offline for good (it does not come back with the CPU): the reader
 * looks at the CPUs every SAMPLER_CHECK_NS and opens an event on each
 * CPU online without a working one, one that came online or came back.
 * A working event's enabled time grows; one taken off its CPU keeps it.
 * The isolated CPUs (isolcpus=, nohz_full=) get none unless the options
 * ask (GOTRACE_OPT_CPU_ISOLATED), as in the module (cpu-samples.rst).
 */
struct sampler {
	uint64_t period_ns;
	uint64_t next_check;
	bool *online;		/* scratch for online_cpus() */
	bool *isolated;		/* CPUs left alone: isolated_cpus() */
	struct smp_cpu {
		struct bpf_link *link;	/* owns @fd: NULL, none */
		int fd;
		uint64_t enabled;	/* its enabled time at the last check */
	} cpu[];
};

#define SAMPLER_CHECK_NS	(100 * 1000 * 1000ULL)

/* How often the reader looks for the syscall programs' first skip. */
#define TWIN_CHECK_NS	(100 * 1000 * 1000ULL)

/* libbpf's own messages only when asked for (GOTRACE_BPF_DEBUG=1). */
static int libbpf_say(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	static int debug = -1;

	(void)level;
	if (debug < 0)
		debug = getenv("GOTRACE_BPF_DEBUG") != NULL;
	return debug ? vfprintf(stderr, fmt, ap) : 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct gt_bpf *b = ctx;
	const struct gtb_hdr *h = data;

	if (size < sizeof(*h) || h->size > size) {
		b->unread++;
		return 0;
	}
	if (b->early)
		b->early(data, h->size, b->early_arg);
	if (gt_merge_push(b->merge, data, h->size)) {
		b->unread++;
		b->failed = true;
	}
	return 0;
}

static void fill_config(struct gtb_config *c, const struct gt_bpf_params *p)
{
	const struct gotrace_options *o = p->opts;

	memset(c, 0, sizeof(*c));
	c->flags = o->flags;
	c->syscalls = o->syscalls;
	c->syscall_set_mode = o->syscall_set_mode;
	c->nr_pids = o->nr_pids;
	memcpy(c->pids, o->pids, sizeof(c->pids));
	memcpy(c->comm, o->comm, sizeof(c->comm));
	memcpy(c->syscall_set, o->syscall_set, sizeof(c->syscall_set));
	c->cgroup_id = o->cgroup_id;
	c->sample_ns = o->cpu_hz ? 1000000000ULL / o->cpu_hz : 0;
}

/*
 * THREAD_SIZE, for the programs' test of task context (gotrace.bpf.c,
 * in_task_ctx()): x86-64's 16 KiB, doubled by KASAN, whose functions
 * the kernel then lists.
 */
static uint64_t thread_size(void)
{
	char line[256];
	uint64_t size = 16384;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return size;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " kasan_report")) {
			size = 32768;
			break;
		}
	}
	fclose(f);
	return size;
}

static size_t ring_size(size_t want)
{
	size_t page = sysconf(_SC_PAGESIZE), n = page;

	while (n < want && n < (1UL << 30))
		n *= 2;
	return n;
}

/* The CPUs online now, in @online; all of them if the kernel won't say. */
static void online_cpus(bool *online, unsigned int n)
{
	char text[4096];
	ssize_t len = -1;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		len = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (len > 0) {
		text[len] = '\0';
		if (gt_parse_cpu_list(text, online, n) > 0)
			return;
	}
	for (unsigned int c = 0; c < n; c++)
		online[c] = true;
}

/*
 * Add to @isolated the CPUs the cpu list in sysfs file @name (under
 * /sys/devices/system/cpu/) names; nothing if it is absent or empty.
 */
static void add_cpu_list(bool *isolated, unsigned int n, const char *name,
			 bool *scratch)
{
	char path[64], text[4096];
	ssize_t len = -1;
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (len <= 0)
		return;
	text[len] = '\0';
	if (gt_parse_cpu_list(text, scratch, n) <= 0)
		return;
	for (unsigned int c = 0; c < n; c++)
		isolated[c] |= scratch[c];
}

/*
 * The CPUs isolated at boot, in @isolated: isolcpus= ("isolated") and
 * nohz_full= ("nohz_full"), the two the module's housekeeping test
 * reads.  @scratch: n entries.
 */
static void isolated_cpus(bool *isolated, unsigned int n, bool *scratch)
{
	memset(isolated, 0, n * sizeof(*isolated));
	add_cpu_list(isolated, n, "isolated", scratch);
	add_cpu_list(isolated, n, "nohz_full", scratch);
}

/*
 * One ring per possible CPU, before loading: @bytes for those online,
 * one page for the others; the first is the template.
 */
static int make_rings(struct gt_bpf *b, size_t bytes)
{
	size_t page = sysconf(_SC_PAGESIZE);
	bool *online;
	int err = 0;

	b->ring_fds = calloc(b->nr_cpus, sizeof(*b->ring_fds));
	if (!b->ring_fds)
		return -ENOMEM;
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		b->ring_fds[c] = -1;
	online = calloc(b->nr_cpus, sizeof(*online));
	if (!online)
		return -ENOMEM;
	b->online = online;
	online_cpus(online, b->nr_cpus);
	for (unsigned int c = 0; c < b->nr_cpus; c++) {
		b->ring_fds[c] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gt_ring",
						0, 0, online[c] ? bytes : page,
						NULL);
		if (b->ring_fds[c] < 0) {
			err = -errno;
			break;
		}
	}
	if (err)
		return err;
	return bpf_map__set_inner_map_fd(b->skel->maps.rings, b->ring_fds[0]);
}

/* After loading: each CPU's ring into the programs' array, and the reader's. */
static int insert_rings(struct gt_bpf *b)
{
	int outer = bpf_map__fd(b->skel->maps.rings);

	for (unsigned int c = 0; c < b->nr_cpus; c++) {
		int fd = b->ring_fds[c];

		if (bpf_map_update_elem(outer, &c, &fd, BPF_ANY))
			return -errno;
		if (!c)
			b->rb = ring_buffer__new(fd, on_record, b, NULL);
		else if (ring_buffer__add(b->rb, fd, on_record, b))
			return -errno;
		if (!b->rb)
			return -errno;
	}
	return 0;
}

/*
 * Does this kernel call tracepoint programs with preemption on?  Linux
 * 7.0 and later do (Debian's 7.3: the tracepoints under SRCU, and the
 * syscall tracepoints' BPF probe no longer disables preemption), 6.18
 * and earlier do not.  There the twins are attached from the start;
 * elsewhere at the first skip seen (twins_when_needed()), in case a
 * kernel of its own took the change.
 */
static bool preemptible_programs(void)
{
	struct utsname u;

	return !uname(&u) && atoi(u.release) >= 7;
}

/*
 * The syscall programs' twins, after the first programs: a
 * tracepoint calls its probes in the order they were attached, and a
 * twin must run after its first program for the same hit.  Their links
 * go where the skeleton's destroy finds them.
 */
static int attach_twins(struct gotrace_bpf *skel)
{
	/* The marks first: a twin finding none would record the hit again. */
	skel->bss->twins_on = true;
	skel->links.gt_sys_enter_twin =
		bpf_program__attach(skel->progs.gt_sys_enter_twin);
	if (!skel->links.gt_sys_enter_twin)
		return -errno;
	skel->links.gt_sys_exit_twin =
		bpf_program__attach(skel->progs.gt_sys_exit_twin);
	if (!skel->links.gt_sys_exit_twin)
		return -errno;
	return 0;
}

/* ---- Interrupts and work items ------------------------------------------ */

/*
 * The programs of the interrupts and work items (gotrace.bpf.c), a pair
 * of tracepoints each: loaded for the kinds the session asks for only
 * (GOTRACE_OPT_HARDIRQS, _SOFTIRQS, _WORKQUEUE), and only where the
 * kernel has both tracepoints: a tp_btf program attaches through the
 * tracepoint's type in the kernel's BTF (btf_trace_NAME), so the BTF
 * says.  @arch: the tracepoints of this architecture, whose absence the
 * summary tells (x86's vectors that need a configuration, such as
 * threshold_apic with CONFIG_X86_MCE_THRESHOLD); the other
 * architecture's are never there, and not said missing.
 */
#if defined(__x86_64__) || defined(__i386__)
#define ARCH_X86	true
#else
#define ARCH_X86	false
#endif

static const struct irq_pair {
	const char *sys, *name;		/* "sys:name", as said */
	const char *entry, *exit;	/* the tracepoints */
	const char *entry_prog, *exit_prog;
	uint32_t flag;
	bool arch;
} irq_pairs[] = {
#define HARD(sys, name, e, x, pe, px, arch) \
	{ sys, name, e, x, pe, px, GOTRACE_OPT_HARDIRQS, arch }
#define VEC(name) \
	HARD("irq_vectors", #name, #name "_entry", #name "_exit", \
	     "gt_" #name "_entry", "gt_" #name "_exit", ARCH_X86)
	HARD("irq", "irq_handler", "irq_handler_entry", "irq_handler_exit",
	     "gt_irq_entry", "gt_irq_exit", true),
	VEC(local_timer),
	VEC(reschedule),
	VEC(call_function),
	VEC(call_function_single),
	VEC(irq_work),
	VEC(x86_platform_ipi),
	VEC(thermal_apic),
	VEC(threshold_apic),
	VEC(deferred_error_apic),
	VEC(error_apic),
	VEC(spurious_apic),
	HARD("ipi", "ipi", "ipi_entry", "ipi_exit", "gt_ipi_entry",
	     "gt_ipi_exit", !ARCH_X86),
#undef VEC
#undef HARD
	{ "irq", "softirq", "softirq_entry", "softirq_exit",
	  "gt_softirq_entry", "gt_softirq_exit", GOTRACE_OPT_SOFTIRQS, true },
	{ "workqueue", "workqueue_execute", "workqueue_execute_start",
	  "workqueue_execute_end", "gt_work_start", "gt_work_end",
	  GOTRACE_OPT_WORKQUEUE, true },
};

#define IRQ_FLAGS	(GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS | \
			 GOTRACE_OPT_WORKQUEUE)

/* Does the kernel's BTF have tracepoint @tp's type? */
static bool has_tracepoint(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) >= 0;
}

/* Append "@sys:@name" to the list @buf. */
static void list_add(char *buf, size_t len, const char *sys, const char *name)
{
	size_t at = strlen(buf);

	if (at < len)
		snprintf(buf + at, len - at, "%s%s:%s", at ? ", " : "", sys,
			 name);
}

/*
 * Before loading: the interrupts' programs the session asks for and the
 * kernel has stay loaded, the others not (their tracepoints may be
 * missing: the load would fail).  0, or -1 after saying why.
 */
static int irq_select(struct gt_bpf *b, uint32_t flags)
{
	struct btf *vmlinux = NULL;

	if (flags & IRQ_FLAGS) {
		vmlinux = btf__load_vmlinux_btf();
		if (!vmlinux) {
			gt_err("cannot read the kernel's BTF for the interrupts' tracepoints: %s",
			       strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; i < sizeof(irq_pairs) / sizeof(irq_pairs[0]); i++) {
		const struct irq_pair *p = &irq_pairs[i];
		struct bpf_program *pe, *px;
		bool on = false;

		pe = bpf_object__find_program_by_name(b->skel->obj,
						      p->entry_prog);
		px = bpf_object__find_program_by_name(b->skel->obj,
						      p->exit_prog);
		if (!pe || !px) {
			btf__free(vmlinux);
			gt_err("the BPF object lacks %s or %s", p->entry_prog,
			       p->exit_prog);
			return -1;
		}
		if (flags & p->flag) {
			on = has_tracepoint(vmlinux, p->entry) &&
			     has_tracepoint(vmlinux, p->exit);
			if (on)
				list_add(b->irq_attached,
					 sizeof(b->irq_attached), p->sys,
					 p->name);
			else if (p->arch)
				list_add(b->irq_missing,
					 sizeof(b->irq_missing), p->sys,
					 p->name);
		}
		bpf_program__set_autoload(pe, on);
		bpf_program__set_autoload(px, on);
	}
	btf__free(vmlinux);
	return 0;
}

const char *gt_bpf_irq_attached(const struct gt_bpf *b)
{
	return b->irq_attached;
}

const char *gt_bpf_irq_missing(const struct gt_bpf *b)
{
	return b->irq_missing;
}

/* ---- CPU samples ------------------------------------------------------ */

static int perf_event_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * @cpu's sampling event, with gt_sample attached (libbpf enables it
 * then).  Its enabled time tells whether it still samples (struct
 * sampler).  0 or -errno.
 */
static int sampler_open_cpu(struct gt_bpf *b, unsigned int cpu)
{
	struct smp_cpu *sc = &b->smp->cpu[cpu];
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = b->smp->period_ns,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
		.disabled = 1,
	};
	int fd, err;

	fd = perf_event_open(&attr, (int)cpu);
	if (fd < 0)
		return -errno;
	sc->link = bpf_program__attach_perf_event(b->skel->progs.gt_sample, fd);
	if (!sc->link) {
		err = -errno;
		close(fd);
		return err;
	}
	sc->fd = fd;
	sc->enabled = 0;
	return 0;
}

/* Detach @cpu's event and close it (the link owns it). */
static void sampler_close_cpu(struct gt_bpf *b, unsigned int cpu)
{
	struct smp_cpu *sc = &b->smp->cpu[cpu];

	bpf_link__destroy(sc->link);
	sc->link = NULL;
	sc->fd = -1;
}

/*
 * Does @cpu's event still sample?  Its enabled time grew since the last
 * check (read from the CPU by the kernel); an event taken off a CPU that
 * went offline keeps its time, even once the CPU is back.
 */
static bool sampler_working(struct gt_bpf *b, unsigned int cpu)
{
	struct smp_cpu *sc = &b->smp->cpu[cpu];
	uint64_t v[2];

	if (read(sc->fd, v, sizeof(v)) != sizeof(v) || v[1] == sc->enabled)
		return false;
	sc->enabled = v[1];
	return true;
}

/*
 * Open an event on each online CPU without a working one, and close
 * those of CPUs offline.  At the start (@first) a failure ends the
 * session; later a CPU that refuses is tried again at the next check.
 */
static int sampler_check(struct gt_bpf *b, bool first)
{
	struct sampler *smp = b->smp;
	int err;

	online_cpus(smp->online, b->nr_cpus);
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		if (smp->isolated[c])
			smp->online[c] = false;
	for (unsigned int c = 0; c < b->nr_cpus; c++) {
		if (smp->cpu[c].link &&
		    (!smp->online[c] || !sampler_working(b, c)))
			sampler_close_cpu(b, c);
		if (!smp->online[c] || smp->cpu[c].link)
			continue;
		err = sampler_open_cpu(b, c);
		if (err && first) {
			gt_err("cannot sample CPU %u (a cpu-clock perf event for BPF): %s",
			       c, strerror(-err));
			return err;
		}
		/* Its first check is the next: its time has not grown yet. */
		if (!err)
			sampler_working(b, c);
	}
	return 0;
}

/*
 * Sample every online CPU every @period_ns, the isolated ones only if
 * @all: 0 or -errno.
 */
static int sampler_start(struct gt_bpf *b, uint64_t period_ns, bool all)
{
	b->smp = calloc(1, sizeof(*b->smp) +
			b->nr_cpus * sizeof(b->smp->cpu[0]));
	if (!b->smp)
		return -ENOMEM;
	b->smp->online = calloc(b->nr_cpus, sizeof(*b->smp->online));
	b->smp->isolated = calloc(b->nr_cpus, sizeof(*b->smp->isolated));
	if (!b->smp->online || !b->smp->isolated)
		return -ENOMEM;
	if (!all)
		isolated_cpus(b->smp->isolated, b->nr_cpus, b->smp->online);
	b->smp->period_ns = period_ns;
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		b->smp->cpu[c].fd = -1;
	return sampler_check(b, true);
}

/* At most every SAMPLER_CHECK_NS: the CPUs that came online, or back. */
static void sampler_hotplug(struct gt_bpf *b, uint64_t now)
{
	if (!b->smp || now < b->smp->next_check)
		return;
	b->smp->next_check = now + SAMPLER_CHECK_NS;
	sampler_check(b, false);
}

/* Stop sampling: every CPU's event detached and closed. */
static void sampler_stop(struct gt_bpf *b)
{
	if (!b->smp)
		return;
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		sampler_close_cpu(b, c);
	free(b->smp->online);
	free(b->smp->isolated);
	free(b->smp);
	b->smp = NULL;
}

struct gt_bpf *gt_bpf_open(const struct gt_bpf_params *p)
{
	struct gt_bpf_caps caps;
	struct gt_bpf *b;
	size_t bytes = ring_size(p->ring_bytes ? p->ring_bytes :
				 GT_BPF_RING_DEFAULT);
	int cpus, err;

	gt_bpf_caps_get(&caps);
	if (gt_bpf_preflight(&gt_bpf_paths, &caps))
		return NULL;
	libbpf_set_print(libbpf_say);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		gt_err("this kernel has no BPF ring buffers (Linux 5.8 or later): the BPF backend cannot run, use the module");
		return NULL;
	}
	cpus = libbpf_num_possible_cpus();
	if (cpus <= 0) {
		gt_err("cannot count the possible CPUs: %s", strerror(-cpus));
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->nr_cpus = cpus;
	b->merge = gt_merge_new(cpus);
	b->skel = gotrace_bpf__open();
	if (!b->merge || !b->skel) {
		gt_err("cannot open the BPF programs: %s", strerror(errno));
		goto fail;
	}
	/* The twins come after their first programs (gotrace.bpf.c). */
	bpf_program__set_autoattach(b->skel->progs.gt_sys_enter_twin, false);
	bpf_program__set_autoattach(b->skel->progs.gt_sys_exit_twin, false);
	/* Loaded only to sample: nothing for the verifier otherwise. */
	bpf_program__set_autoload(b->skel->progs.gt_sample,
				  p->opts->cpu_hz != 0);
	if (irq_select(b, p->opts->flags))
		goto fail;
	fill_config((struct gtb_config *)&b->skel->rodata->cfg, p);
	b->skel->rodata->wake_bytes = bytes / 2;
	if (p->opts->flags & GOTRACE_OPT_USER_STACKS)
		b->skel->rodata->thread_size = thread_size();
	/* The benchmarks' measure of the walks (gotrace.bpf.c). */
	b->skel->rodata->walk_cost_on = getenv("GOTRACE_BPF_WALK_COST") &&
					 (p->opts->flags &
					  GOTRACE_OPT_USER_STACKS);
	if (p->opts->flags & GOTRACE_OPT_UNWIND_TABLES && p->unwind_rows)
		bpf_map__set_max_entries(b->skel->maps.unw_rows,
					 p->unwind_rows);
	bpf_map__set_max_entries(b->skel->maps.rings, cpus);
	err = make_rings(b, bytes);
	if (err) {
		gt_err("cannot create %u ring buffers of %zu bytes: %s",
		       b->nr_cpus, bytes, strerror(-err));
		goto fail;
	}
	err = gotrace_bpf__load(b->skel);
	if (err) {
		gt_err("the kernel refused the BPF programs: %s (GOTRACE_BPF_DEBUG=1 shows the verifier's log)",
		       strerror(-err));
		goto fail;
	}
	err = insert_rings(b);
	if (err) {
		gt_err("cannot set up the ring buffers: %s", strerror(-err));
		goto fail;
	}
	err = gotrace_bpf__attach(b->skel);
	/* (The tests ask for them at once where no skip would come.) */
	if (!err && (preemptible_programs() || getenv("GOTRACE_BPF_TWINS"))) {
		b->twins = true;
		err = attach_twins(b->skel);
	}
	if (err) {
		gt_err("cannot attach the BPF programs: %s", strerror(-err));
		goto fail;
	}
	if (p->opts->cpu_hz &&
	    sampler_start(b, 1000000000ULL / p->opts->cpu_hz,
			  p->opts->flags & GOTRACE_OPT_CPU_ISOLATED))
		goto fail;
	return b;
fail:
	gt_bpf_close(b);
	return NULL;
}

/* recursion_misses of @prog: 0 where the kernel has no such count (< 5.12). */
static uint64_t prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * At the first skip of a syscall program, its twins (gotrace.bpf.c):
 * the hits skipped until then are counted lost, the later ones mostly
 * recorded.  A kernel that refuses them leaves the skips counted.
 */
static void twins_when_needed(struct gt_bpf *b, uint64_t now)
{
	int err;

	if (b->twins || now < b->twin_check)
		return;
	b->twin_check = now + TWIN_CHECK_NS;
	if (!prog_misses(b->skel->progs.gt_sys_enter) &&
	    !prog_misses(b->skel->progs.gt_sys_exit))
		return;
	b->twins = true;
	err = attach_twins(b->skel);
	if (err)
		gt_warn("cannot attach the syscall programs' twins: %s; the hits their first programs skip stay lost (counted)",
			strerror(-err));
}

int gt_bpf_wait(struct gt_bpf *b, const struct timespec *timeout,
		const sigset_t *mask)
{
	struct pollfd pfd = { .fd = ring_buffer__epoll_fd(b->rb),
			      .events = POLLIN };

	if (ppoll(&pfd, 1, timeout, mask) >= 0 || errno == EINTR)
		return 0;
	gt_err("polling the BPF ring buffers: %s", strerror(errno));
	return -1;
}

int gt_bpf_poll(struct gt_bpf *b, int timeout_ms, gt_merge_fn fn, void *arg)
{
	uint64_t now;
	int n;

	n = ring_buffer__poll(b->rb, timeout_ms);
	if (n < 0 && n != -EINTR) {
		gt_err("polling the BPF ring buffers: %s", strerror(-n));
		return -1;
	}
	/* Records stamped before @now are in the rings from here on... */
	now = gt_now_ns();
	n = ring_buffer__consume(b->rb);
	if (n < 0) {
		gt_err("reading the BPF ring buffers: %s", strerror(-n));
		return -1;
	}
	if (b->failed) {
		gt_err("out of memory merging the BPF records");
		return -1;
	}
	/* ...unless a program took longer than the window to write one. */
	if (now > GT_BPF_REORDER_NS)
		gt_merge_emit(b->merge, now - GT_BPF_REORDER_NS, fn, arg);
	twins_when_needed(b, now);
	sampler_hotplug(b, now);
	return 0;
}

int gt_bpf_snapshot(struct gt_bpf *b, gt_merge_fn fn, void *arg)
{
	struct gtb_task t;
	size_t have = 0;
	ssize_t n;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(b->skel->links.gt_snapshot));
	if (fd < 0) {
		gt_err("cannot walk the tasks (BPF task iterator): %s",
		       strerror(errno));
		return -1;
	}
	/* Records may straddle two reads. */
	while ((n = read(fd, (char *)&t + have, sizeof(t) - have)) > 0) {
		have += n;
		if (have == sizeof(t)) {
			fn(&t, sizeof(t), arg);
			have = 0;
		}
	}
	close(fd);
	if (n < 0) {
		gt_err("walking the tasks: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A program that began before the detach may still be writing a record
 * it reserved: the reader stops at such a record, and all after it in
 * that ring.  The same window the merge allows a program to write one
 * (GT_BPF_REORDER_NS), then the rings drained to the end.
 */
void gt_bpf_finish(struct gt_bpf *b, gt_merge_fn fn, void *arg)
{
	uint64_t until;
	int64_t left;
	int n;

	/*
	 * The twins first: one left alone for a while would record every
	 * syscall hit again, its first program no longer marking the task.
	 */
	bpf_link__destroy(b->skel->links.gt_sys_enter_twin);
	b->skel->links.gt_sys_enter_twin = NULL;
	bpf_link__destroy(b->skel->links.gt_sys_exit_twin);
	b->skel->links.gt_sys_exit_twin = NULL;
	sampler_stop(b);
	gotrace_bpf__detach(b->skel);
	until = gt_now_ns() + GT_BPF_REORDER_NS;
	while ((left = (int64_t)(until - gt_now_ns())) > 0) {
		n = ring_buffer__poll(b->rb, (int)(left / 1000000) + 1);
		if (n < 0 && n != -EINTR)
			break;
	}
	while (ring_buffer__consume(b->rb) > 0)
		;
	/* The loop has ended: what could not be merged is counted. */
	if (b->failed)
		gt_err("out of memory merging the BPF records: %" PRIu64
		       " records lost (counted)", b->unread);
	gt_merge_emit(b->merge, UINT64_MAX, fn, arg);
}

void gt_bpf_set_early(struct gt_bpf *b, gt_merge_fn fn, void *arg)
{
	b->early = fn;
	b->early_arg = arg;
}

void gt_bpf_unwind_maps(const struct gt_bpf *b, int *rows, int *tables,
			int *spaces)
{
	*rows = bpf_map__fd(b->skel->maps.unw_rows);
	*tables = bpf_map__fd(b->skel->maps.unw_tables);
	*spaces = bpf_map__fd(b->skel->maps.unw_spaces);
}

unsigned int gt_bpf_nr_cpus(const struct gt_bpf *b)
{
	return b->nr_cpus;
}

const bool *gt_bpf_online(const struct gt_bpf *b)
{
	return b->online;
}

uint64_t gt_bpf_drops(const struct gt_bpf *b, uint64_t *per_cpu)
{
	uint64_t *v = calloc(b->nr_cpus, sizeof(*v)), sum = b->unread;
	uint32_t zero = 0;

	if (!v)
		return sum;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.drops), &zero, v))
		for (unsigned int c = 0; c < b->nr_cpus; c++) {
			sum += v[c];
			if (per_cpu)
				per_cpu[c] = v[c];
		}
	free(v);
	return sum;
}

/* Sum of the per-CPU counter @map (one entry). */
/* The sum over the CPUs of entry @key of per-CPU array @map. */
static uint64_t percpu_sum_at(const struct gt_bpf *b,
			      const struct bpf_map *map, uint32_t key)
{
	uint64_t *v = calloc(b->nr_cpus, sizeof(*v)), sum = 0;

	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(map), &key, v))
		for (unsigned int c = 0; c < b->nr_cpus; c++)
			sum += v[c];
	free(v);
	return sum;
}

static uint64_t percpu_sum(const struct gt_bpf *b, const struct bpf_map *map)
{
	return percpu_sum_at(b, map, 0);
}

bool gt_bpf_walk_cost(const struct gt_bpf *b, uint64_t *ns, uint64_t *walks,
		      uint64_t *frames)
{
	if (!b->skel->rodata->walk_cost_on)
		return false;
	*ns = percpu_sum_at(b, b->skel->maps.walk_cost, 0);
	*walks = percpu_sum_at(b, b->skel->maps.walk_cost, 1);
	*frames = percpu_sum_at(b, b->skel->maps.walk_cost, 2);
	return true;
}

static bool is_twin(const struct gt_bpf *b, const struct bpf_program *prog)
{
	return prog == b->skel->progs.gt_sys_enter_twin ||
	       prog == b->skel->progs.gt_sys_exit_twin;
}

/*
 * The kernel skips a program, and counts it in that program's
 * recursion_misses, when the CPU is already running it: nested (an
 * interrupt), or, where tracepoint programs are preemptible (Linux 7.x:
 * tracepoints are called under SRCU, BPF programs with migration
 * disabled only), while a task preempted inside it waits on that CPU.
 * Every tracepoint hit on that CPU meanwhile, of any task, is skipped.
 * The syscall programs' skips that their twins recorded (twin_runs) are
 * not lost; a twin's own skips are not either, unless its first program
 * skipped the same hit, which that one's count says (gotrace.bpf.c).
 */
uint64_t gt_bpf_twin_runs(const struct gt_bpf *b)
{
	return percpu_sum(b, b->skel->maps.twin_runs);
}

uint64_t gt_bpf_sample_drops(const struct gt_bpf *b)
{
	return percpu_sum(b, b->skel->maps.sample_drops);
}

uint64_t gt_bpf_misses(const struct gt_bpf *b, char *which, size_t len)
{
	uint64_t sum = 0, sys = 0, taken = gt_bpf_twin_runs(b);
	struct bpf_program *prog;
	size_t at = 0;

	if (which && len)
		which[0] = '\0';
	bpf_object__for_each_program(prog, b->skel->obj) {
		/* The sampler's skips are samples not taken: gt_sample counts them. */
		uint64_t m = is_twin(b, prog) ||
			     prog == b->skel->progs.gt_sample ? 0 :
			     prog_misses(prog);
		int n;

		if (!m)
			continue;
		if (prog == b->skel->progs.gt_sys_enter ||
		    prog == b->skel->progs.gt_sys_exit)
			sys += m;
		else
			sum += m;
		if (!which || at >= len)
			continue;
		n = snprintf(which + at, len - at, "%s%s %llu", at ? ", " : "",
			     bpf_program__name(prog), (unsigned long long)m);
		if (n > 0)
			at += (size_t)n;
	}
	if (which && taken && at < len)
		snprintf(which + at, len - at, "%s%llu of them recorded by the twins",
			 at ? "; " : "", (unsigned long long)taken);
	/* At the end a twin may outlive its first program by a few hits. */
	return sum + (sys > taken ? sys - taken : 0);
}

bool gt_bpf_run_times(const struct gt_bpf *b, char *buf, size_t len)
{
	struct bpf_program *prog;
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	bpf_object__for_each_program(prog, b->skel->obj) {
		struct bpf_prog_info info;
		__u32 ilen = sizeof(info);
		int fd = bpf_program__fd(prog), n;

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &ilen) ||
		    !info.run_cnt || !info.run_time_ns || at >= len)
			continue;
		n = snprintf(buf + at, len - at, "%s%s %llu ns x %llu",
			     at ? ", " : "", bpf_program__name(prog),
			     (unsigned long long)(info.run_time_ns /
						  info.run_cnt),
			     (unsigned long long)info.run_cnt);
		if (n > 0)
			at += (size_t)n;
	}
	return at > 0;
}

void gt_bpf_merge_stats(const struct gt_bpf *b, struct gt_merge_stats *s)
{
	gt_merge_stats(b->merge, s);
}

void gt_bpf_close(struct gt_bpf *b)
{
	if (!b)
		return;
	sampler_stop(b);
	ring_buffer__free(b->rb);
	gotrace_bpf__destroy(b->skel);
	for (unsigned int c = 0; b->ring_fds && c < b->nr_cpus; c++)
		if (b->ring_fds[c] >= 0)
			close(b->ring_fds[c]);
	free(b->ring_fds);
	free(b->online);
	gt_merge_free(b->merge);
	free(b);
}

/* True if the file descriptor info at @path is of BPF program @id. */
static bool fdinfo_is_prog(const char *path, __u32 id)
{
	char line[128];
	bool found = false;
	FILE *f = fopen(path, "re");
	unsigned int v;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "prog_id: %u", &v) == 1 && v == id;
	fclose(f);
	return found;
}

/*
 * The process that holds BPF program @id (its link or the program), not
 * this one; 0 if none is found.  The kernel names no owner for a
 * program: each process's fdinfo says which program a descriptor holds.
 */
static pid_t prog_holder(__u32 id)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	pid_t found = 0;

	while (proc && !found && (d = readdir(proc))) {
		char dir[64], path[64 + sizeof(d->d_name)];
		struct dirent *fd;
		DIR *fds;
		int pid = atoi(d->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
		fds = opendir(dir);
		while (fds && !found && (fd = readdir(fds))) {
			if (fd->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, fd->d_name);
			if (fdinfo_is_prog(path, id))
				found = pid;
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return found;
}

int gt_bpf_sessions(pid_t *pids, int max)
{
	/* The name of gt_switch() in bpf/gotrace.bpf.c. */
	static const char name[] = "gt_switch";
	__u32 id = 0, ids[GT_BPF_MAX_SESSIONS];
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strncmp(info.name, name, sizeof(info.name))) {
			if (n < GT_BPF_MAX_SESSIONS)
				ids[n] = id;
			n++;
		}
		close(fd);
	}
	if (errno != ENOENT) {
		gt_err("cannot list the BPF programs: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; pids && i < n && i < max && i < GT_BPF_MAX_SESSIONS;
	     i++)
		pids[i] = prog_holder(ids[i]);
	return n;
}
