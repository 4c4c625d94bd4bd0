// SPDX-License-Identifier: GPL-2.0
/*
 * encode_test.c - unit tests of the Go trace encoder (kmod/encode.c), the
 * same source the module builds: LEB128, and every append either writing
 * the whole record or nothing.
 */
#include <stdint.h>
#include <string.h>

#include "encode.h"
#include "tap.h"

/* Decode one unsigned LEB128 value; returns bytes read, 0 if malformed. */
static unsigned int leb_get(const u8 *p, unsigned int n, u64 *v)
{
	unsigned int i, shift = 0;

	*v = 0;
	for (i = 0; i < n && i < GT_LEB_MAX; i++, shift += 7) {
		*v |= (u64)(p[i] & 0x7f) << shift;
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

static void test_leb(void)
{
	static const u64 vals[] = {
		0, 1, 127, 128, 255, 16383, 16384, 1ULL << 32, 1ULL << 63,
		UINT64_MAX,
	};
	static const unsigned int lens[] = { 1, 1, 1, 2, 2, 2, 3, 5, 10, 10 };
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		u8 buf[GT_LEB_MAX + 1];
		unsigned int n = gt_leb_put(buf, vals[i]);
		u64 back;

		TAP_OK(n == lens[i] && gt_leb_len(vals[i]) == n &&
		       leb_get(buf, n, &back) == n && back == vals[i],
		       "LEB128 of %llu takes %u bytes and reads back",
		       (unsigned long long)vals[i], lens[i]);
	}
}

/*
 * Run @append into buffers of every size below what it needs: it must
 * refuse each without touching the length, then succeed at exact size.
 */
typedef bool (*append_fn)(struct gt_enc *e);

static void check_exact(const char *name, append_fn append)
{
	u8 big[4096], small[4096];
	struct gt_enc e;
	u32 need, cap;
	bool refused = true;

	gt_enc_init(&e, big, sizeof(big));
	if (!append(&e)) {
		TAP_OK(0, "%s fits a 4 KiB buffer", name);
		return;
	}
	need = e.len;
	for (cap = 0; cap < need; cap++) {
		gt_enc_init(&e, small, cap);
		if (append(&e) || e.len != 0)
			refused = false;
	}
	TAP_OK(refused, "%s: refused, length untouched, with 0..%u bytes",
	       name, need - 1);
	gt_enc_init(&e, small, need);
	TAP_OK(append(&e) && e.len == need &&
	       !memcmp(small, big, need) && gt_enc_room(&e) == 0,
	       "%s: written whole with exactly %u bytes", name, need);
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
	test_event_bytes();
	test_stack_clamp();
	test_string_limits();
	return tap_done();
}
