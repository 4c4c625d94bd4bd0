/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gotrace_fields.h - the lists every program shows a session's status
 * from: the fields of struct gotrace_status and gotrace_cpu_status
 * (linux/gotrace.h), and the names of states, stop reasons and formats.
 *
 * The module's status directory, gotrace status (text and JSON), the
 * tests and the bench read their fields and names here, so that a new
 * field is added to its struct and to its list, and nowhere else.  The
 * command checks at build time that each list and its struct agree
 * (same names, order and sizes).
 *
 * Like asm-generic/unistd.h with __SYSCALL, this file has no include
 * guard: a program defines the macro of the list it wants, includes the
 * file, and undefines the macro; the lists of macros left undefined
 * are skipped.
 *
 * GOTRACE_STATUS_FIELD(SHOW, BITS, NAME): the fields of struct
 * gotrace_status after @version, in order.  SHOW says how a field is
 * shown:
 *   NUM	a number
 *   START	a CLOCK_MONOTONIC time in ns (gotrace status --json shows
 *		running_ns, the time since)
 *   STATE, STOP, FORMAT
 *		a value with a name: GOTRACE_STATE_NAME, GOTRACE_STOP_NAME,
 *		GOTRACE_FORMAT_NAME
 *   PAD	not shown
 *
 * GOTRACE_CPU_STATUS_FIELD(SHOW, BITS, NAME): the fields of struct
 * gotrace_cpu_status after @cpu; SHOW is NUM, or BOOL for a 0 or 1.
 *
 * GOTRACE_STATE_NAME(VALUE, NAME), GOTRACE_STOP_NAME(VALUE, NAME),
 * GOTRACE_FORMAT_NAME(VALUE, NAME): the names the status directory
 * shows (ABI, as the values are).
 */

#ifdef GOTRACE_STATUS_FIELD
GOTRACE_STATUS_FIELD(STATE, 32, state)
GOTRACE_STATUS_FIELD(STOP, 32, stop_reason)
GOTRACE_STATUS_FIELD(NUM, 32, nr_cpus)
GOTRACE_STATUS_FIELD(NUM, 32, reader_pid)
GOTRACE_STATUS_FIELD(START, 64, start_ns)
GOTRACE_STATUS_FIELD(NUM, 64, events)
GOTRACE_STATUS_FIELD(NUM, 64, bytes_produced)
GOTRACE_STATUS_FIELD(NUM, 64, bytes_read)
GOTRACE_STATUS_FIELD(NUM, 64, chunks_total)
GOTRACE_STATUS_FIELD(NUM, 64, chunks_in_use)
GOTRACE_STATUS_FIELD(NUM, 64, lost_events)
GOTRACE_STATUS_FIELD(NUM, 64, chunk_overflows)
GOTRACE_STATUS_FIELD(NUM, 64, task_overflows)
GOTRACE_STATUS_FIELD(NUM, 64, stack_overflows)
GOTRACE_STATUS_FIELD(FORMAT, 32, format)
GOTRACE_STATUS_FIELD(PAD, 32, reserved32)
GOTRACE_STATUS_FIELD(NUM, 64, generations)
GOTRACE_STATUS_FIELD(NUM, 64, flight_bytes)
GOTRACE_STATUS_FIELD(NUM, 64, flight_generations)
GOTRACE_STATUS_FIELD(NUM, 64, unit_overflows)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_walks)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_bad_fp)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_faults)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_depth)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_queue_full)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_map_full)
GOTRACE_STATUS_FIELD(NUM, 64, cpu_samples)
GOTRACE_STATUS_FIELD(NUM, 64, cpu_samples_idle)
GOTRACE_STATUS_FIELD(NUM, 64, cpu_samples_hidden)
GOTRACE_STATUS_FIELD(NUM, 64, cpu_samples_lost)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_mm_busy)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_no_table)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_no_rule)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_signal)
GOTRACE_STATUS_FIELD(NUM, 64, ustack_bad_cfa)
GOTRACE_STATUS_FIELD(NUM, 64, unwind_misses)
GOTRACE_STATUS_FIELD(NUM, 64, unwind_misses_lost)
GOTRACE_STATUS_FIELD(NUM, 64, unwind_space_races)
GOTRACE_STATUS_FIELD(NUM, 64, irq_unmatched)
GOTRACE_STATUS_FIELD(NUM, 64, irq_too_deep)
GOTRACE_STATUS_FIELD(NUM, 64, irq_closed)
GOTRACE_STATUS_FIELD(NUM, 64, work_unnamed)
#endif

#ifdef GOTRACE_CPU_STATUS_FIELD
GOTRACE_CPU_STATUS_FIELD(BOOL, 32, online)
GOTRACE_CPU_STATUS_FIELD(BOOL, 32, running)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, events)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, lost_events)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, chunk_overflows)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, cpu_samples)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, cpu_samples_idle)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, cpu_samples_hidden)
GOTRACE_CPU_STATUS_FIELD(NUM, 64, cpu_samples_lost)
#endif

#ifdef GOTRACE_STATE_NAME
GOTRACE_STATE_NAME(GOTRACE_STATE_IDLE, "idle")
GOTRACE_STATE_NAME(GOTRACE_STATE_RECORDING, "recording")
GOTRACE_STATE_NAME(GOTRACE_STATE_STOPPED, "stopped")
GOTRACE_STATE_NAME(GOTRACE_STATE_DONE, "done")
GOTRACE_STATE_NAME(GOTRACE_STATE_READY, "ready")
#endif

#ifdef GOTRACE_STOP_NAME
GOTRACE_STOP_NAME(GOTRACE_STOP_NONE, "none")
GOTRACE_STOP_NAME(GOTRACE_STOP_USER, "user")
GOTRACE_STOP_NAME(GOTRACE_STOP_DURATION, "duration")
GOTRACE_STOP_NAME(GOTRACE_STOP_OVERFLOW, "overflow")
GOTRACE_STOP_NAME(GOTRACE_STOP_ABORT, "abort")
#endif

#ifdef GOTRACE_FORMAT_NAME
GOTRACE_FORMAT_NAME(GOTRACE_FORMAT_GO111, "go1.11")
GOTRACE_FORMAT_NAME(GOTRACE_FORMAT_GO123, "go1.23")
#endif
