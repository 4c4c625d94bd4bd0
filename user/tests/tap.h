/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - minimal TAP producer for the unit tests
 *
 * ok(cond, fmt, ...) prints "ok N - ..." or "not ok N - ..."; tap_done()
 * prints the plan and returns the exit code (1 if any test failed).
 */
#ifndef GOTRACE_TAP_H
#define GOTRACE_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3)))
static int ok(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass)
		tap_failed++;
	return pass;
}

__attribute__((format(printf, 1, 2)))
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* GOTRACE_TAP_H */
