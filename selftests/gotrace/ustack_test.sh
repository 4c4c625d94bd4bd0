#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# User stacks (GOTRACE_OPT_USER_STACKS, Documentation/user-stacks.rst):
# ustack.c blocks in leaf_MODE(), called by middle_MODE(), called by
# outer_MODE(), making the syscall itself; recorded with gotrace record
# --user-stacks and named with gotrace symbolize here, where the binary
# is.  The host checks (ustack.expect, selftests/verify-trace.sh) that
# Go 1.23's and 1.27's dumps and the sync and syscall profiles show
# those stacks, leaf, middle, outer in order, and the scheduling
# profile, which groups by the stack that made a goroutine runnable,
# the helper thread's wake_leaf, wake_middle, wake_outer.  ustack_go,
# a Go program, blocks in main.readLoop -> syscall.Read, on a pipe
# (the sync profile) and an eventfd (the syscall profile).  Each
# process exits right after its last block: its frames must still be
# named.  Also: the module parameter user_stacks gives a session of
# `cat /dev/gotrace` user stacks, counted in the status; without it
# none; the BPF backend records them as well.
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "SKIP: the module's feature"; exit 4; }

param=/sys/module/gotrace/parameters/user_stacks
[ -e $param ] || fail "no user_stacks parameter"
[ "$(cat $param)" = N ] || fail "user_stacks is on by default"
on_exit "echo N > $param"

rounds=3
./gotrace record --user-stacks -o /tmp/ustack.raw -- sh -c \
	"./ustack pipe $rounds && ./ustack futex $rounds &&
	 ./ustack sleep $rounds && ./ustack evfd $rounds &&
	 ./ustack_go pipe $rounds && ./ustack_go evfd $rounds" ||
	fail "gotrace record --user-stacks failed"
check_header /tmp/ustack.raw
./gotrace check -q /tmp/ustack.raw || fail "gotrace check refused the trace"
# The unnamed frames are the contract's: ustack+0xOFFSET in /.../ustack.
bin=$(readlink -f ./ustack)
grep -qF "ustack+0x" /tmp/ustack.raw ||
	fail "no ustack+0x... frame in the recorded trace"
grep -qF "$bin" /tmp/ustack.raw || fail "no frame names the file $bin"
./gotrace symbolize /tmp/ustack.raw "$GT_OUT/ustack.trace" 2> /tmp/sym.err ||
	fail "gotrace symbolize failed: $(cat /tmp/sym.err)"
cat /tmp/sym.err
named=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9]* user frames named.*/\1/p' \
	/tmp/sym.err)
[ "${named:-0}" -gt 0 ] || fail "symbolize named no user frame"
cp /tmp/ustack.raw "$GT_OUT/ustack.raw"

# The ground truth of both workloads (ustack.expect, shared with the BPF
# backend's host test user/tests/bpf_ustack_test.sh), for this run's rounds.
sed "s/@ROUNDS@/$rounds/" ustack.expect > "$GT_OUT/ustack.expect" ||
	fail "cannot write $GT_OUT/ustack.expect"

# The module parameter, for sessions without options: walks counted.
# walks PARAM: into $w, the user stacks a `cat /dev/gotrace` session
# walked while ustack slept, with user_stacks=PARAM.
walks() {
	echo "$1" > $param || fail "cannot set user_stacks=$1"
	cat $GT_DEV > /tmp/ustack-cat.trace &
	reader=$!
	cleanup_on_exit $reader
	wait_state recording
	./ustack sleep 2 || fail "ustack sleep failed"
	w=$(cat $GT_STATUS/ustack_walks)
	echo stop > $GT_DEV || fail "echo stop failed"
	wait_gone $reader 300 || fail "cat did not end"
	wait $reader || fail "cat exited with $?"
	check_header /tmp/ustack-cat.trace
}
walks Y
on=$w
walks N
echo "user_stacks=Y: $on walks; user_stacks=N: $w"
[ "$on" -gt 0 ] || fail "user_stacks=Y: no user stack walked"
[ "$w" -eq 0 ] || fail "user_stacks=N: $w user stacks walked"

# The BPF backend records them too (user/tests/bpf_ustack_test.sh checks
# its names on the host): here, that it takes --user-stacks and writes
# the binary's file+offset frames.
# Where the BPF backend cannot run (no BTF: the debug kernel), say why.
why=$(bpf_skip_reason)
if [ -n "$why" ]; then
	echo "BPF backend not tried: $why"
else
	./gotrace record --backend bpf --user-stacks --children \
		-o /tmp/ustack-bpf.trace -- ./ustack pipe 2 2> /tmp/bpf.err ||
		fail "the BPF backend failed with --user-stacks: $(cat /tmp/bpf.err)"
	cat /tmp/bpf.err
	grep -q "user stacks: [1-9][0-9]* walked" /tmp/bpf.err ||
		fail "the BPF backend counted no user stack"
	grep -qF "ustack+0x" /tmp/ustack-bpf.trace ||
		fail "no ustack+0x... frame in the BPF backend's trace"
fi
exit 0
