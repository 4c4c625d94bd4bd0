#!/bin/sh
# Includes between the rooms of user/: for each #include "..." of a
# source in user/ (tests excluded), the room of the includer and of the
# included file.  Rooms: cmd (user/ top), trace (user/trace/), bpf
# (user/bpf/, model/ included), kmod, uapi, gen (generated).
cd "$(dirname "$0")/../user" || exit 1
room() {
	case $1 in
	trace/*) echo trace ;;
	bpf/*) echo bpf ;;
	../kmod/*) echo kmod ;;
	../include/*) echo uapi ;;
	../*) echo other ;;
	*/*) echo other ;;
	*) echo cmd ;;
	esac
}
for f in *.c *.h trace/*.c trace/*.h bpf/*.c bpf/*.h bpf/model/*.c bpf/model/*.h; do
	[ -f "$f" ] || continue
	d=$(dirname "$f")
	grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "//;s/"$//' |
	while read -r inc; do
		p=$(realpath -m --relative-to=. "$d/$inc")
		[ -e "$p" ] || p="(gen)$inc"
		case $p in "(gen)"*) to=gen ;; *) to=$(room "$p") ;; esac
		echo "$(room "$f") -> $to"
	done
done | sort | uniq -c
