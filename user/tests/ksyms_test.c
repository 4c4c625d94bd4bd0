// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms_test.c - the names the BPF backend gives kernel addresses
 * (bpf/ksyms.c), from fake /proc/kallsyms files
 *
 * Where several symbols share an address, the name is the one the
 * kernel's own lookup gives (the module's sprint_symbol()): a function
 * rather than a section's bound the linker script put there
 * (__sched_text_start at io_schedule on Debian's 6.1), whichever line
 * comes first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/ksyms.h"
#include "tap.h"

static char path[64];

static struct gt_ksyms *load(const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return gt_ksyms_load(path);
}

/* The name of @addr, "?" if none, with its offset "+0xN" if not 0. */
static const char *name_of(const struct gt_ksyms *k, uint64_t addr)
{
	static char buf[128];
	uint64_t off = 0;
	const char *s = gt_ksyms_find(k, addr, &off);

	if (!s)
		return "?";
	if (off)
		snprintf(buf, sizeof(buf), "%s+0x%llx", s, (unsigned long long)off);
	else
		snprintf(buf, sizeof(buf), "%s", s);
	return buf;
}

static void expect(const struct gt_ksyms *k, uint64_t addr, const char *want,
		   const char *what)
{
	const char *got = name_of(k, addr);

	ok(!strcmp(got, want), "%s: %s (got %s)", what, want, got);
}

int main(void)
{
	struct gt_ksyms *k;
	int fd;

	snprintf(path, sizeof(path), "/tmp/gt-ksyms.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	diag("fake /proc/kallsyms in %s", path);

	/* Debian 6.1's .sched.text: the marker listed after the function... */
	k = load("ffffffff81000000 T _stext\n"
		 "ffffffff81000000 T startup_64\n"
		 "ffffffff81a00000 T io_schedule\n"
		 "ffffffff81a00000 T __sched_text_start\n"
		 "ffffffff81a00040 T schedule\n"
		 "ffffffff81a00400 T __sched_text_end\n"
		 "ffffffff81a00400 t __cpuidle_text_start\n"
		 "ffffffff81a00400 t default_idle\n");
	ok(k && gt_ksyms_visible(k), "a file with addresses: visible");
	if (!k)
		return tap_done();
	expect(k, 0xffffffff81a00000, "io_schedule",
	       "a function over __sched_text_start at its address");
	expect(k, 0xffffffff81a00013, "io_schedule+0x13",
	       "an address inside it");
	expect(k, 0xffffffff81000005, "startup_64+0x5",
	       "a function over _stext");
	expect(k, 0xffffffff81a00408, "default_idle+0x8",
	       "a function over __sched_text_end and __cpuidle_text_start");
	expect(k, 0xffffffff81a00041, "schedule+0x1", "a lone symbol");
	gt_ksyms_free(k);

	/* ...and before it: the order of the lines does not matter. */
	k = load("ffffffff81000000 T startup_64\n"
		 "ffffffff81000000 T _stext\n"
		 "ffffffff81a00000 T __sched_text_start\n"
		 "ffffffff81a00000 T io_schedule\n"
		 "ffffffff81a00400 t default_idle\n"
		 "ffffffff81a00400 t __cpuidle_text_start\n"
		 "ffffffff81a00400 T __sched_text_end\n");
	ok(k != NULL, "the same symbols in another order");
	if (!k)
		return tap_done();
	expect(k, 0xffffffff81a00000, "io_schedule",
	       "a function listed after __sched_text_start");
	expect(k, 0xffffffff81000000, "startup_64",
	       "a function listed before _stext");
	expect(k, 0xffffffff81a00400, "default_idle",
	       "a function listed before two markers");
	gt_ksyms_free(k);

	/*
	 * Aliases that are all functions: the kernel's order, fewer leading
	 * underscores first, a weak one last, then the file's order.
	 */
	k = load("ffffffff81100000 T __x64_sys_getppid\n"
		 "ffffffff81100000 T __ia32_sys_getppid\n"
		 "ffffffff81200000 W arch_cpu_idle\n"
		 "ffffffff81200000 T arch_cpu_idle_real\n"
		 "ffffffff81300000 T __pi__text\n"
		 "ffffffff81300000 T __pi_startup\n"
		 "ffffffff81400000 T __start_kprobe_blacklist\n"
		 "ffffffff81400000 T __kprobe_handler\n"
		 "ffffffff81500000 t __x86_indirect_thunk_start\n"
		 "ffffffff81500000 t __x86_indirect_thunk_array\n"
		 "ffffffff81600000 T __entry_text_end\n");
	ok(k != NULL, "aliases");
	if (!k)
		return tap_done();
	expect(k, 0xffffffff81100000, "__x64_sys_getppid",
	       "two aliases of one rank: the first line");
	expect(k, 0xffffffff81200000, "arch_cpu_idle_real",
	       "a global function over a weak one");
	expect(k, 0xffffffff81300000, "__pi_startup",
	       "a function over the text's bound as a __pi_ alias");
	expect(k, 0xffffffff81400000, "__kprobe_handler",
	       "a function over __start_SECTION");
	expect(k, 0xffffffff81500010, "__x86_indirect_thunk_array+0x10",
	       "a function over __X_start");
	expect(k, 0xffffffff81600010, "__entry_text_end+0x10",
	       "a marker alone still names its address");
	expect(k, 0xffffffff810fffff, "?", "below the first symbol: none");
	gt_ksyms_free(k);

	/* Addresses hidden (kptr_restrict): nothing is named. */
	k = load("0000000000000000 T io_schedule\n"
		 "0000000000000000 T __sched_text_start\n");
	ok(k && !gt_ksyms_visible(k), "zeros: not visible");
	if (k) {
		expect(k, 0, "?", "hidden addresses name nothing");
		gt_ksyms_free(k);
	}
	unlink(path);
	return tap_done();
}
