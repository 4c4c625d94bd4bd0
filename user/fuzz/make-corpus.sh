#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make-corpus.sh GEN_TRACE GEN_TRACE_GO123 MODEL_TEST DIR - the seed corpus
# of the trace readers' fuzz targets, written into DIR/go111 and
# DIR/go123 (make -C user fuzz-corpus; the result is committed).
#
# Real traces of both formats, from the generators of the host tests
# (selftests/host/gen-trace-go111*.c) and the cases of the model test
# (tests/model_test.c): user stacks (unsymbolised frames that
# symbolize names), CPU samples, systemd units, every block reason and
# syscall class, tables that fill up, the go 1.26 format.  Only the small
# ones: a fuzzer mutates a small input thousands of times a second, and
# the corpus stays far under 1 MB.
set -eu

GEN=$1
GEN2=$2
MODEL=$3
DIR=$4
MAX=4096	# bytes; the few larger ones below are named
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

mkdir -p "$DIR/go111" "$DIR/go123"
rm -f "$DIR"/go111/* "$DIR"/go123/*
"$MODEL" "$T" >/dev/null 2>&1 || true
for f in "$T"/*.trace; do
	name=$(basename "$f" .trace)
	[ "$(stat -c %s "$f")" -le $MAX ] || [ "$name" = cpu_samples.go123 ] ||
		continue
	case $name in
	*.go123) cp "$f" "$DIR/go123/model-${name%.go123}" ;;
	*) cp "$f" "$DIR/go111/model-$name" ;;
	esac
done
# Frames of a binary that need not exist: the targets name any offset.
"$GEN" small "$DIR/go111/gen-small" >/dev/null
"$GEN" ustack "$DIR/go111/gen-ustack" /usr/bin/prog 0x1234 0x2000 0x2001 \
	>/dev/null
for k in small stuck units v126; do
	"$GEN2" $k "$DIR/go123/gen-$k" >/dev/null
done
"$GEN2" ustack "$DIR/go123/gen-ustack" /usr/bin/prog 0x1234 0x2000 0x2001 \
	>/dev/null
echo "corpus: $(ls "$DIR/go111" | wc -l) go 1.11 and $(ls "$DIR/go123" | wc -l) generational traces, $(du -sk "$DIR" | cut -f1) KiB"
