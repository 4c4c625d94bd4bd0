#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# include-graph.sh - the includes between the rooms of the tree
# (Documentation/source-map.rst): for every #include "..." of a C source
# of the tree, the room of the includer and of the file it names,
# counted.  Rooms:
#   uapi   include/ (the ABI)
#   model  model/ (the portable model and its environments)
#   kmod   kmod/ (the module's kernel glue)
#   cmd    user/ (the command)
#   trace  user/trace/ (the trace file library)
#   bpf    user/bpf/ (the BPF backend, with the model's adapter in
#          user/bpf/model/)
#   unwind user/unwind/ (the unwind tables of user stacks)
#   tests  user/tests/, user/fuzz/, selftests/
#   bench  bench/
#   outside a file the build makes (vmlinux.h, the skeleton, the
#          syscall tables), or the kernel's (kselftest_harness.h)
# Exits 1 if an include crosses where it must not: the ABI includes
# only itself; the model only itself and the ABI (it runs in both
# worlds); the module nothing of user/; the library nothing of the
# command, the backend, the unwind tables or the module; the backend
# nothing of the command or the module; the unwind tables only the ABI,
# the library and themselves; the command neither the module nor the model
# (it reaches the model through bpf/model/gtmodel.h).  Tests and the
# bench may include anything.  Every line starts with "# " (TAP
# comments: make -C user check runs it).
cd "$(dirname "$0")/.." || exit 1

room() {
	case $1 in
	include/*) echo uapi ;;
	model/*) echo model ;;
	kmod/*) echo kmod ;;
	user/trace/*) echo trace ;;
	user/bpf/*) echo bpf ;;
	user/unwind/*) echo unwind ;;
	user/tests/* | user/fuzz/* | selftests/*) echo tests ;;
	bench/*) echo bench ;;
	user/*/*) echo other ;;
	user/*) echo cmd ;;
	*) echo other ;;
	esac
}

edges() {
	git ls-files '*.c' '*.h' | grep -v '^debian/' |
	while read -r f; do
		d=$(dirname "$f")
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			# Beside the includer, else on the include paths the
			# builds give (-I of user/, model/, the uapi headers).
			to=outside
			for dir in "$d" user model include/uapi; do
				p=$(realpath -m --relative-to=. "$dir/$inc")
				if [ -e "$p" ]; then
					to=$(room "$p")
					break
				fi
			done
			echo "$(room "$f") -> $to $f $inc"
		done
	done
}

all=$(edges)
printf '%s\n' "$all" | cut -d' ' -f1-3 | sort | uniq -c | sed 's/^/# /'
across=$(printf '%s\n' "$all" | grep -E '^(uapi -> ([^u]|unwind)|model -> (kmod|cmd|trace|bpf|unwind|tests|bench|other)|kmod -> (cmd|trace|bpf|unwind|tests|bench|other)|trace -> (cmd|bpf|unwind|kmod|tests|bench|other)|bpf -> (cmd|kmod|tests|bench|other)|unwind -> (cmd|bpf|kmod|model|tests|bench|other)|cmd -> (kmod|model|tests|bench|other)) ')
if [ -n "$across" ]; then
	printf '%s\n' "$across" | sed 's/^/# includes across: /'
	exit 1
fi
