// SPDX-License-Identifier: GPL-2.0
/*
 * go123_encode_test.c - unit tests of the generational format's writer
 * (model/go123_encode.c, the source the module builds): the byte layout of
 * the header, batches, events and tables, every append writing its whole
 * record or nothing, the 64 KiB batch cap, and generations read back by
 * gotrace's own reader of the format (user/trace/go123_read.c,
 * go123_walk.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go123_encode.h"
#include "tap.h"
#include "../../user/trace/leb128.h"
/*
 * gotrace's reader has a struct gt_frame of its own (trace/go111_check.h): give
 * it another name in this file, which uses the encoder's.
 */
#define gt_frame gt_reader_frame
#include "../../user/trace/go123.h"
#include "../../user/trace/go123_read.h"
#include "../../user/trace/go123_walk.h"
#undef gt_frame

/* Decode the LEB128 value at *@p and move past it; UINT64_MAX if bad. */
static u64 leb(const u8 **p, const u8 *end)
{
	uint64_t v;
	int k = gt_leb_get(*p, (size_t)(end - *p), &v);

	if (k <= 0)
		return UINT64_MAX;
	*p += k;
	return v;
}

static void test_header(void)
{
	u8 buf[32];
	struct gt_enc123 e;

	memset(buf, 0xaa, sizeof(buf));
	gt_enc123_init(&e, buf, sizeof(buf));
	TAP_OK(gt_enc123_header(&e, GT_E123_GO123) && e.len == 16 &&
	       !memcmp(buf, "go 1.23 trace\0\0\0", 16) && buf[16] == 0xaa,
	       "header: \"go 1.23 trace\" and three zero bytes");
	gt_enc123_init(&e, buf, 15);
	TAP_OK(!gt_enc123_header(&e, GT_E123_GO126) && e.len == 0,
	       "header: nothing written into 15 bytes");
	gt_enc123_init(&e, buf, sizeof(buf));
	TAP_OK(!gt_enc123_header(&e, 100) && !gt_enc123_header(&e, 9) && !e.len,
	       "header: versions outside 1.10 .. 1.99 refused");
}

static void test_batch_layout(void)
{
	static u8 buf[1024];
	const u8 *p, *end;
	struct gt_enc123 e;
	u64 args[5] = { 7, 300, UINT64_MAX, 1, 2 };
	bool ok = true;
	u32 size;

	gt_enc123_init(&e, buf, sizeof(buf));
	TAP_OK(!gt_enc123_ev0(&e, GT_E123_PROC_STOP, 1) && !e.len,
	       "an event outside a batch is refused");
	TAP_OK(gt_enc123_batch(&e, 5, 1234, 1000000) &&
	       !gt_enc123_batch(&e, 5, 1234, 1000000),
	       "a batch opens, a second one cannot while it is open");
	ok = gt_enc123_event(&e, GT_E123_GO_STATUS, 1000100, args, 3) &&
	     gt_enc123_ev0(&e, GT_E123_PROC_STOP, 1000050) &&
	     !gt_enc123_event(&e, GT_E123_USER_LOG, 1000200, args, 5);
	TAP_OK(ok, "events of up to four values (UserLog); five refused");
	size = gt_enc123_batch_end(&e);

	p = buf;
	end = buf + e.len;
	ok = *p++ == GT_E123_EVENT_BATCH && leb(&p, end) == 5 &&
	     leb(&p, end) == 1234 && leb(&p, end) == 1000000;
	TAP_OK(ok, "batch header: batch byte, generation, M, base time");
	ok = p + 2 <= end && (p[0] & 0x80) && !(p[1] & 0x80);
	TAP_OK(ok && leb(&p, end) == size && size == (u32)(end - p),
	       "batch size: two padded LEB128 bytes, the data's length (%u)",
	       size);
	ok = *p++ == GT_E123_GO_STATUS && leb(&p, end) == 100 &&
	     leb(&p, end) == 7 && leb(&p, end) == 300 &&
	     leb(&p, end) == UINT64_MAX - 0;
	/* UINT64_MAX is also leb()'s error value: check its ten bytes. */
	TAP_OK(ok && p[-1] == 0x01 && p[-10] == 0xff,
	       "event: type byte, time delta from the base, the values");
	ok = *p++ == GT_E123_PROC_STOP && leb(&p, end) == 0 && p == end;
	TAP_OK(ok, "an event stamped before the last one gets delta 0, no length byte");
	TAP_OK(gt_enc123_batch_end(&e) == 0,
	       "batch_end without an open batch does nothing");
}

/*
 * Each kind of record, appended with every room short of what it needs:
 * the append fails and leaves the buffer as it was, up to its last byte.
 */
static bool append(struct gt_enc123 *e, int kind)
{
	static const struct gt_frame fr[3] = {
		{ 0x401000, 1, 2, 10 }, { 0xffffffff81000000ULL, 3, 2, 99 },
		{ 1, 1, 1, 1 },
	};
	struct gt_e2_clock clock = { 5000, 6000, 1700000000, 999 };

	switch (kind) {
	case 0:
		return gt_enc123_batch(e, 300, GT_E123_NO_M, 1ULL << 40);
	case 1:
		return gt_enc123_ev3(e, GT_E123_GO_CREATE, 1ULL << 50, 99999, 3, 4);
	case 2:
		return gt_enc123_string(e, 1, "chan receive", 12);
	case 3:
		return gt_enc123_stack(e, 7, fr, 3);
	case 4:
		return gt_enc123_strings(e, 2);
	default:
		return gt_enc123_sync(e, GT_E123_GO126, 2, 1000000000, &clock);
	}
}

static void test_whole_or_nothing(void)
{
	static const char *const what[] = { "batch header", "event",
		"string", "stack", "string table batch", "sync batch" };
	static u8 buf[512];

	for (int kind = 0; kind < 6; kind++) {
		struct gt_enc123 e;
		u32 start, full = 0;
		bool ok = true;

		for (u32 room = 0; room < 256 && !full; room++) {
			memset(buf, 0x5a, sizeof(buf));
			gt_enc123_init(&e, buf, sizeof(buf));
			/* Events and table records need their batch open. */
			if (kind == 1 && !gt_enc123_batch(&e, 1, 1, 0))
				ok = false;
			if ((kind == 2 || kind == 3) && !gt_enc123_strings(&e, 1))
				ok = false;
			start = e.len;
			e.cap = e.limit = start + room;
			if (append(&e, kind)) {
				full = e.len - start;
				ok = ok && full == room;
			} else {
				ok = ok && e.len == start &&
				     e.limit == start + room;
			}
			for (u32 i = start + room; i < sizeof(buf); i++)
				ok = ok && buf[i] == 0x5a;
		}
		TAP_OK(ok && full,
		       "%s: refused with any room short of its %u bytes, nothing past the room written",
		       what[kind], full);
	}
}

static void test_batch_cap(void)
{
	static u8 buf[3 * GT_E123_BATCH_DATA_MAX];
	struct gt_enc123 e;
	u32 n = 0, size;

	gt_enc123_init(&e, buf, sizeof(buf));
	gt_enc123_batch(&e, 1, 1, 0);
	while (gt_enc123_ev2(&e, GT_E123_GO_START, 0, 1000, 1))
		n++;	/* type, delta 0, 1000 in two bytes, 1: 5 bytes */
	size = gt_enc123_batch_end(&e);
	TAP_OK(size <= GT_E123_BATCH_DATA_MAX && size > GT_E123_BATCH_DATA_MAX - 5 &&
	       size == n * 5 && e.len < sizeof(buf) / 2,
	       "a batch stops taking events at 16 KiB of data (%u events, %u bytes) though the buffer has room",
	       n, size);
	TAP_OK(gt_enc123_batch(&e, 1, 1, 0) && gt_enc123_ev0(&e, GT_E123_PROC_STOP, 1),
	       "the next batch takes events again");
}

/*
 * A batch filled to exactly its cap: its size field, two padded LEB128
 * bytes, must still say its size (2^14 - 1 at most; 2^14 would read 0).
 * Events of 2, 3 and 5 bytes, chosen by the room left, fill it exactly.
 */
static void test_batch_full(void)
{
	static u8 buf[3 * GT_E123_BATCH_DATA_MAX];
	struct gt_enc123 e;
	u32 room, size, field;
	bool ok = true;

	gt_enc123_init(&e, buf, sizeof(buf));
	gt_enc123_batch(&e, 1, 1, 0);
	while (ok && (room = gt_enc123_room(&e)) > 0) {
		if (room == 3)	/* type, delta 200 in two bytes */
			ok = gt_enc123_ev0(&e, GT_E123_PROC_STOP, 200);
		else if (room == 5)	/* type, delta 0, 1000 in two bytes, 1 */
			ok = gt_enc123_ev2(&e, GT_E123_GO_START, 0, 1000, 1);
		else			/* type, delta 0 */
			ok = gt_enc123_ev0(&e, GT_E123_PROC_STOP, 0);
	}
	size = gt_enc123_batch_end(&e);
	/* The size field: the two bytes before the batch's data. */
	field = (buf[e.len - size - 2] & 0x7f) | (u32)buf[e.len - size - 1] << 7;
	TAP_OK(ok && size >= GT_E123_BATCH_DATA_MAX - 1 && field == size &&
	       (buf[e.len - size - 2] & 0x80) && !(buf[e.len - size - 1] & 0x80),
	       "a batch filled to its cap (%u bytes of data) says its size (%u)",
	       size, field);
}

/* Read back: the events of a generation in order, as the walk gives them. */
struct seen {
	unsigned int n;
	struct gt_go123_event ev[16];
};

static int collect(void *ctx, const struct gt_go123_gen *g,
		   const struct gt_go123_event *ev, struct gt_trace_error *err)
{
	struct seen *s = ctx;

	(void)g;
	(void)err;
	if (s->n < 16)
		s->ev[s->n] = *ev;
	s->n++;
	return 0;
}

static void test_read_back(unsigned int version)
{
	static u8 buf[4096];
	static const char longname[] = "a very long file name";
	const struct gt_frame fr[2] = { { 0x401000, 1, 3, 10 },
					{ 0x402000, 2, 3, 20 } };
	struct gt_e2_clock clock = { 2000000, 42, 1700000000, 5 };
	struct gt_trace_error err = { 0 };
	struct gt_go123_gen g = { 0 };
	struct gt_go123_reader r;
	struct gt_enc123 e;
	struct gt_src src;
	struct seen s = { 0 };
	const uint64_t *pcs;
	const char *str;
	size_t len, npc;
	bool ok;

	gt_enc123_init(&e, buf, sizeof(buf));
	ok = gt_enc123_header(&e, version);
	for (u64 gen = 1; gen <= 2; gen++) {
		u64 t = gen * 1000000;

		/* Two Ms; the second one's batch is written first. */
		ok = ok && gt_enc123_batch(&e, gen, 102, t) &&
		     gt_enc123_ev2(&e, GT_E123_PROC_STATUS, t, 1, GT_E123_P_RUNNING) &&
		     gt_enc123_ev2(&e, GT_E123_GO_BLOCK, t + 300, 4, 2);
		gt_enc123_batch_end(&e);
		ok = ok && gt_enc123_batch(&e, gen, 101, t) &&
		     gt_enc123_ev2(&e, GT_E123_PROC_STATUS, t, 0, GT_E123_P_RUNNING) &&
		     gt_enc123_ev3(&e, GT_E123_GO_STATUS, t + 100, 1, 101,
				 GT_E123_G_RUNNING) &&
		     gt_enc123_ev3(&e, GT_E123_GO_CREATE, t + 200, 2, 1, 2);
		gt_enc123_batch_end(&e);
		ok = ok && gt_enc123_strings(&e, gen) &&
		     gt_enc123_string(&e, 1, "main.main", 9) &&
		     gt_enc123_string(&e, 2, "main.worker", 11) &&
		     gt_enc123_string(&e, 3, longname, sizeof(longname) - 1) &&
		     gt_enc123_string(&e, 4, "chan receive", 12);
		gt_enc123_batch_end(&e);
		ok = ok && gt_enc123_stacks(&e, gen) &&
		     gt_enc123_stack(&e, 1, fr, 1) && gt_enc123_stack(&e, 2, fr, 2);
		gt_enc123_batch_end(&e);
		ok = ok && gt_enc123_sync(&e, version, gen, 1000000000, &clock) &&
		     gt_enc123_end_of_generation(&e, version);
	}
	TAP_OK(ok, "go 1.%u: two generations written (%u bytes)", version,
	       e.len);

	gt_src_mem(&src, buf, e.len);
	gt_go123_open(&r, &src);
	ok = r.version == (int)version && gt_go123_next(&r, &g, &err) == 1 &&
	     g.gen == 1 && g.freq == 1000000000 && g.nbatches == 2 &&
	     g.snapshot == (version >= GT_E123_GO125) &&
	     g.complete;
	TAP_OK(ok, "go 1.%u: the reader takes generation 1: frequency, %s, two event batches, its end certain%s%s",
	       version, version >= GT_E123_GO125 ? "clock snapshot" : "no snapshot",
	       err.msg[0] ? ": " : "", err.msg);
	ok = gt_go123_string(&g, 3, &str, &len) &&
	     len == sizeof(longname) - 1 && !memcmp(str, longname, len) &&
	     gt_go123_string(&g, 4, &str, &len) && len == 12 &&
	     gt_go123_stack(&g, 2, &pcs, &npc) && npc == 2 &&
	     pcs[0] == 0x401000 && pcs[1] == 0x402000 &&
	     gt_go123_frame(&g, 0x402000)->func == 2 &&
	     gt_go123_frame(&g, 0x402000)->line == 20;
	TAP_OK(ok, "go 1.%u: strings and stack frames read back", version);
	ok = !gt_go123_walk(&g, collect, &s, &err) && s.n == 5 &&
	     s.ev[0].type == GT_GO123_EV_PROC_STATUS &&
	     s.ev[2].type == GT_GO123_EV_GO_STATUS && s.ev[2].m == 101 &&
	     s.ev[2].ts == 1000100 && s.ev[2].args[1] == 1 &&
	     s.ev[2].args[2] == 101 && s.ev[2].args[3] == GT_GO123_G_RUNNING &&
	     s.ev[3].type == GT_GO123_EV_GO_CREATE && s.ev[3].ts == 1000200 &&
	     s.ev[3].args[1] == 2 && s.ev[3].args[3] == 2 &&
	     s.ev[4].type == GT_GO123_EV_GO_BLOCK && s.ev[4].m == 102 &&
	     s.ev[4].ts == 1000300 && s.ev[4].args[1] == 4;
	TAP_OK(ok, "go 1.%u: events read back in time order across the Ms, with their values%s%s",
	       version, err.msg[0] ? ": " : "", err.msg);
	ok = gt_go123_next(&r, &g, &err) == 1 && g.gen == 2 &&
	     gt_go123_next(&r, &g, &err) == 0;
	TAP_OK(ok, "go 1.%u: generation 2, then the clean end of the trace%s%s",
	       version, err.msg[0] ? ": " : "", err.msg);
	gt_go123_gen_free(&g);
}

static void test_limits(void)
{
	static u8 buf[8192];
	static char s[1500];
	static struct gt_frame fr[200];
	const u8 *p, *end;
	struct gt_enc123 e;
	bool ok;

	for (unsigned int i = 0; i < sizeof(s); i++)
		s[i] = (char)('a' + i % 26);
	gt_enc123_init(&e, buf, sizeof(buf));
	ok = gt_enc123_strings(&e, 1) && gt_enc123_string(&e, 9, s, sizeof(s));
	gt_enc123_batch_end(&e);
	p = buf + e.len - GT_E123_STRING_MAX;
	TAP_OK(ok && !memcmp(p, s + sizeof(s) - GT_E123_STRING_MAX,
			     GT_E123_STRING_MAX) &&
	       p[-2] == ((GT_E123_STRING_MAX & 0x7f) | 0x80) &&
	       p[-1] == GT_E123_STRING_MAX >> 7,
	       "a string longer than 1024 bytes keeps its last 1024");

	for (unsigned int i = 0; i < 200; i++)
		fr[i] = (struct gt_frame){ 0x1000 + i, 1, 1, i };
	gt_enc123_init(&e, buf, sizeof(buf));
	ok = gt_enc123_stacks(&e, 1) && gt_enc123_stack(&e, 3, fr, 200);
	end = buf + e.len;
	gt_enc123_batch_end(&e);
	p = buf;
	p++;
	leb(&p, end);
	leb(&p, end);
	leb(&p, end);
	leb(&p, end);
	ok = ok && *p++ == GT_E123_STACKS && *p++ == GT_E123_STACK &&
	     leb(&p, end) == 3 && leb(&p, end) == GT_E123_STACK_MAX_FRAMES &&
	     leb(&p, end) == 0x1000;
	TAP_OK(ok, "a stack of 200 frames keeps its 128 innermost");
	gt_enc123_init(&e, buf, sizeof(buf));
	TAP_OK(!gt_enc123_string(&e, 1, "x", 1) && !gt_enc123_stack(&e, 1, fr, 1) &&
	       !e.len, "table records outside a batch are refused");
}

int main(void)
{
	test_header();
	test_batch_layout();
	test_whole_or_nothing();
	test_batch_cap();
	test_batch_full();
	test_read_back(GT_E123_GO123);
	test_read_back(GT_E123_GO126);
	test_limits();
	return tap_done();
}
