/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the trace readers' fuzz targets share
 *
 * A target is libFuzzer's entry point, LLVMFuzzerTestOneInput(): one
 * input is one trace file, read from memory through every path of the
 * command that reads it (check, stat, stat --json, pprof, symbolize).
 * Built with clang's -fsanitize=fuzzer it is a fuzzer; linked with
 * standalone.c instead it runs the inputs it is given once (the
 * regression run of make check, any compiler, and AFL++'s driver).
 *
 * Beyond the sanitizers, a target checks what the readers promise:
 * symbolize turns a trace that checks into one that checks, and a
 * repair keeps a prefix that checks.  A broken promise aborts.
 */
#ifndef GOTRACE_FUZZ_H
#define GOTRACE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gt_src;
struct gt_sym_counts;
struct gt_trace_error;
struct gt_usym;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A format's symbolizer (gt_v1_symbolize(), gt_go123_symbolize()). */
typedef int (*fuzz_symbolize_fn)(const struct gt_src *src, FILE *out,
				 struct gt_usym *u, struct gt_sym_counts *n,
				 struct gt_trace_error *err);
/* A format's checker: 0 if @src checks. */
typedef int (*fuzz_check_fn)(const struct gt_src *src,
			     struct gt_trace_error *err);

/*
 * Symbolize @src into memory with @symbolize; where the input is @valid,
 * the symbolizer must succeed and its copy must pass @check.
 */
void fuzz_symbolize(const struct gt_src *src, bool valid,
		    fuzz_symbolize_fn symbolize, fuzz_check_fn check);

/* A stream that throws its bytes away (stat --json's output). */
FILE *fuzz_null(void);

/* Say what broke, and abort: the fuzzer keeps the input. */
__attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...);

#endif /* GOTRACE_FUZZ_H */
