// SPDX-License-Identifier: GPL-2.0
/*
 * corner.c - workloads that drive the module into its corner cases: task
 * table turnover, filters decided late, blocks that are not syscalls
 *
 *   corner forkstorm N      gt_forkstorm vfork()s N children that exit at
 *                           once, reaping each
 *   corner gate FIFO K      gt_gated waits for a byte on FIFO, then makes
 *                           exactly K getppid calls
 *   corner getppid K [PROG ARG...]
 *                           makes exactly K getppid calls under the name
 *                           of its file (it never renames itself), then
 *                           executes PROG if given
 *   corner uffd READY FIFO N
 *                           gt_faulter, a thread that makes no syscall
 *                           once READY exists, writes to N pages that
 *                           gt_uffd (the main thread) fills through
 *                           userfaultfd: every one of its blocks is a
 *                           page fault, none a syscall; both start when a
 *                           byte arrives on FIFO
 *   corner uring FIFO N     gt_uring opens FIFO for reading N times through
 *                           io_uring (IORING_OP_OPENAT, forced async): an
 *                           io_uring worker (iou-wrk-PID) sleeps in the
 *                           open until gt_uring opens FIFO for writing
 *
 * Exits 0 when the workload ran as described.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

static void getppids(long k)
{
	long i;

	for (i = 0; i < k; i++)
		syscall(SYS_getppid);
}

/* Block until a byte arrives on @fifo (opening it waits for a writer). */
static void wait_fifo(const char *fifo)
{
	int fd = open(fifo, O_RDONLY);
	char c;

	if (fd < 0)
		die(fifo);
	if (read(fd, &c, 1) != 1)
		die("read fifo");
	close(fd);
}

static int forkstorm(long n)
{
	long i;
	pid_t pid;

	name_self("gt_forkstorm");
	for (i = 0; i < n; i++) {
		pid = vfork();
		if (pid < 0)
			die("vfork");
		if (!pid)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid");
	}
	return 0;
}

static int gate(const char *fifo, long k)
{
	name_self("gt_gated");
	wait_fifo(fifo);
	getppids(k);
	return 0;
}

static int getppid_exec(long k, char **prog)
{
	getppids(k);
	if (prog[0]) {
		execv(prog[0], prog);
		die(prog[0]);
	}
	return 0;
}

/* ---- userfaultfd ------------------------------------------------------ */

static atomic_int uffd_named, uffd_go;
static char *uffd_area;
static long uffd_pages, page_size;

/*
 * Spins instead of waiting in the kernel: a syscall made while gotrace
 * records would tell it which syscall the thread is in.
 */
/* The spin-wait hint of the CPU: pause on x86-64, yield on arm64. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

static void *faulter(void *arg)
{
	long i;

	(void)arg;
	name_self("gt_faulter");
	atomic_store(&uffd_named, 1);
	while (!atomic_load(&uffd_go))
		cpu_relax();
	for (i = 0; i < uffd_pages; i++)
		uffd_area[i * page_size] = 1;
	return NULL;
}

static int uffd(const char *ready, const char *fifo, long n)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy copy;
	struct uffd_msg msg;
	pthread_t thread;
	char *page;
	long i;
	int fd;

	name_self("gt_uffd");
	page_size = sysconf(_SC_PAGESIZE);
	uffd_pages = n;
	fd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0 && errno == ENOSYS) {
		/* CONFIG_USERFAULTFD is off: nothing to show, not a failure. */
		printf("userfaultfd: not in this kernel\n");
		return 4;
	}
	if (fd < 0)
		die("userfaultfd");
	if (ioctl(fd, UFFDIO_API, &api))
		die("UFFDIO_API");
	uffd_area = mmap(NULL, n * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (uffd_area == MAP_FAILED || page == MAP_FAILED)
		die("mmap");
	memset(page, 0x5a, page_size);
	reg.range.start = (unsigned long)uffd_area;
	reg.range.len = n * page_size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(fd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	if (pthread_create(&thread, NULL, faulter, NULL))
		die("pthread_create");
	while (!atomic_load(&uffd_named))
		sched_yield();
	if (close(open(ready, O_WRONLY | O_CREAT, 0600)))
		die(ready);
	wait_fifo(fifo);
	atomic_store(&uffd_go, 1);
	for (i = 0; i < n; i++) {
		if (read(fd, &msg, sizeof(msg)) != sizeof(msg))
			die("read uffd");
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			die("uffd event");
		copy.dst = msg.arg.pagefault.address & ~(page_size - 1);
		copy.src = (unsigned long)page;
		copy.len = page_size;
		copy.mode = 0;
		if (ioctl(fd, UFFDIO_COPY, &copy))
			die("UFFDIO_COPY");
	}
	if (pthread_join(thread, NULL))
		die("pthread_join");
	for (i = 0; i < n; i++)
		if (uffd_area[i * page_size] != 1)
			die("page not written");
	return 0;
}

/* ---- io_uring --------------------------------------------------------- */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void ring_setup(struct ring *r)
{
	struct io_uring_params p;
	void *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(SYS_io_uring_setup, 4, &p);
	if (r->fd < 0)
		die("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes +
		  p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap ring");
	r->sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
}

/* Queue an openat(@path, O_RDONLY) that runs in an io_uring worker. */
static void ring_open_async(struct ring *r, const char *path)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_OPENAT;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->open_flags = O_RDONLY;
	r->sq_array[i] = i;
	atomic_store_explicit((_Atomic unsigned int *)r->sq_tail, tail + 1,
			      memory_order_release);
	if (syscall(SYS_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) != 1)
		die("io_uring_enter submit");
}

/* Wait for the one completion, return its result. */
static int ring_complete(struct ring *r)
{
	unsigned int head = *r->cq_head;
	int res;

	if (syscall(SYS_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		die("io_uring_enter wait");
	if (atomic_load_explicit((_Atomic unsigned int *)r->cq_tail,
				 memory_order_acquire) == head)
		die("no completion");
	res = r->cqes[head & *r->cq_mask].res;
	atomic_store_explicit((_Atomic unsigned int *)r->cq_head, head + 1,
			      memory_order_release);
	return res;
}

/* Is a thread of this process named iou-wrk-* asleep (state S)? */
static int worker_asleep(void)
{
	char path[300], buf[300], *p;
	struct dirent *d;
	int found = 0;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc/self/task");
	if (!dir)
		die("/proc/self/task");
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strstr(buf, "(iou-wrk-")) {
			p = strrchr(buf, ')');
			found = p && p[1] == ' ' && p[2] == 'S';
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

static int uring(const char *fifo, long n)
{
	struct timespec ms = { 0, 1000000 };
	struct ring r;
	int fd, wfd;
	long i;

	name_self("gt_uring");
	ring_setup(&r);
	for (i = 0; i < n; i++) {
		ring_open_async(&r, fifo);
		/* The worker sleeps in the open until a writer comes. */
		while (!worker_asleep())
			nanosleep(&ms, NULL);
		wfd = open(fifo, O_WRONLY);
		if (wfd < 0)
			die("open fifo for writing");
		fd = ring_complete(&r);
		if (fd < 0) {
			errno = -fd;
			die("IORING_OP_OPENAT");
		}
		close(fd);
		close(wfd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "forkstorm") && arg(argv, 2, argc) > 0)
		return forkstorm(arg(argv, 2, argc));
	if (!strcmp(cmd, "gate") && argc == 4 && arg(argv, 3, argc) > 0)
		return gate(argv[2], arg(argv, 3, argc));
	if (!strcmp(cmd, "getppid") && arg(argv, 2, argc) > 0)
		return getppid_exec(arg(argv, 2, argc), argv + 3);
	if (!strcmp(cmd, "uffd") && argc == 5 && arg(argv, 4, argc) > 0)
		return uffd(argv[2], argv[3], arg(argv, 4, argc));
	if (!strcmp(cmd, "uring") && argc == 4 && arg(argv, 3, argc) > 0)
		return uring(argv[2], arg(argv, 3, argc));
	fprintf(stderr, "usage: see the comment at the top of corner.c\n");
	return 2;
}
