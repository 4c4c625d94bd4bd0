// SPDX-License-Identifier: GPL-2.0
/*
 * recsym_test.c - the recorder's background naming of complete files
 * (record_sym.c): every file is named, however fast the files come, with
 * at most GT_RECSYM_MAX_RUNNING namings at once; what waits starts when
 * a slot frees; beyond the queue a file is counted as left unnamed, but
 * only when no naming has ended meanwhile.
 *
 * record_sym.c runs "/proc/self/exe symbolize -q FILE FILE": here that is
 * this test, which plays the symbolizer (fake_symbolize()): it logs its
 * start and end, waits as long as the file says, and marks the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record_sym.h"
#include "symbolize.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/recsym_test.XXXXXX";
static char log_path[64];

/* gt_recsym_file()'s in-process naming: not what this test checks. */
int gt_symbolize_path(const char *in, const char *out, bool quiet)
{
	(void)in;
	(void)out;
	(void)quiet;
	return GT_EXIT_OK;
}

static void append(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);

	if (fd < 0)
		exit(2);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		exit(2);
	close(fd);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The child: "symbolize -q FILE FILE".  The file holds how many ms to
 * take; a file named "*bad*" fails.
 */
static int fake_symbolize(char **argv)
{
	char buf[32] = "";
	FILE *f = fopen(argv[3], "r");
	long ms = 0;

	if (!f || !fgets(buf, sizeof(buf), f))
		return 2;
	fclose(f);
	ms = atol(buf);
	append(log_path, "+\n");
	sleep_ms(ms);
	append(log_path, "-\n");
	append(argv[4], "named\n");
	return strstr(argv[3], "bad") ? 1 : 0;
}

/* A complete file to name, which takes @ms to name. */
static char *file(const char *name, long ms)
{
	static char path[128];
	char line[32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	snprintf(line, sizeof(line), "%ld\n", ms);
	append(path, line);
	return path;
}

static bool is_named(const char *name)
{
	char path[128], buf[32];
	FILE *f;
	bool named = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		named |= !strcmp(buf, "named\n");
	fclose(f);
	return named;
}

/* The log's most namings at once, and how many started. */
static int most_at_once(int *started)
{
	FILE *f = fopen(log_path, "r");
	char buf[8];
	int now = 0, most = 0;

	*started = 0;
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		if (buf[0] == '+') {
			(*started)++;
			if (++now > most)
				most = now;
		} else {
			now--;
		}
	}
	fclose(f);
	return most;
}

/* Has process @pid exited, waiting for its parent to collect it? */
static bool zombie(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	/* "PID (COMM) STATE ...": the state follows the last ')'. */
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		z = p && p[1] == ' ' && p[2] == 'Z';
	}
	fclose(f);
	return z;
}

static void new_log(void)
{
	unlink(log_path);
}

int main(int argc, char **argv)
{
	struct gt_recsym s = { .on = true, .quiet = true };
	char name[32];
	int i, most, started, all;

	snprintf(log_path, sizeof(log_path), "%s", getenv("RECSYM_LOG") ?
		 getenv("RECSYM_LOG") : "");
	if (argc == 5 && !strcmp(argv[1], "symbolize"))
		return fake_symbolize(argv);
	if (!mkdtemp(dir))
		return 2;
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	setenv("RECSYM_LOG", log_path, 1);

	/* Twelve files at once, 100 ms each: all named, four at a time. */
	new_log();
	for (i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "f%d.trace", i);
		gt_recsym_spawn(&s, file(name, 100));
	}
	ok(s.queued == 12 - GT_RECSYM_MAX_RUNNING,
	   "12 files at once: %d run, %u wait", GT_RECSYM_MAX_RUNNING,
	   s.queued);
	gt_recsym_finish(&s);
	for (i = 0, all = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "f%d.trace", i);
		all += is_named(name);
	}
	most = most_at_once(&started);
	ok(s.named == 12 && !s.failed && all == 12 && started == 12,
	   "all 12 named once finished (named %llu, failed %llu, marked %d, started %d)",
	   (unsigned long long)s.named, (unsigned long long)s.failed, all,
	   started);
	ok(most > 1 && most <= GT_RECSYM_MAX_RUNNING,
	   "at most %d at once, more than one (%d)", GT_RECSYM_MAX_RUNNING,
	   most);

	/* A waiting file starts when a slot frees, with no other file. */
	memset(&s, 0, sizeof(s));
	s.on = s.quiet = true;
	new_log();
	for (i = 0; i < GT_RECSYM_MAX_RUNNING + 1; i++) {
		snprintf(name, sizeof(name), "p%d.trace", i);
		gt_recsym_spawn(&s, file(name, 100));
	}
	for (i = 0; i < 100 && s.queued; i++) {
		sleep_ms(20);
		gt_recsym_poll(&s);
	}
	/* Started: its own log line follows soon after. */
	for (i = 0; i < 100 && (most_at_once(&started), started) <=
	     GT_RECSYM_MAX_RUNNING; i++)
		sleep_ms(20);
	ok(!s.queued && started >= GT_RECSYM_MAX_RUNNING + 1,
	   "gt_recsym_poll() starts the waiting file (%u waiting, %d started)",
	   s.queued, started);
	gt_recsym_finish(&s);
	ok(s.named == GT_RECSYM_MAX_RUNNING + 1 && !s.failed,
	   "and all are named (%llu)", (unsigned long long)s.named);

	/* A naming that fails is counted as such. */
	memset(&s, 0, sizeof(s));
	s.on = s.quiet = true;
	gt_recsym_spawn(&s, file("bad.trace", 0));
	gt_recsym_spawn(&s, file("good.trace", 0));
	gt_recsym_finish(&s);
	ok(s.named == 1 && s.failed == 1, "a failed naming counts (%llu named, %llu failed)",
	   (unsigned long long)s.named, (unsigned long long)s.failed);

	/* Four slow ones run, the queue fills: the next is left unnamed. */
	memset(&s, 0, sizeof(s));
	s.on = s.quiet = true;
	for (i = 0; i < GT_RECSYM_MAX_RUNNING; i++) {
		snprintf(name, sizeof(name), "s%d.trace", i);
		gt_recsym_spawn(&s, file(name, 1000));
	}
	for (i = 0; i < GT_RECSYM_MAX_QUEUED + 1; i++) {
		snprintf(name, sizeof(name), "q%d.trace", i);
		gt_recsym_spawn(&s, file(name, 0));
	}
	ok(s.queued == GT_RECSYM_MAX_QUEUED && s.failed == 1,
	   "beyond %d waiting files one is left unnamed (%u waiting, %llu failed)",
	   GT_RECSYM_MAX_QUEUED, s.queued, (unsigned long long)s.failed);
	gt_recsym_finish(&s);
	ok(s.named == GT_RECSYM_MAX_RUNNING + GT_RECSYM_MAX_QUEUED &&
	   !is_named(name) && is_named("q0.trace"),
	   "the others are named (%llu)", (unsigned long long)s.named);

	/*
	 * The queue is full, but a naming has ended (not yet collected):
	 * the next file takes the waiting one's place, nothing is refused.
	 */
	memset(&s, 0, sizeof(s));
	s.on = s.quiet = true;
	new_log();
	gt_recsym_spawn(&s, file("short.trace", 100));
	for (i = 1; i < GT_RECSYM_MAX_RUNNING; i++) {
		snprintf(name, sizeof(name), "l%d.trace", i);
		gt_recsym_spawn(&s, file(name, 1500));
	}
	for (i = 0; i < GT_RECSYM_MAX_QUEUED; i++) {
		snprintf(name, sizeof(name), "w%d.trace", i);
		gt_recsym_spawn(&s, file(name, 0));
	}
	/* The short one (slot 0) has exited, not yet collected. */
	for (i = 0; i < 500 && !zombie(s.pid[0]); i++)
		sleep_ms(20);
	gt_recsym_spawn(&s, file("late.trace", 0));
	ok(s.queued == GT_RECSYM_MAX_QUEUED && !s.failed,
	   "a full queue with a naming ended takes one more (%u waiting, %llu failed)",
	   s.queued, (unsigned long long)s.failed);
	gt_recsym_finish(&s);
	ok(s.named == GT_RECSYM_MAX_RUNNING + GT_RECSYM_MAX_QUEUED + 1 &&
	   is_named("late.trace"), "and it is named (%llu)",
	   (unsigned long long)s.named);

	/* A pipe is not rewritten: counted, never spawned. */
	memset(&s, 0, sizeof(s));
	s.on = s.quiet = true;
	gt_recsym_spawn(&s, "-");
	gt_recsym_finish(&s);
	ok(s.failed == 1 && !s.named, "stdout is left as is and counted");

	if (!tap_failed) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			diag("cannot remove %s", dir);
	}
	return tap_done();
}
