// SPDX-License-Identifier: GPL-2.0
/*
 * hackbench MS [GROUPS [FDS]] - the shape of hackbench's pipe mode, for a
 * fixed time: GROUPS groups of FDS senders and FDS receivers (default 1
 * and 10); each receiver has its own pipe, every sender of a group writes
 * 100-byte messages to each receiver of its group in turn, for MS
 * milliseconds.  One iteration is one message (written and read).
 * Full pipes block the senders, empty ones the receivers: many tasks,
 * many wakeups, many syscalls.
 */
#include "common.h"

#define MSG 100

static void sender(struct shared *sh, int idx, int *wfd, int fds)
{
	char buf[MSG] = { 0 };
	uint64_t n = 0;
	int i = 0;

	while (!sh->stop) {
		if (write(wfd[i], buf, MSG) != MSG)
			die("sender write");
		if (++i == fds)
			i = 0;
		n++;
	}
	sh->count[idx] = n;
}

static void receiver(int rfd)
{
	char buf[MSG];
	ssize_t r;

	while ((r = read(rfd, buf, MSG)) > 0)
		;
	if (r < 0)
		die("receiver read");
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int groups = argc > 2 ? atoi(argv[2]) : 1;
	int fds = argc > 3 ? atoi(argv[3]) : 10;
	struct shared *sh = shared_alloc(groups * fds);
	int rfd[fds], wfd[fds], gate[2], g, i, j;
	uint64_t start, end, iters = 0;

	if (pipe(gate))
		die("pipe");
	for (g = 0; g < groups; g++) {
		for (i = 0; i < fds; i++) {
			int p[2];

			if (pipe(p))
				die("pipe");
			rfd[i] = p[0];
			wfd[i] = p[1];
		}
		for (i = 0; i < fds; i++) {
			if (fork())
				continue;
			for (j = 0; j < fds; j++) {
				close(wfd[j]);
				if (j != i)
					close(rfd[j]);
			}
			gate_wait(gate);
			receiver(rfd[i]);
			_exit(0);
		}
		for (i = 0; i < fds; i++) {
			if (fork())
				continue;
			for (j = 0; j < fds; j++)
				close(rfd[j]);
			gate_wait(gate);
			sender(sh, g * fds + i, wfd, fds);
			_exit(0);
		}
		for (i = 0; i < fds; i++) {
			close(rfd[i]);
			close(wfd[i]);
		}
	}
	close(gate[0]);
	start = now_ns();
	close(gate[1]);
	sleep_ms(ms);
	sh->stop = 1;
	wait_all();
	end = now_ns();
	for (i = 0; i < groups * fds; i++)
		iters += sh->count[i];
	printf("hackbench iters=%llu ns=%llu\n", (unsigned long long)iters,
	       (unsigned long long)(end - start));
	return 0;
}
