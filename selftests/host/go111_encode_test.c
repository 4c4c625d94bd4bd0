// SPDX-License-Identifier: GPL-2.0
/*
 * go111_encode_test.c - unit tests of the Go trace encoder (model/go111_encode.c), the
 * same source the module builds: LEB128, and every append either writing
 * the whole record or nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go111_encode.h"
#include "tap.h"
#include "../../user/trace/leb128.h"
#include "../../user/tests/min_trace.h"

/* Decode one LEB128 value with gotrace's decoder; 0 if malformed. */
static unsigned int leb_get(const u8 *p, unsigned int n, u64 *v)
{
	uint64_t x = 0;
	int r = gt_leb_get(p, n, &x);

	*v = x;
	return r > 0 ? (unsigned int)r : 0;
}

static void test_leb(void)
{
	static const u64 vals[] = {
		0, 1, 127, 128, 255, 16383, 16384, 1ULL << 32, 1ULL << 63,
		UINT64_MAX,
	};
	static const unsigned int lens[] = { 1, 1, 1, 2, 2, 2, 3, 5, 10, 10 };
	unsigned int i, k;
	bool ok = true;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		u8 buf[GT_LEB_MAX + 1];
		unsigned int n = gt_leb_put(buf, vals[i]);
		u64 back;

		TAP_OK(n == lens[i] && gt_leb_len(vals[i]) == n &&
		       leb_get(buf, n, &back) == n && back == vals[i],
		       "LEB128 of %llu takes %u bytes and reads back",
		       (unsigned long long)vals[i], lens[i]);
	}
	/* Every length boundary: 2^(7k) - 1 takes k bytes, 2^(7k) k + 1. */
	for (k = 1; k <= 9; k++) {
		u64 lo = (1ULL << (7 * k)) - 1, hi = 1ULL << (7 * k), back;
		u8 buf[GT_LEB_MAX];

		ok = ok && gt_leb_len(lo) == k && gt_leb_len(hi) == k + 1 &&
		     gt_leb_put(buf, lo) == k && leb_get(buf, k, &back) == k &&
		     back == lo && gt_leb_put(buf, hi) == k + 1 &&
		     leb_get(buf, k + 1, &back) == k + 1 && back == hi;
	}
	TAP_OK(ok, "LEB128 length boundaries 2^(7k)-1 and 2^(7k), k = 1..9");
	/* A million pseudo-random values of every magnitude. */
	{
		u64 x = 88172645463325252ULL, v, back;
		u8 buf[GT_LEB_MAX];
		unsigned int n;

		for (i = 0; ok && i < 1000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = x >> (i % 64);
			n = gt_leb_put(buf, v);
			ok = n == gt_leb_len(v) && leb_get(buf, n, &back) == n &&
			     back == v && (n == 1 || buf[n - 1] != 0);
		}
		TAP_OK(ok, "LEB128 of 10^6 random values: minimal, reads back");
	}
}

/*
 * Run @append into buffers of every size below what it needs: it must
 * refuse each without touching the length or the batch time, then succeed
 * at exact size.  Every buffer is a heap block of exactly its capacity, so
 * AddressSanitizer reports a byte written past it.
 */
typedef bool (*append_fn)(struct gt_enc *e);

static void check_exact(const char *name, append_fn append)
{
	static u8 big[8192];
	struct gt_enc e;
	u32 need, cap;
	bool refused = true;
	u8 *small;

	gt_enc_init(&e, big, sizeof(big));
	e.last_ts = 1000;
	if (!append(&e)) {
		TAP_OK(0, "%s fits an 8 KiB buffer", name);
		return;
	}
	need = e.len;
	for (cap = 0; cap < need; cap++) {
		small = malloc(cap ? cap : 1);
		gt_enc_init(&e, small, cap);
		e.last_ts = 1000;
		if (append(&e) || e.len != 0 || e.last_ts != 1000)
			refused = false;
		free(small);
	}
	TAP_OK(refused, "%s: refused, length and time untouched, with 0..%u bytes",
	       name, need - 1);
	small = malloc(need);
	gt_enc_init(&e, small, need);
	e.last_ts = 1000;
	TAP_OK(append(&e) && e.len == need &&
	       !memcmp(small, big, need) && gt_enc_room(&e) == 0,
	       "%s: written whole with exactly %u bytes", name, need);
	free(small);
	/* The same record after something else: appends at len, not 0. */
	small = malloc(need + 3);
	gt_enc_init(&e, small, need + 3);
	e.last_ts = 1000;
	TAP_OK(gt_enc_raw(&e, "abc", 3) && append(&e) && e.len == need + 3 &&
	       !memcmp(small, "abc", 3) && !memcmp(small + 3, big, need),
	       "%s: appended after 3 bytes already there", name);
	free(small);
}

static bool ap_batch(struct gt_enc *e)
{
	return gt_enc_batch(e, 3, 123456789012ULL);
}

static bool ap_ev0(struct gt_enc *e)
{
	return gt_enc_ev0(e, GOTRACE_EV_PROC_STOP, 1ULL << 40);
}

static bool ap_ev1(struct gt_enc *e)
{
	return gt_enc_ev1(e, GOTRACE_EV_GO_BLOCK, 300, 70000);
}

static bool ap_ev2(struct gt_enc *e)
{
	return gt_enc_ev2(e, GOTRACE_EV_GO_START, 5, 1ULL << 33, 2);
}

static bool ap_ev3(struct gt_enc *e)
{
	return gt_enc_ev3(e, GOTRACE_EV_GO_CREATE, 77, UINT64_MAX, 1, 2);
}

static bool ap_freq(struct gt_enc *e)
{
	return gt_enc_frequency(e, GOTRACE_FREQUENCY);
}

static bool ap_string(struct gt_enc *e)
{
	return gt_enc_string(e, 200, "do_syscall_64", 13);
}

static bool ap_stack(struct gt_enc *e)
{
	static const struct gt_frame f[3] = {
		{ 0x20000010, 1, 2, 17 }, { 0x20000020, 3, 2, 0 },
		{ 0x10000010, 4, 5, 0 },
	};

	return gt_enc_stack(e, 9, f, 3);
}

static bool ap_ev3_max(struct gt_enc *e)
{
	/* Delta and three arguments of ten bytes each: the worst case. */
	return gt_enc_ev3(e, GOTRACE_EV_GO_SYSEXIT, UINT64_MAX, UINT64_MAX,
			  UINT64_MAX, UINT64_MAX);
}

static bool ap_batch_max(struct gt_enc *e)
{
	return gt_enc_batch(e, UINT64_MAX, UINT64_MAX);
}

static bool ap_string_max(struct gt_enc *e)
{
	static char s[GT_STRING_MAX];

	memset(s, 'x', sizeof(s));
	return gt_enc_string(e, UINT64_MAX, s, sizeof(s));
}

static bool ap_string_long(struct gt_enc *e)
{
	static char s[3 * GT_STRING_MAX];

	memset(s, 'y', sizeof(s));
	return gt_enc_string(e, 1, s, sizeof(s));
}

static bool ap_string_empty(struct gt_enc *e)
{
	return gt_enc_string(e, 2, "", 0);
}

/* A stack far over the frame limit, every value ten bytes long. */
static bool ap_stack_huge(struct gt_enc *e)
{
	static struct gt_frame f[3 * GT_STACK_MAX_FRAMES];
	unsigned int i;

	for (i = 0; i < 3 * GT_STACK_MAX_FRAMES; i++) {
		f[i].pc = UINT64_MAX - i;
		f[i].func = f[i].file = f[i].line = UINT64_MAX;
	}
	return gt_enc_stack(e, UINT64_MAX, f, 3 * GT_STACK_MAX_FRAMES);
}

static bool ap_stack_empty(struct gt_enc *e)
{
	return gt_enc_stack(e, 5, NULL, 0);
}

static bool ap_raw(struct gt_enc *e)
{
	return gt_enc_raw(e, GOTRACE_HEADER, GOTRACE_HEADER_LEN);
}

/*
 * Decode one ordinary event record as Go's readers do: type in the low
 * six bits, count-1 in the top two, length-prefixed values from four on.
 * Returns the record's size, or 0 if it is malformed.
 */
static unsigned int decode_event(const u8 *p, unsigned int n, unsigned int *type,
				 u64 *vals, unsigned int *nvals)
{
	unsigned int off = 1, k, end, used;
	u64 len;

	if (!n)
		return 0;
	*type = p[0] & 0x3f;
	k = p[0] >> 6;
	*nvals = 0;
	if (k < 3) {
		for (; *nvals <= k; (*nvals)++) {
			used = leb_get(p + off, n - off, &vals[*nvals]);
			if (!used)
				return 0;
			off += used;
		}
		return off;
	}
	used = leb_get(p + off, n - off, &len);
	if (!used || off + used + len > n)
		return 0;
	off += used;
	end = off + (unsigned int)len;
	while (off < end && *nvals < 8) {
		used = leb_get(p + off, end - off, &vals[*nvals]);
		if (!used)
			return 0;
		off += used;
		(*nvals)++;
	}
	return off == end ? off : 0;
}

/* Every arity, decoded back: type, count bits, delta, arguments. */
static void test_event_roundtrip(void)
{
	static const u64 args[3] = { UINT64_MAX, 128, 0 };
	u8 buf[GT_EV_MAX_BYTES * 4];
	struct gt_enc e;
	unsigned int nargs, type, nvals, used, i;
	u64 vals[8];
	bool ok;

	for (nargs = 0; nargs <= 3; nargs++) {
		gt_enc_init(&e, buf, sizeof(buf));
		gt_enc_batch(&e, 0, 5000);
		e.len = 0;
		ok = gt_enc_event(&e, GOTRACE_EV_GO_UNBLOCK, 5000 + 300, args, nargs);
		used = decode_event(buf, e.len, &type, vals, &nvals);
		ok = ok && used == e.len && type == GOTRACE_EV_GO_UNBLOCK &&
		     nvals == nargs + 1 && vals[0] == 300 && e.last_ts == 5300 &&
		     e.len <= GT_EV_MAX_BYTES;
		for (i = 0; ok && i < nargs; i++)
			ok = vals[i + 1] == args[i];
		TAP_OK(ok, "event with %u arguments decodes back (%u bytes, %s)",
		       nargs, e.len, nargs >= 3 ? "length-prefixed" : "count bits");
	}
	/* Deltas accumulate from the batch base, event to event. */
	gt_enc_init(&e, buf, sizeof(buf));
	gt_enc_batch(&e, 7, 1ULL << 53);
	gt_enc_ev0(&e, GOTRACE_EV_PROC_STOP, (1ULL << 53) + 1);
	gt_enc_ev0(&e, GOTRACE_EV_PROC_STOP, (1ULL << 53) + 1);
	gt_enc_ev0(&e, GOTRACE_EV_PROC_STOP, (1ULL << 53) + 10000000000ULL);
	{
		static const u8 want[] = {
			0x41, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10,
			0x06, 1, 0x06, 0, 0x06, 0xff, 0xc7, 0xaf, 0xa0, 0x25,
		};

		TAP_OK(e.len == sizeof(want) && !memcmp(buf, want, sizeof(want)),
		       "batch at 2^53 and deltas 1, 0, 1e10-1: exact bytes");
	}
}

/* The 76-byte minimal trace (user/tests/min_trace.h), byte for byte. */
static void test_minimal_file(void)
{
	static const struct gt_frame bash = { 0x100000, 1, 2, 0 };
	u8 buf[128];
	struct gt_enc e;
	bool ok;

	gt_enc_init(&e, buf, sizeof(buf));
	ok = gt_enc_raw(&e, GOTRACE_HEADER, GOTRACE_HEADER_LEN) &&
	     gt_enc_batch(&e, 0, 1000) &&
	     gt_enc_ev2(&e, GOTRACE_EV_GOMAXPROCS, 1000, 1, 0) &&
	     gt_enc_ev3(&e, GOTRACE_EV_GO_CREATE, 1001, 7, 1, 0) &&
	     gt_enc_ev1(&e, GOTRACE_EV_PROC_START, 1002, 0) &&
	     gt_enc_ev2(&e, GOTRACE_EV_GO_START, 1003, 7, 1) &&
	     gt_enc_ev1(&e, GOTRACE_EV_GO_SCHED, 1013, 0) &&
	     gt_enc_batch(&e, 0, 2000) &&
	     gt_enc_frequency(&e, GOTRACE_FREQUENCY) &&
	     gt_enc_string(&e, 1, "bash", 4) &&
	     gt_enc_string(&e, 2, "[comm]", 6) &&
	     gt_enc_stack(&e, 1, &bash, 1);
	TAP_OK(ok && e.len == sizeof(gt_min_trace) &&
	       !memcmp(buf, gt_min_trace, sizeof(gt_min_trace)),
	       "the minimal 76-byte trace, byte for byte");
}

/* Events with three or more values carry their length in front. */
static void test_event_bytes(void)
{
	u8 buf[64];
	struct gt_enc e;
	u64 v;

	gt_enc_init(&e, buf, sizeof(buf));
	gt_enc_batch(&e, 1, 1000);
	e.len = 0;
	gt_enc_ev1(&e, GOTRACE_EV_GO_BLOCK, 1010, 4);
	TAP_OK(e.len == 3 && buf[0] == (GOTRACE_EV_GO_BLOCK | 1 << 6) &&
	       buf[1] == 10 && buf[2] == 4,
	       "GoBlock: type byte with one argument, delta 10, stack 4");
	e.len = 0;
	gt_enc_ev3(&e, GOTRACE_EV_GO_UNBLOCK, 1020, 300, 2, 5);
	TAP_OK(buf[0] == (GOTRACE_EV_GO_UNBLOCK | 3 << 6) &&
	       leb_get(buf + 1, 1, &v) == 1 && v == 5 && e.len == 7,
	       "GoUnblock: length-prefixed, 5 value bytes");
	e.len = 0;
	gt_enc_ev0(&e, GOTRACE_EV_PROC_STOP, 5);
	TAP_OK(e.len == 2 && buf[1] == 0,
	       "an earlier timestamp is written as a zero delta");
}

static void test_stack_clamp(void)
{
	enum { N = GT_STACK_MAX_FRAMES + 40 };
	static struct gt_frame f[N];
	static u8 buf[8192];
	struct gt_enc e;
	unsigned int i, hdr;
	u64 vlen, id, n, pc;

	for (i = 0; i < N; i++) {
		f[i].pc = UINT64_MAX - i;	/* ten-byte values throughout */
		f[i].func = UINT64_MAX;
		f[i].file = UINT64_MAX;
		f[i].line = UINT64_MAX;
	}
	f[N - 1].pc = 0x10000010;
	gt_enc_init(&e, buf, sizeof(buf));
	TAP_OK(gt_enc_stack(&e, UINT64_MAX, f, N), "a %d-frame stack is written", N);
	hdr = 1 + leb_get(buf + 1, 10, &vlen);
	hdr += leb_get(buf + hdr, 10, &id);
	hdr += leb_get(buf + hdr, 10, &n);
	TAP_OK(n == GT_STACK_MAX_FRAMES && vlen <= GT_STACK_MAX_VALUE_BYTES,
	       "clamped to %d frames, %llu value bytes (limit %d)",
	       GT_STACK_MAX_FRAMES, (unsigned long long)vlen,
	       GT_STACK_MAX_VALUE_BYTES);
	/* The last frame: a five-byte pc, then three ten-byte values. */
	leb_get(buf + e.len - 35, 10, &pc);
	TAP_OK(pc == 0x10000010 && buf[e.len - 30] == 0xff,
	       "the outermost (comm) frame is kept");
}

/*
 * Decode a whole EvStack record and compare its frames with @f[keep[i]].
 * Returns the value byte count, 0 on any mismatch.
 */
static unsigned int stack_matches(const u8 *p, unsigned int n, u64 id,
				  const struct gt_frame *f, const unsigned int *keep,
				  unsigned int nkeep)
{
	unsigned int off = 1, end, i, used;
	u64 vlen, v[4];

	if (n < 2 || p[0] != 0xc3)
		return 0;
	off += leb_get(p + off, n - off, &vlen);
	end = off + (unsigned int)vlen;
	if (end != n)
		return 0;
	off += leb_get(p + off, end - off, &v[0]);
	off += leb_get(p + off, end - off, &v[1]);
	if (v[0] != id || v[1] != nkeep)
		return 0;
	for (i = 0; i < nkeep; i++) {
		unsigned int j;

		for (j = 0; j < 4; j++) {
			used = leb_get(p + off, end - off, &v[j]);
			if (!used)
				return 0;
			off += used;
		}
		if (v[0] != f[keep[i]].pc || v[1] != f[keep[i]].func ||
		    v[2] != f[keep[i]].file || v[3] != f[keep[i]].line)
			return 0;
	}
	return off == end ? (unsigned int)vlen : 0;
}

static void test_stack_frames(void)
{
	static const unsigned int ns[] = {
		1, 2, GT_STACK_MAX_FRAMES - 1, GT_STACK_MAX_FRAMES,
		GT_STACK_MAX_FRAMES + 1, 1000,
	};
	static struct gt_frame f[1000];
	static unsigned int keep[1000];
	static u8 buf[4096];
	unsigned int i, t, n, nkeep, vlen;
	struct gt_enc e;

	for (i = 0; i < 1000; i++) {
		f[i].pc = 0xffffffff81000000ULL + 16 * i;	/* ten bytes */
		f[i].func = 1000 + i;
		f[i].file = 7;
		f[i].line = i;
	}
	for (t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		n = ns[t];
		nkeep = n < GT_STACK_MAX_FRAMES ? n : GT_STACK_MAX_FRAMES;
		for (i = 0; i + 1 < nkeep; i++)
			keep[i] = i;
		keep[nkeep - 1] = n - 1;
		gt_enc_init(&e, buf, sizeof(buf));
		vlen = gt_enc_stack(&e, 42, f, n) ?
		       stack_matches(buf, e.len, 42, f, keep, nkeep) : 0;
		TAP_OK(vlen && vlen <= GT_STACK_MAX_VALUE_BYTES,
		       "%u frames: %u written (innermost first, outermost kept), %u value bytes",
		       n, nkeep, vlen);
	}
}

static void test_string_limits(void)
{
	static char s[GT_STRING_MAX + 100];
	static u8 buf[2 * GT_STRING_MAX];
	struct gt_enc e;
	u64 id, len;
	unsigned int h;

	memset(s, 'a', sizeof(s));
	s[sizeof(s) - 1] = 'z';
	gt_enc_init(&e, buf, sizeof(buf));
	gt_enc_string(&e, 7, s, sizeof(s));
	h = 1 + leb_get(buf + 1, 10, &id);
	h += leb_get(buf + h, 10, &len);
	TAP_OK(len == GT_STRING_MAX && buf[h + len - 1] == 'z',
	       "long strings keep their last %d bytes", GT_STRING_MAX);
	e.len = 0;
	gt_enc_string(&e, 8, "", 0);
	TAP_OK(e.len == 4 && buf[3] == '?', "an empty string becomes \"?\"");
}

int main(void)
{
	test_leb();
	check_exact("EvBatch", ap_batch);
	check_exact("event, no argument", ap_ev0);
	check_exact("event, one argument", ap_ev1);
	check_exact("event, two arguments", ap_ev2);
	check_exact("event, three arguments", ap_ev3);
	check_exact("EvFrequency", ap_freq);
	check_exact("EvString", ap_string);
	check_exact("EvStack", ap_stack);
	check_exact("event, three ten-byte arguments", ap_ev3_max);
	check_exact("EvBatch, ten-byte P and time", ap_batch_max);
	check_exact("EvString of GT_STRING_MAX bytes", ap_string_max);
	check_exact("EvString cut to GT_STRING_MAX", ap_string_long);
	check_exact("EvString, empty", ap_string_empty);
	check_exact("EvStack clamped, ten-byte values", ap_stack_huge);
	check_exact("EvStack, no frame", ap_stack_empty);
	check_exact("raw bytes (the header)", ap_raw);
	test_event_roundtrip();
	test_minimal_file();
	test_event_bytes();
	test_stack_clamp();
	test_stack_frames();
	test_string_limits();
	return tap_done();
}
