#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kernels.sh KERNEL... - run-kernel.sh on each kernel in turn and sum
# up; exits non-zero if anything failed on any kernel.
set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -gt 0 ] || set -- 6.1 6.12 6.12-rt
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
[ -z "$bad" ] || echo "failed on:$bad"
echo "$passed passed, $failed failed"
[ -z "$bad" ] && [ "$failed" -eq 0 ]
