// SPDX-License-Identifier: GPL-2.0
/*
 * tracecheck_test.c - unit tests of the trace checker (trace/go111_check.c) and
 * of the helpers in util.c
 *
 * Traces are built byte by byte (tracebuild.c) from the minimal valid
 * file (min_trace.h), then broken one way at a time.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "min_trace.h"
#include "tap.h"
#include "tracebuild.h"
#include "trace/go111_check.h"
#include "util.h"

#define U TB_U
#define EV TB_EV

/* Events of the minimal trace: batch, gomaxprocs, g 7 created and run. */
static void events(struct tb *t)
{
	EV(t, 1, U(0), U(1000));		/* Batch P 0 at 1000 */
	EV(t, 4, U(0), U(1), U(0));		/* Gomaxprocs 1 */
	EV(t, 13, U(1), U(7), U(1), U(0));	/* GoCreate g 7, new stack 1 */
	EV(t, 5, U(1), U(0));			/* ProcStart */
	EV(t, 14, U(1), U(7), U(1));		/* GoStart g 7 seq 1 */
	EV(t, 17, U(10), U(0));			/* GoSched */
}

static void footer(struct tb *t)
{
	EV(t, 1, U(0), U(2000));
	EV(t, 2, U(1000000000));
	tb_str(t, 1, "bash");
	tb_str(t, 2, "[comm]");
	/* Stack 1: one frame, pc 0x100000, func 1, file 2, line 0. */
	tb_byte(t, 0xc3);
	tb_byte(t, 8);
	tb_leb(t, 1);
	tb_leb(t, 1);
	tb_leb(t, 0x100000);
	tb_leb(t, 1);
	tb_leb(t, 2);
	tb_leb(t, 0);
}

static void minimal(struct tb *t)
{
	tb_header(t);
	events(t);
	footer(t);
}

static struct gt_trace_info info;
static struct gt_trace_error err;

static int check(const struct tb *t)
{
	return gt_trace_check(t->b, t->n, &info, &err);
}

/* The check fails at @off with a message containing @what. */
static void expect_fail(const struct tb *t, size_t off, const char *what,
			const char *name)
{
	int ret = check(t);

	ok(ret == -1 && err.off == off && strstr(err.msg, what),
	   "%s: fails at 0x%zx with \"%s\"", name, off, what);
	if (ret != -1 || err.off != off || !strstr(err.msg, what))
		diag("got %d, offset 0x%zx: %s", ret, err.off, err.msg);
}

static void test_valid(void)
{
	struct tb t;

	minimal(&t);
	ok(t.n == sizeof(gt_min_trace) && !memcmp(t.b, gt_min_trace, t.n),
	   "the builder writes the 76-byte minimal trace");
	ok(gt_trace_check(gt_min_trace, sizeof(gt_min_trace), &info, &err) == 0,
	   "minimal valid trace passes");
	if (err.msg[0])
		diag("offset 0x%zx: %s", err.off, err.msg);
	ok(info.events == 5 && info.batches == 2 && info.ps == 1 &&
	   info.goroutines == 1 && info.strings == 2 && info.stacks == 1,
	   "counts: 5 events, 2 batches, 1 P, 1 goroutine, 2 strings, 1 stack");
	ok(info.frequency == 1000000000 && info.min_ts == 1000 &&
	   info.max_ts == 1013, "frequency and time span");
	ok(info.by_type[13] == 1 && info.by_type[14] == 1 &&
	   info.by_type[17] == 1 && info.by_type[1] == 2 &&
	   info.by_type[37] == 2, "records counted per type");
	ok(!strcmp(gt_trace_type_name(14), "GoStart") &&
	   !gt_trace_type_name(0) && !gt_trace_type_name(49),
	   "type names");
}

static void test_cut(void)
{
	struct tb t;
	size_t bad = 0;

	minimal(&t);
	for (size_t n = 0; n < t.n; n++)
		if (gt_trace_check(t.b, n, &info, &err) != -1 ||
		    err.off > n)
			bad++;
	ok(bad == 0, "every proper prefix of the trace fails");

	/* Cut inside GoCreate (at 0x18): its 4 values end at 0x1d. */
	t.n = 0x1b;
	expect_fail(&t, 0x18, "truncated GoCreate", "cut in GoCreate");
	minimal(&t);
	t.n -= 3;	/* inside the last EvStack */
	expect_fail(&t, 0x42, "truncated Stack", "cut in the footer's Stack");
	minimal(&t);
	t.n -= 2;	/* inside String 2 */
	t.n = 0x3e;
	expect_fail(&t, 0x39, "truncated String", "cut in a String");
	tb_header(&t);
	t.n = 10;
	expect_fail(&t, 0, "shorter than the 16-byte header", "cut header");
}

static void test_leb(void)
{
	struct tb t;

	tb_header(&t);
	events(&t);
	tb_byte(&t, 0x45);			/* ProcStart: Δ is 11 bytes */
	for (int i = 0; i < 10; i++)
		tb_byte(&t, 0x80);
	tb_byte(&t, 0x00);
	tb_byte(&t, 0x00);
	footer(&t);
	expect_fail(&t, 0x28, "bad LEB128 value at 0x29: longer than 10",
		    "11-byte LEB128");

	tb_header(&t);
	events(&t);
	tb_byte(&t, 0x45);			/* 10 bytes, but 2^64 * 2 */
	for (int i = 0; i < 9; i++)
		tb_byte(&t, 0xff);
	tb_byte(&t, 0x02);
	tb_byte(&t, 0x00);
	footer(&t);
	expect_fail(&t, 0x28, "more than 64 bits", "LEB128 over 64 bits");

	tb_header(&t);
	events(&t);
	tb_put(&t, "\x06\x85\x80\x80\x00", 5);	/* ProcStop, padded Δ 5 */
	footer(&t);
	ok(check(&t) == 0 && info.max_ts == 1018,
	   "non-minimal LEB128 is accepted, as Go does");
}

static void test_unknown_type(void)
{
	static const uint8_t types[] = { 0x00, 0x31, 0x3f, 0xc0 };
	struct tb t;

	for (size_t i = 0; i < sizeof(types); i++) {
		tb_header(&t);
		events(&t);
		tb_byte(&t, types[i]);
		footer(&t);
		expect_fail(&t, 0x28, "unknown event type", "unknown type byte");
	}
	tb_header(&t);
	tb_byte(&t, 0x00);
	expect_fail(&t, 0x10, "unknown event type 0", "zero padding");
}

static void test_values(void)
{
	struct tb t;

	tb_header(&t);
	events(&t);
	EV(&t, 14, U(1), U(7));			/* GoStart without seq */
	footer(&t);
	expect_fail(&t, 0x28, "GoStart has wrong number of values: want 3, got 2",
		    "too few values");

	tb_header(&t);
	events(&t);
	tb_put(&t, "\xd4\x03\x01\x00\x00", 5);	/* GoBlock, 3 values by length */
	footer(&t);
	expect_fail(&t, 0x28, "want 2, got 3", "too many length-prefixed values");

	tb_header(&t);
	events(&t);
	tb_put(&t, "\xd4\x02\x01\x80\x00", 5);	/* length 2, values take 3 */
	footer(&t);
	expect_fail(&t, 0x28, "wrong length: want 2, got 3", "bad length prefix");

	tb_header(&t);
	tb_put(&t, "\xc1\x02\x00\x01", 4);		/* Batch, length-prefixed */
	events(&t);
	footer(&t);
	expect_fail(&t, 0x10, "Batch must be written 0x41", "Batch encoding");
}

static void test_tables(void)
{
	struct tb t;

	tb_header(&t);
	events(&t);
	EV(&t, 1, U(0), U(2000));
	tb_str(&t, 1, "bash");
	expect_fail(&t, t.n, "no Frequency", "no Frequency record");

	tb_header(&t);
	events(&t);
	EV(&t, 20, U(1), U(5));			/* GoBlock, stack 5 */
	footer(&t);
	expect_fail(&t, 0x28, "stack 5 is never defined", "undefined stack");

	tb_header(&t);
	events(&t);
	EV(&t, 13, U(1), U(8), U(9), U(0));	/* GoCreate g 8, new stack 9 */
	footer(&t);
	expect_fail(&t, 0x28, "new stack 9", "undefined new stack");

	tb_header(&t);
	events(&t);
	EV(&t, 21, U(1), U(99), U(1), U(0));	/* GoUnblock g 99 */
	footer(&t);
	expect_fail(&t, 0x28, "goroutine 99 is used but never created",
		    "goroutine never created");

	tb_header(&t);
	events(&t);
	EV(&t, 13, U(1), U(7), U(1), U(0));
	footer(&t);
	expect_fail(&t, 0x28, "goroutine 7 created twice", "goroutine created twice");

	minimal(&t);
	tb_str(&t, 2, "again");
	expect_fail(&t, 0x4c, "String 2 defined twice", "duplicate string");
	minimal(&t);
	tb_str(&t, 0, "zero");
	expect_fail(&t, 0x4c, "invalid id 0", "string id 0");

	tb_header(&t);
	tb_str(&t, 1, "bash");
	events(&t);
	expect_fail(&t, 0x10, "String before the first Batch",
		    "record before the first batch");

	tb_header(&t);
	events(&t);
	EV(&t, 2, U(1000));
	footer(&t);
	/* The footer's Frequency (after its Batch at 0x2b) is the second. */
	expect_fail(&t, 0x2f, "second Frequency", "two Frequency records");

	tb_header(&t);
	EV(&t, 1, U(0), U(1000));
	footer(&t);
	expect_fail(&t, t.n, "no events", "empty trace");
}

static void test_time(void)
{
	struct tb t;

	tb_header(&t);
	events(&t);				/* P 0 reaches 1013 */
	EV(&t, 1, U(1), U(100));		/* P 1 may start earlier */
	EV(&t, 5, U(1), U(0));
	EV(&t, 1, U(0), U(1012));		/* P 0 must not go back */
	EV(&t, 6, U(1));
	footer(&t);
	expect_fail(&t, 0x2e, "before that P's last event at 1013",
		    "batch of a P earlier than its last event");

	tb_header(&t);
	events(&t);
	EV(&t, 6, UINT64_MAX);			/* Δ -1 */
	footer(&t);
	expect_fail(&t, 0x28, "time goes backwards", "negative delta");

	tb_header(&t);
	events(&t);
	EV(&t, 1, U(1000000), U(1000));
	footer(&t);
	expect_fail(&t, 0x28, "P ids from 1000000 on are reserved",
		    "reserved P id");
}

static void test_util(void)
{
	uint64_t ns = 0;
	char b[32];

	ok(gt_parse_duration("10", &ns) && ns == 10000000000ULL, "duration: 10");
	ok(gt_parse_duration("0.25", &ns) && ns == 250000000ULL, "duration: 0.25");
	ok(gt_parse_duration("2s", &ns) && ns == 2000000000ULL, "duration: 2s");
	ok(gt_parse_duration("500ms", &ns) && ns == 500000000ULL &&
	   gt_parse_duration("1.5ms", &ns) && ns == 1500000ULL,
	   "duration: 500ms, 1.5ms");
	ok(gt_parse_duration("1.5m", &ns) && ns == 90000000000ULL &&
	   gt_parse_duration("2h", &ns) && ns == 7200000000000ULL,
	   "duration: 1.5m, 2h");
	ok(gt_parse_duration("8784h", &ns) && !gt_parse_duration("8785h", &ns) &&
	   !gt_parse_duration("31622401", &ns), "duration: a year at most");
	ok(!gt_parse_duration("0", &ns) && !gt_parse_duration("", &ns) &&
	   !gt_parse_duration("0ms", &ns) && !gt_parse_duration("1x", &ns) &&
	   !gt_parse_duration("-1", &ns) && !gt_parse_duration("1.s", &ns) &&
	   !gt_parse_duration(".5", &ns) && !gt_parse_duration("1.", &ns) &&
	   !gt_parse_duration("1 s", &ns) && !gt_parse_duration("s", &ns) &&
	   !gt_parse_duration("99999999999", &ns), "duration: rejects junk");
	ok(!strcmp(gt_fmt_bytes(1023, b, sizeof(b)), "1023 B") &&
	   !strcmp(gt_fmt_bytes(1536, b, sizeof(b)), "1.5 KiB") &&
	   !strcmp(gt_fmt_bytes(3u << 20, b, sizeof(b)), "3.0 MiB"),
	   "byte sizes");
}

int main(void)
{
	test_valid();
	test_cut();
	test_leb();
	test_unknown_type();
	test_values();
	test_tables();
	test_time();
	test_util();
	return tap_done();
}
