#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# unwind_test.sh - user stacks from .eh_frame tables with the BPF backend,
# on this host, against eu-stack
#
# build/unwind_prog (unwind_prog.c) and its library build/libgtunwind.so
# (unwind_lib.c) are built without frame pointers, as Debian's C library
# is, and block through the C library from
#
#   main -> prog_outer -> lib_middle (the library) -> prog_inner_MODE
#
# in a read() of a pipe, a pthread_mutex_lock() (a futex wait) and a
# nanosleep(), ROUNDS times each.  A walk of frame pointers cannot get
# through that chain; a walk of the binaries' unwind tables must find
# every frame, as elfutils' unwinder does (eu-stack, from the same
# tables, with ptrace).  So:
#
#   - the workload is what it says: no function of the chain sets up a
#     frame pointer (objdump), both binaries have an .eh_frame;
#   - eu-stack -p, on unwind_prog -hold MODE (blocked for ever in MODE
#     through the same functions), finds the chain, from the C library's
#     wrapper to prog_inner_MODE, lib_middle, prog_outer, main, then
#     __libc_start_main and _start outermost: the ground truth;
#   - 'gotrace record --backend bpf --user-stacks --unwind=eh-frame', then
#     gotrace symbolize and Go 1.27's dump: each block of the main thread
#     (comm gt_unwind) in each MODE, ROUNDS at least, has eu-stack's
#     chain: from prog_inner_MODE outwards the same names in the same
#     order, and inside it the same C library functions, named modulo
#     their aliases (__GI___lll_lock_wait, __lll_lock_wait;
#     clock_nanosleep@GLIBC_2.2.5, __clock_nanosleep);
#   - the same with --user-stacks alone: the default (--unwind=auto)
#     takes the tables where a binary has them;
#   - the same with --unwind=fp: ROUNDS blocks in each MODE, and not one
#     reaches main through lib_middle: the workload has no frame
#     pointers to walk, and the test above can fail;
#   - the recorder counted its walks (and, TODO(unwind-counters), those
#     of the tables).
#
# Skips where this host cannot run BPF (not root, no BTF, no backend);
# fails where Go 1.27 or eu-stack (elfutils, make deps) is missing
# (skips on a missing Go with GT_ALLOW_NO_GO=1).

. "$(dirname "$0")/lib.sh"
# norm, outer, inner, same_inner, whole_outer, has_wrapper, reaches_main,
# blocks: what a whole stack of unwind_prog is, shared with the guests'
# unwind_test.sh (selftests/check-unwind.sh).
. "$(dirname "$0")/../../selftests/unwind-chains.sh"

PROG=$(realpath "${UNWIND_PROG:-./build/unwind_prog}")
LIB=$(dirname "$PROG")/libgtunwind.so
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO127 GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
# Blocks of about 20 ms: with the 200 ms the program waits before its
# first, it lives some 0.5 s.
ROUNDS=5
MODES="read futex sleep"
holdpid=
trap '[ -n "$holdpid" ] && kill "$holdpid" 2>/dev/null; rm -rf "$T"' EXIT

need_bpf
if [ ! -x "$GO127" ]; then
	no_go "Go 1.27 ($GO127)"
	done_testing
	exit
fi

# --- the workload -----------------------------------------------------

# fp_setup BIN FUNC: FUNC's instructions in BIN that set up a frame
# pointer (x86-64's mov %rsp,%rbp, arm64's mov x29, sp).
fp_setup() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { p = 1; next }
		p && /^$/ { exit }
		p && /mov[ \t]+%rsp,%rbp|mov[ \t]+x29, sp/ { print }'
}

for f in main prog_outer prog_inner_read prog_inner_futex prog_inner_sleep; do
	check "unwind_prog's $f sets up no frame pointer" \
		'objdump -d "$PROG" | grep -q "<$f>:" && [ -z "$(fp_setup "$PROG" $f)" ]'
done
check "libgtunwind.so's lib_middle sets up no frame pointer" \
	'objdump -d "$LIB" | grep -q "<lib_middle>:" && [ -z "$(fp_setup "$LIB" lib_middle)" ]'
check "unwind_prog and libgtunwind.so have an .eh_frame" \
	'readelf -SW "$PROG" | grep -q " \.eh_frame " &&
	 readelf -SW "$LIB" | grep -q " \.eh_frame "'

# --- eu-stack's chains ------------------------------------------------

# hold MODE: start unwind_prog -hold MODE ($holdpid), and wait (at most
# 10 s) until its main thread sleeps in MODE's syscall: "ready" printed,
# the thread in state S, in a syscall (/proc's syscall file: a number).
hold() {
	"$PROG" -hold "$1" >"$T/hold.out" 2>&1 &
	holdpid=$!
	i=0
	while [ $i -lt 200 ]; do
		if grep -q ready "$T/hold.out" &&
		   [ "$(awk '{ print $3 }' "/proc/$holdpid/stat" 2>/dev/null)" = S ] &&
		   grep -q '^[0-9]' "/proc/$holdpid/syscall" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# eu_chain PID: the function names of eu-stack's stack of thread PID,
# innermost first, on one line.
eu_chain() {
	awk -v tid="TID $1:" '
		$0 == tid { p = 1; next }
		/^TID / { p = 0 }
		p && /^#[0-9]+ / { printf "%s%s", sep, $3; sep = " " }
		END { print "" }' "$T/eu.out" | sed 's/@[^ ]*//g'
}

if ! command -v eu-stack >/dev/null; then
	not_ok "eu-stack (elfutils): 'make deps' installs it"
	done_testing
	exit
fi
for m in $MODES; do
	if hold "$m"; then
		eu-stack -p "$holdpid" >"$T/eu.out" 2>"$T/eu.err"
		eurc=$?
		eval "eu_$m=\$(eu_chain $holdpid)"
	else
		eurc=none
		eval "eu_$m="
	fi
	kill "$holdpid" 2>/dev/null
	wait "$holdpid" 2>/dev/null
	holdpid=
	eval "chain=\$eu_$m"
	echo "# eu-stack, $m: $chain"
	check "eu-stack read unwind_prog -hold $m without an error ($eurc)" \
		'[ "$eurc" = 0 ]'
	check "eu-stack, $m: prog_inner_$m, lib_middle, prog_outer, main ... __libc_start_main, _start" \
		'whole_outer "$m" "$chain"'
	check "eu-stack, $m: the C library's $(wrapper "$m") inside prog_inner_$m" \
		'has_wrapper "$m" "$chain"'
done

# --- the recordings ---------------------------------------------------

# record NAME ARGS...: record unwind_prog ROUNDS with ARGS, symbolize,
# and list its blocks in $T/NAME.blocks; 0 if all went well.
record() {
	rname=$1
	shift
	raw=$T/$rname.raw
	run record --backend bpf --format go1.23 --user-stacks --no-symbolize \
		"$@" --children -o "$raw" -- "$PROG" $ROUNDS
	cp "$T/err" "$T/$rname.err"
	check "$rname: record --backend bpf --user-stacks ${*:-(no --unwind)} ran unwind_prog" \
		'[ "$rc" -eq 0 ] && [ -s "$raw" ]'
	[ "$rc" -eq 0 ] && [ -s "$raw" ] || return 1
	run symbolize "$raw" "$T/$rname.trace"
	check "$rname: gotrace symbolize named frames" \
		'[ "$rc" -eq 0 ] && ! grep -q " 0 of [0-9]* user frames named" "$T/err"'
	blocks "$T/$rname.trace" | awk '$2 == "gt_unwind"' >"$T/$rname.blocks"
	return 0
}

# whole NAME: each MODE's blocks of unwind_prog in $T/NAME.blocks have
# eu-stack's chain.
whole() {
	for m in $MODES; do
		eval "want=\$eu_$m"
		awk -v m="$m" '$1 == m { $1 = $2 = ""; sub(/^ +/, ""); print }' \
			"$T/$1.blocks" >"$T/$1.$m"
		nb=$(wc -l <"$T/$1.$m")
		nwhole=0
		nbad=0
		: >"$T/$1.$m.bad"
		while read -r got; do
			if [ -n "$want" ] && [ "$(outer "$got")" = "$(outer "$want")" ] &&
			   same_inner "$got" "$want"; then
				nwhole=$((nwhole + 1))
			elif [ -n "$(outer "$got")" ]; then
				# Through prog_inner_MODE, yet not the whole chain.
				nbad=$((nbad + 1))
				echo "$got" >>"$T/$1.$m.bad"
			fi
		done <"$T/$1.$m"
		check "$1: $nwhole of $nb $m blocks of unwind_prog have eu-stack's chain, $ROUNDS at least" \
			'[ "$nwhole" -ge "$ROUNDS" ]'
		check "$1: no $m block through prog_inner_$m has another ($nbad)" \
			'[ "$nbad" -eq 0 ]'
		sort "$T/$1.$m" | uniq -c | sort -rn | head -5 | sed 's/^/#   /'
	done
}

# The walks the recorder counted (the summary's "user stacks: N walked").
walks() {
	sed -n 's/.*user stacks: \([0-9]*\) walked.*/\1/p' "$T/$1.err"
}

if record eh --unwind=eh-frame; then
	whole eh
	walks=$(walks eh)
	check "eh: the recorder counted its walks ($walks)" \
		'[ "${walks:-0}" -gt 0 ]'
	# TODO(unwind-counters): the names of the table walk's counters are
	# not settled ("no unwind table N, no unwind rule N, signal frame
	# N, bad unwind step N" for now); this only asks that the summary's
	# line of user stacks speaks of them.
	check "eh: the summary counts the walks by the unwind tables" \
		'grep -Eiq "user stacks: .*unwind" "$T/eh.err"'
fi

# The default: --unwind=auto, the tables where a binary has them.
if record auto; then
	whole auto
fi

if record fp --unwind=fp; then
	for m in $MODES; do
		nb=$(awk -v m="$m" '$1 == m' "$T/fp.blocks" | wc -l)
		check "fp: $nb $m blocks of unwind_prog, $ROUNDS at least" \
			'[ "$nb" -ge "$ROUNDS" ]'
		nthrough=0
		while read -r got; do
			reaches_main "$got" && nthrough=$((nthrough + 1))
		done <<EOT
$(awk -v m="$m" '$1 == m' "$T/fp.blocks")
EOT
		check "fp: none reaches main through lib_middle ($nthrough): no frame pointers" \
			'[ "$nthrough" -eq 0 ]'
	done
	check "fp: the summary counts walks cut at a bad frame pointer" \
		'grep -q "truncated: bad frame pointer [1-9][0-9]*" "$T/fp.err"'
fi

# The guests' checker of the same stacks (selftests/check-unwind.sh)
# can fail: it passes the walks by tables and refuses those by frame
# pointers.
printf 'whole %s %s\n' read $ROUNDS futex $ROUNDS sleep $ROUNDS > "$T/whole.unwind"
CHECK_UNWIND=$(dirname "$0")/../../selftests/check-unwind.sh
[ -s "$T/eh.trace" ] &&
	check "check-unwind.sh: the stacks of eh's blocks are whole" \
		'sh "$CHECK_UNWIND" "$T/eh.trace" "$T/whole.unwind" > "$T/cu.out"'
[ -s "$T/fp.trace" ] &&
	check "check-unwind.sh: those of fp's are not" \
		'! sh "$CHECK_UNWIND" "$T/fp.trace" "$T/whole.unwind" > "$T/cu.out"'

done_testing
