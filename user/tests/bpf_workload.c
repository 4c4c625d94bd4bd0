// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_workload.c - a known workload for bpf_capture_test.sh
 *
 *   bpf_workload IDS N      parent: fork a reader that sleeps in read()
 *                           on a pipe, fork and exec "child", wait both
 *
 * The child makes N getpgid(GTW_MAGIC) calls (a pid that does not exist:
 * each fails at once, and arg0 tells them from anyone else's), sleeps in
 * nanosleep, waits until the reader is asleep in read() on the pipe and
 * writes one byte, which wakes it.  IDS gets "parent=P reader=R child=C"
 * once every tid is known.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GTW_MAGIC	31354	/* arg0 of the child's getpgid() calls */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Is @pid asleep in read() (syscall 0)?  /proc/PID/syscall says. */
static int asleep_in_read(pid_t pid)
{
	char path[64], buf[128] = "";
	FILE *f;
	int nr = -1;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/*
	 * A runnable task's file says "running", which atoi() reads as 0:
	 * a reader not yet run (a loaded host) would pass for one asleep
	 * in read(), and the write would come before its read.
	 */
	if (fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9')
		nr = atoi(buf);
	fclose(f);
	return nr == 0;
}

static int child(int n, int wfd, pid_t reader)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct timespec poll = { 0, 1000 * 1000 };

	for (int i = 0; i < n; i++)
		syscall(SYS_getpgid, GTW_MAGIC);
	nanosleep(&ts, NULL);
	/* Waiting on the reader's state, polled every millisecond. */
	for (int i = 0; i < 10000 && !asleep_in_read(reader); i++)
		nanosleep(&poll, NULL);
	if (write(wfd, "x", 1) != 1)
		die("write");
	return 0;
}

int main(int argc, char **argv)
{
	char nbuf[16], wbuf[16], rbuf[16], c;
	int p[2], st, ok = 1;
	pid_t reader, kid;
	FILE *ids;

	if (argc == 5 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc != 3) {
		fprintf(stderr, "usage: bpf_workload IDS N\n");
		return 2;
	}
	if (pipe(p))
		die("pipe");
	reader = fork();
	if (reader < 0)
		die("fork");
	if (!reader) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	snprintf(nbuf, sizeof(nbuf), "%d", atoi(argv[2]));
	snprintf(wbuf, sizeof(wbuf), "%d", p[1]);
	snprintf(rbuf, sizeof(rbuf), "%d", reader);
	kid = fork();
	if (kid < 0)
		die("fork");
	if (!kid) {
		close(p[0]);
		execl("/proc/self/exe", argv[0], "child", nbuf, wbuf, rbuf,
		      (char *)NULL);
		die("exec");
	}
	close(p[0]);
	close(p[1]);
	ids = fopen(argv[1], "w");
	if (!ids)
		die(argv[1]);
	fprintf(ids, "parent=%d reader=%d child=%d\n", getpid(), reader, kid);
	fclose(ids);
	while (wait(&st) > 0)
		ok &= WIFEXITED(st) && !WEXITSTATUS(st);
	return ok ? 0 : 1;
}
