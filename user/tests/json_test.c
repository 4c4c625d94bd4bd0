// SPDX-License-Identifier: GPL-2.0
/*
 * json_test.c - the JSON writer (trace/json.c): the layout scripts read
 * (gotrace status --json: a top-level member a line, a CPU's object on
 * one line), the separators of every kind of level, the escaping of
 * strings, and a document that is JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/json.h"
#include "tap.h"

/* What @fill writes as a document, in a string the caller frees. */
static char *written(void (*fill)(struct gt_json *j))
{
	struct gt_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	gt_json_begin(&j, f);
	fill(&j);
	gt_json_end(&j);
	fclose(f);
	return buf;
}

static void status_like(struct gt_json *j)
{
	gt_json_u64(j, "abi_version", 5);
	gt_json_str(j, "state", "recording");
	gt_json_open(j, "cpus", '[', false);
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		gt_json_open(j, NULL, '{', true);
		gt_json_u64(j, "cpu", cpu);
		gt_json_bool(j, "online", cpu == 0);
		gt_json_close(j);
	}
	gt_json_close(j);
	gt_json_open(j, "pids", '[', true);
	gt_json_i64(j, NULL, -1);
	gt_json_i64(j, NULL, 42);
	gt_json_close(j);
}

static void empties(struct gt_json *j)
{
	gt_json_open(j, "cpus", '[', false);
	gt_json_close(j);
	gt_json_open(j, "none", '[', true);
	gt_json_close(j);
	gt_json_open(j, "obj", '{', true);
	gt_json_close(j);
}

static void strings(struct gt_json *j)
{
	gt_json_str(j, "s", "a\"b\\c\nd\te\x7f");
	gt_json_strn(j, "cut", "comm-longer", 4);
}

/* Left open: the end closes every level. */
static void left_open(struct gt_json *j)
{
	gt_json_open(j, "a", '[', false);
	gt_json_open(j, NULL, '{', true);
	gt_json_u64(j, "x", 1);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fill)(struct gt_json *j);
		const char *want;
	} cases[] = {
		{ "gotrace status's layout", status_like,
		  "{\n  \"abi_version\": 5,\n  \"state\": \"recording\",\n"
		  "  \"cpus\": [\n    { \"cpu\": 0, \"online\": true },\n"
		  "    { \"cpu\": 1, \"online\": false }\n  ],\n"
		  "  \"pids\": [-1, 42]\n}\n" },
		{ "empty levels", empties,
		  "{\n  \"cpus\": [\n  ],\n  \"none\": [],\n  \"obj\": {}\n}\n" },
		{ "escaped and cut strings", strings,
		  "{\n  \"s\": \"a\\\"b\\\\c\\u000ad\\u0009e\\u007f\",\n"
		  "  \"cut\": \"comm\"\n}\n" },
		{ "levels left open are closed by the end", left_open,
		  "{\n  \"a\": [\n    { \"x\": 1 }\n  ]\n}\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = written(cases[i].fill);

		if (!ok(!strcmp(got, cases[i].want), "%s", cases[i].name))
			diag("got:\n%s", got);
		free(got);
	}
	return tap_done();
}
