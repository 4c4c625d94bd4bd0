#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_script_test.sh - make check's order of work: scripts/check.sh
# hands check-vm every kernel it was asked for, in one recipe line, and
# starts it beside the host checks; run-kernels.sh boots one kernel at a
# time until those checks open its gate, then two.
#
# The default list of kernels spans two lines in selftests/vm/lib.sh.
# Passed on as KERNELS= with its newline, make split the check-vm
# recipe in two: the VM tests ran on the kernels of the first line only
# and the second line ran as a command ("6.12: No such file or
# directory"), which failed CI after 40 minutes of VM tests.
#
# check.sh is run with stand-ins on PATH: a make that logs its targets
# and, for check-vm, asks the real make what it would run (-n) and waits
# for the gate; a setsid that logs the background debug kernel build
# instead of starting it.  run-kernels.sh is run with a stand-in
# run-kernel.sh (GT_RUN_KERNEL) that boots nothing and ends when told.
# ok()'s conditions are evaluated when it runs them.
# shellcheck disable=SC2016,SC2034
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
real_make=$(command -v make)
mkdir "$tmp/bin"
log=$tmp/log

# until FILE PATTERN: wait up to 20 s for PATTERN in FILE.
cat > "$tmp/until" <<'SH'
i=0
until grep -q -- "$2" "$1" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 200 ] || exit 1
	sleep 0.1
done
SH

cat > "$tmp/bin/make" <<SH
#!/bin/bash
case "\$1" in
check-vm)
	echo "vm start gate=\${GT_VM_GATE:-none} open=\$([ -e "\${GT_VM_GATE:-/nonexistent}" ] && echo yes || echo no)" >> $log
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $real_make -n --no-print-directory "\$@" > $tmp/recipe
	echo \$\$ > $tmp/vm.pid
	i=0
	until [ -e "\$GT_VM_GATE" ]; do
		i=\$((i + 1))
		[ "\$i" -lt 200 ] || exit 1
		sleep 0.1
	done
	echo "vm saw the gate open" >> $log
	[ -z "\${STUB_VM_SLEEP:-}" ] || sleep "\$STUB_VM_SLEEP"
	echo "vm end" >> $log
	;;
check-host)
	sh $tmp/until $log "vm start" || echo "host: no vm started" >> $log
	echo "host end" >> $log
	exit \${STUB_HOST_RC:-0}
	;;
*)
	echo "make \$*" >> $log
	;;
esac
SH
cat > "$tmp/bin/setsid" <<SH
#!/bin/bash
case "\$*" in
*gt_kernel_fetch*) echo "setsid \$*" >> $log ;;
*) exec $(command -v setsid) "\$@" ;;
esac
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

# run_check [KERNELS]: check.sh with the stand-ins; its status in $rc.
run_check() {
	rm -f "$log" "$tmp/recipe" "$tmp/vm.pid"
	rc=0
	env ${1+KERNELS="$1"} PATH="$tmp/bin:$PATH" GT_CACHE="$tmp/cache" \
		"$root/scripts/check.sh" > "$tmp/out" 2>&1 || rc=$?
}

run_check
ok "default: passes" '[ "$rc" = 0 ]'
ok "default: the command is built before the VM tests start" \
	'grep -v "^setsid" "$log" | head -n 1 | grep -q "^make -s -C user$"'
ok "default: the VM tests start before the host checks end, the gate shut" \
	'grep -q "^vm start gate=$tmp/cache/vm/host-checks-done open=no$" "$log" &&
	 ! grep -q "no vm started" "$log"'
ok "default: the host checks and checkpatch, then the gate opens" \
	'grep -A2 "^host end$" "$log" | tr "\n" " " |
	 grep -q "^host end make checkpatch vm saw the gate open $"'
ok "default: check-vm runs one command ($(wc -l < "$tmp/recipe") lines)" \
	'[ "$(wc -l < "$tmp/recipe")" -eq 1 ]'
ok "default: that command is run-kernels.sh on all ${#words[@]} kernels of lib.sh" \
	'[ "$(cat "$tmp/recipe")" = "selftests/vm/run-kernels.sh $default" ]'
ok "default: the debug kernel is prepared in the background" \
	'grep -q "^setsid.*gt_kernel_fetch debug" "$log"'

run_check "6.12
6.1@maxcpus64"
ok "KERNELS over two lines: one command with both" \
	'[ "$(cat "$tmp/recipe")" = "selftests/vm/run-kernels.sh 6.12 6.1@maxcpus64" ]'
ok "KERNELS without debug: no background build" '! grep -q "^setsid" "$log"'

start=$SECONDS
STUB_HOST_RC=2 STUB_VM_SLEEP=60 run_check 6.12
ok "host checks fail: check.sh fails with their status ($rc)" '[ "$rc" = 2 ]'
ok "host checks fail: the VM tests are stopped at once ($((SECONDS - start)) s)" \
	'[ $((SECONDS - start)) -lt 30 ] && ! kill -0 "$(cat "$tmp/vm.pid")" 2>/dev/null &&
	 ! grep -q "^vm end" "$log"'

# run-kernels.sh with its gate: a stand-in run-kernel.sh that logs its
# start and ends once $tmp/end-K exists.
cat > "$tmp/run-kernel" <<SH
#!/bin/bash
echo "start \$1" >> $tmp/rk.log
sh $tmp/until $tmp/ends "end \$1" || exit 1
mkdir -p "\$GT_CACHE/vm/\$1"
echo "3 0" > "\$GT_CACHE/vm/\$1/counts"
SH
chmod +x "$tmp/run-kernel"
: > "$tmp/ends"
rm -f "$tmp/gate"
GT_CACHE=$tmp/rk GT_VM_JOBS=2 GT_VM_GATE=$tmp/gate \
	GT_RUN_KERNEL=$tmp/run-kernel \
	"$root/selftests/vm/run-kernels.sh" a b c > "$tmp/rk.out" 2>&1 &
rk=$!
sh "$tmp/until" "$tmp/rk.log" "start a" || true
sleep 3
ok "gate shut: one kernel runs ($(tr '\n' ' ' < "$tmp/rk.log"))" \
	'[ "$(cat "$tmp/rk.log")" = "start a" ]'
touch "$tmp/gate"
ok "gate open: a second kernel starts" 'sh "$tmp/until" "$tmp/rk.log" "start b"'
ok "two at a time: the third waits" '! grep -q "start c" "$tmp/rk.log"'
echo "end b" >> "$tmp/ends"
ok "the third starts when one ends" 'sh "$tmp/until" "$tmp/rk.log" "start c"'
printf 'end a\nend c\n' >> "$tmp/ends"
rk_rc=0
wait "$rk" || rk_rc=$?
ok "run-kernels.sh passes with all three ($rk_rc): $(tail -n 1 "$tmp/rk.out")" \
	'[ "$rk_rc" = 0 ] && [ "$(tail -n 1 "$tmp/rk.out")" = "9 passed, 0 failed" ]'

# A failed check of a trace: the end of the log, all CI keeps, names
# the failed line of the ground truth, not those that passed; and a
# failed guest test's reason.
cat > "$tmp/run-kernel-fails" <<'SH'
#!/bin/bash
mkdir -p "$GT_CACHE/vm/$1"
echo "[$1] # FAIL: syscalls=bogus accepted"
echo "[$1] not ok 4 selftests: gotrace: syscall_test.sh"
echo "[$1] not ok - sigwait.trace matches its ground truth"
echo "[$1] #   ok gt_sigwait block:sleep >= 8 (got 9)"
echo "[$1] #   not ok gt_sigwait syscall:sys_clock_nanosleep <= 2 (got 3)"
echo "[$1] ok - sock.trace matches its ground truth"
echo "[$1] #   ok gt_sock_a block:network >= 10 (got 100)"
echo "5 2" > "$GT_CACHE/vm/$1/counts"
exit 1
SH
chmod +x "$tmp/run-kernel-fails"
rk_rc=0
GT_CACHE=$tmp/rkf GT_VM_JOBS=1 GT_RUN_KERNEL=$tmp/run-kernel-fails \
	"$root/selftests/vm/run-kernels.sh" k > "$tmp/rkf.out" 2>&1 || rk_rc=$?
sed -n '/^failed on:/,$p' "$tmp/rkf.out" > "$tmp/rkf.end"
ok "a failure: run-kernels.sh fails ($rk_rc)" '[ "$rk_rc" != 0 ]'
ok "a failure: the end of the log names the line that failed" \
	'grep -qxF "[k] #   not ok gt_sigwait syscall:sys_clock_nanosleep <= 2 (got 3)" "$tmp/rkf.end"'
ok "a failure: and why the guest test failed" \
	'grep -qxF "[k] # FAIL: syscalls=bogus accepted" "$tmp/rkf.end"'
ok "a failure: not the lines that passed" \
	'! grep -q "got 9\|got 100\|sock" "$tmp/rkf.end"'
echo "1..$n"
exit $fail
