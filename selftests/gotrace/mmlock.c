// SPDX-License-Identifier: GPL-2.0
/*
 * mmlock.c - a process whose mmap_lock stays held, as a stuck FUSE
 * daemon holds it
 *
 *   mmlock DIR SECONDS
 *
 * Mounts a FUSE file system on DIR (DIR/f, one page) served by a child,
 * gt_fused, that answers everything but the reads of f: those it leaves
 * unanswered.  The process maps DIR/f, and
 *   - a thread, gt_mmreader, reads the mapped page through
 *     /proc/self/mem: the kernel faults it in with the mmap_lock held
 *     for reading (a remote access cannot drop it, unlike a fault of the
 *     task's own), and waits for the read that never comes;
 *   - a thread, gt_mmwriter, then calls mmap(), which queues for the
 *     lock for writing: from then on nobody gets it for reading, a
 *     mmap_read_lock() of another process waits, a trylock fails;
 *   - the main thread, gt_mmlock, prints "held" and then blocks and
 *     wakes every 5 ms (nanosleep), in user code with its own frames,
 *     for SECONDS or until SIGTERM or SIGINT.
 * It then kills gt_fused, which aborts the connection: the read fails,
 * the lock is released, the threads end; it unmounts DIR and exits 0.
 *
 * Exits 4 (skip) when FUSE is not there (no /dev/fuse, or the mount
 * refused), 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

#define PAGE		4096
#define FILE_INO	2
#define READ_BUF	(FUSE_MIN_READ_BUFFER + (1 << 20))

static volatile sig_atomic_t stop;
static int dev_fd;
static const char *mapped;
static int go_write[2];		/* gt_mmwriter's cue */
static volatile pid_t writer_tid;

/*
 * The stop signal's frame goes here, not on the main stack.  A frame
 * that reached an untouched page of the main stack would fault while
 * the lock is held, and the fault would queue behind gt_mmwriter for a
 * lock that only the stop releases: the process would hang until
 * SIGKILL.  arm64's frame, with its SVE and SME state, takes several
 * pages; the stack is touched (locked) before the lock is held.
 */
static char stop_stack[256 * 1024] __attribute__((aligned(16)));

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Everything the main thread and its stop signal touch from the lock
 * on is made present now: stop_stack, and every page of code and data
 * mapped so far (mlockall(), before DIR/f is mapped: its page must stay
 * unread).
 */
static void prepare_stop(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_sp = stop_stack, .ss_size = sizeof(stop_stack) };

	memset(stop_stack, 0, sizeof(stop_stack));
	if (sigaltstack(&ss, NULL))
		die("sigaltstack");
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction");
	if (mlockall(MCL_CURRENT))
		die("mlockall");
}

/* ---- gt_fused: the daemon ---------------------------------------------- */

static void reply(uint64_t unique, int error, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *out = (void *)buf;

	out->len = sizeof(*out) + len;
	out->error = error;
	out->unique = unique;
	memcpy(buf + sizeof(*out), arg, len);
	/* An interrupted request's reply is refused (ENOENT): harmless. */
	if (write(dev_fd, buf, out->len) < 0 && errno != ENOENT)
		die("write /dev/fuse");
}

static void attr_of(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = ino == FILE_INO ? 1 : 2;
	a->mode = ino == FILE_INO ? S_IFREG | 0444 : S_IFDIR | 0755;
	a->size = ino == FILE_INO ? PAGE : 0;
	a->blocks = a->size / 512;
	a->blksize = PAGE;
}

/* Serve /dev/fuse until killed; @notify gets a byte at the first read. */
static void daemon_loop(int notify)
{
	char *buf = malloc(READ_BUF);
	struct fuse_in_header *in = (void *)buf;
	void *arg = buf + sizeof(*in);
	bool told = false;
	ssize_t n;

	if (!buf)
		die("malloc");
	name_self("gt_fused");
	/* Never outlive the process: the lock would stay held. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		die("prctl");
	for (;;) {
		n = read(dev_fd, buf, READ_BUF);
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			if (errno == ENODEV)	/* unmounted */
				exit(0);
			die("read /dev/fuse");
		}
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = arg;
			struct fuse_init_out io = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < 31 ? ii->minor : 31,
				.max_readahead = ii->max_readahead,
				.max_write = PAGE,
				.time_gran = 1,
			};

			reply(in->unique, 0, &io, sizeof(io));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out eo = {
				.nodeid = FILE_INO,
				.entry_valid = 3600,
				.attr_valid = 3600,
			};

			if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			attr_of(FILE_INO, &eo.attr);
			reply(in->unique, 0, &eo, sizeof(eo));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out ao = { .attr_valid = 3600 };

			attr_of(in->nodeid, &ao.attr);
			reply(in->unique, 0, &ao, sizeof(ao));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out oo = { .fh = 1 };

			reply(in->unique, 0, &oo, sizeof(oo));
			break;
		}
		case FUSE_READ:
			/* Never answered: the page stays locked, not read. */
			if (!told && write(notify, "r", 1) == 1)
				told = true;
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			reply(in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply */
		default:
			reply(in->unique, -ENOSYS, NULL, 0);
		}
	}
}

/* ---- The process whose lock is held ------------------------------------ */

/* gt_mmreader: a remote read of the page, with the mmap_lock held. */
static void *mem_reader(void *unused)
{
	char c;
	int fd;

	(void)unused;
	name_self("gt_mmreader");
	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0)
		die("open /proc/self/mem");
	/* Returns only once gt_fused is gone: EIO, or EFAULT. */
	if (pread(fd, &c, 1, (off_t)(uintptr_t)mapped) == 1)
		fprintf(stderr, "the read of the page was answered\n");
	close(fd);
	return NULL;
}

/*
 * gt_mmwriter: at its cue, queues for the lock for writing, behind
 * gt_mmreader.  Made before the lock is held: a thread's stack is an
 * mmap() too.
 */
static void *mm_writer(void *unused)
{
	void *p;
	char c;

	(void)unused;
	name_self("gt_mmwriter");
	if (read(go_write[0], &c, 1) != 1)
		return NULL;
	writer_tid = (pid_t)syscall(SYS_gettid);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	return NULL;
}

/* The state letter of thread @tid of this process, '?' if unknown. */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Blocks in user code of its own, for the stacks the session walks.
 * From when the lock is held on, the main thread makes no call that
 * maps memory (malloc, stdio's first buffer, a thread): that would wait
 * for the lock too.
 */
static __attribute__((noinline)) void lock_held_nap(void)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	pthread_t reader, writer;
	long secs = arg(argv, 2, argc);
	char opts[128], c;
	int notify[2], i, fd, n;
	struct timespec t0, t;
	pid_t fused;

	if (argc != 3 || secs < 0) {
		fprintf(stderr, "usage: mmlock DIR SECONDS\n");
		return 1;
	}
	dev_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev_fd < 0) {
		perror("/dev/fuse");
		return 4;
	}
	mkdir(argv[1], 0755);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 dev_fd);
	if (mount("gt_fuse", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("mount fuse");
		return 4;
	}
	if (pipe(notify))
		die("pipe");
	fused = fork();
	if (fused < 0)
		die("fork");
	if (!fused) {
		close(notify[0]);
		daemon_loop(notify[1]);
	}
	/* gt_fused holds the only other handle: its death aborts. */
	close(dev_fd);
	close(notify[1]);
	name_self("gt_mmlock");

	snprintf(opts, sizeof(opts), "%s/f", argv[1]);
	fd = open(opts, O_RDONLY);
	if (fd < 0)
		die("open DIR/f");
	prepare_stop();
	mapped = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (mapped == MAP_FAILED)
		die("mmap DIR/f");
	close(fd);

	/* The vDSO's data pages fault in under the lock: touched now. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pipe(go_write))
		die("pipe");
	if (pthread_create(&writer, NULL, mm_writer, NULL) ||
	    pthread_create(&reader, NULL, mem_reader, NULL))
		die("pthread_create");
	lock_held_nap();
	if (read(notify[0], &c, 1) != 1) {
		fprintf(stderr, "gt_fused never saw the read of the page\n");
		return 1;
	}
	if (write(go_write[1], "w", 1) != 1)
		die("write");
	/* Queued for the lock: asleep in mmap(), uninterruptible. */
	for (i = 0; i < 10000 && (!writer_tid ||
				  thread_state(writer_tid) != 'D'); i++)
		lock_held_nap();
	if (thread_state(writer_tid) != 'D') {
		fprintf(stderr, "gt_mmwriter never waited for the lock\n");
		return 1;
	}
	n = snprintf(opts, sizeof(opts), "held %d\n", (int)getpid());
	if (write(STDOUT_FILENO, opts, n) != n)
		die("write");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		lock_held_nap();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!stop && t.tv_sec - t0.tv_sec < secs);

	kill(fused, SIGKILL);
	waitpid(fused, NULL, 0);
	pthread_join(reader, NULL);
	pthread_join(writer, NULL);
	if (umount2(argv[1], MNT_DETACH))
		perror("umount");
	printf("released\n");
	return 0;
}
