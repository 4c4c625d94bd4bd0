/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small writer of JSON for the command's --json outputs
 *
 * In the trace library, below the command, so that every --json output
 * (gotrace status, gotrace stat's stats_json.c) quotes strings alike.
 *
 * Members are written as they come, with the commas, the quoting and
 * the layout done here: an object or array opened "inline" keeps its
 * members on its line ({ "cpu": 0, "online": true }), any other puts
 * each on a line of its own, indented by two spaces a level.  Scripts
 * (and our tests) read "  \"name\": value" lines of the top level.
 */
#ifndef GOTRACE_JSON_H
#define GOTRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GT_JSON_DEPTH	8

struct gt_json_level {
	char close;			/* '}' or ']' */
	bool inline_;
	bool empty;			/* no member yet */
};

struct gt_json {
	FILE *f;
	unsigned int depth;		/* open objects and arrays */
	struct gt_json_level level[GT_JSON_DEPTH];
};

/* Start a document on @f: its outermost object is open. */
void gt_json_begin(struct gt_json *j, FILE *f);
/* Close what is open, and end the document with a newline. */
void gt_json_end(struct gt_json *j);

/*
 * Open an object ('{') or an array ('[') as member @key of the object
 * open (NULL: an element of the array open).  Keys are the caller's
 * names, written as they are; string values are escaped.
 */
void gt_json_open(struct gt_json *j, const char *key, char kind,
		  bool inline_);
void gt_json_close(struct gt_json *j);

/* A member (@key) or an element (@key NULL) of each type. */
void gt_json_u64(struct gt_json *j, const char *key, uint64_t v);
void gt_json_i64(struct gt_json *j, const char *key, int64_t v);
void gt_json_bool(struct gt_json *j, const char *key, bool v);
void gt_json_str(struct gt_json *j, const char *key, const char *s);
/* A string of the first @n bytes of @s. */
void gt_json_strn(struct gt_json *j, const char *key, const char *s,
		  size_t n);

/*
 * @s (at most @n bytes, up to a NUL) as a JSON string, quoted and
 * escaped, to @f: for a writer that lays its document out itself.
 */
void gt_json_quote(FILE *f, const char *s, size_t n);

#endif /* GOTRACE_JSON_H */
