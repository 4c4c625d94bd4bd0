// SPDX-License-Identifier: GPL-2.0
/*
 * standalone.c - run a fuzz target over given inputs, without libFuzzer
 *
 *   TARGET FILE|DIR...   each file, and each file of each directory, once
 *   TARGET               one input from stdin (AFL++: TARGET < @@ or a
 *                        driver that feeds stdin)
 *
 * The regression run of make check (any compiler with the sanitizers),
 * and the way to replay a crash a fuzzer saved.  A sanitizer's report or
 * a target's fuzz_fail() aborts; else prints how many inputs ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t ran;

/* The whole of @f; exits on an error. */
static uint8_t *slurp(FILE *f, const char *name, size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "%s: out of memory\n", name);
				exit(2);
			}
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f)) {
		fprintf(stderr, "%s: cannot read\n", name);
		exit(2);
	}
	return buf;
}

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t len;

	if (!f) {
		perror(path);
		exit(2);
	}
	buf = slurp(f, path, &len);
	fclose(f);
	/* The input alone in its allocation, as libFuzzer hands it. */
	buf = realloc(buf, len ? len : 1);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	ran++;
}

static void run_path(const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		perror(path);
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path,
				 ents[i]->d_name);
			run_path(sub);
		}
		free(ents[i]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		size_t len;
		uint8_t *buf = slurp(stdin, "stdin", &len);

		buf = realloc(buf, len ? len : 1);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%s: %zu inputs, no failure\n", argv[0], ran);
	return 0;
}
