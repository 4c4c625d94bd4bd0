// SPDX-License-Identifier: GPL-2.0
/*
 * irq_workload.c - known interrupts between two readings of the
 * kernel's counts, for tests/bpf_irq_test.sh
 *
 *   irq_workload OUT PACKETS TIMER_HZ TIMER_MS FILE
 *
 * Reads /proc/softirqs and /proc/interrupts into OUT.soft0 and
 * OUT.irq0, then sends PACKETS UDP datagrams over loopback to itself
 * (NET_RX softirqs: loopback hands each packet to its CPU's backlog),
 * reads a timerfd armed at TIMER_HZ for TIMER_MS (its hrtimer's
 * interrupts, and the timers and RCU work of the wakeups), writes 4 MiB
 * to FILE and fsync()s it (the disk's hard IRQs, BLOCK softirqs), and
 * reads both files again into OUT.soft1 and OUT.irq1.  It sleeps 20 ms
 * after the first readings and before the second: its own interrupts
 * are well inside the window.
 *
 * Each reading of a file is one read() of the whole file (single_open's
 * /proc/softirqs is made whole at the first read; /proc/interrupts fits
 * the buffer), stamped with CLOCK_MONOTONIC, the trace's clock, just
 * before and just after: the kernel read each count at some instant in
 * between.  OUT.times: "NAME BEFORE AFTER" for soft0, irq0, soft1,
 * irq1, then "packets N", "expirations N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Nothing of the workload this close to a reading (the test's edge is 2 ms). */
#define QUIET_US	20000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "irq_workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* /proc/@name read at once into @out.@suffix, stamped into @times. */
static void reading(const char *out, const char *name, const char *suffix,
		    FILE *times)
{
	static char buf[1 << 20];
	char path[4096], proc[64];
	uint64_t before, after;
	ssize_t n;
	FILE *f;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/%s", name);
	fd = open(proc, O_RDONLY);
	if (fd < 0)
		die(proc);
	before = now_ns();
	n = read(fd, buf, sizeof(buf));
	after = now_ns();
	if (n < 0)
		die(proc);
	/* A second read must find the end: the first had it all. */
	if (read(fd, buf + n, sizeof(buf) - n) != 0) {
		fprintf(stderr, "irq_workload: %s: not read at once\n", proc);
		exit(1);
	}
	close(fd);
	snprintf(path, sizeof(path), "%s.%s", out, suffix);
	f = fopen(path, "w");
	if (!f || fwrite(buf, 1, n, f) != (size_t)n || fclose(f))
		die(path);
	fprintf(times, "%s %llu %llu\n", suffix, (unsigned long long)before,
		(unsigned long long)after);
}

/* @n datagrams to itself over loopback, each received: how many were. */
static long udp(long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char msg[64] = "gotrace";
	long got = 0;
	int rx, tx;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len))
		die("udp socket");
	for (long i = 0; i < n; i++) {
		if (sendto(tx, msg, sizeof(msg), 0, (struct sockaddr *)&a,
			   sizeof(a)) != sizeof(msg))
			die("sendto");
		if (recv(rx, msg, sizeof(msg), 0) == sizeof(msg))
			got++;
	}
	close(rx);
	close(tx);
	return got;
}

/* A timerfd at @hz for @ms: the expirations read. */
static long timer(long hz, long ms)
{
	long ns = 1000000000L / hz, want = hz * ms / 1000, got = 0;
	struct itimerspec it = {
		.it_interval = { ns / 1000000000L, ns % 1000000000L },
		.it_value = { ns / 1000000000L, ns % 1000000000L },
	};
	uint64_t exp;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (fd < 0 || timerfd_settime(fd, 0, &it, NULL))
		die("timerfd");
	while (got < want) {
		if (read(fd, &exp, sizeof(exp)) != sizeof(exp))
			die("timerfd read");
		got += (long)exp;
	}
	close(fd);
	return got;
}

/* 4 MiB into @path, to the disk. */
static void disk(const char *path)
{
	static char block[1 << 16];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		die(path);
	memset(block, 'g', sizeof(block));
	for (int i = 0; i < 64; i++)
		if (write(fd, block, sizeof(block)) != sizeof(block))
			die("write");
	if (fsync(fd) || close(fd))
		die("fsync");
}

int main(int argc, char **argv)
{
	char path[4096];
	long packets, expirations;
	FILE *times;

	if (argc != 6) {
		fprintf(stderr, "usage: irq_workload OUT PACKETS TIMER_HZ TIMER_MS FILE\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s.times", argv[1]);
	times = fopen(path, "w");
	if (!times)
		die(path);
	reading(argv[1], "softirqs", "soft0", times);
	reading(argv[1], "interrupts", "irq0", times);
	/* The work away from the window's edges, which the test widens. */
	usleep(QUIET_US);
	packets = udp(atol(argv[2]));
	expirations = timer(atol(argv[3]), atol(argv[4]));
	disk(argv[5]);
	usleep(QUIET_US);
	reading(argv[1], "softirqs", "soft1", times);
	reading(argv[1], "interrupts", "irq1", times);
	fprintf(times, "packets %ld\nexpirations %ld\n", packets, expirations);
	return fclose(times) ? 1 : 0;
}
