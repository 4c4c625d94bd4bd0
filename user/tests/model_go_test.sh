#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# model_go_test.sh - the traces the module's model writes from the event
# sequences of model_test.c, checked by Go's own parsers (Go 1.21 and
# 1.23, with the pprof profiles: selftests/check-trace.sh) and by
# 'gotrace check'; each case's "go 1.23 trace" twin (CASE.go123.trace) by
# Go 1.23 and Go 1.27 (check-trace.sh picks them by the header; Go 1.27
# is $GO127, or the one scripts/go127.sh unpacked into $GT_STORE).
# model_test.c asserts what the traces say; this says Go reads them.
# Skips (ok, with a note) where the Go toolchains are missing.
#
# $MODEL_TEST is the test binary (make check passes build/model_test).

. "$(dirname "$0")/lib.sh"

MODEL_TEST=${MODEL_TEST:-./build/model_test}
CHECK_TRACE=$(dirname "$0")/../../selftests/check-trace.sh

mrc=0
"$MODEL_TEST" "$T" >"$T/out" 2>"$T/err" || mrc=$?
check "model_test writes its traces" '[ $mrc -eq 0 ] && ls "$T"/*.trace >/dev/null 2>&1'
check "model_test writes go 1.23 twins" 'ls "$T"/*.go123.trace >/dev/null 2>&1'

for f in "$T"/*.trace; do
	name=$(basename "$f" .trace)
	run check -q "$f"
	check "$name: gotrace check accepts it" '[ $rc -eq 0 ]'
done

# A syscall that sleeps is named by its syscall frame, not by the kernel
# frames above it (where it slept), in both formats' statistics.
for f in "$T"/syscalls_all.trace "$T"/syscalls_all.go123.trace; do
	run stat -j -n 0 "$f"
	check "$(basename "$f"): stat counts the sleeping openat's block as sys_openat's" \
		'[ $rc -eq 0 ] && has "\"name\": \"sys_openat\", \"count\": 1, \"blocks\": 1," "$T/out"'
done

GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO127
if [ ! -x "${GO121:-/usr/lib/go-1.21/bin/go}" ] ||
   [ ! -x "${GO123:-/usr/lib/go-1.23/bin/go}" ]; then
	no_go "Go's parsers of go 1.11 traces need Go 1.21 and 1.23"
else
	for f in "$T"/*.trace; do
		case $f in *.go123.trace) continue ;; esac
		name=$(basename "$f" .trace)
		if bash "$CHECK_TRACE" --pprof "$f" >"$T/out" 2>"$T/err"; then
			ok "$name: Go 1.21 and 1.23 parse it, with profiles"
		else
			not_ok "$name: Go 1.21 and 1.23 parse it, with profiles"
		fi
	done
fi

if [ ! -x "${GO123:-/usr/lib/go-1.23/bin/go}" ] || [ ! -x "$GO127" ]; then
	no_go "the go 1.23 twins need Go 1.23 and 1.27"
else
	for f in "$T"/*.go123.trace; do
		name=$(basename "$f" .go123.trace)
		if bash "$CHECK_TRACE" --pprof "$f" >"$T/out" 2>"$T/err"; then
			ok "$name (go 1.23): Go 1.23 and 1.27 parse it, with profiles"
		else
			not_ok "$name (go 1.23): Go 1.23 and 1.27 parse it, with profiles"
			sed 's/^/# /' "$T/out" "$T/err" | tail -5
		fi
	done
fi

done_testing
