// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_lib.c - libgtunwind.so, the library frame of unwind_prog's
 * chain (unwind_prog.c, tests/unwind_test.sh)
 *
 * lib_middle() is the frame in the middle of main -> prog_outer ->
 * lib_middle -> prog_inner_MODE -> the C library: a walk from the C
 * library's blocking call must go from the program into this library and
 * back into the program.  Built as the program is, -O2
 * -fomit-frame-pointer (Makefile): no frame pointer, a frame of its own
 * (a buffer on the stack, saved registers) and a store after the call,
 * so that the call stays a call and the frame's CFA is not its entry's.
 */
/* Stores after the call: keep it from becoming a jump (a tail call). */
volatile long lib_sink;

__attribute__((noinline, visibility("default")))
long lib_middle(long (*inner)(long), long arg)
{
	volatile char buf[96];
	long r, i;

	for (i = 0; i < (long)sizeof(buf); i++)
		buf[i] = (char)(arg + i);
	r = inner(arg + buf[5] - buf[5]);
	lib_sink = r + buf[17];
	return r;
}
