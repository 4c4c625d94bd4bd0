#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# identity_test.sh - the byte-identity corpus: the same inputs give the
# same trace bytes, in both formats.
#
# The model is deterministic: its inputs are the events the tests feed
# it, its clock theirs.  tests/identity.digests holds a fingerprint of
# every trace of
#   - model_test's scenarios, each written in both formats (sha256);
#   - the model checker's first MC_CORPUS_SEEDS seeds (default 200), run
#     once in each format (model_check --format F --digest: FNV-1a);
# and this test compares them with what the tree writes now.  A change
# to the model or a writer that is meant to keep the bytes (a
# refactoring) must pass it unchanged.  A change that must change bytes
# regenerates the file,
#	make -C user identity-corpus
# and its commit says which traces changed and why.
#
# $MODEL_TEST and $MODEL_CHECK are the programs (build/ by default).

. "$(dirname "$0")/lib.sh"

MODEL_TEST=${MODEL_TEST:-./build/model_test}
MODEL_CHECK=${MODEL_CHECK:-./build/model_check}
CORPUS=${CORPUS:-$(dirname "$0")/identity.digests}
MC_CORPUS_SEEDS=${MC_CORPUS_SEEDS:-200}

# What the tree writes now, in the corpus's form and order.
produce() {
	mkdir "$T/model_test"
	"$MODEL_TEST" "$T/model_test" >"$T/mt.out" 2>&1 || {
		echo "model_test failed" >&2
		return 1
	}
	(cd "$T/model_test" && sha256sum -- *) | sort -k2 |
		awk '{ print "model_test", $2, $1 }'
	for f in go111 go123; do
		"$MODEL_CHECK" --seeds "1:$MC_CORPUS_SEEDS" --format $f \
			--digest >"$T/mc.out" 2>&1 || {
			echo "model_check --format $f failed" >&2
			return 1
		}
		# "# digest seed S F N ops B bytes H"
		awk '$2 == "digest" { print "model_check", "seed-" $4 "." $5, $10 }' \
			"$T/mc.out"
	done
}

if [ "${1:-}" = --update ]; then
	produce >"$T/now" || exit 1
	cp "$T/now" "$CORPUS"
	echo "wrote $CORPUS: $(wc -l <"$CORPUS") traces"
	exit 0
fi

prc=0
produce >"$T/now" 2>"$T/err" || prc=$?
check "the model's programs ran ($MODEL_TEST, $MODEL_CHECK)" '[ $prc -eq 0 ]'
[ -r "$CORPUS" ] || { not_ok "no corpus at $CORPUS"; done_testing; exit 1; }

for src in model_test model_check; do
	grep "^$src " "$CORPUS" | sort >"$T/want"
	grep "^$src " "$T/now" | sort >"$T/got"
	all=$(wc -l <"$T/want")
	# Traces of the corpus that are gone or changed, and new ones.
	changed=$(comm -23 "$T/want" "$T/got" | wc -l)
	new=$(comm -13 "$T/want" "$T/got" | wc -l)
	if [ "$changed" -eq 0 ] && [ "$new" -eq 0 ] && [ "$all" -gt 0 ]; then
		ok "$src: the $all traces of the corpus are byte for byte the same"
	else
		not_ok "$src: $changed of the corpus's $all traces changed or are gone, $new are new ('make -C user identity-corpus' if meant, and say why)"
		diff "$T/want" "$T/got" | grep '^[<>]' | head -20 | sed 's/^/# /'
	fi
done
done_testing
