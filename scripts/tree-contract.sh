#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tree-contract.sh - what the tree says of itself, checked
#
# 1. The environment contract (model/model_env.h): the portable model's
#    files are built twice, in the module against model/env/kernel.h and
#    in user space against model/env/user.h.  Every gt_env_*
#    function its comment documents must be defined by both, with the
#    documented number of arguments; every gt_env_* the portable files
#    use must be documented.
# 2. Header guards: each header's guard ends with its own file name
#    (model_env.h: ..._MODEL_ENV_H), and no two headers share one (the
#    second one included would be silently empty); a list included
#    once per use (include/uapi/linux/gotrace_fields.h) says it has none.
# 3. Paths in comments: a file of the tree that a source comment names
#    by its path from the top (kmod/..., model/..., user/..., selftests/...,
#    scripts/..., Documentation/..., include/..., bench/...) exists, or
#    is one the build makes (ignored by git).
#
# TAP; exits 1 if a check fails.  make -C user check runs it.
cd "$(dirname "$0")/.." || exit 1
# ok, not_ok, done_testing and a temporary directory $T.
. user/tests/lib.sh

# The portable files: built into the module and into the BPF backend.
PORTABLE=$(ls model/*.c model/*.h | grep -v '^model/model_env\.h$')
ENVS="model/env/kernel.h model/env/user.h"
tmp=$T

# "NAME ARITY" of every gt_env_NAME(ARGS) in stdin: ARGS empty is 0.
arity() {
	grep -o 'gt_env_[a-z0-9_]*([^()]*)' |
	awk -F'(' '{ a = $2; sub(/\)$/, "", a); gsub(/[ \t]/, "", a)
		     print $1, (a == "" || a == "void") ? 0 : gsub(/,/, ",", a) + 1 }' |
	sort -u
}

# 1. The contract: the comment at the top of model_env.h.
awk 'NR > 1 && /^\/\*/ { c = 1 } c { print } c && /\*\// { exit }' model/model_env.h \
	> "$tmp/doctext"
arity < "$tmp/doctext" > "$tmp/doc"
for env in $ENVS; do
	# Macros with parameters, and static inline functions (their
	# declarations joined onto one line first).
	{
		sed -n 's/^#define \(gt_env_[a-z0-9_]*([^)]*)\).*/\1/p' "$env"
		tr '\n' ' ' < "$env" |
			grep -o 'static inline[^;{(]*gt_env_[a-z0-9_]*([^)]*)' |
			sed 's/^static inline[^;{(]*\(gt_env_\)/\1/'
	} | arity > "$tmp/def.$(basename "$env")"
	# Object-like macros: a name, no arguments to count.
	sed -n 's/^#define \(gt_env_[a-z0-9_]*\)[ \t].*/\1/p' "$env" |
		sort -u > "$tmp/obj.$(basename "$env")"
done
: > "$tmp/bad"
while read -r name want; do
	for env in $ENVS; do
		b=$(basename "$env")
		got=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/def.$b")
		if [ -z "$got" ] && grep -qx "$name" "$tmp/obj.$b"; then
			continue
		fi
		if [ -z "$got" ]; then
			echo "$name: documented, not defined by $env" >> "$tmp/bad"
		elif [ "$got" != "$want" ]; then
			echo "$name: documented with $want arguments, $env takes $got" >> "$tmp/bad"
		fi
	done
done < "$tmp/doc"
# shellcheck disable=SC2086 # a list of files
grep -oh 'gt_env_[a-z0-9_]*' $PORTABLE | sort -u |
while read -r name; do
	grep -qw "$name" "$tmp/doctext" ||
		echo "$name: used by the portable files, not documented in model/model_env.h" >> "$tmp/bad"
done
if [ -s "$tmp/bad" ]; then
	not_ok "the environment contract: $(wc -l < "$tmp/bad") findings"
	sed 's/^/#   /' "$tmp/bad"
else
	ok "the environment contract: $(wc -l < "$tmp/doc") documented functions, each defined by both environments, every one used documented"
fi

# 2. Header guards.
git ls-files '*.h' | grep -v '^debian/' > "$tmp/headers"
: > "$tmp/bad"
: > "$tmp/guards"
while read -r h; do
	# A list included once per use, as asm-generic/unistd.h is, has
	# none, and says so.
	grep -q '^ \* Like asm-generic/unistd.h with __SYSCALL, this file has no include$' "$h" &&
		continue
	g=$(sed -n 's/^#ifndef \([A-Za-z0-9_]*\).*/\1/p' "$h" | head -n 1)
	d=$(sed -n "s/^#define \\($g\\)\$/\\1/p" "$h" | head -n 1)
	want=$(basename "$h" .h | tr 'a-z' 'A-Z' | tr -c 'A-Z0-9\n' '_')_H
	case $g in
	*"$want") ;;
	*) echo "$h: guard ${g:-none}, not ..._$want" >> "$tmp/bad" ;;
	esac
	[ -n "$g" ] && [ "$d" = "$g" ] ||
		echo "$h: #ifndef ${g:-none} without its #define" >> "$tmp/bad"
	echo "$g $h" >> "$tmp/guards"
done < "$tmp/headers"
awk '{ n[$1]++; f[$1] = f[$1] " " $2 } END { for (g in n) if (n[g] > 1)
	print g ":" f[g] ": one guard for " n[g] " headers" }' "$tmp/guards" >> "$tmp/bad"
if [ -s "$tmp/bad" ]; then
	not_ok "header guards: $(wc -l < "$tmp/bad") findings"
	sed 's/^/#   /' "$tmp/bad"
else
	ok "header guards: $(wc -l < "$tmp/headers") headers, each guard its file's name, none shared"
fi

# 3. Paths in comments.
git ls-files '*.c' '*.h' '*.sh' '*.bpf.c' 'Makefile' '*/Makefile' 'Kbuild' |
	grep -v '^debian/' > "$tmp/sources"
: > "$tmp/bad"
while read -r f; do
	# An #include's path is its directory's, and the compiler's to check.
	grep -v '^#include' "$f" |
	grep -oE '(^|[^A-Za-z0-9_./-])(kmod|model|user|selftests|scripts|Documentation|include|bench)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(c|h|sh|rst|go|expect)\b' |
		sed 's/^[^A-Za-z]//' | sort -u |
	while read -r p; do
		# A file the build makes is ignored by git: not missing.
		[ -e "$p" ] || git check-ignore -q "$p" ||
			echo "$f: names $p, which is not in the tree" >> "$tmp/bad"
	done
done < "$tmp/sources"
if [ -s "$tmp/bad" ]; then
	not_ok "paths in comments: $(wc -l < "$tmp/bad") names of files not in the tree"
	sed 's/^/#   /' "$tmp/bad"
else
	ok "paths in comments: every file of the tree that a source names is there"
fi

done_testing
