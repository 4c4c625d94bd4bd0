# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh - TAP helpers of the package tests (sourced): TOP, the top of
# the sources; T, a scratch directory removed at exit; check and skip.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/gotrace-pkg.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
failed=0

# check WHAT 'CONDITION': one TAP line; a failure shows $T/log if the
# test left one there.
check() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		[ -s "$T/log" ] && sed 's/^/# /' "$T/log" | head -30
	fi
	return 0
}

skip() {
	n=$((n + 1))
	echo "ok $n # SKIP $1"
}
