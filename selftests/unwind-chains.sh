# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# unwind-chains.sh - the ground truth of unwind_prog's user stacks
# (user/tests/unwind_prog.c: main -> prog_outer -> lib_middle, in
# libgtunwind.so -> prog_inner_MODE -> the C library, the program's
# functions without frame pointers; Documentation/unwind.rst), shared
# by the host's user/tests/unwind_test.sh and the guests'
# (selftests/gotrace/unwind_test.sh, whose traces selftests/
# check-unwind.sh reads here): one definition of a stack that is whole,
# whichever machine recorded it and whoever named its frames (the
# host's C library with its debug file, the guest's copy of it, or an
# arm64 one, without).
#
# Sourced, never run.  blocks needs GO127 (Go 1.27's go).  A chain is
# the function names of a stack, innermost first, separated by spaces.

# norm: the names of a chain on standard input, one a line, made the
# same across the C library's aliases: without a symbol version
# (@GLIBC_2.2.5, @@GLIBC_2.34) and the prefixes the aliases add
# (__GI___lll_lock_wait, __lll_lock_wait; __libc_read, read).
norm() {
	sed 's/@.*//; s/^_*GI_*//; s/^_*//; s/^libc_//'
}

# outer CHAIN: the part of CHAIN from the first prog_inner_ frame out;
# inner CHAIN: the part before it, the C library's frames.
outer() {
	echo "$1" | sed -n 's/^\(.* \)\{0,1\}\(prog_inner_.*\)$/\2/p'
}

inner() {
	echo "$1" | sed -n 's/^\(.*\) prog_inner_.*$/\1/p'
}

# same_inner A B: the C library frames of chains A and B name the same
# functions, modulo aliases.
same_inner() {
	[ "$(inner "$1" | tr ' ' '\n' | norm)" = \
	  "$(inner "$2" | tr ' ' '\n' | norm)" ]
}

# wrapper MODE: the C library function unwind_prog blocks in for MODE.
wrapper() {
	case $1 in
	read) echo read ;;
	futex) echo pthread_mutex_lock ;;
	sleep) echo nanosleep ;;
	esac
}

# whole_outer MODE CHAIN: CHAIN goes, after some C library frames, from
# prog_inner_MODE through lib_middle, prog_outer and main out to
# __libc_start_main and _start, the outermost frame: what eu-stack finds
# (between main and __libc_start_main, __libc_start_call_main: a local
# symbol, named only with the C library's debug file).
whole_outer() {
	echo " $2" | grep -Eq "^ [^ ]+( [^ ]+)* prog_inner_$1 lib_middle prog_outer main( [^ ]+)* __libc_start_main _start$"
}

# has_wrapper MODE CHAIN: the C library frames of CHAIN hold MODE's
# wrapper, modulo aliases.
has_wrapper() {
	inner "$2" | tr ' ' '\n' | norm | grep -qx "$(wrapper "$1")"
}

# chain_whole MODE CHAIN: CHAIN is a whole stack of a MODE block of
# unwind_prog, from the C library's wrapper to _start.
chain_whole() {
	whole_outer "$1" "$2" && has_wrapper "$1" "$2"
}

# untabled CHAIN: the walk of CHAIN ended where it had no table: a
# process newer than the recorder's last read of the mappings.  Such a
# walk goes on by frame pointers, which on arm64, whose C library keeps
# them, skip from prog_inner_MODE (its caller by the link register) to
# __libc_start_main: a stack through prog_inner_MODE, cut short, that
# the walker marks as walked without tables.
untabled() {
	case $1 in
	*" [truncated:no-unwind-table]") return 0 ;;
	esac
	return 1
}

# reaches_main CHAIN: CHAIN goes from lib_middle to main, as only a walk
# that can do without frame pointers finds it.
reaches_main() {
	echo " $1 " | grep -q " lib_middle prog_outer main "
}

# blocks TRACE: a line "MODE COMM NAME NAME ..." per block (a transition
# Running->Waiting) in Go 1.27's dump of TRACE: MODE the syscall of its
# reason (read, futex, sleep for clock_nanosleep and nanosleep), COMM
# its task's comm (the stack's [comm] frame), the user frames of its
# stack innermost first, without symbol versions; a walk's end marker
# ("[user stack truncated: REASON]") is one frame, "[truncated:REASON]"
# with dashes for REASON's spaces ("[truncated:no-unwind-table]"); other
# pseudo-frames are left out.
blocks() {
	"$GO127" tool trace -d=parsed "$1" 2>/dev/null | awk '
	/^M=/ { ev = $0; inst = 0; next }
	/^Stack=/ { inst = 1; st = ""; comm = ""; name = ""; next }
	inst && /^$/ {
		if (ev ~ /Running->Waiting/) {
			r = ev; sub(/.*Reason="/, "", r); sub(/".*/, "", r)
			sub(/.*: /, "", r)
			if (r == "clock_nanosleep" || r == "nanosleep") r = "sleep"
			print r, comm st
		}
		inst = 0; next
	}
	inst && /^\t\t/ {
		if ($0 ~ /^\t\t\[comm\]:/) comm = name
		else if (pc ~ /^0x1[0-9a-f]+$/ && length(pc) == 17) {
			n = name; sub(/@.*/, "", n); st = st " " n
		} else if (name ~ /^\[user stack truncated/) {
			t = name; sub(/^\[user stack truncated:? */, "", t)
			sub(/\]$/, "", t); gsub(/ /, "-", t)
			st = st " [truncated:" t "]"
		}
		next
	}
	inst && /^\t/ {
		name = $0; sub(/^\t/, "", name); sub(/ @ 0x[0-9a-f]+$/, "", name)
		pc = $NF; next
	}'
}
