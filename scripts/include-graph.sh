#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# include-graph.sh - the includes between the rooms of user/
# (Documentation/source-map.rst): for every #include "..." of a source
# of user/ (its tests aside), the room of the includer and of the file
# it names, counted.  Rooms: cmd (user/), trace (user/trace/), bpf
# (user/bpf/ with its model adapter, user/bpf/model/), and outside them
# model (the portable model, ../model/), kmod, uapi and gen (generated:
# vmlinux.h, the skeleton).  Exits 1 if an include points up: trace to
# cmd or bpf, bpf to cmd.  Every line starts with "# " (TAP comments:
# make -C user check runs it).
cd "$(dirname "$0")/../user" || exit 1

room() {
	case $1 in
	trace/*) echo trace ;;
	bpf/*) echo bpf ;;
	../kmod/*) echo kmod ;;
	../model/*) echo model ;;
	../include/*) echo uapi ;;
	*/*) echo other ;;
	*) echo cmd ;;
	esac
}

edges() {
	for f in *.c *.h trace/*.c trace/*.h bpf/*.c bpf/*.h bpf/model/*.c \
		 bpf/model/*.h; do
		[ -f "$f" ] || continue
		d=$(dirname "$f")
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			p=$(realpath -m --relative-to=. "$d/$inc")
			if [ -e "$p" ] || [ "$inc" = syscall_table.h ]; then
				to=$(room "$p")
			else
				to=gen
			fi
			echo "$(room "$f") -> $to $f $inc"
		done
	done
}

all=$(edges)
printf '%s\n' "$all" | cut -d' ' -f1-3 | sort | uniq -c | sed 's/^/# /'
up=$(printf '%s\n' "$all" | grep -E '^(trace -> (cmd|bpf)|bpf -> cmd) ')
if [ -n "$up" ]; then
	printf '%s\n' "$up" | sed 's/^/# includes up: /'
	exit 1
fi
