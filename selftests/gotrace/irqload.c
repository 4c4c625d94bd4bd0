// SPDX-License-Identifier: GPL-2.0
/*
 * irqload.c - the interrupts' ground truth (irq_test.sh)
 *
 *   irqload OUT PACKETS TIMER_HZ TICKS WORKS DISK READS SEND_CPU SPIN_CPU
 *
 * A thread named "irqspin" spins on SPIN_CPU from before the window to
 * after it.  The window is bracketed by two reads of /proc/softirqs and
 * /proc/interrupts, each between two CLOCK_MONOTONIC readings (the
 * trace's clock): T0 read T1 ... T2 read T3.  In it, pinned to SEND_CPU,
 * this thread:
 *   - sends PACKETS UDP datagrams to itself over loopback (brought up
 *     first, with SIOCSIFFLAGS, if it is down: the guest has no
 *     network) and receives each: NET_RX softirqs (on SPIN_CPU when
 *     irq_test.sh steers loopback's receive there with RPS);
 *   - writes /proc/sys/vm/stat_refresh WORKS times: each write runs the
 *     work item refresh_vm_stats on every online CPU's kworker
 *     (schedule_on_each_cpu()) and returns once all have run;
 *   - reads READS blocks of 4 KiB from the disk DISK ("-": none) with
 *     O_DIRECT, past the page cache: the virtio disk's interrupts;
 *   - reads a timerfd armed at TIMER_HZ until it expired TICKS times
 *     (hrtimer interrupts; TIMER and HRTIMER softirqs).
 *
 * OUT gets, one per line:
 *   window T0 T1 T2 T3
 *   spin TID CPU S0 S1 CPU_NS   the spinner's thread, its CPU, its spin's
 *                               start and end and its CPU time then
 *   udp SENT RECEIVED
 *   timer HZ EXPIRATIONS
 *   work refresh_vm_stats WRITES
 *   disk DISK READS
 * then each /proc file as it was read, after a line "@softirqs0",
 * "@interrupts0", "@softirqs1", "@interrupts1" (0: at the window's start,
 * 1: at its end).  Times in nanoseconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "workload_util.h"

#define PROC_MAX	(256 * 1024)

static atomic_int spin_state;	/* 0 starting, 1 spinning, 2 stop asked */
static struct {
	long tid;
	uint64_t start, end, cpu_ns;
} spin;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void *spinner(void *arg)
{
	uint64_t cpu0;

	pin((int)(intptr_t)arg);
	name_self("irqspin");
	spin.tid = syscall(SYS_gettid);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	spin.start = clock_ns(CLOCK_MONOTONIC);
	atomic_store(&spin_state, 1);
	while (atomic_load_explicit(&spin_state, memory_order_relaxed) != 2)
		;
	spin.end = clock_ns(CLOCK_MONOTONIC);
	spin.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

/* Loopback up, as "ip link set lo up" would: busybox may lack ip. */
static void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("SIOCGIFFLAGS lo");
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			die("SIOCSIFFLAGS lo");
	}
	close(fd);
}

/* /proc file @path into @buf (PROC_MAX bytes), NUL-terminated. */
static void read_proc(const char *path, char *buf)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	while ((n = read(fd, buf + len, PROC_MAX - 1 - len)) > 0)
		len += n;
	if (n < 0)
		die(path);
	if (len == PROC_MAX - 1) {
		fprintf(stderr, "%s: larger than %d bytes\n", path, PROC_MAX);
		exit(1);
	}
	buf[len] = '\0';
	close(fd);
}

/* Both files, between two readings of the clock: @t[0] and @t[1]. */
static void read_counts(char *softirqs, char *interrupts, uint64_t *t)
{
	t[0] = clock_ns(CLOCK_MONOTONIC);
	read_proc("/proc/softirqs", softirqs);
	read_proc("/proc/interrupts", interrupts);
	t[1] = clock_ns(CLOCK_MONOTONIC);
}

/* @n datagrams to ourselves over loopback, each received: how many were. */
static long udp_ping(long n)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	char buf[64] = "gotrace irq_test";
	long i, got = 0;
	int rx, tx;

	if (!n)
		return 0;
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0)
		die("socket");
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(rx, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(rx, (struct sockaddr *)&addr, &len))
		die("bind");
	for (i = 0; i < n; i++) {
		if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&addr,
			   sizeof(addr)) != sizeof(buf))
			die("sendto");
		/* At most a second each: a lost datagram is counted, not waited. */
		for (;;) {
			struct timeval tv = { 1, 0 };

			if (setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv,
				       sizeof(tv)))
				die("SO_RCVTIMEO");
			if (recv(rx, buf, sizeof(buf), 0) == sizeof(buf)) {
				got++;
				break;
			}
			if (errno != EINTR)
				break;
		}
	}
	close(rx);
	close(tx);
	return got;
}

static void stat_refresh(long n)
{
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
		if (fd < 0)
			die("/proc/sys/vm/stat_refresh");
		/* It may say -EINVAL of a counter gone negative: it ran. */
		if (write(fd, "1\n", 2) < 0 && errno != EINVAL)
			die("write stat_refresh");
		close(fd);
	}
}

/* @n reads of 4 KiB from @path, O_DIRECT, each at another offset. */
static void disk_reads(const char *path, long n)
{
	void *buf;
	long i;
	int fd;

	if (!strcmp(path, "-") || !n)
		return;
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(path);
	if (posix_memalign(&buf, 4096, 4096))
		die("posix_memalign");
	for (i = 0; i < n; i++)
		if (pread(fd, buf, 4096, (i % 4096) * 4096) != 4096)
			die("pread");
	free(buf);
	close(fd);
}

/* A timerfd at @hz until it expired @ticks times: how many it did. */
static uint64_t timer_ticks(long hz, long ticks)
{
	long period = 1000000000L / hz;
	struct itimerspec its = {
		.it_interval = { period / 1000000000L, period % 1000000000L },
		.it_value = { period / 1000000000L, period % 1000000000L },
	};
	uint64_t n, total = 0;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		die("timerfd");
	while (total < (uint64_t)ticks) {
		if (read(fd, &n, sizeof(n)) != sizeof(n))
			die("read timerfd");
		total += n;
	}
	close(fd);
	return total;
}

int main(int argc, char **argv)
{
	long packets = arg(argv, 2, argc), hz = arg(argv, 3, argc);
	long ticks = arg(argv, 4, argc), works = arg(argv, 5, argc);
	long reads = arg(argv, 7, argc);
	long send_cpu = arg(argv, 8, argc), spin_cpu = arg(argv, 9, argc);
	static char softirqs[2][PROC_MAX], interrupts[2][PROC_MAX];
	uint64_t t[4], expired;
	pthread_t th;
	long received;
	FILE *out;

	if (argc != 10 || packets < 0 || hz <= 0 || ticks < 0 || works < 0 ||
	    reads < 0 || send_cpu < 0 || spin_cpu < 0) {
		fprintf(stderr, "usage: %s OUT PACKETS TIMER_HZ TICKS WORKS DISK READS SEND_CPU SPIN_CPU\n",
			argv[0]);
		return 2;
	}
	/* No datagrams asked: a kernel without IPv4 (the debug kernel's). */
	if (packets)
		loopback_up();
	pin(send_cpu);
	if (pthread_create(&th, NULL, spinner, (void *)(intptr_t)spin_cpu))
		die("pthread_create");
	while (!atomic_load(&spin_state))
		pause_ms(1);

	read_counts(softirqs[0], interrupts[0], &t[0]);
	received = udp_ping(packets);
	stat_refresh(works);
	disk_reads(argv[6], reads);
	expired = timer_ticks(hz, ticks);
	read_counts(softirqs[1], interrupts[1], &t[2]);

	atomic_store(&spin_state, 2);
	if (pthread_join(th, NULL))
		die("pthread_join");
	out = fopen(argv[1], "w");
	if (!out)
		die(argv[1]);
	fprintf(out, "window %llu %llu %llu %llu\n", (unsigned long long)t[0],
		(unsigned long long)t[1], (unsigned long long)t[2],
		(unsigned long long)t[3]);
	fprintf(out, "spin %ld %ld %llu %llu %llu\n", spin.tid, spin_cpu,
		(unsigned long long)spin.start, (unsigned long long)spin.end,
		(unsigned long long)spin.cpu_ns);
	fprintf(out, "udp %ld %ld\n", packets, received);
	fprintf(out, "timer %ld %llu\n", hz, (unsigned long long)expired);
	fprintf(out, "work refresh_vm_stats %ld\n", works);
	fprintf(out, "disk %s %ld\n", argv[6], reads);
	fprintf(out, "@softirqs0\n%s@interrupts0\n%s@softirqs1\n%s@interrupts1\n%s",
		softirqs[0], interrupts[0], softirqs[1], interrupts[1]);
	if (fclose(out))
		die(argv[1]);
	printf("irqload: %ld of %ld datagrams received, %llu timer expirations at %ld Hz, %ld stat_refresh writes; window %llu ms, spinner tid %ld on CPU %ld\n",
	       received, packets, (unsigned long long)expired, hz, works,
	       (unsigned long long)(t[3] - t[0]) / 1000000, spin.tid, spin_cpu);
	return received == packets ? 0 : 1;
}
