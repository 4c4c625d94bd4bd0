// SPDX-License-Identifier: GPL-2.0
/*
 * flight.c - the files of 'gotrace record --flight' (see flight.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flight.h"
#include "options.h"
#include "util.h"

int gt_flight_open(struct gt_flight *f, const char *dir)
{
	struct stat st;

	f->dir = dir;
	f->fd = -1;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		gt_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		gt_err("%s is not a directory: --flight writes its snapshots into one",
		       dir);
		return -1;
	}
	return 0;
}

static int flight_fail(struct gt_flight *f, int err)
{
	if (!f->err)
		f->err = err;
	return -err;
}

int gt_flight_write(struct gt_flight *f, const void *buf, size_t len)
{
	int ret;

	if (f->fd < 0) {
		free(f->tmp);
		if (asprintf(&f->tmp, "%s/.flight-%d.trace.tmp", f->dir,
			     (int)getpid()) < 0) {
			f->tmp = NULL;
			return flight_fail(f, ENOMEM);
		}
		/* Root's only, as every trace (output.c). */
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0600);
		if (f->fd < 0)
			return flight_fail(f, errno);
		f->file_bytes = 0;
	}
	ret = gt_write_all(f->fd, buf, len);
	if (ret)
		return flight_fail(f, -ret);
	f->file_bytes += len;
	return 0;
}

const char *gt_flight_reason(const struct gotrace_snapshot *info)
{
	switch (info->reason) {
	case GOTRACE_SNAP_USER:
		return "user";
	case GOTRACE_SNAP_STOP:
		return "stop";
	case GOTRACE_SNAP_TRIGGER:
		return info->trigger == GOTRACE_TRIGGER_SCHED_LATENCY ?
		       "latency" : info->trigger == GOTRACE_TRIGGER_OFFCPU ?
		       "offcpu" : info->trigger == GOTRACE_TRIGGER_SYSCALL ?
		       "syscall" : "trigger";
	default:
		return "unknown";
	}
}

char *gt_flight_name(const char *dir, const struct gotrace_snapshot *info,
		     const struct timespec *wall)
{
	char when[32];
	struct tm tm;
	char *name;

	if (!gmtime_r(&wall->tv_sec, &tm) ||
	    !strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)wall->tv_sec);
	if (asprintf(&name, "%s/flight-%s.%03ldZ-%04" PRIu64 "-%s.trace", dir,
		     when, wall->tv_nsec / 1000000, (uint64_t)info->seq,
		     gt_flight_reason(info)) < 0)
		return NULL;
	return name;
}

int gt_flight_commit(struct gt_flight *f, const struct gotrace_snapshot *info,
		     const struct timespec *wall, char **name)
{
	char *final;
	int ret;

	*name = NULL;
	if (f->fd < 0)
		return flight_fail(f, EIO);
	ret = fsync(f->fd) ? errno : 0;
	if (close(f->fd) && !ret)
		ret = errno;
	f->fd = -1;
	if (ret)
		return flight_fail(f, ret);
	final = gt_flight_name(f->dir, info, wall);
	if (!final)
		return flight_fail(f, ENOMEM);
	if (rename(f->tmp, final)) {
		ret = errno;
		free(final);
		return flight_fail(f, ret);
	}
	f->files++;
	f->bytes += f->file_bytes;
	f->last_seq = info->seq;
	*name = final;
	/* --keep: the file is remembered by its own copy of the name. */
	final = strdup(final);
	if (final && gt_keep_add(&f->kept, final))
		free(final);
	return 0;
}

void gt_flight_close(struct gt_flight *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->tmp);
	f->tmp = NULL;
	gt_keep_free(&f->kept);
}

void gt_flight_describe(const struct gotrace_snapshot *info, char *buf,
			size_t len)
{
	switch (info->reason) {
	case GOTRACE_SNAP_USER:
		snprintf(buf, len, "asked for (gotrace snapshot, SIGUSR1)");
		break;
	case GOTRACE_SNAP_STOP:
		snprintf(buf, len, "the recording stopped");
		break;
	case GOTRACE_SNAP_TRIGGER:
		if (info->trigger == GOTRACE_TRIGGER_SCHED_LATENCY) {
			snprintf(buf, len,
				 "trigger sched-latency: tid %d (%.16s, pid %d) runnable %.3f ms before it ran",
				 (int)info->tid, info->comm, (int)info->tgid,
				 (double)info->value_ns / 1e6);
			break;
		}
		if (info->trigger == GOTRACE_TRIGGER_SYSCALL) {
			/* value_ns holds the syscall's number. */
			uint64_t nr = info->value_ns;
			const char *name = nr < GOTRACE_SYSCALL_MAX ?
				gt_syscall_name((unsigned int)nr) : NULL;

			if (name)
				snprintf(buf, len,
					 "trigger syscall: tid %d (%.16s, pid %d) entered %s (syscall %" PRIu64 ")",
					 (int)info->tid, info->comm,
					 (int)info->tgid, name, nr);
			else
				snprintf(buf, len,
					 "trigger syscall: tid %d (%.16s, pid %d) entered syscall %" PRIu64,
					 (int)info->tid, info->comm,
					 (int)info->tgid, nr);
			break;
		}
		if (info->trigger == GOTRACE_TRIGGER_OFFCPU) {
			snprintf(buf, len,
				 "trigger off-cpu: tid %d (%.16s, pid %d) blocked %.3f ms before it was woken",
				 (int)info->tid, info->comm, (int)info->tgid,
				 (double)info->value_ns / 1e6);
			break;
		}
		snprintf(buf, len, "trigger %u: tid %d (%.16s) value %" PRIu64
			 " ns", info->trigger, (int)info->tid, info->comm,
			 (uint64_t)info->value_ns);
		break;
	default:
		snprintf(buf, len, "reason %u", info->reason);
	}
}

bool gt_flight_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > UINT64_MAX / 10 / (1ULL << 30))
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'K' || *p == 'k')
		mul = 1ULL << 10;
	else if (*p == 'M' || *p == 'm')
		mul = 1ULL << 20;
	else if (*p == 'G' || *p == 'g')
		mul = 1ULL << 30;
	else if (*p)
		return false;
	if (*p && p[1] && strcmp(p + 1, "iB") && strcmp(p + 1, "B"))
		return false;
	*bytes = v * mul;
	return *bytes != 0;
}

bool gt_flight_parse_trigger(const char *s, struct gotrace_trigger *t)
{
	static const struct {
		const char *name;
		uint32_t type;
	} names[] = {
		{ "sched-latency:", GOTRACE_TRIGGER_SCHED_LATENCY },
		{ "latency:", GOTRACE_TRIGGER_SCHED_LATENCY },
		{ "off-cpu:", GOTRACE_TRIGGER_OFFCPU },
		{ "offcpu:", GOTRACE_TRIGGER_OFFCPU },
	};
	uint64_t ns;
	int nr;

	if (!strncmp(s, "syscall:", 8)) {
		nr = gt_syscall_nr(s + 8);
		if (nr < 0)
			return false;
		t->size = sizeof(*t);
		t->type = GOTRACE_TRIGGER_SYSCALL;
		t->threshold_ns = 0;
		t->syscall = nr;
		return true;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].name);

		if (strncmp(s, names[i].name, n))
			continue;
		if (!gt_parse_duration(s + n, &ns) ||
		    ns < GOTRACE_TRIGGER_MIN_NS)
			return false;
		t->size = sizeof(*t);
		t->type = names[i].type;
		t->threshold_ns = ns;
		return true;
	}
	return false;
}
