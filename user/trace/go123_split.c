// SPDX-License-Identifier: GPL-2.0
/*
 * go123_split.c - cut a generational trace's byte stream between generations
 * (go123_split.h)
 */
#include <string.h>

#include "leb128.h"
#include "go123.h"
#include "go123_split.h"

void gt_go123_split_init(struct gt_go123_split *s,
			 const struct gt_go123_split_ops *ops, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->arg = arg;
}

/*
 * Decode the batch header held in s->bh: 1 when it is whole (s->gen and
 * s->data_left are then set for it), 0 when it needs more bytes, -1 when
 * the stream is not what a generational trace is.  @gen: its generation.
 */
static int batch_header(struct gt_go123_split *s, uint64_t *gen)
{
	uint64_t v[4];
	size_t at;

	if (s->bh[0] == GT_GO123_EV_END_OF_GENERATION)
		return 1;
	if (s->bh[0] != GT_GO123_EV_BATCH &&
	    s->bh[0] != GT_GO123_EV_EXPERIMENTAL_BATCH) {
		s->error = "a batch does not start where one must";
		return -1;
	}
	at = s->bh[0] == GT_GO123_EV_EXPERIMENTAL_BATCH ? 2 : 1;
	for (int i = 0; i < 4; i++) {
		int k;

		if (at >= s->bh_len)
			return 0;
		k = gt_leb_get(s->bh + at, s->bh_len - at, &v[i]);
		if (k == GT_LEB_TRUNCATED)
			return 0;
		if (k < 0) {
			s->error = "a batch header holds a value too large";
			return -1;
		}
		at += (size_t)k;
	}
	*gen = v[0];
	s->data_left = v[3];
	return 1;
}

/* The held batch header is whole: say where a generation begins, pass it. */
static int header_done(struct gt_go123_split *s, uint64_t gen)
{
	int ret = 0;

	if (s->bh[0] == GT_GO123_EV_END_OF_GENERATION) {
		s->ended = true;
	} else {
		if (!s->have_gen || gen != s->gen || s->ended)
			ret = s->ops->generation(s->arg, gen);
		s->gen = gen;
		s->have_gen = true;
		s->ended = false;
	}
	if (!ret)
		ret = s->ops->bytes(s->arg, s->bh, s->bh_len);
	s->bh_len = 0;
	return ret;
}

int gt_go123_split_feed(struct gt_go123_split *s, const uint8_t *p, size_t n)
{
	size_t i = 0, k;
	uint64_t gen = 0;
	int ret, r;

	while (i < n) {
		if (s->error)
			return s->ops->bytes(s->arg, p + i, n - i);
		if (s->header_len < GT_GO123_SPLIT_HDR_LEN || s->data_left) {
			/* Header or batch data: pass on as much as there is. */
			k = n - i;
			if (s->header_len < GT_GO123_SPLIT_HDR_LEN) {
				if (k > GT_GO123_SPLIT_HDR_LEN - s->header_len)
					k = GT_GO123_SPLIT_HDR_LEN - s->header_len;
				s->header_len += k;
			} else {
				if (k > s->data_left)
					k = (size_t)s->data_left;
				s->data_left -= k;
			}
			ret = s->ops->bytes(s->arg, p + i, k);
			if (ret)
				return ret;
			i += k;
			continue;
		}
		if (s->bh_len == sizeof(s->bh)) {
			s->error = "a batch header is too long";
			continue;
		}
		s->bh[s->bh_len++] = p[i++];
		r = batch_header(s, &gen);
		if (r < 0) {
			/* Not ours to judge: pass the held bytes on. */
			ret = s->ops->bytes(s->arg, s->bh, s->bh_len);
			s->bh_len = 0;
			if (ret)
				return ret;
		} else if (r) {
			ret = header_done(s, gen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int gt_go123_split_end(struct gt_go123_split *s)
{
	int ret = 0;

	if (s->bh_len)
		ret = s->ops->bytes(s->arg, s->bh, s->bh_len);
	s->bh_len = 0;
	return ret;
}
