// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - parse `gotrace record`'s filter and buffer options into a
 * struct gotrace_options, checked as the module checks it.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"
#include "syscall_table.h"
#include "util.h"

#define GT_CHUNK_BYTES	GOTRACE_CHUNK_BYTES
#define GT_MAX_CHUNKS	GOTRACE_CHUNKS_MAX

const struct gt_cgroupfs gt_cgroupfs = {
	.root = "/sys/fs/cgroup",
	.magic = CGROUP2_SUPER_MAGIC,
};

void gt_opts_init(struct gotrace_options *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

/*
 * GOTRACE_SYSCALLS_* of a mode's name, as the option and the module's
 * "syscalls" parameter spell it; -1 for another word.
 */
static int syscall_mode(const char *name)
{
	static const char *const modes[] = {
		[GOTRACE_SYSCALLS_ALL] = "all",
		[GOTRACE_SYSCALLS_BLOCKING] = "blocking",
		[GOTRACE_SYSCALLS_NONE] = "none",
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(name, modes[i]))
			return (int)i;
	return -1;
}

/* The first line of @dir/@name without its newline, or "" */
static void read_param(const char *dir, const char *name, char *buf,
		       size_t size)
{
	char path[256];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

void gt_opts_module_defaults(struct gotrace_options *o, const char *dir)
{
	char v[32];
	int mode;

	read_param(dir, "syscalls", v, sizeof(v));
	mode = syscall_mode(v);
	if (mode >= 0)
		o->syscalls = (unsigned int)mode;
	read_param(dir, "kstacks", v, sizeof(v));
	if (!strcmp(v, "N"))
		o->flags |= GOTRACE_OPT_NO_KSTACKS;
	read_param(dir, "wake_kstacks", v, sizeof(v));
	if (!strcmp(v, "N"))
		o->flags |= GOTRACE_OPT_NO_WAKE_KSTACKS;
	read_param(dir, "user_stacks", v, sizeof(v));
	if (!strcmp(v, "Y"))
		o->flags |= GOTRACE_OPT_USER_STACKS;
	read_param(dir, "sample_isolated", v, sizeof(v));
	if (!strcmp(v, "Y"))
		o->flags |= GOTRACE_OPT_CPU_ISOLATED;
	/*
	 * Explicit, so that both backends write what the module would:
	 * with no parameter (no module loaded, or one older than the
	 * format option, which refuses a non-zero one) the options keep
	 * GOTRACE_FORMAT_DEFAULT, which the BPF backend takes as go1.23.
	 */
	read_param(dir, "format", v, sizeof(v));
	if (!strcmp(v, "go1.11"))
		o->format = GOTRACE_FORMAT_GO111;
	else if (!strcmp(v, "go1.23"))
		o->format = GOTRACE_FORMAT_GO123;
	/* A rate the module took: 0 to GOTRACE_CPU_HZ_MAX. */
	read_param(dir, "cpu_hz", v, sizeof(v));
	if (v[0] >= '1' && v[0] <= '9' && strlen(v) <= 3)
		o->cpu_hz = (uint32_t)atoi(v);
}

int gt_opts_cpu_hz(struct gotrace_options *o, const char *arg)
{
	unsigned long v;
	char *end;

	if (!arg) {
		o->cpu_hz = GT_CPU_HZ_DEFAULT;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v ||
	    v > GOTRACE_CPU_HZ_MAX) {
		gt_err("--cpu-hz: '%s' is no rate from 1 to %u samples a second",
		       arg, GOTRACE_CPU_HZ_MAX);
		return -1;
	}
	o->cpu_hz = (uint32_t)v;
	return 0;
}

int gt_opts_pids(struct gotrace_options *o, const char *list, bool tids)
{
	const char *p = list;

	o->nr_pids = 0;
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > INT_MAX ||
		    (*end && *end != ',')) {
			gt_err("invalid pid list '%s': want numbers separated by commas",
			       list);
			return -1;
		}
		if (o->nr_pids == GOTRACE_MAX_PIDS) {
			gt_err("at most %d pids", GOTRACE_MAX_PIDS);
			return -1;
		}
		o->pids[o->nr_pids++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (!o->nr_pids) {
		gt_err("empty pid list");
		return -1;
	}
	if (tids)
		o->flags &= ~GOTRACE_OPT_TGID;
	else
		o->flags |= GOTRACE_OPT_TGID;
	return 0;
}

int gt_opts_comm(struct gotrace_options *o, const char *comm)
{
	if (!*comm || strlen(comm) >= sizeof(o->comm)) {
		gt_err("invalid command name '%s': 1 to %zu characters", comm,
		       sizeof(o->comm) - 1);
		return -1;
	}
	strcpy(o->comm, comm);
	return 0;
}

int gt_opts_cgroup(struct gotrace_options *o, const char *path,
		   const struct gt_cgroupfs *fs)
{
	char full[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	int err = 0;

	if (path[0] == '/')
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", fs->root, path);
	if (stat(full, &st))
		err = errno;
	if (err || !S_ISDIR(st.st_mode)) {
		gt_err("no cgroup directory at %s%s%s", full, err ? ": " : "",
		       err ? strerror(err) : "");
		return -1;
	}
	if (statfs(full, &sfs)) {
		gt_err("cannot tell the file system of %s: %s", full,
		       strerror(errno));
		return -1;
	}
	if ((long)sfs.f_type != fs->magic) {
		gt_err("%s is not on cgroup v2 (file system 0x%lx): the module filters on cgroup v2 only",
		       full, (unsigned long)sfs.f_type);
		return -1;
	}
	o->cgroup_id = st.st_ino;
	return 0;
}

/*
 * The ControlGroup of @unit as systemd knows it ("/system.slice/x.service"),
 * from 'systemctl show -p ControlGroup --value UNIT'; false when there is
 * no systemctl or it knows no cgroup for the unit.
 */
static bool unit_cgroup_systemctl(const char *unit, char *out, size_t size)
{
	char *argv[] = { "systemctl", "show", "-p", "ControlGroup", "--value",
			 (char *)unit, NULL };
	size_t len = 0;
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return false;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(pfd[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while (len < size - 1) {
		n = read(pfd[0], out + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	out[len] = 0;
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && out[0] == '/';
}

int gt_opts_unit(struct gotrace_options *o, const char *unit,
		 const struct gt_cgroupfs *fs)
{
	char path[PATH_MAX], name[256], cg[PATH_MAX];
	struct stat st;

	if (!*unit || strchr(unit, '/') || strlen(unit) > 200) {
		gt_err("invalid unit name '%s'", unit);
		return -1;
	}
	snprintf(name, sizeof(name), "%s%s", unit,
		 strchr(unit, '.') ? "" : ".service");
	snprintf(path, sizeof(path), "%s/system.slice/%s", fs->root, name);
	if (stat(path, &st) && unit_cgroup_systemctl(name, cg, sizeof(cg)))
		snprintf(path, sizeof(path), "%s%s", fs->root, cg);
	return gt_opts_cgroup(o, path, fs);
}

int gt_opts_syscalls(struct gotrace_options *o, const char *mode)
{
	int m = syscall_mode(mode);

	if (m < 0) {
		gt_err("invalid syscall mode '%s': all, blocking or none", mode);
		return -1;
	}
	o->syscalls = (unsigned int)m;
	return 0;
}

int gt_syscall_nr(const char *name)
{
	size_t i;

	if (!strncmp(name, "sys_", 4))
		name += 4;
	for (i = 0; i < sizeof(gt_syscall_table) / sizeof(gt_syscall_table[0]);
	     i++)
		if (!strcmp(gt_syscall_table[i].name, name))
			return gt_syscall_table[i].nr;
	return -1;
}

const char *gt_syscall_name(unsigned int nr)
{
	size_t i;

	for (i = 0; i < sizeof(gt_syscall_table) / sizeof(gt_syscall_table[0]);
	     i++)
		if (gt_syscall_table[i].nr == (int)nr)
			return gt_syscall_table[i].name;
	return NULL;
}

int gt_opts_syscall_filter(struct gotrace_options *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int mode = GOTRACE_SET_OFF;
	int ret = -1;

	if (!copy) {
		gt_err("out of memory");
		return -1;
	}
	memset(o->syscall_set, 0, sizeof(o->syscall_set));
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int want = *tok == '!' ? GOTRACE_SET_EXCLUDE :
						  GOTRACE_SET_INCLUDE;
		const char *name = tok + (*tok == '!');
		int nr = gt_syscall_nr(name);

		if (mode != GOTRACE_SET_OFF && mode != want) {
			gt_err("syscall filter '%s': either names to keep or !names to leave out, not both",
			       list);
			goto out;
		}
		mode = want;
		if (nr < 0 || nr >= GOTRACE_SYSCALL_MAX) {
			gt_err("unknown syscall '%s'", name);
			goto out;
		}
		o->syscall_set[nr / 64] |= 1ULL << (nr % 64);
	}
	if (mode == GOTRACE_SET_OFF) {
		gt_err("empty syscall filter");
		goto out;
	}
	o->syscall_set_mode = mode;
	ret = 0;
out:
	free(copy);
	return ret;
}

int gt_opts_buffer_size(struct gotrace_options *o, const char *size)
{
	unsigned long long v, mult = 1;
	char *end;

	errno = 0;
	v = strtoull(size, &end, 10);
	if (!errno && end != size) {
		if (!strcmp(end, "K") || !strcmp(end, "k"))
			mult = 1ULL << 10;
		else if (!strcmp(end, "M") || !strcmp(end, "m"))
			mult = 1ULL << 20;
		else if (!strcmp(end, "G") || !strcmp(end, "g"))
			mult = 1ULL << 30;
		else if (*end)
			mult = 0;
	}
	if (errno || end == size || !mult || !v ||
	    v > (unsigned long long)GT_MAX_CHUNKS * GT_CHUNK_BYTES / mult ||
	    v * mult < GT_CHUNK_BYTES) {
		gt_err("invalid buffer size '%s': want e.g. 512K, 64M or 1G, at least 64K, at most 1G",
		       size);
		return -1;
	}
	o->chunks = (unsigned int)((v * mult + GT_CHUNK_BYTES - 1) /
				   GT_CHUNK_BYTES);
	return 0;
}

/* The GOTRACE_OPT_* of each kind --interrupts names. */
static const struct {
	const char *name;
	uint32_t flags;
} interrupt_kinds[] = {
	{ "hardirq",	GOTRACE_OPT_HARDIRQS },
	{ "softirq",	GOTRACE_OPT_SOFTIRQS },
	{ "workqueue",	GOTRACE_OPT_WORKQUEUE },
	{ "all",	GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS |
			GOTRACE_OPT_WORKQUEUE },
	{ "none",	0 },
};

#define INTERRUPT_FLAGS	(GOTRACE_OPT_HARDIRQS | GOTRACE_OPT_SOFTIRQS | \
			 GOTRACE_OPT_WORKQUEUE)

int gt_opts_interrupts(struct gotrace_options *o, const char *list)
{
	const size_t nr = sizeof(interrupt_kinds) / sizeof(interrupt_kinds[0]);
	uint32_t want = 0;
	size_t len, i;

	for (const char *p = list;; p += len + 1) {
		len = strcspn(p, ",");
		for (i = 0; i < nr; i++)
			if (strlen(interrupt_kinds[i].name) == len &&
			    !strncmp(p, interrupt_kinds[i].name, len))
				break;
		if (i == nr) {
			gt_err("--interrupts: '%.*s' is none of hardirq, softirq, workqueue, all, none",
			       (int)len, p);
			return -1;
		}
		want |= interrupt_kinds[i].flags;
		if (!p[len])
			break;
	}
	o->flags = (o->flags & ~INTERRUPT_FLAGS) | want;
	return 0;
}
