// SPDX-License-Identifier: GPL-2.0
/*
 * recsig_test.c - the recorder's signals once the trace is complete and
 * its user frames are being named (recsig.c, output.c)
 *
 * Each case is a child that plays the recorder: its signals installed,
 * the trace written and committed into FILE as record.c does, then the
 * naming pass started (gt_recsig_naming()) and its output opened beside
 * FILE as symbolize.c opens it, with a few bytes written.  The signals
 * are raised by the child itself, so they arrive exactly there.  The
 * parent checks the exit status, what was said, and the directory: FILE
 * must stay complete, and no temporary file may be left.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output.h"
#include "recsig.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/recsig_test.XXXXXX";
static char trace[64], err_path[64];

static const char complete[] = "the complete trace\n";

/*
 * The recorder: @stop_sig stops the recording (0: it ends by itself),
 * then @nsig SIGTERMs come during the naming.  Exits 0 if the naming
 * ends (its output then committed over FILE).
 */
static void recorder(int stop_sig, int nsig)
{
	struct gt_output o;

	gt_recsig_install(false, NULL);
	if (gt_output_open(&o, trace, "trace", 0))
		_exit(2);
	gt_recsig_abort_output(&o);
	if (write(o.fd, complete, sizeof(complete) - 1) < 0)
		_exit(2);
	if (stop_sig)
		raise(stop_sig);
	if (gt_output_commit(&o))
		_exit(2);
	gt_output_free(&o);

	gt_recsig_naming(trace);
	if (gt_output_open_from(&o, trace, "trace", GT_OUTPUT_MAY_BE_INPUT,
				trace))
		_exit(2);
	if (write(o.fd, "partial", 7) < 0)
		_exit(2);
	for (int i = 0; i < nsig; i++)
		raise(SIGTERM);
	if (write(o.fd, complete, sizeof(complete) - 1) < 0 ||
	    gt_output_commit(&o))
		_exit(2);
	gt_output_free(&o);
	_exit(0);
}

/* Run the recorder; its exit status, its stderr in err_path. */
static int run(int stop_sig, int nsig)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(2);
		recorder(stop_sig, nsig);
	}
	if (waitpid(pid, &st, 0) != pid)
		exit(2);
	return st;
}

static bool file_is(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return !strcmp(buf, want);
}

static bool said(const char *text)
{
	char buf[4096] = "";
	FILE *f = fopen(err_path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, text) != NULL;
}

/* Nothing but FILE (and the messages) in the directory. */
static bool only_trace(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool only = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "t.trace") &&
		    strcmp(e->d_name, "err")) {
			diag("left: %s", e->d_name);
			only = false;
		}
	closedir(d);
	return only;
}

static void dump_err(void)
{
	char line[512];
	FILE *f = fopen(err_path, "r");

	while (f && fgets(line, sizeof(line), f))
		diag("stderr: %s", strtok(line, "\n") ? line : "");
	if (f)
		fclose(f);
}

/* Empty the directory for the next case. */
static void clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 256];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

int main(void)
{
	int st;

	if (!mkdtemp(dir))
		return 2;
	snprintf(trace, sizeof(trace), "%s/t.trace", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);

	/* Stopped by a signal, then a second one during the naming. */
	st = run(SIGINT, 1);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM,
	   "a second signal during the naming ends it: exit 128 + SIGTERM");
	ok(file_is(trace, complete) && only_trace(),
	   "the complete trace stays in FILE, no temporary file is left");
	if (!ok(said("stopped naming the user frames: the trace in ") &&
		said("is complete") && !said("incomplete trace stays"),
		"it says that the trace is complete, not that it is incomplete"))
		dump_err();
	clean();

	/* Ended by itself (-d), then two signals during the naming. */
	st = run(0, 2);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM &&
	   file_is(trace, complete) && only_trace(),
	   "two signals during the naming: the complete trace stays, nothing left");
	if (!ok(said("naming its user frames (again to stop") &&
		!said("reading the end of the trace"),
		"the first one says the naming goes on, not that reading stops"))
		dump_err();
	clean();

	/* One signal during the naming: the naming ends. */
	st = run(0, 1);
	if (!ok(WIFEXITED(st) && !WEXITSTATUS(st) &&
		file_is(trace, "partial" "the complete trace\n") && only_trace(),
		"one signal during the naming: it still ends, its output replaces FILE"))
		dump_err();
	clean();

	rmdir(dir);
	return tap_done();
}
