// SPDX-License-Identifier: GPL-2.0
/*
 * usym_test.c - trace/usym.c: file offsets of real binaries named
 *
 * make check builds build/usym_prog (tests/usym_prog.c, -g -O1 with frame
 * pointers), a stripped copy, and build/usym_go (tests/usym_go.go, when
 * Go 1.23 is there).  The functions' addresses come from nm, are turned
 * into file offsets through the program headers, and resolved as return
 * addresses one byte into the function; the file:line must be what
 * addr2line says of the same address.  A function's first byte, as an
 * exact PC, is that function's; as a return address, the one before it
 * (build/burn's spin_at_entry and before_spin).  Files that are no
 * binary are left unnamed, without a crash.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trace/usym.h"

#define PROG	"build/usym_prog"
#define STRIPPED "build/usym_prog.stripped"
#define GOPROG	"build/usym_go"
#define BURN	"build/burn"

/* The first line of the output of @cmd, without its newline; false if none. */
static bool run1(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	bool got;

	if (!p)
		return false;
	got = fgets(out, (int)size, p) != NULL;
	pclose(p);
	if (got)
		out[strcspn(out, "\n")] = 0;
	return got;
}

/* The address nm gives @sym in @path, or 0. */
static uint64_t nm_addr(const char *path, const char *sym)
{
	char cmd[512], out[256];

	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 == \"%s\" { print $1 }'",
		 path, sym);
	return run1(cmd, out, sizeof(out)) ? strtoull(out, NULL, 16) : 0;
}

/* The file offset of ELF address @vaddr of @path, through PT_LOAD; 0 if none. */
static uint64_t vaddr_to_off(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = 0;
	size_t n = 0;
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr m, *ph = gelf_getphdr(e, (int)i, &m);

			if (ph && ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
			    vaddr - ph->p_vaddr < ph->p_filesz) {
				off = vaddr - ph->p_vaddr + ph->p_offset;
				break;
			}
		}
	elf_end(e);
	close(fd);
	return off;
}

/* "file:line" of @addr by addr2line, its discriminator dropped. */
static bool addr2line(const char *path, uint64_t addr, char *out, size_t size)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' 0x%llx", path,
		 (unsigned long long)addr);
	if (!run1(cmd, out, size))
		return false;
	out[strcspn(out, " ")] = 0;
	return true;
}

static void check_func(struct gt_usym *u, const char *path, const char *name,
		       bool lines)
{
	uint64_t addr = nm_addr(path, name), off;
	struct gt_usym_loc loc = { 0 };
	char want[1024], got[1100];
	int r;

	if (!ok(addr != 0, "nm finds %s in %s", name, path))
		return;
	/* Four bytes in: past the function's first instruction's first byte. */
	off = vaddr_to_off(path, addr + 4);
	r = gt_usym_resolve(u, path, off + 1, false, &loc);
	if (!ok(r == 1 && !strcmp(loc.func, name),
		"%s+0x%llx is %s (got %s)", path, (unsigned long long)off + 1,
		name, r == 1 ? loc.func : "nothing"))
		return;
	if (!lines)
		return;
	snprintf(got, sizeof(got), "%s:%llu", loc.file,
		 (unsigned long long)loc.line);
	ok(addr2line(path, addr + 4, want, sizeof(want)) && !strcmp(got, want),
	   "%s's line %s is addr2line's %s", name, got, want);
}

static void check_none(struct gt_usym *u, const char *path, uint64_t off,
		       const char *what)
{
	struct gt_usym_loc loc = { 0 };

	ok(gt_usym_resolve(u, path, off, false, &loc) == 0 &&
	   gt_usym_resolve(u, path, off, true, &loc) == 0,
	   "%s: left as it is", what);
}

/*
 * The first byte of @name, which @before ends right before: as an exact
 * PC (an interrupted task's), @name; as a return address, @before, the
 * function of the call it would follow.
 */
static void check_first_byte(struct gt_usym *u, const char *path,
			     const char *name, const char *before)
{
	uint64_t addr = nm_addr(path, name), off;
	struct gt_usym_loc loc = { 0 };
	int r;

	if (!ok(addr != 0, "nm finds %s in %s", name, path))
		return;
	off = vaddr_to_off(path, addr);
	r = gt_usym_resolve(u, path, off, true, &loc);
	ok(r == 1 && !strcmp(loc.func, name),
	   "%s+0x%llx, an exact PC, is %s (got %s)", path,
	   (unsigned long long)off, name, r == 1 ? loc.func : "nothing");
	r = gt_usym_resolve(u, path, off, false, &loc);
	ok(r == 1 && !strcmp(loc.func, before),
	   "%s+0x%llx, a return address, is %s (got %s)", path,
	   (unsigned long long)off, before, r == 1 ? loc.func : "nothing");
}

/*
 * A return address 4 bytes into data symbol @name, in a segment that is
 * not executable: no frame of code, left unnamed (a walk of frame
 * pointers may take a value for a frame record, and one in a static Go
 * binary's runtime.types, after its text, was named so).
 */
static void check_data(struct gt_usym *u, const char *path, const char *name)
{
	uint64_t addr = nm_addr(path, name);
	char what[256];

	if (!ok(addr != 0, "nm finds %s in %s", name, path))
		return;
	snprintf(what, sizeof(what), "%s: a return address in %s (data)", path,
		 name);
	check_none(u, path, vaddr_to_off(path, addr + 4), what);
}

static void check_parse(void)
{
	static const struct {
		const char *func, *file;
		bool want;
		uint64_t off;
	} c[] = {
		{ "app+0x1253", "/usr/bin/app", true, 0x1253 },
		{ "libc.so.6+0x0", "/lib/x86_64-linux-gnu/libc.so.6", true, 0 },
		{ "app+0xffffffffffffffff", "/a/app", true, ~0ULL },
		{ "app+0x1ffffffffffffffff", "/a/app", false, 0 },
		{ "app+0x12AB", "/usr/bin/app", false, 0 },
		{ "app+0x", "/usr/bin/app", false, 0 },
		{ "app+1253", "/usr/bin/app", false, 0 },
		{ "other+0x10", "/usr/bin/app", false, 0 },
		{ "app+0x10", "app", false, 0 },
		{ "app+0x10", "/usr/bin/", false, 0 },
		{ "[unknown]+0x7f00", "", false, 0 },
		{ "[user stack truncated: depth limit]", "", false, 0 },
		{ "main.readLoop", "/src/main.go", false, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t off = 0;
		bool got = gt_usym_parse(c[i].func, strlen(c[i].func), c[i].file,
					 strlen(c[i].file), &off);

		ok(got == c[i].want && (!got || off == c[i].off),
		   "\"%s\" in \"%s\" is %san unsymbolised frame", c[i].func,
		   c[i].file, c[i].want ? "" : "not ");
	}
}

int main(void)
{
	struct gt_usym *u = gt_usym_open();
	size_t opened, failed;

	check_parse();
	if (!ok(u != NULL, "a resolver opens"))
		return tap_done();
	/* Read-only data, no code: as a walk that took data for a frame. */
	check_data(u, PROG, "_IO_stdin_used");
	if (access(GOPROG, R_OK) == 0)
		check_data(u, GOPROG, "runtime.types");
	check_func(u, PROG, "outer", true);
	check_func(u, PROG, "middle", true);
	check_func(u, PROG, "leaf", true);
	if (access(GOPROG, R_OK) == 0)
		check_func(u, GOPROG, "main.readLoop", true);
	else
		ok(1, "# SKIP no %s (Go 1.23 missing)", GOPROG);
	check_first_byte(u, BURN, "spin_at_entry", "before_spin");
	check_none(u, STRIPPED, vaddr_to_off(PROG, nm_addr(PROG, "leaf")) + 5,
		   "leaf in the stripped binary");
	check_none(u, PROG, 0, "offset 0 (before any code)");
	check_none(u, PROG, 1ULL << 40, "an offset past the file");
	check_none(u, "/nonexistent/usym_prog", 0x1000, "a missing file");
	check_none(u, "tests/usym_prog.c", 0x10, "a file that is not ELF");
	check_none(u, "build", 0x10, "a directory");
	check_none(u, "/dev/null", 0x10, "a device");
	/* Again: the cache answers, the same way. */
	check_func(u, PROG, "leaf", false);
	check_none(u, "/nonexistent/usym_prog", 0x1000, "a missing file, again");
	gt_usym_counts(u, &opened, &failed);
	diag("%zu binaries opened, %zu could not be read", opened, failed);
	ok(opened == 7 + (access(GOPROG, R_OK) == 0) && failed == 4,
	   "each binary opened once: %zu opened, %zu unreadable", opened,
	   failed);
	gt_usym_close(u);
	return tap_done();
}
