/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_check.h - what model_check.c asks of the trace readers
 */
#ifndef GOTRACE_MODEL_CHECK_H
#define GOTRACE_MODEL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Does 'gotrace check' accept the trace of @len bytes at @buf (@generational:
 * "go 1.23 trace", else "go 1.11 trace")?  If so, *@generations is the
 * number of generations it read (generational only); if not, @why says
 * what it refused.
 */
bool mc_verify(const uint8_t *buf, size_t len, bool generational,
	       uint64_t *generations, char *why, size_t size);

#endif /* GOTRACE_MODEL_CHECK_H */
