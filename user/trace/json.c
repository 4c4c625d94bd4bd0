// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a small writer of JSON (json.h)
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

/* The separator and the key before a member of the level open. */
static void member(struct gt_json *j, const char *key)
{
	struct gt_json_level *l = &j->level[j->depth - 1];

	if (!l->empty)
		fputc(',', j->f);
	if (!l->inline_)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	else if (!l->empty || l->close == '}')
		fputc(' ', j->f);
	l->empty = false;
	if (key)
		fprintf(j->f, "\"%s\": ", key);
}

static void push(struct gt_json *j, char kind, bool inline_)
{
	fputc(kind, j->f);
	if (j->depth == GT_JSON_DEPTH)	/* a bug of the caller's */
		return;
	j->level[j->depth].close = kind == '{' ? '}' : ']';
	j->level[j->depth].inline_ = inline_;
	j->level[j->depth].empty = true;
	j->depth++;
}

void gt_json_begin(struct gt_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	push(j, '{', false);
}

void gt_json_end(struct gt_json *j)
{
	while (j->depth)
		gt_json_close(j);
	fputc('\n', j->f);
}

void gt_json_open(struct gt_json *j, const char *key, char kind,
		  bool inline_)
{
	member(j, key);
	push(j, kind, inline_);
}

void gt_json_close(struct gt_json *j)
{
	struct gt_json_level *l;

	if (!j->depth)
		return;
	l = &j->level[--j->depth];
	if (!l->inline_)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	else if (l->close == '}' && !l->empty)
		fputc(' ', j->f);
	fputc(l->close, j->f);
}

void gt_json_u64(struct gt_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void gt_json_i64(struct gt_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void gt_json_bool(struct gt_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void gt_json_quote(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void gt_json_strn(struct gt_json *j, const char *key, const char *s,
		  size_t n)
{
	member(j, key);
	gt_json_quote(j->f, s, n);
}

void gt_json_str(struct gt_json *j, const char *key, const char *s)
{
	gt_json_strn(j, key, s, strlen(s));
}
