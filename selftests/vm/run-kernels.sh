#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kernels.sh KERNEL[@BOOT]... - run-kernel.sh on each kernel in turn
# and sum up; exits non-zero if anything failed on any kernel.  Without
# arguments, $GT_KERNELS_DEFAULT: every kernel and boot configuration of
# make check.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $GT_KERNELS_DEFAULT
passed=0
failed=0
bad=
for k in "$@"; do
	start=$SECONDS
	rm -f "$GT_CACHE/vm/$k/counts"
	"$GT_VM/run-kernel.sh" "$k" || bad="$bad $k"
	if [ -f "$GT_CACHE/vm/$k/counts" ]; then
		read -r p f < "$GT_CACHE/vm/$k/counts"
	else
		p=0 f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "[$k] took $((SECONDS - start)) s"
done
echo "all kernels took $((SECONDS)) s"
[ -z "$bad" ] || echo "failed on:$bad"
echo "$passed passed, $failed failed"
[ -z "$bad" ] && [ "$failed" -eq 0 ]
