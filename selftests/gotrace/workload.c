// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - programs with a known scheduling history, for checking
 * what gotrace records against the truth
 *
 *   workload pingpong N [MS] gt_ping and gt_pong pass a byte over two
 *                           pipes N times each way; gt_ping sleeps MS ms
 *                           before each round (default 0), so that the
 *                           run lasts N * MS ms at least
 *   workload forks K        gt_forker forks K children named gt_child that
 *                           exit at once; it waits for each
 *   workload sleep N MS     gt_sleeper sleeps N times MS ms in nanosleep
 *   workload mutex T N      T threads named gt_mutex take one mutex N times
 *                           each, holding it across a 1 ms sleep so that
 *                           the others wait in futex
 *   workload exec           copies itself to /tmp/gt_renamed and executes
 *                           that ("workload renamed"), which sleeps 10 ms
 *                           without renaming itself and exits
 *   workload churn S        many short processes and threads on every CPU
 *                           for S seconds (the stress run): gt_churn forks
 *                           one gt_churn per CPU, each of which forks
 *                           children that rename themselves
 *                           gt_churn_child and exit, and starts threads
 *                           that keep its name; prints how many of each
 *   workload getppid K      gt_getppid makes exactly K getppid calls
 *   workload sigwait N      gt_sigwait waits N times in rt_sigtimedwait for
 *                           a SIGUSR1 that gt_signaller sends 20 ms after
 *                           it sees the wait asleep,
 *                           then says so over a pipe and sleeps 5 ms;
 *                           gt_signaller sends the next one only then
 *   workload sock N         gt_sock_a and gt_sock_b pass a byte over a
 *                           socketpair N times each way
 *   workload storm S        gt_storm calls getppid on every CPU for S
 *                           seconds, as fast as it can
 *
 * Every task names itself with prctl(PR_SET_NAME) first, except the
 * renamed program, whose name is its file's.  Exits 0 when
 * the workload ran as described.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload_util.h"

static void xwrite(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		die("write");
}

static void xread(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		die("read");
}

static int pingpong(long n, long ms)
{
	struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
	int to_pong[2], to_ping[2], status;
	pid_t pid;
	long i;

	if (pipe(to_pong) || pipe(to_ping))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		name_self("gt_pong");
		for (i = 0; i < n; i++) {
			xread(to_pong[0]);
			xwrite(to_ping[1], 'o');
		}
		_exit(0);
	}
	name_self("gt_ping");
	for (i = 0; i < n; i++) {
		if (ms)
			nanosleep(&pause, NULL);
		xwrite(to_pong[1], 'i');
		xread(to_ping[0]);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int forks(long k)
{
	int status, bad = 0;
	pid_t pid;
	long i;

	name_self("gt_forker");
	for (i = 0; i < k; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			name_self("gt_child");
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	return bad;
}

static int sleeper(long n, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long i;

	name_self("gt_sleeper");
	for (i = 0; i < n; i++)
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	return 0;
}

static pthread_mutex_t gt_lock = PTHREAD_MUTEX_INITIALIZER;
static long mutex_rounds;
static volatile unsigned long mutex_sink;

/*
 * Hold the lock across a 1 ms sleep, so that whoever else wants it
 * meanwhile has to wait for it in futex, however the CPUs are shared.
 */
static void *mutex_thread(void *arg)
{
	long i;

	(void)arg;
	name_self("gt_mutex");
	for (i = 0; i < mutex_rounds; i++) {
		pthread_mutex_lock(&gt_lock);
		mutex_sink++;
		usleep(1000);
		pthread_mutex_unlock(&gt_lock);
	}
	return NULL;
}

static int mutex(long t, long n)
{
	pthread_t tids[64];
	long i;

	if (t < 1 || t > 64)
		return 2;
	name_self("gt_mutex");
	mutex_rounds = n;
	for (i = 0; i < t; i++)
		if (pthread_create(&tids[i], NULL, mutex_thread, NULL))
			die("pthread_create");
	for (i = 0; i < t; i++)
		pthread_join(tids[i], NULL);
	return 0;
}

/* Copy our own executable to @path, executable. */
static void copy_self(const char *path)
{
	struct stat st;
	int in, out;

	in = open("/proc/self/exe", O_RDONLY);
	if (in < 0 || fstat(in, &st))
		die("/proc/self/exe");
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0)
		die(path);
	if (sendfile(out, in, NULL, st.st_size) != st.st_size)
		die("sendfile");
	close(in);
	if (close(out))
		die("close");
}

static int exec_renamed(void)
{
	static const char path[] = "/tmp/gt_renamed";
	char *const argv[] = { (char *)path, "renamed", NULL };

	name_self("gt_execer");
	copy_self(path);
	execv(path, argv);
	die("execv");
	return 1;
}

static void *churn_thread(void *arg)
{
	(void)arg;
	usleep(100);
	return NULL;
}

/* What one churning process made. */
struct churn_count {
	long forks;
	long threads;
};

/*
 * Seconds on the monotonic clock.  A deadline of time(NULL) + S is
 * anywhere from S - 1 to S seconds away (time() counts whole seconds):
 * "storm 1" started at the end of a second ran a few ms, 8000 calls on
 * the debug kernel, and filled no buffer of overflow_go123_test.sh.
 */
static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Short processes and threads on every CPU until @secs have passed.
 * Prints the exact counts, for the ground truth: every fork and every
 * thread that was started, reported back by each CPU's process.
 */
static int churn(long secs)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), c;
	struct churn_count total = { 0, 0 };
	double end = mono_s() + secs;
	int fds[2], bad = 0;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	name_self("gt_churn");
	for (c = 0; c < ncpu; c++) {
		struct churn_count mine = { 0, 0 };

		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		while (mono_s() < end) {
			pthread_t tid;
			int status;

			pid = fork();
			if (pid == 0) {
				name_self("gt_churn_child");
				_exit(0);
			}
			if (pid > 0 && waitpid(pid, &status, 0) == pid)
				mine.forks++;
			if (!pthread_create(&tid, NULL, churn_thread, NULL)) {
				pthread_join(tid, NULL);
				mine.threads++;
			}
			sched_yield();
		}
		if (write(fds[1], &mine, sizeof(mine)) != sizeof(mine))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	for (c = 0; c < ncpu; c++) {
		struct churn_count one;

		if (read(fds[0], &one, sizeof(one)) != sizeof(one)) {
			bad = 1;
			continue;
		}
		total.forks += one.forks;
		total.threads += one.threads;
	}
	while (wait(NULL) > 0)
		;
	printf("churn: %ld forks, %ld threads from %ld processes\n",
	       total.forks, total.threads, ncpu);
	return bad;
}

/* getppid straight through syscall(): no library may answer it. */
static int getppids(long k)
{
	long i;

	name_self("gt_getppid");
	for (i = 0; i < k; i++)
		syscall(SYS_getppid);
	return 0;
}

/*
 * Is @pid asleep in rt_sigtimedwait?  /proc/PID/syscall names the
 * syscall of a task that is blocked in one, "running" otherwise.
 */
static int asleep_in_sigwait(pid_t pid)
{
	char path[64], buf[128] = "";
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		nr = strtol(buf, NULL, 10);
	fclose(f);
	return buf[0] >= '0' && buf[0] <= '9' && nr == SYS_rt_sigtimedwait;
}

static int sigwaiter(long n)
{
	struct timespec gap = { 0, 20 * 1000000L };
	int status, sig, got[2];
	sigset_t set;
	pid_t pid;
	long i;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* Blocked before the fork: no signal can be lost before the wait. */
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		die("sigprocmask");
	if (pipe(got))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct timespec pause = { 0, 5000000L };

		name_self("gt_sigwait");
		close(got[0]);
		for (i = 0; i < n; i++) {
			if (sigwait(&set, &sig))
				_exit(1);
			xwrite(got[1], 's');
			/* Go 1.23 ends a syscall's time at the next block. */
			nanosleep(&pause, NULL);
		}
		_exit(0);
	}
	name_self("gt_signaller");
	close(got[1]);		/* its end of file if the waiter dies */
	/*
	 * SIGUSR1 does not queue: two sent before the waiter took the first
	 * would be one, and it would wait for good (it did, on a loaded
	 * host).  So the next goes only after the last was taken, and only
	 * once the waiter sleeps in its wait again: on 8 vCPUs of a loaded
	 * host, 20 ms were once not enough for it to get back there, and 3
	 * of 10 signals were found pending, without a block (polled every
	 * millisecond, for 10 s at most).
	 */
	for (i = 0; i < n; i++) {
		struct timespec poll = { 0, 1000000L };

		for (int j = 0; j < 10000 && !asleep_in_sigwait(pid); j++)
			nanosleep(&poll, NULL);
		nanosleep(&gap, NULL);
		kill(pid, SIGUSR1);
		xread(got[0]);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/*
 * Runs the caller on @cpu only, if there is more than one CPU online
 * and @cpu is one of them: nothing otherwise.
 */
static void pin_self(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* @cpu offline: the task runs where it may, as without pinning. */
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Each side on a CPU of its own: on one CPU, the side a write wakes
 * preempts the writer, which then finds its reply already there when it
 * reads, so one of the two never blocks (6.1-arm64 so recorded 200
 * network waits for gt_sock_a and none for gt_sock_b, whose expectation
 * is to have some).  On two, each waits for the other's byte.
 */
static int sockpair(long n)
{
	int sv[2], status;
	pid_t pid;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		pin_self(1);
		name_self("gt_sock_b");
		for (i = 0; i < n; i++) {
			xread(sv[1]);
			xwrite(sv[1], 'b');
		}
		_exit(0);
	}
	pin_self(0);
	name_self("gt_sock_a");
	for (i = 0; i < n; i++) {
		xwrite(sv[0], 'a');
		xread(sv[0]);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* getppid on every CPU for @secs; prints the calls made. */
static int storm(long secs)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), c, total = 0;
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	name_self("gt_storm");
	for (c = 0; c < ncpu; c++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			double end = mono_s() + secs;
			long calls = 0;

			while (mono_s() < end) {
				int j;

				for (j = 0; j < 1000; j++)
					syscall(SYS_getppid);
				calls += 1000;
			}
			if (write(fds[1], &calls, sizeof(calls)) != sizeof(calls))
				_exit(1);
			_exit(0);
		}
	}
	close(fds[1]);
	for (c = 0; c < ncpu; c++) {
		long calls;

		if (read(fds[0], &calls, sizeof(calls)) == sizeof(calls))
			total += calls;
	}
	while (wait(NULL) > 0)
		;
	printf("storm: %ld getppid calls on %ld CPUs in %ld s\n", total, ncpu,
	       secs);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long a = arg(argv, 2, argc), b = arg(argv, 3, argc);

	if (!strcmp(cmd, "pingpong") && a > 0 && (argc == 3 || b >= 0))
		return pingpong(a, argc == 3 ? 0 : b);
	if (!strcmp(cmd, "forks") && a > 0)
		return forks(a);
	if (!strcmp(cmd, "sleep") && a > 0 && b >= 0)
		return sleeper(a, b);
	if (!strcmp(cmd, "mutex") && a > 0 && b > 0)
		return mutex(a, b);
	if (!strcmp(cmd, "exec"))
		return exec_renamed();
	if (!strcmp(cmd, "renamed"))
		return usleep(10000) ? 1 : 0;
	if (!strcmp(cmd, "churn") && a > 0)
		return churn(a);
	if (!strcmp(cmd, "getppid") && a > 0)
		return getppids(a);
	if (!strcmp(cmd, "sigwait") && a > 0)
		return sigwaiter(a);
	if (!strcmp(cmd, "sock") && a > 0)
		return sockpair(a);
	if (!strcmp(cmd, "storm") && a > 0)
		return storm(a);
	fprintf(stderr,
		"usage: workload pingpong N [MS] | forks K | sleep N MS | mutex T N | exec |\n"
		"       churn S | getppid K | sigwait N | sock N | storm S\n");
	return 2;
}
