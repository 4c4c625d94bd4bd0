#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_script_test.sh - scripts/check.sh (make check after make deps)
# hands check-vm every kernel it was asked for, in one recipe line.
#
# The default list of kernels spans two lines in selftests/vm/lib.sh.
# Passed on as KERNELS= with its newline, make split the check-vm
# recipe in two: the VM tests ran on the kernels of the first line only
# and the second line ran as a command ("6.12: No such file or
# directory"), which failed CI after 40 minutes of VM tests.
#
# check.sh is run with stand-ins on PATH: a make that records the
# targets and, for check-vm, asks the real make what it would run
# (-n); a setsid that records the background debug kernel build
# instead of starting it.
# ok()'s conditions are evaluated when it runs them.
# shellcheck disable=SC2016
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
real_make=$(command -v make)
mkdir "$tmp/bin"
cat > "$tmp/bin/make" <<SH
#!/bin/bash
echo "\$1" >> "$tmp/targets"
[ "\$1" = check-vm ] || exit 0
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $real_make -n --no-print-directory "\$@" > "$tmp/recipe"
SH
cat > "$tmp/bin/setsid" <<SH
#!/bin/bash
echo "\$*" >> "$tmp/setsid"
SH
chmod +x "$tmp/bin/make" "$tmp/bin/setsid"

# shellcheck source-path=SCRIPTDIR source=../vm/lib.sh
. "$root/selftests/vm/lib.sh"
read -r -d '' -a words <<< "$GT_KERNELS_DEFAULT" || true
default=${words[*]}

n=0 fail=0
ok() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi
}

# run_check [KERNELS]: check.sh with the stand-ins; its output in $tmp/out.
run_check() {
	rm -f "$tmp/targets" "$tmp/recipe" "$tmp/setsid"
	env ${1+KERNELS="$1"} PATH="$tmp/bin:$PATH" GT_CACHE="$tmp/cache" \
		"$root/scripts/check.sh" > "$tmp/out" 2>&1
}

run_check
ok "default: the targets are check-host, checkpatch, check-vm ($(tr '\n' ' ' < "$tmp/targets"))" \
	'[ "$(tr "\n" " " < "$tmp/targets")" = "check-host checkpatch check-vm " ]'
ok "default: check-vm runs one command ($(wc -l < "$tmp/recipe") lines)" \
	'[ "$(wc -l < "$tmp/recipe")" -eq 1 ]'
ok "default: that command is run-kernels.sh on all $(wc -w <<< "$default") kernels of lib.sh" \
	'[ "$(cat "$tmp/recipe")" = "selftests/vm/run-kernels.sh $default" ]'
ok "default: the debug kernel is prepared in the background" \
	'grep -q "gt_kernel_fetch debug" "$tmp/setsid"'

run_check "6.12
6.1@maxcpus64"
ok "KERNELS over two lines: one command with both" \
	'[ "$(cat "$tmp/recipe")" = "selftests/vm/run-kernels.sh 6.12 6.1@maxcpus64" ]'
ok "KERNELS without debug: no background build" '[ ! -e "$tmp/setsid" ]'
echo "1..$n"
exit $fail
