#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bpf_ustack_test.sh - user stacks with the BPF backend, on this host
#
# The guest's ground truth (selftests/gotrace/ustack_test.sh), recorded
# here by 'gotrace record --backend bpf --user-stacks' in both formats:
# build/ustack (ustack.c) blocks in leaf_MODE() <- middle_MODE() <-
# outer_MODE() in a pipe read, a futex, a nanosleep and an eventfd
# read, woken from wake_leaf() <- wake_middle() <- wake_outer();
# build/ustack_go blocks in syscall.Read <- main.readLoop.  Each process
# exits right after its last block, and the trace goes on for more than
# a generation after the last one, so every process is gone before the
# generation holding its stacks (or the go 1.11 footer) is written.
# Recorded unnamed (--no-symbolize; ustack_test.sh in the guests checks
# the recorder's own naming), then after gotrace symbolize:
#
#   - Go 1.23's and 1.27's dumps and their sync, syscall and sched
#     profiles name those functions in order (selftests/verify-trace.sh,
#     the guest test's expectations);
#   - every user frame named in the binaries is what addr2line (and nm)
#     say of its offset: the frame's PC holds the file offset
#     (Documentation/user-stacks.rst), mapped to an address through the
#     binary's PT_LOAD headers;
#   - the recorder counted the walks and the truncated ones.
#
# Skips where this host cannot run BPF (not root, no BTF, no backend);
# fails where Go 1.23 or 1.27 is missing (skips with GT_ALLOW_NO_GO=1).

. "$(dirname "$0")/lib.sh"

USTACK=$(realpath "${USTACK:-./build/ustack}")
USTACK_GO=$(realpath "${USTACK_GO:-./build/ustack_go}" 2>/dev/null)
VERIFY=$(dirname "$0")/../../selftests/verify-trace.sh
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(dirname "$0")/../../.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GO123 GO127 GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
# Rounds of 20 ms: each process lives a few hundred ms, long enough for
# the reader to read its maps (Documentation/user-stacks.rst: what is
# lossy), and exits more than a second before its generation is written.
ROUNDS=10

need_bpf
if [ ! -x "$GO123" ] || [ ! -x "$GO127" ] || [ ! -x "$USTACK_GO" ]; then
	no_go "Go 1.23 ($GO123), Go 1.27 ($GO127) or build/ustack_go"
	done_testing
	exit
fi

# The guest test's ground truth (selftests/gotrace/ustack.expect).
sed "s/@ROUNDS@/$ROUNDS/" "$(dirname "$0")/../../selftests/gotrace/ustack.expect" \
	>"$T/expect" || exit

# vaddr LOADS OFFSET: the ELF address of file offset OFFSET, by the
# binary's PT_LOAD headers in LOADS ("offset vaddr filesz" lines).
vaddr() {
	while read -r o v n; do
		if [ $(($2)) -ge $((o)) ] && [ $(($2)) -lt $((o + n)) ]; then
			printf '0x%x\n' $(($2 - o + v))
			return
		fi
	done <"$1"
}

# frames TRACE: "PC NAME FILE" of every user frame named after a file
# offset (PCs 0x01..., Documentation/user-stacks.rst) in Go 1.27's dump.
frames() {
	"$GO127" tool trace -d=parsed "$1" 2>/dev/null | awk '
	$2 == "@" && $3 ~ /^0x1[0-9a-f]+$/ && length($3) == 17 {
		pc = $3; name = $1; next
	}
	pc != "" { f = $1; sub(/:[0-9]+$/, "", f); print pc, name, f; pc = "" }
	' | sort -u
}

# agree RAW NAMED: every frame of the binaries that NAMED names (by the
# file offset in its PC, whose file RAW's unnamed frame gives) is the
# function addr2line finds at the byte before that offset's address (a
# return address: the last of the chain of inlined functions -i gives,
# innermost first), and the function nm places there.  Prints "AGREE
# NAME" or "MISMATCH ..." per frame.  One addr2line per binary.
agree() {
	frames "$1" | awk '{ print $1, $3 }' >"$T/rawfiles"
	frames "$2" >"$T/named"
	for bin in "$USTACK" "$USTACK_GO"; do
		b=$T/q.$(basename "$bin")
		readelf -lW "$bin" | awk '$1 == "LOAD" { print $2, $3, $5 }' \
			>"$b.loads"
		: >"$b.q"
		awk -v f="$bin" '$2 == f { print $1 }' "$T/rawfiles" |
		while read -r pc; do
			name=$(awk -v pc="$pc" '$1 == pc { print $2; exit }' \
			       "$T/named")
			case "$name" in "" | *+0x*) continue ;; esac
			off=$(printf '0x%x' $((pc & 0xffffffff)))
			a=$(vaddr "$b.loads" "$off")
			if [ -z "$a" ]; then
				echo "MISMATCH $pc: offset $off in no PT_LOAD of $bin"
				continue
			fi
			printf '%016x %s %s\n' $((a - 1)) "$pc" "$name" >>"$b.q"
		done
		[ -s "$b.q" ] || continue
		addr2line -a -f -i -e "$bin" $(awk '{ print "0x" $1 }' "$b.q") |
		awk '/^0x[0-9a-f]+$/ { if (a != "") print a, f; a = $0; i = 0; next }
		     i++ % 2 == 0 { f = $0 }
		     END { if (a != "") print a, f }' >"$b.a2l"
		# With the ifunc symbols (i): libc's __strcasecmp_l is one,
		# its resolver __strcasecmp_l_ifunc at the same address,
		# and a walk through libc's frames without frame pointers
		# can land there; the two tools may pick either name.
		nm -n "$bin" | awk '$2 ~ /^[tTwWi]$/ { print $1, $3 }' >"$b.nm"
		# The queries, their addr2line answers and nm's functions
		# in order (16 hex digits: compared as strings).
		awk -v nmf="$b.nm" -v a2l="$b.a2l" '
		BEGIN {
			# Aliases (pthread_create, __pthread_create) share
			# an address: each address keeps all its names.
			while ((getline l < nmf) > 0) {
				split(l, w, " ")
				if (n && na[n] == w[1] "") {
					nn[n] = nn[n] w[2] " "
					continue
				}
				na[++n] = w[1] ""; nn[n] = " " w[2] " "
			}
			while ((getline l < a2l) > 0) {
				split(l, w, " "); k = substr(w[1], 3)
				while (length(k) < 16) k = "0" k
				want[k] = w[2]
			}
		}
		{
			q = $1 ""; lo = 1; hi = n; s = ""
			while (lo <= hi) {
				mid = int((lo + hi) / 2)
				if (na[mid] <= q) { s = nn[mid]; lo = mid + 1 }
				else hi = mid - 1
			}
			if (!index(s, " " $3 " ") || !index(s, " " want[q] " "))
				print "MISMATCH " $2 ": trace " $3 ", addr2line " want[q] ", nm" s
			else
				print "AGREE " $3
		}' "$b.q"
	done
}

for fmt in go1.23 go1.11; do
	raw=$T/ustack-$fmt.raw
	named=$T/ustack-$fmt.trace
	# The last process exits, then 1.5 s more: past a generation.
	run record --backend bpf --format $fmt --user-stacks --no-symbolize --children \
		-o "$raw" -- sh -c "
		$USTACK pipe $ROUNDS && $USTACK futex $ROUNDS &&
		$USTACK sleep $ROUNDS && $USTACK evfd $ROUNDS &&
		$USTACK_GO pipe $ROUNDS && $USTACK_GO evfd $ROUNDS && sleep 1.5"
	check "$fmt: record --backend bpf --user-stacks ran the workloads" \
		'[ "$rc" -eq 0 ] && [ -s "$raw" ]'
	walks=$(sed -n 's/.*user stacks: \([0-9]*\) walked.*/\1/p' "$T/err")
	check "$fmt: the recorder counted its walks ($walks)" \
		'[ "${walks:-0}" -gt 0 ]'
	check "$fmt: and said how many were truncated, and why" \
		'grep -q "truncated: bad frame pointer [0-9]*, fault [0-9]*, depth limit [0-9]*" "$T/err"'
	check "$fmt: unnamed frames name the binary: ustack+0x..." \
		'grep -qF "ustack+0x" "$raw" && grep -qF "$USTACK" "$raw"'
	check "$fmt: gotrace check accepts the trace" \
		'"$GOTRACE" check -q "$raw" >/dev/null 2>&1'
	run symbolize "$raw" "$named"
	check "$fmt: gotrace symbolize named frames" \
		'[ "$rc" -eq 0 ] && ! grep -q " 0 of [0-9]* user frames named" "$T/err"'
	if sh "$VERIFY" "$named" "$T/expect" >"$T/verify" 2>&1; then
		ok "$fmt: Go 1.23 and 1.27 dumps and profiles name the functions in order"
	else
		not_ok "$fmt: Go 1.23 and 1.27 dumps and profiles name the functions in order"
		grep -v "^ok\|^PASS" "$T/verify" | sed 's/^/# /' | head -30
	fi
	agree "$raw" "$named" >"$T/agree"
	nagree=$(grep -c "^AGREE" "$T/agree")
	check "$fmt: $nagree named frames of the binaries, every one as addr2line and nm name it" \
		'[ "$nagree" -ge 8 ] && ! grep -q "^MISMATCH" "$T/agree"'
	grep "^MISMATCH" "$T/agree" | head -5 | sed 's/^/# /'
	for fn in leaf_pipe middle_pipe outer_pipe wake_leaf main.readLoop; do
		check "$fmt: addr2line agreed on $fn" \
			'grep -qx "AGREE $fn" "$T/agree"'
	done
done

done_testing
