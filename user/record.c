// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - gotrace record: a trace into a file until stopped
 *
 * The output is opened first (output.c: a temporary file beside FILE,
 * renamed over it only once the trace is complete), so a bad -o never
 * starts a session.  Then the source opens (source.h: the module's
 * device, or the BPF programs and the model in this process) and starts
 * recording.  The loop below, the same for both, waits on the source
 * and writes what it drains into the output; it asks the source to stop
 * when the duration elapses, on the first SIGINT, SIGTERM or SIGHUP
 * (SIGUSR2: 'gotrace stop' of a BPF recording), when the COMMAND exits
 * or when the output fails, and then drains it to its end, so the trace
 * is complete.  A second such signal aborts at once, from the signal
 * handler: exiting ends the session (the module aborts it, the BPF
 * programs go with the process), and the incomplete file keeps its
 * temporary name.
 *
 * Signals are blocked except while the source waits and while writing
 * the output: a signal can never slip in between checking the flags and
 * going to sleep, and a second one still aborts a write that hangs on a
 * stalled pipe.  A signal that another process sent (kill, not the
 * terminal, which signals the whole foreground job) is passed on to
 * COMMAND, so that 'kill -INT' of gotrace does what Ctrl-C does.
 *
 * --device PATH (not in the usage) reads PATH instead of /dev/gotrace, so
 * tests can feed a FIFO (source_kmod.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "subcommands.h"
#include "backend.h"
#include "child.h"
#include "record_go.h"
#include "device.h"
#include "notify.h"
#include "options.h"
#include "output.h"
#include "recsig.h"
#include "flight.h"
#include "record_sym.h"
#include "rotate.h"
#include "source.h"
#include "util.h"

#define REC_PROGRESS_NS		1000000000ULL	/* progress line period */
/* --go: how long past -d a fetch that never ends is waited for. */
#define GO_FETCH_GRACE_NS	30000000000ULL

/* Why gotrace asked the source to stop. */
enum rec_reason {
	REC_NONE,	/* it did not: the source stopped by itself */
	REC_SIGNAL,
	REC_DURATION,
	REC_COMMAND,
	REC_OUTPUT,
	REC_GO_FETCHED,	/* --go: the fetch ended (whole, or failed) */
};

struct recorder {
	/* options */
	const char *out_path;		/* as given; "-" = stdout */
	bool out_given;			/* -o was on the command line */
	const char *dev_path;
	bool dev_given;			/* --device: always the module's ABI */
	enum gt_backend backend;	/* --backend, then what it meant */
	struct gt_rotate_cfg rotate;	/* --rotate, --keep */
	bool rotating;
	struct gt_rotate rot;		/* --rotate: the files, not @out */
	bool flighting;			/* --flight, --flight-size */
	struct gt_flight fl;		/* --flight: the snapshots, not @out */
	struct gotrace_trigger trig;	/* --trigger */
	bool trig_opts;			/* a --trigger-* option was given */
	uint64_t duration_ns;		/* 0: until stopped */
	bool quiet;
	char **cmd;			/* COMMAND and its args, or NULL */
	struct gotrace_options opts;	/* what the module records */
	bool have_opts;			/* any option set: send them */

	struct gt_source *src;
	struct gt_output out;
	bool progress;			/* stderr is a tty and not -q */
	bool notify;			/* systemd wants STATUS= lines */
	bool progress_shown;
	uint64_t start_ns;
	uint64_t deadline_ns;		/* 0: none */
	uint64_t next_progress_ns;
	uint64_t bytes;			/* bytes written to the output */
	enum rec_reason reason;
	bool stop_sent;
	bool eof;
	int out_err;			/* errno of the failed write, or 0 */
	bool failed;			/* the recording itself failed */

	struct gt_child child;

	sigset_t oldmask;
	bool cmd_filter;		/* --children, COMMAND, no filter */
	uint64_t progress_ns;		/* time and events of the last */
	uint64_t progress_events;	/* progress line */
	char opt_names[160];		/* options given: "--pid, --comm" */
	bool user_stacks_given;		/* --user-stacks, not the default */
	bool cpu_hz_given;		/* --cpu-hz, not the module's default */
	enum rec_unwind {
		UNWIND_AUTO,		/* tables where the backend has them */
		UNWIND_FP,
		UNWIND_TABLES,
	} unwind;			/* --unwind */
	bool unwind_given;
	uint64_t unwind_memory;		/* --unwind-memory, 0: default */
	bool no_symbolize;		/* --no-symbolize */
	struct gt_recsym sym;		/* the naming of the files written */
	struct gt_recgo go;		/* --go, --go-trace */
};

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: gotrace record [-o FILE] [-d TIME] [-q] [--backend B] [--format F]\n"
		"                      [-p PID,... [--tid] [--children]]\n"
		"                      [-c COMM] [--cgroup PATH | --unit NAME] [--syscalls MODE]\n"
		"                      [--syscall-filter LIST] [--buffer-size SIZE] [--no-stacks]\n"
		"                      [--no-wake-stacks] [--no-units]\n"
		"                      [--user-stacks | --no-user-stacks] [--cpu-hz [N]]\n"
		"                      [--unwind fp|eh-frame|auto] [--unwind-memory SIZE]\n"
		"                      [--interrupts LIST]\n"
		"                      [--sample-isolated] [--go URL | --go-trace GOTRACE]\n"
		"                      [-- COMMAND [ARGS...]]\n"
		"\n"
		"Record the whole machine's scheduler into a Go execution trace\n"
		"until Ctrl-C, TIME elapsed, or COMMAND exited (COMMAND is\n"
		"started once the recording runs).  A first Ctrl-C (or SIGTERM,\n"
		"SIGHUP) stops cleanly; a second one aborts.  Signals sent by\n"
		"another process are passed on to COMMAND too.\n"
		"\n"
		"The trace is written to FILE.tmp-PID and renamed to FILE once\n"
		"complete; an existing FILE is kept as FILE.old.  An incomplete\n"
		"trace keeps its temporary name and FILE stays as it was.\n"
		"\n"
		"  -o, --output FILE      write to FILE (default trace.out; - = stdout)\n"
		"  -d, --duration TIME    stop after TIME: seconds (10, 0.5) or with\n"
		"                         a unit (500ms, 2s, 5m, 1h)\n"
		"  -q, --quiet            no progress line and no summary (errors and\n"
		"                         the lost-events warning still show)\n"
		"      --backend B        kmod (the module, /dev/gotrace), bpf, or auto\n"
		"                         (default): the module if /dev/gotrace exists\n"
		"                         or 'modprobe gotrace' works, else bpf\n"
		"      --format F         go1.23 (generations, read by Go 1.23 and\n"
		"                         later) or go1.11 (one trace, for older Go);\n"
		"                         default: the module's format parameter,\n"
		"                         go1.23 unless it was set to go1.11\n"
		"      --rotate WHEN      (go1.23) write -o DIR/gotrace-TIME-N.trace files,\n"
		"                         a new one at the first generation after WHEN:\n"
		"                         a time (2s, 1m) or a size (512M); each file is\n"
		"                         a complete trace, together they hold every event\n"
		"      --keep N           with --rotate or --flight: only the newest N\n"
		"                         files of this recording stay\n"
		"      --flight TIME      (the module) flight mode: keep the last TIME\n"
		"                         (e.g. 30s) in kernel memory and write it to\n"
		"                         -o DIR/flight-TIME-SEQ-REASON.trace when asked\n"
		"                         ('gotrace snapshot', SIGUSR1), when a trigger\n"
		"                         fires, and once when the recording stops\n"
		"      --flight-size SIZE keep at most SIZE of trace (default 256M)\n"
		"      --trigger sched-latency:T  with --flight: a snapshot when a task\n"
		"                         was runnable longer than T before it ran\n"
		"      --trigger off-cpu:T  or when a task of the filter below was\n"
		"                         blocked longer than T before it was woken\n"
		"      --trigger syscall:NAME  or when a task enters syscall NAME\n"
		"      --trigger-pid PID  only for this process's threads\n"
		"      --trigger-tid TID  only for this thread\n"
		"      --trigger-comm C   only for tasks of this command name\n"
		"      --trigger-post T   take the snapshot T after the trigger fired\n"
		"      --trigger-holdoff T  no other trigger for T after one (10s)\n"
		"  -p, --pid PID,...      only these processes (all their threads)\n"
		"      --tid              -p names threads, not processes\n"
		"      --children         and the tasks they create from now on; with\n"
		"                         COMMAND and no other filter: only COMMAND\n"
		"                         and its descendants\n"
		"  -c, --comm COMM        only tasks first seen with this command name\n"
		"      --cgroup PATH      only tasks in this cgroup v2 directory (relative\n"
		"                         to /sys/fs/cgroup) or below it\n"
		"      --unit NAME        only the tasks of systemd unit NAME(.service)\n"
		"      --syscalls MODE    all (default), blocking (only those that sleep)\n"
		"                         or none\n"
		"      --syscall-filter L only the syscalls in L (read,write), or all but\n"
		"                         those in L (!getppid,!read)\n"
		"      --buffer-size SIZE kernel buffers, e.g. 16M (default: the module's,\n"
		"                         512K per CPU and at least 2M)\n"
		"      --no-stacks        no kernel stacks: blocking, wakeups and\n"
		"                         syscalls show only [comm] and [syscall] frames;\n"
		"                         switches and wakeups cost far less\n"
		"      --no-wake-stacks   no kernel stacks at wakeups only (the waker's\n"
		"                         [comm] frame); blocks keep theirs\n"
		"      --no-units         (go1.23) no user regions naming each task's\n"
		"                         systemd unit (its cgroup's .service or .scope)\n"
		"      --user-stacks      the user frames of the running task too,\n"
		"                         written as file+offset named once the file\n"
		"                         is complete; default: the module's\n"
		"                         user_stacks parameter, off unless it was\n"
		"                         set (off with --backend bpf)\n"
		"      --no-user-stacks   none, whatever the module's parameter says\n"
		"      --unwind M         how user stacks are walked: eh-frame (by\n"
		"                         tables built from the binaries' .eh_frame,\n"
		"                         frame pointers where a binary has none, and\n"
		"                         for Go), fp (frame pointers only), or auto\n"
		"                         (the default: eh-frame, or fp with a module\n"
		"                         older than the tables)\n"
		"      --unwind-memory SIZE  the tables' memory (default 32M, at most\n"
		"                         512M with the module); the least recently\n"
		"                         used are evicted\n"
		"      --interrupts LIST  hardirq, softirq, workqueue (comma-separated),\n"
		"                         all or none (the default): interrupts as\n"
		"                         goroutines the CPU's P runs while the task\n"
		"                         they interrupt waits, a kworker's time as\n"
		"                         regions named after its work items\n"
		"                         (Documentation/interrupts.rst)\n"
		"      --cpu-hz [N]       (go1.23) sample every CPU N times a second\n"
		"                         (1 to 999, 99 when N is not given): the\n"
		"                         task running and its kernel stack (and its\n"
		"                         user stack with --user-stacks), shown by\n"
		"                         'go tool trace' and 'gotrace pprof cpu';\n"
		"                         default: the module's cpu_hz parameter\n"
		"                         (none with --backend bpf)\n"
		"      --sample-isolated  sample the isolated CPUs too (isolcpus=,\n"
		"                         nohz_full=), which --cpu-hz leaves alone;\n"
		"                         default: the module's sample_isolated\n"
		"                         parameter, off\n"
		"      --no-symbolize     leave the user frames as file+offset: by\n"
		"                         default each file written is rewritten with\n"
		"                         their names once complete\n"
		"\n"
		"A Go program's own trace, merged (gotrace merge -h): FILE is then\n"
		"the program's trace with the kernel's view of its threads added,\n"
		"the recording stays in FILE.kernel.\n"
		"      --go URL           fetch the trace of the Go program serving\n"
		"                         net/http/pprof at URL (http://HOST:PORT or\n"
		"                         unix:/PATH/TO.SOCK) for -d TIME, into FILE.go;\n"
		"                         the recording ends with the fetch\n"
		"      --go-trace GOTRACE the trace a Go program writes itself\n"
		"                         (runtime/trace, go test -trace), usually\n"
		"                         COMMAND's: merged once the recording ends\n"
		"\n"
		"Filters apply in the module: tasks left out do not appear, their CPU\n"
		"time shows as the P being idle.\n"
		"  -h, --help             show this text\n"
		"\n"
		"Exit status: COMMAND's when it ran, 1 if the recording failed,\n"
		"128 + the signal when aborted (130: Ctrl-C).  Lost events do not\n"
		"change it: the summary reports them.  View the trace with\n"
		"'go tool trace FILE'.\n");
}

static double rec_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void rec_clear_progress(struct recorder *r)
{
	if (r->progress_shown) {
		fputs("\r\033[K", stderr);
		r->progress_shown = false;
	}
}

/*
 * The progress line's text, for the terminal and for systemd's STATUS=:
 * time, bytes written and, from the source's status, the event rate
 * since the last line, the losses and, when the session samples, the
 * CPU samples lost.
 */
static void rec_progress_text(struct recorder *r, uint64_t now, char *s,
			      size_t len)
{
	struct gotrace_status st;
	uint64_t dt, rate = 0;
	char b[32];
	int n;

	n = snprintf(s, len, "%s%.0f s: %s written",
		     r->stop_sent ? "stopping, " : "recording ",
		     rec_secs(now - r->start_ns),
		     gt_fmt_bytes(r->bytes, b, sizeof(b)));
	if (n < 0 || (size_t)n >= len || r->src->ops->status(r->src, &st))
		return;
	dt = now - r->progress_ns;
	if (r->progress_ns && dt && st.events >= r->progress_events)
		rate = (uint64_t)((double)(st.events - r->progress_events) *
				  1e9 / (double)dt);
	else if (now > r->start_ns)
		rate = (uint64_t)((double)st.events * 1e9 /
				  (double)(now - r->start_ns));
	r->progress_ns = now;
	r->progress_events = st.events;
	n += snprintf(s + n, len - (size_t)n, ", %" PRIu64 " events (%" PRIu64
		      "/s), %" PRIu64 " lost, %" PRIu64 " overflows",
		      (uint64_t)st.events, rate, (uint64_t)st.lost_events,
		      (uint64_t)(st.chunk_overflows + st.task_overflows +
				 st.stack_overflows));
	/* What only this backend counts. */
	if (n > 0 && (size_t)n < len && r->src->ops->progress)
		n += r->src->ops->progress(r->src, s + n, len - (size_t)n);
	/* A session that samples (--cpu-hz or the cpu_hz parameter). */
	if (n > 0 && (size_t)n < len &&
	    st.cpu_samples + st.cpu_samples_idle + st.cpu_samples_hidden +
	    st.cpu_samples_lost)
		snprintf(s + n, len - (size_t)n, ", %" PRIu64 " samples lost",
			 (uint64_t)st.cpu_samples_lost);
}

static void rec_show_progress(struct recorder *r, uint64_t now)
{
	char line[256];

	rec_progress_text(r, now, line, sizeof(line));
	if (r->notify)
		gt_notify_status("%s", line);
	if (!r->progress)
		return;
	fprintf(stderr, "\r\033[K%s: %s", GT_NAME, line);
	r->progress_shown = true;
}

/*
 * Ask the source to stop.  Returns 0, or -1 if the recording cannot end
 * cleanly.
 */
static int rec_stop(struct recorder *r, enum rec_reason reason)
{
	if (r->stop_sent)
		return 0;
	r->stop_sent = true;
	r->reason = reason;
	gt_notify_stopping();
	if (reason == REC_SIGNAL)
		r->progress_shown = false;	/* the handler said why */
	if (!r->src->ops->stop(r->src))
		return 0;
	r->failed = true;
	return -1;
}

/*
 * Write what the source drained, with the stop signals open: a write
 * that hangs on a stalled pipe must not keep a second Ctrl-C from
 * aborting.  Once a write failed, the rest is dropped: the loop stops
 * the source, which still drains to its end.
 */
static void rec_write(void *arg, const void *buf, size_t len)
{
	struct recorder *r = arg;
	sigset_t blocked;
	int ret;

	if (r->out_err)
		return;
	sigprocmask(SIG_SETMASK, &r->oldmask, &blocked);
	ret = r->flighting ? gt_flight_write(&r->fl, buf, len) :
	      r->rotating ? gt_rotate_write(&r->rot, buf, len) :
			    gt_write_all(r->out.fd, buf, len);
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	if (!ret) {
		r->bytes += len;
		return;
	}
	/* Partial writes are lost too: the file ends mid-record. */
	r->out_err = -ret;
	r->failed = true;
	gt_err("writing %s: %s after %" PRIu64
	       " bytes: stopping the recording, the trace is incomplete",
	       r->rotating ? gt_rotate_where(&r->rot) :
	       gt_output_name(&r->out), strerror(-ret), r->bytes);
}

/*
 * A read of 0 in flight mode: a snapshot ended, its file gets its name;
 * or, when none did (or the last one, of the stop, did), end of file.
 */
static void rec_flight_end(struct recorder *r)
{
	struct gotrace_snapshot info;
	struct timespec wall, mono;
	char what[192], b[32], *name;
	int64_t ago;
	int ret;

	ret = r->src->ops->snapshot_info(r->src, &info);
	if (ret) {
		rec_clear_progress(r);
		gt_err("cannot read what the snapshot is: %s", strerror(-ret));
		r->failed = true;
		r->eof = true;
		return;
	}
	if (info.seq <= r->fl.last_seq || r->fl.fd < 0) {
		r->eof = true;
		return;
	}
	/* The wall-clock time it was taken at names the file. */
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	ago = (int64_t)((uint64_t)mono.tv_sec * 1000000000ULL +
			(uint64_t)mono.tv_nsec - info.time_ns);
	if (ago > 0) {
		int64_t w = (int64_t)wall.tv_sec * 1000000000LL + wall.tv_nsec -
			    ago;

		wall.tv_sec = (time_t)(w / 1000000000LL);
		wall.tv_nsec = (long)(w % 1000000000LL);
	}
	rec_clear_progress(r);
	if (gt_flight_commit(&r->fl, &info, &wall, &name)) {
		gt_err("writing snapshot %" PRIu64 " into %s: %s: it keeps the name %s",
		       (uint64_t)info.seq, r->fl.dir, strerror(r->fl.err),
		       r->fl.tmp);
		r->failed = true;
	} else if (!r->quiet) {
		gt_flight_describe(&info, what, sizeof(what));
		fprintf(stderr, "%s: snapshot %" PRIu64 ", %s, written to %s: %s, %u generations, %.3f s of trace from %.3f s before the snapshot",
			GT_NAME, (uint64_t)info.seq, what, name,
			gt_fmt_bytes(r->fl.file_bytes, b, sizeof(b)),
			info.generations,
			(double)(info.end_ns - info.start_ns) / 1e9,
			(double)(int64_t)(info.time_ns - info.start_ns) / 1e9);
		if (info.held_off || info.missed)
			fprintf(stderr, " (%" PRIu64 " triggers held off, %" PRIu64 " snapshots missed)",
				(uint64_t)info.held_off, (uint64_t)info.missed);
		fputc('\n', stderr);
	}
	if (name)
		gt_recsym_spawn(&r->sym, name);
	free(name);
	if (info.reason == GOTRACE_SNAP_STOP)
		r->eof = true;
}

/* Write what the source has.  Returns -1 when the recording failed. */
static int rec_drain(struct recorder *r)
{
	switch (r->src->ops->drain(r->src, rec_write, r)) {
	case GT_SOURCE_AGAIN:
		break;
	case GT_SOURCE_END:
		/* In flight mode, the end of a snapshot; or of them all. */
		if (r->flighting)
			rec_flight_end(r);
		else
			r->eof = true;
		break;
	case GT_SOURCE_ERROR:
		r->failed = true;
		return -1;
	}
	if (r->out_err && rec_stop(r, REC_OUTPUT))
		return -1;
	return 0;
}

/* The signals, timers and child that may end the recording. */
static int rec_check_events(struct recorder *r, uint64_t now)
{
	if (gt_recsig_stopping() && rec_stop(r, REC_SIGNAL))
		return -1;
	if (gt_recsig_take_snapshot()) {
		int ret;

		ret = r->flighting && !r->stop_sent ?
		      r->src->ops->snapshot(r->src) : 0;
		if (ret) {
			rec_clear_progress(r);
			gt_warn("SIGUSR1: no snapshot: %s", ret == -EBUSY ?
				"the previous one is still being written" :
				strerror(-ret));
		}
	}
	if (gt_recsig_take_sigchld()) {
		gt_child_reap(&r->child, false);
		if (r->child.ran && !r->child.pid && rec_stop(r, REC_COMMAND))
			return -1;
		if (gt_recgo_fetched(&r->go) && rec_stop(r, REC_GO_FETCHED))
			return -1;
	}
	if (r->deadline_ns && now >= r->deadline_ns &&
	    rec_stop(r, REC_DURATION))
		return -1;
	return 0;
}

/* How long the source waits: until the next progress line or deadline. */
static struct timespec *rec_timeout(struct recorder *r, uint64_t now,
				    struct timespec *ts)
{
	uint64_t next = UINT64_MAX;

	if (r->progress || r->notify)
		next = r->next_progress_ns;
	if (r->deadline_ns && !r->stop_sent && r->deadline_ns < next)
		next = r->deadline_ns;
	if (next == UINT64_MAX)
		return NULL;
	next = next > now ? next - now : 0;
	ts->tv_sec = (time_t)(next / 1000000000ULL);
	ts->tv_nsec = (long)(next % 1000000000ULL);
	return ts;
}

/* Returns 0 at the trace's end, -1 when the recording failed. */
static int rec_loop(struct recorder *r)
{
	while (!r->eof) {
		uint64_t now = gt_now_ns();
		struct timespec ts;

		if (rec_check_events(r, now))
			return -1;
		if (r->eof)
			break;
		gt_recsym_poll(&r->sym);
		if ((r->progress || r->notify) &&
		    now >= r->next_progress_ns) {
			rec_show_progress(r, now);
			r->next_progress_ns = now + REC_PROGRESS_NS;
		}
		if (r->src->ops->wait(r->src, rec_timeout(r, now, &ts),
				      &r->oldmask) || rec_drain(r)) {
			r->failed = true;
			return -1;
		}
	}
	return 0;
}

static void rec_summary(struct recorder *r, const struct gotrace_status *st,
			bool have_st)
{
	static const char *const why[] = {
		[REC_DURATION]	= "duration elapsed",
		[REC_COMMAND]	= "command exited",
		[REC_OUTPUT]	= "output error",
		[REC_GO_FETCHED] = "the fetch of the program's trace ended",
	};
	const char *reason;
	char b[32];

	if (r->reason == REC_SIGNAL)
		reason = gt_recsig_why();
	else if (r->reason != REC_NONE)
		reason = why[r->reason];
	else if (have_st && st->stop_reason == GOTRACE_STOP_DURATION)
		reason = "module duration_ms elapsed";
	else if (have_st && st->stop_reason == GOTRACE_STOP_OVERFLOW)
		reason = "out of buffer space";
	else if (have_st && st->stop_reason == GOTRACE_STOP_USER)
		reason = "gotrace stop";
	else
		reason = "end of file";

	if (!r->quiet && r->flighting) {
		fprintf(stderr, "%s: %" PRIu64 " snapshots, %s (%" PRIu64
			" bytes), written to %s%s", GT_NAME, r->fl.files,
			gt_fmt_bytes(r->fl.bytes, b, sizeof(b)), r->fl.bytes,
			r->fl.dir, r->fl.kept.removed ?
			" (the oldest removed by --keep)" : "");
	} else if (!r->quiet && r->rotating) {
		fprintf(stderr, "%s: %s (%" PRIu64 " bytes) written to %" PRIu64
			" files in %s%s", GT_NAME,
			gt_fmt_bytes(r->bytes, b, sizeof(b)), r->bytes,
			r->rot.committed, r->rotate.dir, r->rot.kept.removed ?
			" (the oldest removed by --keep)" : "");
	} else if (!r->quiet) {
		fprintf(stderr, "%s: %s (%" PRIu64 " bytes) written to %s",
			GT_NAME, gt_fmt_bytes(r->bytes, b, sizeof(b)), r->bytes,
			gt_output_name(&r->out));
	}
	if (!r->quiet) {
		if (have_st)
			fprintf(stderr, ", %" PRIu64 " events",
				(uint64_t)st->events);
		if (have_st && st->format == GOTRACE_FORMAT_GO123)
			fprintf(stderr, " in %" PRIu64 " generations",
				(uint64_t)st->generations);
		fprintf(stderr, ", %.2f s, stopped: %s", rec_secs(gt_now_ns() -
			r->start_ns), reason);
		/* Whether the module stopped by itself, and why. */
		if (have_st && r->backend == GT_BACKEND_KMOD)
			fprintf(stderr, " (module: %s)",
				gt_stop_reason_name(st->stop_reason));
		if (have_st)
			fprintf(stderr, ", %" PRIu64 " lost",
				(uint64_t)st->lost_events);
		fprintf(stderr, ", backend %s\n", gt_backend_name(r->backend));
		if (have_st && (st->cpu_samples || st->cpu_samples_idle ||
				st->cpu_samples_lost))
			fprintf(stderr, "%s: CPU samples at %u Hz: %" PRIu64
				" written, %" PRIu64 " idle, %" PRIu64
				" filtered out, %" PRIu64 " lost\n", GT_NAME,
				r->opts.cpu_hz, (uint64_t)st->cpu_samples,
				(uint64_t)st->cpu_samples_idle,
				(uint64_t)st->cpu_samples_hidden,
				(uint64_t)st->cpu_samples_lost);
		if (r->out.old)
			fprintf(stderr, "%s: the previous %s is kept as %s\n",
				GT_NAME, r->out.path, r->out.old);
	}
	/* What was lost, and why: only the backend can tell. */
	if (have_st)
		r->src->ops->report(r->src, st, r->quiet);
}

/* --keep N: 1 to 1000000 files. */
static bool parse_keep(const char *s, unsigned int *n)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > 1000000 || *s == '-')
		return false;
	*n = (unsigned int)v;
	return true;
}

/* --rotate and --keep: what they need, said in one line. */
static int rec_check_rotate(struct recorder *r)
{
	if (r->rotate.keep && !r->rotating && !r->flighting) {
		gt_err("--keep goes with --rotate or --flight");
		return -1;
	}
	if (!r->rotating)
		return 0;
	if (r->opts.format == GOTRACE_FORMAT_GO111) {
		gt_err("--rotate cuts the trace between generations: it needs --format go1.23");
		return -1;
	}
	if (!r->out_given || !strcmp(r->out_path, "-")) {
		gt_err("--rotate writes its files into a directory: name it with -o DIR");
		return -1;
	}
	r->rotate.dir = r->out_path;
	return 0;
}

/* The long options without a short form. */
enum rec_opt {
	O_TID = 256, O_CHILDREN, O_CGROUP, O_UNIT, O_SYSCALLS,
	O_SYSCALL_FILTER, O_BUFFER_SIZE, O_NO_STACKS, O_NO_WAKE_STACKS,
	O_NO_UNITS, O_USER_STACKS, O_NO_USER_STACKS, O_NO_SYMBOLIZE, O_CPU_HZ,
	O_SAMPLE_ISOLATED, O_BACKEND, O_FORMAT,
	O_ROTATE, O_KEEP, O_FLIGHT, O_FLIGHT_SIZE, O_TRIGGER, O_TRIG_PID,
	O_TRIG_TID, O_TRIG_COMM, O_TRIG_POST, O_TRIG_HOLDOFF, O_GO, O_GO_TRACE,
	O_UNWIND, O_UNWIND_MEMORY, O_INTERRUPTS,
};

/* A --trigger-post or --trigger-holdoff time in ms; false if too long. */
static bool parse_trig_ms(const char *s, uint32_t *ms)
{
	uint64_t ns;

	if (!gt_parse_duration(s, &ns) ||
	    ns / 1000000 > GOTRACE_TRIGGER_DELAY_MS_MAX)
		return false;
	*ms = (uint32_t)(ns / 1000000);
	return true;
}

/* One of the --flight and --trigger options. */
static int rec_parse_flight(struct recorder *r, int c, const char *arg)
{
	uint64_t v;
	char *end;
	long pid;

	switch (c) {
	case O_FLIGHT:
		if (!gt_parse_duration(arg, &v) ||
		    v / 1000000 > GOTRACE_FLIGHT_MS_MAX || v < 1000000) {
			gt_err("invalid --flight '%s': want a time from 1ms to 1h (30s, 5m)",
			       arg);
			return -1;
		}
		r->opts.flight_ms = (uint32_t)(v / 1000000);
		r->flighting = true;
		return 0;
	case O_FLIGHT_SIZE:
		if (!gt_flight_parse_size(arg, &v) ||
		    v < GOTRACE_FLIGHT_BYTES_MIN || v > GOTRACE_FLIGHT_BYTES_MAX) {
			gt_err("invalid --flight-size '%s': want a size from 1M to 4G (256M)",
			       arg);
			return -1;
		}
		r->opts.flight_bytes = v;
		r->flighting = true;
		return 0;
	case O_TRIGGER:
		if (!gt_flight_parse_trigger(arg, &r->trig)) {
			gt_err("invalid --trigger '%s': want sched-latency:TIME, off-cpu:TIME (TIME at least 10us: sched-latency:50ms) or syscall:NAME (syscall:kill)",
			       arg);
			return -1;
		}
		return 0;
	case O_TRIG_PID:
	case O_TRIG_TID:
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || end == arg || *end || pid <= 0 || pid > INT32_MAX) {
			gt_err("invalid %s '%s': want a positive number",
			       c == O_TRIG_PID ? "--trigger-pid" : "--trigger-tid",
			       arg);
			return -1;
		}
		r->trig.pid = (int32_t)pid;
		r->trig.flags = c == O_TRIG_PID ? GOTRACE_TRIG_TGID : 0;
		break;
	case O_TRIG_COMM:
		if (strlen(arg) >= sizeof(r->trig.comm)) {
			gt_err("invalid --trigger-comm '%s': a command name has at most %zu characters",
			       arg, sizeof(r->trig.comm) - 1);
			return -1;
		}
		strcpy(r->trig.comm, arg);
		break;
	case O_TRIG_POST:
	case O_TRIG_HOLDOFF:
		if (!parse_trig_ms(arg, c == O_TRIG_POST ? &r->trig.post_ms :
				   &r->trig.holdoff_ms)) {
			gt_err("invalid %s '%s': want a time up to 10m",
			       c == O_TRIG_POST ? "--trigger-post" :
			       "--trigger-holdoff", arg);
			return -1;
		}
		break;
	}
	r->trig_opts = true;
	return 0;
}

/* --flight and --trigger: what they need, said in one line. */
static int rec_check_flight(struct recorder *r)
{
	if ((r->trig.type || r->trig_opts) && !r->flighting) {
		gt_err("--trigger takes a snapshot of the flight window: it goes with --flight");
		return -1;
	}
	if (r->trig_opts && !r->trig.type) {
		gt_err("--trigger-pid, -tid, -comm, -post and -holdoff go with --trigger");
		return -1;
	}
	if (r->trig.type == GOTRACE_TRIGGER_OFFCPU && !r->trig.pid &&
	    !r->trig.comm[0]) {
		gt_err("--trigger off-cpu watches some tasks, most of which sleep: name them with --trigger-pid, --trigger-tid or --trigger-comm");
		return -1;
	}
	if (!r->flighting)
		return 0;
	if (r->rotating) {
		gt_err("--flight writes snapshots, --rotate the whole stream: one or the other");
		return -1;
	}
	if (r->opts.format == GOTRACE_FORMAT_GO111) {
		gt_err("--flight keeps whole generations: it needs --format go1.23");
		return -1;
	}
	if (r->backend == GT_BACKEND_BPF) {
		gt_err("--flight keeps its window in the module: not with --backend bpf");
		return -1;
	}
	if (!r->out_given || !strcmp(r->out_path, "-")) {
		gt_err("--flight writes each snapshot into a directory: name it with -o DIR");
		return -1;
	}
	r->backend = GT_BACKEND_KMOD;
	r->opts.format = GOTRACE_FORMAT_GO123;
	r->have_opts = true;
	return 0;
}

/*
 * Parse the options into @r; returns 1 for -h, -1 on a usage error,
 * which is said in one line (and a pointer to -h for an unknown option).
 */
/*
 * -p names processes (threads with --tid) that exist now, as --unit and
 * --cgroup name a cgroup that exists: else the session would record
 * nothing, without a word.  A process gone later ends as the module
 * sees it go.
 */
static int rec_pids_exist(const struct gotrace_options *o, bool tids)
{
	for (unsigned int i = 0; i < o->nr_pids; i++) {
		if (!kill(o->pids[i], 0) || errno != ESRCH)
			continue;
		gt_err("-p: no %s %d", tids ? "thread" : "process",
		       (int)o->pids[i]);
		return -1;
	}
	return 0;
}

/*
 * The module raises fewer buffers than GOTRACE_CHUNKS_PER_CPU_MIN a CPU
 * to that: a smaller --buffer-size would be a silent lie.  (The BPF
 * backend's rings take any size.)
 */
static int rec_check_buffers(const struct recorder *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long min;
	char b[32];

	if (!r->opts.chunks || cpus <= 0)
		return 0;
	min = (unsigned long long)GOTRACE_CHUNKS_PER_CPU_MIN * (unsigned long)cpus;
	if (r->opts.chunks >= min)
		return 0;
	gt_err("--buffer-size: the module takes at least %s here (%u buffers of 64 KiB a CPU, %ld CPUs online)",
	       gt_fmt_bytes(min * GOTRACE_CHUNK_BYTES, b, sizeof(b)),
	       GOTRACE_CHUNKS_PER_CPU_MIN, cpus);
	return -1;
}

static int rec_parse(struct recorder *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "device",	required_argument,	NULL, 'D' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "tid",	no_argument,		NULL, O_TID },
		{ "children",	no_argument,		NULL, O_CHILDREN },
		{ "comm",	required_argument,	NULL, 'c' },
		{ "cgroup",	required_argument,	NULL, O_CGROUP },
		{ "unit",	required_argument,	NULL, O_UNIT },
		{ "syscalls",	required_argument,	NULL, O_SYSCALLS },
		{ "syscall-filter", required_argument,	NULL, O_SYSCALL_FILTER },
		{ "buffer-size", required_argument,	NULL, O_BUFFER_SIZE },
		{ "no-stacks",	no_argument,		NULL, O_NO_STACKS },
		{ "no-wake-stacks", no_argument,	NULL, O_NO_WAKE_STACKS },
		{ "no-units",	no_argument,		NULL, O_NO_UNITS },
		{ "user-stacks", no_argument,		NULL, O_USER_STACKS },
		{ "no-user-stacks", no_argument,	NULL, O_NO_USER_STACKS },
		{ "no-symbolize", no_argument,		NULL, O_NO_SYMBOLIZE },
		{ "cpu-hz",	optional_argument,	NULL, O_CPU_HZ },
		{ "unwind",	required_argument,	NULL, O_UNWIND },
		{ "unwind-memory", required_argument,	NULL, O_UNWIND_MEMORY },
		{ "interrupts",	required_argument,	NULL, O_INTERRUPTS },
		{ "sample-isolated", no_argument,	NULL, O_SAMPLE_ISOLATED },
		{ "backend",	required_argument,	NULL, O_BACKEND },
		{ "format",	required_argument,	NULL, O_FORMAT },
		{ "rotate",	required_argument,	NULL, O_ROTATE },
		{ "keep",	required_argument,	NULL, O_KEEP },
		{ "flight",	required_argument,	NULL, O_FLIGHT },
		{ "flight-size", required_argument,	NULL, O_FLIGHT_SIZE },
		{ "trigger",	required_argument,	NULL, O_TRIGGER },
		{ "trigger-pid", required_argument,	NULL, O_TRIG_PID },
		{ "trigger-tid", required_argument,	NULL, O_TRIG_TID },
		{ "trigger-comm", required_argument,	NULL, O_TRIG_COMM },
		{ "trigger-post", required_argument,	NULL, O_TRIG_POST },
		{ "trigger-holdoff", required_argument,	NULL, O_TRIG_HOLDOFF },
		{ "go",		required_argument,	NULL, O_GO },
		{ "go-trace",	required_argument,	NULL, O_GO_TRACE },
		{ NULL, 0, NULL, 0 }
	};
	const char *pids = NULL, *cgroup = NULL, *unit = NULL;
	bool tids = false, children = false;
	int c, bad = 0, idx;

	gt_opts_init(&r->opts);
	gt_opts_module_defaults(&r->opts, GT_PARAM_DIR);
	while ((c = getopt_long(argc, argv, "+o:d:qhp:c:", opts, &idx)) != -1) {
		switch (c) {
		case 'o':
			r->out_path = optarg;
			r->out_given = true;
			break;
		case 'd':
			if (!gt_parse_duration(optarg, &r->duration_ns)) {
				gt_err("invalid duration '%s': want seconds or a unit, e.g. 10, 0.5, 500ms, 2m",
				       optarg);
				return -1;
			}
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			return 1;
		case 'D':
			r->dev_path = optarg;
			r->dev_given = true;
			break;
		case O_BACKEND:
			if (gt_backend_parse(optarg, &r->backend))
				return -1;
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "go1.23")) {
				r->opts.format = GOTRACE_FORMAT_GO123;
			} else if (!strcmp(optarg, "go1.11")) {
				r->opts.format = GOTRACE_FORMAT_GO111;
			} else {
				gt_err("invalid format '%s': want go1.11 or go1.23",
				       optarg);
				return -1;
			}
			break;
		case O_ROTATE:
			if (gt_rotate_parse(optarg, &r->rotate)) {
				gt_err("invalid rotation '%s': want a time (2s, 1m, 1h) or a size (512M, 1G)",
				       optarg);
				return -1;
			}
			r->rotating = true;
			break;
		case O_KEEP:
			if (!parse_keep(optarg, &r->rotate.keep)) {
				gt_err("invalid --keep '%s': want a number of files, at least 1",
				       optarg);
				return -1;
			}
			break;
		case O_FLIGHT:
		case O_FLIGHT_SIZE:
		case O_TRIGGER:
		case O_TRIG_PID:
		case O_TRIG_TID:
		case O_TRIG_COMM:
		case O_TRIG_POST:
		case O_TRIG_HOLDOFF:
			if (rec_parse_flight(r, c, optarg))
				return -1;
			break;
		case 'p':
			pids = optarg;
			break;
		case O_TID:
			tids = true;
			break;
		case O_CHILDREN:
			children = true;
			break;
		case 'c':
			bad |= gt_opts_comm(&r->opts, optarg);
			break;
		case O_CGROUP:
			cgroup = optarg;
			break;
		case O_UNIT:
			unit = optarg;
			break;
		case O_SYSCALLS:
			bad |= gt_opts_syscalls(&r->opts, optarg);
			break;
		case O_SYSCALL_FILTER:
			bad |= gt_opts_syscall_filter(&r->opts, optarg);
			break;
		case O_BUFFER_SIZE:
			bad |= gt_opts_buffer_size(&r->opts, optarg);
			break;
		case O_NO_STACKS:
			r->opts.flags |= GOTRACE_OPT_NO_KSTACKS;
			break;
		case O_NO_WAKE_STACKS:
			r->opts.flags |= GOTRACE_OPT_NO_WAKE_KSTACKS;
			break;
		case O_NO_UNITS:
			r->opts.flags |= GOTRACE_OPT_NO_UNITS;
			break;
		case O_USER_STACKS:
			r->opts.flags |= GOTRACE_OPT_USER_STACKS;
			r->user_stacks_given = true;
			break;
		case O_NO_USER_STACKS:
			r->opts.flags &= ~GOTRACE_OPT_USER_STACKS;
			r->user_stacks_given = false;
			break;
		case O_NO_SYMBOLIZE:
			r->no_symbolize = true;
			break;
		case O_CPU_HZ:
			/*
			 * The rate is optional, so getopt takes only
			 * --cpu-hz=N; "--cpu-hz 999" (perf -F's way) would
			 * otherwise run a COMMAND named 999.
			 */
			if (!optarg && optind < argc && argv[optind][0] >= '0' &&
			    argv[optind][0] <= '9')
				optarg = argv[optind++];
			/* "--cpu-hz abc": a mistyped rate, unless abc runs. */
			else if (!optarg && optind < argc &&
				 argv[optind][0] != '-' &&
				 !gt_child_findable(argv[optind]))
				optarg = argv[optind];
			bad |= gt_opts_cpu_hz(&r->opts, optarg);
			r->cpu_hz_given = true;
			break;
		case O_SAMPLE_ISOLATED:
			r->opts.flags |= GOTRACE_OPT_CPU_ISOLATED;
			break;
		case O_GO:
			r->go.url = optarg;
			break;
		case O_GO_TRACE:
			r->go.trace = optarg;
			break;
		case O_INTERRUPTS:
			if (gt_opts_interrupts(&r->opts, optarg))
				return -1;
			break;
		case O_UNWIND:
			r->unwind_given = true;
			if (!strcmp(optarg, "auto")) {
				r->unwind = UNWIND_AUTO;
			} else if (!strcmp(optarg, "fp")) {
				r->unwind = UNWIND_FP;
			} else if (!strcmp(optarg, "eh-frame")) {
				r->unwind = UNWIND_TABLES;
			} else {
				gt_err("--unwind: '%s' is none of fp, eh-frame, auto",
				       optarg);
				return -1;
			}
			break;
		case O_UNWIND_MEMORY:
			r->unwind_given = true;
			if (!gt_flight_parse_size(optarg, &r->unwind_memory) ||
			    r->unwind_memory < (1U << 20) ||
			    r->unwind_memory > (1ULL << 31)) {
				gt_err("--unwind-memory: '%s' is no size from 1M to 2G",
				       optarg);
				return -1;
			}
			break;
		default:
			gt_usage_hint("record");
			return -1;
		}
		if (bad)
			return -1;
		if (c != 'o' && c != 'd' && c != 'q' && c != 'D' &&
		    c != O_BACKEND && c != O_ROTATE && c != O_KEEP &&
		    (c < O_FLIGHT || c > O_UNWIND_MEMORY)) {
			size_t n = strlen(r->opt_names);
			const char *name = c == 'p' ? "pid" : c == 'c' ? "comm" :
					   opts[idx].name;

			r->have_opts = true;
			if (!strstr(r->opt_names, name))
				snprintf(r->opt_names + n, sizeof(r->opt_names) - n,
					 "%s--%s", n ? ", " : "", name);
		}
	}
	if (pids && (gt_opts_pids(&r->opts, pids, tids) ||
		     rec_pids_exist(&r->opts, tids)))
		return -1;
	if (cgroup && unit) {
		gt_err("one cgroup per recording: --cgroup and --unit exclude each other");
		return -1;
	}
	if (cgroup && gt_opts_cgroup(&r->opts, cgroup, &gt_cgroupfs))
		return -1;
	if (unit && gt_opts_unit(&r->opts, unit, &gt_cgroupfs))
		return -1;
	if (optind < argc)
		r->cmd = argv + optind;
	if (tids && !pids) {
		gt_err("--tid goes with -p");
		return -1;
	}
	if (children && !pids && !r->opts.comm[0] && !r->opts.cgroup_id) {
		if (!r->cmd) {
			gt_err("--children goes with -p, -c, --cgroup, --unit or a COMMAND");
			return -1;
		}
		/* Only COMMAND and its descendants: its pid, once forked. */
		r->cmd_filter = true;
		r->opts.flags |= GOTRACE_OPT_TGID;
	}
	if (children)
		r->opts.flags |= GOTRACE_OPT_CHILDREN;
	if (!*r->out_path) {
		gt_err("empty output file name");
		return -1;
	}
	if (r->opts.cpu_hz && r->opts.format == GOTRACE_FORMAT_GO111) {
		/* The module's parameter samples go1.23 sessions only. */
		if (!r->cpu_hz_given) {
			r->opts.cpu_hz = 0;
		} else {
			gt_err("--cpu-hz: the go1.11 format has no CPU samples (they came with Go 1.19's format); record --format go1.23");
			return -1;
		}
	}
	if (rec_check_flight(r) || rec_check_rotate(r) ||
	    gt_recgo_check(&r->go, r->out_path, r->duration_ns, r->cmd,
			   r->rotating, r->flighting,
			   r->opts.format == GOTRACE_FORMAT_GO111))
		return -1;
	/* -o names the merged trace: the recording goes beside it. */
	if (gt_recgo_on(&r->go))
		r->out_path = r->go.kernel;
	return 0;
}

/*
 * Open the output before any session exists, and prepare what a second
 * signal says about it.
 */
static int rec_open_output(struct recorder *r)
{
	if (r->flighting) {
		if (gt_flight_open(&r->fl, r->out_path))
			return -1;
		r->fl.kept.keep = r->rotate.keep;
		r->out.path = r->out_path;
		gt_recsig_abort_msg("%s: aborted: a snapshot being written stays in %s/.flight-%d.trace.tmp\n",
				    GT_NAME, r->out_path, (int)getpid());
		return 0;
	}
	if (r->rotating) {
		/* The module's stream, cut where its generations begin. */
		if (gt_rotate_open(&r->rot, &r->rotate))
			return -1;
		r->out.path = r->rotate.dir;
		gt_recsig_abort_msg("%s: aborted: the last file in %s keeps its .tmp name\n",
				    GT_NAME, r->rotate.dir);
		return 0;
	}
	if (gt_output_open(&r->out, r->out_path, "trace",
			   GT_OUTPUT_KEEP_OLD))
		return -1;
	gt_recsig_abort_output(&r->out);
	return 0;
}

/*
 * The recording is over: a complete trace replaces FILE (the previous
 * one kept as FILE.old); anything else leaves FILE as it was.
 */
static void rec_finish_output(struct recorder *r, bool complete)
{
	if (r->flighting) {
		if (r->fl.fd >= 0)
			gt_err("a snapshot was cut short: it stays in %s",
			       r->fl.tmp);
		gt_flight_close(&r->fl);
		return;
	}
	if (r->rotating) {
		if (gt_rotate_close(&r->rot, complete) && complete) {
			gt_err("writing %s: %s", gt_rotate_where(&r->rot),
			       strerror(r->rot.err));
			r->failed = true;
		}
		return;
	}
	if (complete) {
		if (gt_output_commit(&r->out))
			r->failed = true;
		return;
	}
	if (gt_output_abandon(&r->out, true))
		gt_output_say_kept(&r->out);
}

/*
 * COMMAND could not run: nothing was recorded.  "gotrace record
 * trace.out" (-o forgotten) lands here; FILE is left as it was.
 */
static void rec_command_failed(struct recorder *r)
{
	gt_output_abandon(&r->out, false);
	if (!r->out_given && !access(r->cmd[0], F_OK) &&
	    access(r->cmd[0], X_OK))
		gt_err("'%s' is a file, not a command: to record into it, use -o %s",
		       r->cmd[0], r->cmd[0]);
}

static int rec_exit_code(struct recorder *r)
{
	if (r->failed)
		return GT_EXIT_FAIL;
	return r->child.ran ? gt_child_exit_code(&r->child) : GT_EXIT_OK;
}

/* The trace is complete: from now on a signal may simply kill gotrace. */
static void rec_wait_command(struct recorder *r)
{
	if (!r->quiet)
		fprintf(stderr, "%s: waiting for %s (pid %d) to exit\n",
			GT_NAME, r->cmd[0], (int)r->child.pid);
	gt_recsig_restore(&r->oldmask);
	gt_child_reap(&r->child, true);
}

/*
 * Which backend records: -1 when it cannot be had.  A --device is the
 * module's ABI whatever it is (the tests' FIFO).
 */
static int rec_choose_backend(struct recorder *r)
{
	enum gt_backend want = r->backend;

	if (r->dev_given && want == GT_BACKEND_AUTO)
		want = GT_BACKEND_KMOD;
	r->backend = gt_backend_choose(want, r->dev_path,
				       "modprobe -q gotrace 2>/dev/null");
	if (r->backend != GT_BACKEND_BPF || gt_backend_have_bpf())
		return 0;
	if (want == GT_BACKEND_AUTO)
		gt_err("%s: no such device, 'modprobe gotrace' failed, and this gotrace was built without the BPF backend: load gotrace.ko",
		       r->dev_path);
	else
		gt_err("this gotrace was built without the BPF backend (make deps, then rebuild): use --backend kmod");
	return -1;
}

/*
 * How user stacks are walked: by the unwind tables unless --unwind=fp
 * (a module older than them walks frame pointers: source_kmod.c).  The
 * module's options are sent then, even if only its parameters asked
 * for user stacks: the tables are the session's.  -1 where --unwind
 * asks for what cannot be.
 */
static int rec_unwind_mode(struct recorder *r)
{
	size_t n = strlen(r->opt_names);

	if (!(r->opts.flags & GOTRACE_OPT_USER_STACKS)) {
		if (!r->unwind_given)
			return 0;
		gt_err("--unwind and --unwind-memory say how user stacks are walked: add --user-stacks");
		return -1;
	}
	if (r->unwind == UNWIND_FP)
		return 0;
	r->opts.flags |= GOTRACE_OPT_UNWIND_TABLES;
	if (r->backend == GT_BACKEND_BPF)
		return 0;
	r->have_opts = true;
	if (!strstr(r->opt_names, "--unwind"))
		snprintf(r->opt_names + n, sizeof(r->opt_names) - n, "%s--unwind",
			 n ? ", " : "");
	return 0;
}

/* A rotated file is complete: name its user frames in the background. */
static void rec_name_frames(void *arg, const char *path)
{
	gt_recsym_spawn(arg, path);
}

/* The recorder whose progress line a message erases first. */
static struct recorder *rec_shown;

static void rec_before_msg(void)
{
	rec_clear_progress(rec_shown);
}

/*
 * The source that records, its options sent: the module's (a FIFO's
 * with --device) or the BPF programs'.
 */
static struct gt_source *rec_open_source(struct recorder *r)
{
	struct gt_source_args a = {
		.opts = r->opts,
		.send_opts = r->have_opts,
		.opt_names = r->opt_names,
		.trig = &r->trig,
		.dev_path = r->dev_path,
		.unwind_bytes = r->unwind_memory,
		.unwind_required = r->unwind == UNWIND_TABLES,
	};

#ifdef GT_HAVE_BPF
	if (r->backend == GT_BACKEND_BPF)
		return gt_source_bpf_open(&a);
#endif
	return gt_source_kmod_open(&a);
}

int cmd_record(int argc, char **argv)
{
	struct recorder r = {
		.out_path = "trace.out",
		.dev_path = GOTRACE_DEVICE_PATH,
		.out = { .fd = -1 },
		.rot = { .fd = -1 },
		.fl = { .fd = -1 },
		.child = { .go_fd = -1, .err_fd = -1 },
		.go = { .go_fd = -1 },
	};
	struct gotrace_status st;
	bool have_st = false;
	int ret, code;

	ret = rec_parse(&r, argc, argv);
	if (ret > 0) {
		record_usage(stdout);
		return GT_EXIT_OK;
	}
	if (ret)
		return GT_EXIT_USAGE;
	if (rec_choose_backend(&r))
		return GT_EXIT_FAIL;
	/* The module's parameters ask the module only. */
	if (r.backend == GT_BACKEND_BPF && !r.user_stacks_given)
		r.opts.flags &= ~GOTRACE_OPT_USER_STACKS;
	if (r.backend == GT_BACKEND_BPF && !r.cpu_hz_given)
		r.opts.cpu_hz = 0;
	if (rec_unwind_mode(&r))
		return GT_EXIT_USAGE;
	if (r.backend != GT_BACKEND_BPF && rec_check_buffers(&r))
		return GT_EXIT_USAGE;
	r.sym.on = (r.opts.flags & GOTRACE_OPT_USER_STACKS) && !r.no_symbolize;
	r.sym.quiet = r.quiet;
	r.sym.naming = gt_recsig_naming;
	r.rotate.committed = rec_name_frames;
	r.rotate.arg = &r.sym;
	if (rec_open_output(&r))
		return GT_EXIT_FAIL;
	r.progress = !r.quiet && isatty(STDERR_FILENO);
	r.notify = gt_notify_enabled();
	rec_shown = &r;
	gt_msg_hook(rec_before_msg);
	gt_recsig_say(r.quiet, r.progress);
	gt_recsig_install(true, &r.oldmask);

	/*
	 * --children with COMMAND and no other filter: fork COMMAND held,
	 * filter on its pid, let it exec once the recording runs.
	 */
	if (r.cmd_filter) {
		if (gt_child_fork(&r.child, r.cmd, &r.oldmask,
				  r.out.fd == STDOUT_FILENO))
			goto fail;
		gt_recsig_child(r.child.pid);
		r.opts.pids[0] = r.child.pid;
		r.opts.nr_pids = 1;
	}
	if (gt_recgo_fork(&r.go))
		goto fail;
	r.src = rec_open_source(&r);
	if (!r.src || r.src->ops->start(r.src))
		goto fail;
	if (gt_recgo_start(&r.go))
		goto fail;
	r.start_ns = gt_now_ns();
	r.next_progress_ns = r.start_ns + REC_PROGRESS_NS;
	/* --go: the fetch's end ends it (GO_FETCH_GRACE_NS if it hangs). */
	if (r.duration_ns)
		r.deadline_ns = r.start_ns + r.duration_ns +
				(r.go.url ? GO_FETCH_GRACE_NS : 0);
	if (r.cmd && (r.cmd_filter ? gt_child_exec(&r.child) :
		      gt_child_start(&r.child, r.cmd, &r.oldmask,
				     r.out.fd == STDOUT_FILENO))) {
		rec_command_failed(&r);
		code = 127;
		goto out;
	}
	gt_recsig_child(r.child.pid);
	/* The session records (and COMMAND runs): a unit's start is done. */
	gt_notify_ready();

	ret = rec_loop(&r);
	rec_clear_progress(&r);
	have_st = !r.src->ops->status(r.src, &st);
	rec_finish_output(&r, !ret && !r.failed);
	rec_summary(&r, &st, have_st);
	if (!r.failed && !r.flighting && !r.rotating)
		gt_recsym_file(&r.sym, r.out.path);
	gt_recsym_finish(&r.sym);
	if (r.child.pid)
		rec_wait_command(&r);
	code = rec_exit_code(&r);
	if (gt_recgo_on(&r.go) && !r.failed && !ret &&
	    gt_recgo_merge(&r.go, r.quiet) && code == GT_EXIT_OK)
		code = GT_EXIT_FAIL;
	goto out;
fail:
	/* Nothing was recorded: FILE stays as it was. */
	if (r.flighting)
		gt_flight_close(&r.fl);
	else if (r.rotating)
		gt_rotate_close(&r.rot, false);
	else
		gt_output_abandon(&r.out, false);
	code = GT_EXIT_FAIL;
out:
	gt_recgo_cancel(&r.go);
	gt_recgo_free(&r.go);
	if (r.child.go_fd >= 0)
		gt_child_cancel(&r.child);	/* held, never let go */
	if (r.src)
		r.src->ops->close(r.src);
	gt_msg_hook(NULL);
	if (r.flighting)
		gt_flight_close(&r.fl);
	else if (r.rotating)
		gt_rotate_free(&r.rot);
	else
		gt_output_free(&r.out);
	return code;
}
