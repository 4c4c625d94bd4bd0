#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# User stacks (GOTRACE_OPT_USER_STACKS, Documentation/user-stacks.rst):
# ustack.c blocks in leaf_MODE(), called by middle_MODE(), called by
# outer_MODE(), making the syscall itself; recorded with gotrace record
# --user-stacks, which names the frames once the file is complete, here
# where the binaries are.  The host checks (ustack.expect,
# selftests/verify-trace.sh) that Go 1.23's and 1.27's dumps and the
# sync and syscall profiles show those stacks, leaf, middle, outer in
# order, and the scheduling profile, which groups by the stack that made
# a goroutine runnable, the helper thread's wake_leaf, wake_middle,
# wake_outer.  ustack_go, a Go program, blocks in main.readLoop ->
# syscall.Read, on a pipe (the sync profile) and an eventfd (the syscall
# profile).  Each process exits right after its last block: its frames
# must still be named.  Both backends (bpf:ustack_test.sh records with
# the BPF one).  Also: --no-symbolize leaves the frames as the
# recorders write them, BINARY+0xOFFSET, which gotrace symbolize names
# later; and, for the module, its parameter user_stacks gives a session
# of `cat /dev/gotrace` user stacks, counted in the status; without it
# none.
. ./lib.sh

if [ "$GT_BACKEND" = kmod ]; then
	backend=
	param=/sys/module/gotrace/parameters/user_stacks
	[ -e $param ] || fail "no user_stacks parameter"
	[ "$(cat $param)" = N ] || fail "user_stacks is on by default"
	on_exit "echo N > $param"
else
	backend="--backend bpf $GT_BPF_OPTS"
fi

# named FILE: the frames gotrace symbolize's line in FILE says it named.
named() {
	sed -n 's/.* \([0-9][0-9]*\) of [0-9]* user frames named.*/\1/p' "$1"
}

rounds=3
# shellcheck disable=SC2086 # $backend: options, split
./gotrace record $backend --user-stacks --children \
	-o "$GT_OUT/ustack.trace" -- sh -c \
	"./ustack pipe $rounds && ./ustack futex $rounds &&
	 ./ustack sleep $rounds && ./ustack evfd $rounds &&
	 ./ustack_go pipe $rounds && ./ustack_go evfd $rounds" 2> /tmp/rec.err ||
	fail "gotrace record --user-stacks failed: $(cat /tmp/rec.err)"
cat /tmp/rec.err
check_header "$GT_OUT/ustack.trace"
./gotrace check -q "$GT_OUT/ustack.trace" || fail "gotrace check refused the trace"
grep -q "user stacks: [1-9][0-9]* walked" /tmp/rec.err ||
	fail "gotrace record counted no user stack"
n=$(named /tmp/rec.err)
[ "${n:-0}" -gt 0 ] || fail "gotrace record named no user frame"
trace_has "$GT_OUT/ustack.trace" leaf_pipe ||
	fail "no leaf_pipe in the trace gotrace record wrote"

# --no-symbolize: the frames as recorded, ustack+0xOFFSET in /.../ustack,
# which gotrace symbolize names afterwards.
# shellcheck disable=SC2086
./gotrace record $backend --user-stacks --no-symbolize --children \
	-o /tmp/ustack.raw -- ./ustack pipe 1 2> /tmp/raw.err ||
	fail "gotrace record --no-symbolize failed: $(cat /tmp/raw.err)"
! grep -q "user frames named" /tmp/raw.err ||
	fail "--no-symbolize named the frames: $(cat /tmp/raw.err)"
bin=$(readlink -f ./ustack)
trace_has /tmp/ustack.raw "ustack+0x" ||
	fail "no ustack+0x... frame in the trace recorded with --no-symbolize"
trace_has /tmp/ustack.raw "$bin" || fail "no frame names the file $bin"
! trace_has /tmp/ustack.raw leaf_pipe ||
	fail "a function name in the trace recorded with --no-symbolize"
./gotrace symbolize /tmp/ustack.raw /tmp/ustack.named 2> /tmp/sym.err ||
	fail "gotrace symbolize failed: $(cat /tmp/sym.err)"
cat /tmp/sym.err
n=$(named /tmp/sym.err)
[ "${n:-0}" -gt 0 ] || fail "symbolize named no user frame"
trace_has /tmp/ustack.named leaf_pipe || fail "symbolize did not name leaf_pipe"

# A trace written to a pipe cannot be rewritten: the recorder says so,
# and its frames are the unnamed ones.
# shellcheck disable=SC2086
./gotrace record $backend --user-stacks --children -o - -- ./ustack pipe 1 \
	2> /tmp/pipe.err | cat > /tmp/ustack-pipe.raw ||
	fail "gotrace record -o - failed: $(cat /tmp/pipe.err)"
grep -q "user frames of stdout stay BINARY+0xOFFSET" /tmp/pipe.err ||
	fail "no word that a piped trace's frames stay unnamed: $(cat /tmp/pipe.err)"
trace_has /tmp/ustack-pipe.raw "ustack+0x" || fail "no ustack+0x... frame in the piped trace"

# The ground truth of both workloads (ustack.expect, shared with the BPF
# backend's host test user/tests/bpf_ustack_test.sh), for this run's rounds.
sed "s/@ROUNDS@/$rounds/" ustack.expect > "$GT_OUT/ustack.expect" ||
	fail "cannot write $GT_OUT/ustack.expect"

[ "$GT_BACKEND" = kmod ] || exit 0

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
exit 0
