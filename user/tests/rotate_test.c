// SPDX-License-Identifier: GPL-2.0
/*
 * rotate_test.c - the generation splitter and --rotate's files: cut only
 * where a generation begins, every byte once, in order, whatever the
 * sizes of the pieces the stream comes in
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rotate.h"
#include "tap.h"
#include "trace/go123.h"
#include "trace/go123_split.h"

static uint8_t stream[1 << 20];
static size_t stream_len;

static void put(uint8_t b)
{
	if (stream_len < sizeof(stream))
		stream[stream_len++] = b;
}

static void put_leb(uint64_t v)
{
	do {
		put((uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

/*
 * A generational stream of @gens generations of @batches batches each,
 * batch sizes up to @max (opaque bytes: the splitter never reads them);
 * @eog: a "go 1.26" end-of-generation byte after each.
 */
static void make_stream(unsigned int gens, unsigned int batches,
			unsigned int max, bool eog)
{
	stream_len = 0;
	memcpy(stream, eog ? "go 1.26 trace\0\0\0" : "go 1.23 trace\0\0\0", 16);
	stream_len = 16;
	for (unsigned int g = 1; g <= gens; g++) {
		for (unsigned int b = 0; b < batches; b++) {
			unsigned int size = (unsigned int)rand() % max;

			put(GT_GO123_EV_BATCH);
			put_leb(g);
			put_leb(b % 3);
			put_leb(1000000ULL * g + b);
			put_leb(size);
			for (unsigned int i = 0; i < size; i++)
				put((uint8_t)rand());
		}
		if (eog)
			put(GT_GO123_EV_END_OF_GENERATION);
	}
}

struct collect {
	uint8_t out[sizeof(stream)];
	size_t len;
	size_t cuts[4096];		/* offsets where a generation begins */
	uint64_t gens[4096];
	unsigned int nr_cuts;
};

static int c_bytes(void *arg, const uint8_t *p, size_t n)
{
	struct collect *c = arg;

	memcpy(c->out + c->len, p, n);
	c->len += n;
	return 0;
}

static int c_gen(void *arg, uint64_t gen)
{
	struct collect *c = arg;

	if (c->nr_cuts < 4096) {
		c->gens[c->nr_cuts] = gen;
		c->cuts[c->nr_cuts++] = c->len;
	}
	return 0;
}

static const struct gt_go123_split_ops c_ops = { c_bytes, c_gen };

/* Feed the stream in pieces of 1..@piece bytes. */
static struct collect *split(size_t piece)
{
	static struct collect c;
	struct gt_go123_split s;

	memset(&c, 0, sizeof(c));
	gt_go123_split_init(&s, &c_ops, &c);
	for (size_t i = 0; i < stream_len;) {
		size_t n = 1 + (size_t)rand() % piece;

		if (n > stream_len - i)
			n = stream_len - i;
		gt_go123_split_feed(&s, stream + i, n);
		i += n;
	}
	gt_go123_split_end(&s);
	return s.error ? NULL : &c;
}

static void test_split(bool eog)
{
	static const size_t pieces[] = { 1, 3, 17, 4096, 1 << 20 };

	make_stream(7, 9, 300, eog);
	diag("%s: 7 generations of 9 batches, %zu bytes",
	     eog ? "go 1.26" : "go 1.23", stream_len);
	for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
		struct collect *c = split(pieces[k]);
		bool in_order = c && c->nr_cuts == 7;

		for (unsigned int i = 0; in_order && i < 7; i++) {
			const uint8_t *at = c->out + c->cuts[i];

			/* Each cut is at a batch of the generation it names. */
			in_order = c->gens[i] == i + 1 &&
				   at[0] == GT_GO123_EV_BATCH && at[1] == i + 1;
		}
		ok(c && c->len == stream_len &&
		   !memcmp(c->out, stream, stream_len),
		   "pieces of up to %zu bytes: every byte passed on once, in order",
		   pieces[k]);
		ok(in_order, "7 cuts, each where its generation's first batch starts (%u)",
		   c ? c->nr_cuts : 0);
	}
}

static int dir_files(const char *dir, const char *suffix, char names[][256],
		     int max)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), k = 0;

	for (int i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name), s = strlen(suffix);

		if (l > s && !strcmp(list[i]->d_name + l - s, suffix) &&
		    k < max)
			snprintf(names[k++], 256, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

static size_t slurp(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, max, f);
	fclose(f);
	return n;
}

/* Rotate the stream into @dir at every generation (period 1 ns). */
static int rotate_into(const char *dir, unsigned int keep, bool complete)
{
	struct gt_rotate_cfg cfg = { .dir = dir, .period_ns = 1, .keep = keep };
	struct gt_rotate r;
	int ret;

	if (gt_rotate_open(&r, &cfg))
		return -1;
	for (size_t i = 0; i < stream_len;) {
		size_t n = 1 + (size_t)rand() % 700;

		if (n > stream_len - i)
			n = stream_len - i;
		if (gt_rotate_write(&r, stream + i, n))
			break;
		i += n;
	}
	ret = gt_rotate_close(&r, complete);
	gt_rotate_free(&r);
	return ret;
}

static void test_files(void)
{
	static char names[64][256];
	static uint8_t cat[sizeof(stream)], buf[sizeof(stream)];
	char dir[] = "/tmp/gotrace-rotate.XXXXXX";
	size_t cat_len = 16;
	bool headers = true;
	int n;

	if (!mkdtemp(dir)) {
		ok(0, "a scratch directory");
		return;
	}
	make_stream(6, 5, 200, false);
	ok(rotate_into(dir, 0, true) == 0, "6 generations rotated at each");
	n = dir_files(dir, ".trace", names, 64);
	ok(n == 6, "6 complete files (%d)", n);
	ok(dir_files(dir, ".tmp", names + 32, 16) == 0, "no temporary file left");
	memcpy(cat, stream, 16);
	for (int i = 0; i < n; i++) {
		size_t len = slurp(names[i], buf, sizeof(buf));

		headers &= len > 16 && !memcmp(buf, stream, 16) &&
			   buf[16] == GT_GO123_EV_BATCH;
		memcpy(cat + cat_len, buf + 16, len - 16);
		cat_len += len - 16;
		unlink(names[i]);
	}
	ok(headers, "each file: the trace header, then a generation's batch");
	ok(cat_len == stream_len && !memcmp(cat, stream, stream_len),
	   "the files, less their headers, are the stream: nothing lost or doubled");

	ok(rotate_into(dir, 2, true) == 0, "again, keeping 2");
	n = dir_files(dir, ".trace", names, 64);
	ok(n == 2, "2 files kept (%d)", n);
	if (n == 2) {
		size_t len = slurp(names[1], buf, sizeof(buf));

		ok(len > 16 && !memcmp(buf + 16, stream + stream_len - (len - 16),
				       len - 16),
		   "the newest holds the stream's last generation");
	}
	for (int i = 0; i < n; i++)
		unlink(names[i]);

	ok(rotate_into(dir, 0, false) == 0, "a stream that ends incomplete");
	n = dir_files(dir, ".tmp", names, 64);
	ok(n == 1, "its last file keeps its temporary name (%d)", n);
	for (int i = 0; i < n; i++)
		unlink(names[i]);
	n = dir_files(dir, ".trace", names, 64);
	for (int i = 0; i < n; i++)
		unlink(names[i]);

	memcpy(stream, "go 1.11 trace\0\0\0", 16);
	stream[16] = 0x41;	/* a 1.11 EvBatch: not generational */
	stream_len = 40;
	ok(rotate_into(dir, 0, true) != 0, "a go 1.11 trace is refused");
	n = dir_files(dir, ".tmp", names, 64);
	for (int i = 0; i < n; i++)
		unlink(names[i]);
	n = dir_files(dir, ".trace", names, 64);
	for (int i = 0; i < n; i++)
		unlink(names[i]);
	rmdir(dir);
}

static void test_parse(void)
{
	struct gt_rotate_cfg c = { 0 };

	ok(!gt_rotate_parse("2s", &c) && c.period_ns == 2000000000ULL &&
	   !c.max_bytes, "--rotate 2s: every 2 s");
	memset(&c, 0, sizeof(c));
	ok(!gt_rotate_parse("512M", &c) && c.max_bytes == 512ULL << 20 &&
	   !c.period_ns, "--rotate 512M: every 512 MiB");
	ok(gt_rotate_parse("0", &c) && gt_rotate_parse("x", &c) &&
	   gt_rotate_parse("5Q", &c), "0, x and 5Q are refused");
}

int main(void)
{
	srand(1);
	test_split(false);
	test_split(true);
	test_files();
	test_parse();
	return tap_done();
}
