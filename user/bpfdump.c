// SPDX-License-Identifier: GPL-2.0
/*
 * bpfdump.c - gotrace bpf-dump: the BPF backend's merged records as text
 *
 * Not a user's command (main.c does not list it): the host tests and the
 * benchmark capture with it, and it shows what the backend sees while
 * the trace writer for it does not exist yet.  One line per record,
 * "key=value" fields, in the merged time order; the counts on stderr.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/record.h"
#include "bpf/loader.h"
#include "bpf/feed.h"
#include "child.h"
#include "bpf/ksyms.h"
#include "options.h"
#include "subcommands.h"
#include "util.h"

static const char *const usage_msg[] = {
	"usage: gotrace bpf-dump [options] [-- COMMAND [ARGS...]]",
	"",
	"Capture with the BPF backend and print its records, merged in time",
	"order, until Ctrl-C, TIME elapsed, or COMMAND exited.",
	"",
	"  -d, --duration TIME   stop after TIME",
	"  -p, --pid LIST        only these processes (threads with --tid)",
	"      --tid             --pid lists thread ids",
	"      --children        and the tasks they create",
	"  -c, --comm NAME       only tasks with this command name",
	"      --cgroup PATH     only tasks in this cgroup v2 or below",
	"      --no-stacks       no kernel stacks",
	"      --user-stacks     the user stacks of the running task too",
	"                        (uframes=N: the frames of a record's)",
	"      --syscalls MODE   all, blocking or none: a syscall entry's",
	"                        user frames are walked with all only",
	"      --syscall-filter L  and for the syscalls L selects",
	"      --cpu-hz N        CPU samples, N a second on each CPU",
	"      --interrupts LIST hardirq, softirq, workqueue (comma-separated),",
	"                        all or none (the default)",
	"      --ring-size SIZE  each CPU's ring buffer (default 4M)",
	"  -s, --summary         print only the counts",
	NULL,
};

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

struct dump {
	struct gt_ksyms *ksyms;
	bool summary;
	uint64_t records, bytes, per_type[GTB_TYPE_COUNT];
	uint64_t ustacks, utrunc;	/* user stacks, and truncated ones */
};

static const char *const type_names[GTB_TYPE_COUNT] = {
	[GTB_TASK] = "task", [GTB_SWITCH] = "switch",
	[GTB_WAKING] = "waking", [GTB_WAKEUP] = "wakeup",
	[GTB_WAKEUP_NEW] = "wakeup_new", [GTB_FORK] = "fork",
	[GTB_EXEC] = "exec", [GTB_EXIT] = "exit",
	[GTB_SYS_ENTER] = "sys_enter", [GTB_SYS_EXIT] = "sys_exit",
	[GTB_SAMPLE] = "sample", [GTB_IRQ_ENTRY] = "irq_entry",
	[GTB_IRQ_EXIT] = "irq_exit", [GTB_WORK_START] = "work_start",
	[GTB_WORK_END] = "work_end",
};

static const char *const irq_kinds[] = {
	[GTB_IRQ_HARD] = "hardirq", [GTB_IRQ_VECTOR] = "vector",
	[GTB_IRQ_SOFT] = "softirq",
};

static const char *const fd_names[] = {
	[GTB_FD_NONE] = "none", [GTB_FD_OTHER] = "other",
	[GTB_FD_PIPE] = "pipe", [GTB_FD_SOCKET] = "socket",
};

static void print_stack(const struct dump *d, const __u64 *stack,
			unsigned int n)
{
	const uint64_t *pcs = (const uint64_t *)stack;
	const char *sym;
	uint64_t off;

	if (d->ksyms) {
		unsigned int skip = gt_ksyms_tracing_frames(d->ksyms, pcs, n);

		pcs += skip;
		n -= skip;
	}
	printf(" frames=%u", n);
	if (!n || !d->ksyms)
		return;
	if (getenv("GOTRACE_DUMP_STACKS")) {
		for (unsigned int i = 0; i < n; i++) {
			sym = gt_ksyms_find(d->ksyms, pcs[i], &off);
			printf(" %s+0x%" PRIx64, sym ? sym : "?", off);
		}
		return;
	}
	sym = gt_ksyms_find(d->ksyms, pcs[0], &off);
	if (sym)
		printf(" top=%s+0x%" PRIx64, sym, off);
}

static void print_record(const void *rec, size_t len, void *arg)
{
	const struct gtb_hdr *h = rec;
	struct dump *d = arg;

	const struct gtb_ustack *us = gt_bpf_rec_ustack(h);

	d->records++;
	d->bytes += len;
	if (h->type < GTB_TYPE_COUNT)
		d->per_type[h->type]++;
	if (us) {
		d->ustacks++;
		d->utrunc += us->stop != GTB_USTOP_NONE;
	}
	if (d->summary || h->type >= GTB_TYPE_COUNT || !type_names[h->type])
		return;
	printf("ts=%" PRIu64 " cpu=%u type=%s key=%" PRIx64 " match=%u",
	       (uint64_t)h->ts, h->cpu, type_names[h->type], (uint64_t)h->key,
	       h->match);
	switch (h->type) {
	case GTB_TASK: {
		const struct gtb_task *t = rec;

		printf(" tid=%d tgid=%d flags=0x%x start=%" PRIu64 " comm=%.16s",
		       t->tid, t->tgid, t->flags, (uint64_t)t->start_time,
		       t->comm);
		break;
	}
	case GTB_SWITCH: {
		const struct gtb_switch *s = rec;

		printf(" next=%" PRIx64 " state=%u preempt=%u sys=%d fd=%s drops=%u",
		       (uint64_t)s->next, s->prev_state, s->preempt, s->sys_nr,
		       fd_names[s->fd_kind & 3], s->drops);
		print_stack(d, s->stack, h->nr_frames);
		break;
	}
	case GTB_WAKING:
	case GTB_WAKEUP:
	case GTB_WAKEUP_NEW: {
		const struct gtb_wake *w = rec;

		printf(" waker=%" PRIx64 " target_cpu=%d", (uint64_t)w->waker,
		       w->target_cpu);
		print_stack(d, w->stack, h->nr_frames);
		break;
	}
	case GTB_FORK: {
		const struct gtb_fork *f = rec;

		printf(" child=%" PRIx64, (uint64_t)f->child);
		print_stack(d, f->stack, h->nr_frames);
		break;
	}
	case GTB_EXEC: {
		const struct gtb_exec *e = rec;

		printf(" old_tid=%d comm=%.16s", e->old_tid, e->comm);
		break;
	}
	case GTB_SYS_ENTER:
	case GTB_SYS_EXIT: {
		const struct gtb_sys *s = rec;

		printf(" nr=%d val=%" PRId64, s->nr, (int64_t)s->val);
		break;
	}
	case GTB_SAMPLE: {
		const struct gtb_sample *s = rec;

		printf(" idle=%u user=%u missed=%u", s->idle, s->user,
		       s->missed);
		print_stack(d, s->stack, h->nr_frames);
		break;
	}
	case GTB_IRQ_ENTRY:
	case GTB_IRQ_EXIT: {
		const struct gtb_irq *q = rec;
		const struct gtb_irq_named *qn = rec;

		printf(" kind=%s id=%u", q->kind < 3 ? irq_kinds[q->kind] : "?",
		       q->id);
		/* (Names are the kernel's: no space in those it prints.) */
		if (h->size >= sizeof(*qn))
			printf(" name=%.*s", (int)sizeof(qn->name), qn->name);
		break;
	}
	case GTB_WORK_START:
	case GTB_WORK_END: {
		const struct gtb_work *w = rec;
		const char *sym = NULL;
		uint64_t off = 0;

		if (d->ksyms)
			sym = gt_ksyms_find(d->ksyms, w->func, &off);
		printf(" func=%" PRIx64, (uint64_t)w->func);
		if (sym)
			printf(" sym=%s+0x%" PRIx64, sym, off);
		break;
	}
	}
	if (us)
		printf(" uframes=%u", (unsigned int)us->nr);
	putchar('\n');
}

static int parse(int argc, char **argv, struct gotrace_options *o,
		 struct gt_bpf_params *p, uint64_t *duration, bool *summary)
{
	enum { O_TID = 256, O_CHILDREN, O_CGROUP, O_NO_STACKS, O_USER_STACKS,
	       O_RING, O_CPU_HZ, O_SYSCALLS, O_SYSCALL_FILTER, O_INTERRUPTS };
	static const struct option opts[] = {
		{ "duration",	required_argument,	NULL, 'd' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "tid",	no_argument,		NULL, O_TID },
		{ "children",	no_argument,		NULL, O_CHILDREN },
		{ "comm",	required_argument,	NULL, 'c' },
		{ "cgroup",	required_argument,	NULL, O_CGROUP },
		{ "no-stacks",	no_argument,		NULL, O_NO_STACKS },
		{ "user-stacks", no_argument,		NULL, O_USER_STACKS },
		{ "ring-size",	required_argument,	NULL, O_RING },
		{ "cpu-hz",	required_argument,	NULL, O_CPU_HZ },
		{ "syscalls",	required_argument,	NULL, O_SYSCALLS },
		{ "syscall-filter", required_argument,	NULL, O_SYSCALL_FILTER },
		{ "interrupts",	required_argument,	NULL, O_INTERRUPTS },
		{ "summary",	no_argument,		NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *pids = NULL;
	bool tids = false;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+d:p:c:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!gt_parse_duration(optarg, duration)) {
				gt_err("invalid duration '%s'", optarg);
				return -1;
			}
			break;
		case 'p':
			pids = optarg;
			break;
		case O_TID:
			tids = true;
			break;
		case O_CHILDREN:
			o->flags |= GOTRACE_OPT_CHILDREN;
			break;
		case 'c':
			if (gt_opts_comm(o, optarg))
				return -1;
			break;
		case O_CGROUP:
			if (gt_opts_cgroup(o, optarg, &gt_cgroupfs))
				return -1;
			break;
		case O_NO_STACKS:
			o->flags |= GOTRACE_OPT_NO_KSTACKS;
			break;
		case O_USER_STACKS:
			o->flags |= GOTRACE_OPT_USER_STACKS;
			break;
		case O_CPU_HZ:
			if (gt_opts_cpu_hz(o, optarg))
				return -1;
			break;
		case O_SYSCALLS:
			if (gt_opts_syscalls(o, optarg))
				return -1;
			break;
		case O_SYSCALL_FILTER:
			if (gt_opts_syscall_filter(o, optarg))
				return -1;
			break;
		case O_INTERRUPTS:
			if (gt_opts_interrupts(o, optarg))
				return -1;
			break;
		case O_RING:
			p->ring_bytes = strtoull(optarg, &end, 0);
			if (*end == 'K' || *end == 'k')
				p->ring_bytes <<= 10;
			else if (*end == 'M' || *end == 'm')
				p->ring_bytes <<= 20;
			else if (*end) {
				gt_err("invalid ring size '%s'", optarg);
				return -1;
			}
			break;
		case 's':
			*summary = true;
			break;
		case 'h':
			for (int i = 0; usage_msg[i]; i++)
				printf("%s\n", usage_msg[i]);
			return 1;
		default:
			gt_usage_hint("bpf-dump");
			return -1;
		}
	}
	if (pids && gt_opts_pids(o, pids, tids))
		return -1;
	return 0;
}

int cmd_bpf_dump(int argc, char **argv)
{
	struct gotrace_options o;
	struct gt_bpf_params p = { .opts = &o };
	struct gt_merge_stats ms;
	struct dump d = { 0 };
	struct gt_child child = { 0 };
	uint64_t duration = 0, start, drops;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t none;
	struct gt_bpf *b;
	int rc, ret = GT_EXIT_OK;

	gt_opts_init(&o);
	rc = parse(argc, argv, &o, &p, &duration, &d.summary);
	if (rc)
		return rc > 0 ? GT_EXIT_OK : GT_EXIT_USAGE;
	b = gt_bpf_open(&p);
	if (!b)
		return GT_EXIT_FAIL;
	if (o.flags & (GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
		       GOTRACE_OPT_WORKQUEUE))
		fprintf(stderr, "bpf-dump: interrupts: %s; not on this kernel: %s\n",
			*gt_bpf_irq_attached(b) ? gt_bpf_irq_attached(b) : "none",
			*gt_bpf_irq_missing(b) ? gt_bpf_irq_missing(b) : "none");
	d.ksyms = gt_ksyms_load(NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&none);
	if (optind < argc &&
	    gt_child_start(&child, argv + optind, &none, true)) {
		ret = GT_EXIT_FAIL;
		stop_now = 1;
	}
	start = gt_now_ns();
	while (!stop_now) {
		if (gt_bpf_poll(b, 50, print_record, &d)) {
			ret = GT_EXIT_FAIL;
			break;
		}
		if (child.pid) {
			gt_child_reap(&child, false);
			if (!child.pid)
				break;
		}
		if (duration && gt_now_ns() - start >= duration)
			break;
	}
	gt_bpf_finish(b, print_record, &d);
	drops = gt_bpf_drops(b, NULL);
	gt_bpf_merge_stats(b, &ms);
	fprintf(stderr,
		"bpf-dump: records=%" PRIu64 " bytes=%" PRIu64 " drops=%" PRIu64
		" misses=%" PRIu64 " twins=%" PRIu64 " late=%" PRIu64
		" switch=%" PRIu64
		" sys=%" PRIu64 " ustacks=%" PRIu64 " utrunc=%" PRIu64
		" samples=%" PRIu64 " sample_drops=%" PRIu64
		" irqs=%" PRIu64 " works=%" PRIu64 "\n",
		d.records, d.bytes, drops, gt_bpf_misses(b, NULL, 0),
		gt_bpf_twin_runs(b),
		(uint64_t)ms.late,
		d.per_type[GTB_SWITCH],
		d.per_type[GTB_SYS_ENTER] + d.per_type[GTB_SYS_EXIT],
		d.ustacks, d.utrunc, d.per_type[GTB_SAMPLE],
		gt_bpf_sample_drops(b),
		d.per_type[GTB_IRQ_ENTRY] + d.per_type[GTB_IRQ_EXIT],
		d.per_type[GTB_WORK_START] + d.per_type[GTB_WORK_END]);
	gt_ksyms_free(d.ksyms);
	gt_bpf_close(b);
	if (child.pid)
		gt_child_reap(&child, true);
	fflush(stdout);
	return ret;
}
