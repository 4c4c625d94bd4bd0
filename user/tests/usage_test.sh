#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# usage_test.sh - the top level of the command line: --version, and
# messages that start with "gotrace:" in one line instead of the usage.

. "$(dirname "$0")/lib.sh"

abi=$(sed -n 's/^#define GOTRACE_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$(dirname "$0")/../../include/uapi/linux/gotrace.h")
version=$(cat "$(dirname "$0")/../../VERSION")
run --version
check "--version: ../VERSION and the device ABI (and sd_notify if built with it), exit 0" '[ $rc -eq 0 ] && [ -n "$abi" ] && grep -qx "gotrace $version (device ABI version $abi\(, sd_notify\)\{0,1\})" "$T/out" && [ "$(wc -l <"$T/out")" -eq 1 ]'

for cmd in record stop snapshot status check stat symbolize pprof merge; do
	run $cmd --bogus
	check "$cmd --bogus: exit 2, 'gotrace: $cmd:' message" '[ $rc -eq 2 ] && has "^gotrace: $cmd: unrecognized option .--bogus." "$T/err"'
done
for cmd in stop snapshot status check stat symbolize pprof merge; do
	run $cmd --bogus
	check "$cmd --bogus: two lines, no usage" '[ "$(wc -l <"$T/err")" -eq 2 ] && has "^gotrace: see .gotrace $cmd -h." "$T/err" && ! has usage "$T/err"'
done
for cmd in stop snapshot status; do
	run $cmd extra
	check "$cmd with an argument: one line, exit 2" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && has "^gotrace: $cmd takes no argument" "$T/err"'
done
for cmd in check stat; do
	run $cmd
	check "$cmd without FILE: two lines, no usage, exit 2" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && has "^gotrace: $cmd takes one FILE" "$T/err" && ! has usage "$T/err"'
done
run stat -n x "$T/none"
check "stat -n x: one line, exit 2" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ! has usage "$T/err"'
run status -h
check "status -h: --json in the usage" '[ $rc -eq 0 ] && has "usage: gotrace status \[--json\]" "$T/out"'

done_testing
