#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz_test.sh - the trace readers' fuzz targets once over their corpus,
# and a few cases of the differential run against Go's readers
#
# fuzz/corpus/ holds real traces of both formats and the inputs that
# found bugs (regress-*).  Each target (fuzz/fuzz.h) reads every one
# through check, stat, stat --json, pprof and symbolize under ASan and
# UBSan: built with the compiler of the build ($FUZZ_BIN-*), and with
# clang too where the build's compiler is another ($FUZZ_CLANG_BIN-*,
# if built): GCC's UBSan and clang's do not catch the same things
# (clang's catches NULL + 0).  Then fuzz/differential.sh on
# $FUZZ_DIFF_CASES damaged copies of the corpus (fixed seeds, so always
# the same ones): gotrace check must refuse every one Go refuses.

. "$(dirname "$0")/lib.sh"

FUZZ_BIN=${FUZZ_BIN:-./build/fuzz}
FUZZ_CLANG_BIN=${FUZZ_CLANG_BIN:-./build/fuzz-clang}
CORPUS=${CORPUS:-$(dirname "$0")/../fuzz/corpus}
MUTATE=${MUTATE:-./build/mutate}
FUZZ_DIFF_CASES=${FUZZ_DIFF_CASES:-12}
GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}

for b in "$FUZZ_BIN" "$FUZZ_CLANG_BIN"; do
	for t in go111 go123; do
		[ -x "$b-$t" ] || continue
		if "$b-$t" "$CORPUS/$t" >"$T/out" 2>"$T/err"; then
			ok "$(basename "$b-$t"): every input of $t's corpus ($(ls "$CORPUS/$t" | wc -l) files)"
		else
			tail -n 20 "$T/err" > "$T/out"
			not_ok "$(basename "$b-$t"): an input of $t's corpus fails"
		fi
	done
done
check "the targets of the build's compiler were built" \
	'[ -x "$FUZZ_BIN-go111" ] && [ -x "$FUZZ_BIN-go123" ]'

if [ ! -x "$GO121" ] || [ ! -x "$GO123" ]; then
	no_go "the differential run needs Go 1.21 ($GO121) and 1.23 ($GO123)"
else
	GOTRACE=$GOTRACE MUTATE=$MUTATE GO121=$GO121 GO123=$GO123 \
		sh "$(dirname "$0")/../fuzz/differential.sh" -n "$FUZZ_DIFF_CASES" \
		-s 1 -k "$T/diff" "$CORPUS" > "$T/out" 2>"$T/err"
	rc=$?
	check "gotrace check refuses every one of $FUZZ_DIFF_CASES damaged traces Go refuses: $(tail -n 2 "$T/out" | head -n 1 | sed 's/^# //')" \
		'[ $rc -eq 0 ]'
	[ $rc -eq 0 ] || grep '^not ok' "$T/out" | sed 's/^/# /'
fi
done_testing
