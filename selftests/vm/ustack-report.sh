#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ustack-report.sh TRACE [JOURNAL] - how much of a trace recorded with
# user stacks (Documentation/user-stacks.rst, unwind.rst) has them, and
# where the walks stopped short: run-systemd.sh's report on a Debian
# boot with GT_SD_USER_STACKS=1.
#
# From JOURNAL (the recorder's summary lines, "N events", "user stacks:
# W walked, truncated: ..." and "unwind tables: ..."), the module's own
# counters: walks per event and truncated walks per walk, by reason.
# From TRACE, read by Go 1.27 (go tool trace -d=parsed, every event with
# its stack): the events whose stack has a user frame (a PC of the
# module's user range, 2^56 to 2^58 + 2^56, tags 1 to 4 of the uapi
# header's GOTRACE_UPC_*), those that end in a truncation frame, how many
# frames the walks found, the twenty commonest places a walk stopped:
# the reason and the frame before the truncation frame (the name gotrace
# symbolize gave it, or for an unnamed binary+0xoffset the binary), with
# the task's comm (the stack's last frame), and the commonest frame
# before as it is; the eight commonest ends of the complete walks (their
# outermost user frame: _start, a thread's start in clone).
#
# Then the walks by program: for each comm, the walks (stacks with user
# frames) and the share complete (no truncation frame: the walk reached
# a frame whose return address is undefined, _start or a thread's start,
# or a frame pointer of 0), and the program: the file of the outermost
# frame in no shared library of the comm's stacks, most often (a PC's
# file is its index in the session, bits 32 to 55, named by the frames
# that give the binary's path: line 0); without one, a program named as
# the comm in GT_USTACK_ROOT (marked "~").  Fails if the trace has no
# user frame at all.
#
# GT_USTACK_ROOT: directories (":" between) holding the guest's files.
# There each program's .eh_frame is looked for (readelf): the share of
# complete walks among the programs that have one is issue 41's
# measure.  There too an unnamed frame binary+0xOFFSET of the lists
# above gets the name of the exported function, or the entry point
# (_start), at or before it (nm -D, readelf): Debian's binaries are
# stripped, and gotrace symbolize leaves most of their frames unnamed.
set -eu

trace=$1
journal=${2:-}
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"

if [ -n "$journal" ] && [ -s "$journal" ]; then
	# "gotrace: ... written to F, E events in G generations, ..." then
	# "gotrace: user stacks: W walked, truncated: bad frame pointer B,
	# fault F, depth limit D[, no unwind table T, no unwind rule R,
	# signal frame S, bad unwind step C]; unnamed: queue full Q, maps
	# full M[, mm busy K][; unwind: X misses (Y lost), Z space races]"
	# and with the tables "gotrace: unwind tables: ...", as it is.
	awk '/written to .*, [0-9]+ events/ {
		for (i = 1; i <= NF; i++)
			if ($(i + 1) ~ /^events/)
				ev = $i
	}
	/unwind tables: [0-9]+ built/ {
		tables = substr($0, index($0, "unwind tables: "))
	}
	/user stacks: [0-9]+ walked/ {
		gsub(/[,;()]/, "")
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "walked") w = $i
			if ($i == "pointer") r["bad frame pointer"] = $(i + 1)
			if ($i == "fault") r["fault"] = $(i + 1)
			if ($i == "limit") r["depth limit"] = $(i + 1)
			if ($i == "table" && $(i - 1) == "unwind")
				r["no unwind table"] = $(i + 1)
			if ($i == "rule") r["no unwind rule"] = $(i + 1)
			if ($i == "frame" && $(i - 1) == "signal")
				r["signal frame"] = $(i + 1)
			if ($i == "step") r["bad unwind step"] = $(i + 1)
			if ($i == "full" && $(i - 1) == "queue") q = $(i + 1)
			if ($i == "full" && $(i - 1) == "maps") m = $(i + 1)
			if ($i == "busy") k = $(i + 1)
			if ($i == "misses") { mi = $(i - 1); ml = $(i + 1) }
			if ($i == "races") sr = $(i - 1)
		}
	}
	END {
		if (!w) {
			print "module: no user stacks line in the journal"
			exit
		}
		n = split("bad frame pointer,fault,depth limit,no unwind table," \
			  "no unwind rule,signal frame,bad unwind step", name, ",")
		t = 0
		for (i = 1; i <= n; i++)
			t += r[name[i]]
		printf "module: %d events, %d user stacks walked (%.1f%% of " \
			"events), %d truncated (%.1f%% of walks):", ev, w,
			ev ? 100 * w / ev : 0, t, 100 * t / w
		sep = ""
		for (i = 1; i <= n; i++)
			if (i <= 3 || name[i] in r) {
				printf "%s %s %d (%.1f%%)", sep, name[i],
					r[name[i]], 100 * r[name[i]] / w
				sep = ","
			}
		printf "; unnamed: queue full %d, maps full %d, mm busy %d", q, m, k
		if (mi != "")
			printf "; unwind: %d misses (%d lost), %d space races",
				mi, ml, sr
		printf "\n"
		if (tables != "")
			print "module: " tables
	}' "$journal"
fi

err=$(mktemp)
rows=$(mktemp)
ends=$(mktemp)
sites=$(mktemp)
trap 'rm -f "$err" "$rows" "$ends" "$sites"' EXIT
# The dump of a boot is gigabytes: read as it comes.
{ "$GO127" tool trace -d=parsed "$trace" 2> "$err" || echo "FAILED $?"; } |
	ROWS=$rows ENDS=$ends SITES=$sites awk '
# A user frame: a PC in the module user ranges, 0x01.. to 0x04.. and 14
# more hex digits (tables.c).  (mawk has no {14}.)
function user_pc(pc) {
	return length(pc) == 17 && pc ~ /^0x[1234][0-9a-f]*$/
}
function done_stack() {
	if (!instack)
		return
	instack = 0
	stacks++
	if (!nuser)
		return
	withuser++
	# The frames the walk found: the user frames but the truncation one.
	d = nuser - (trunc != "")
	depth[d > 8 ? 9 : d]++
	if (trunc != "") {
		truncated++
		site[trunc " | " before " | " last]++
		exact[trunc " | " before " | " last SUBSEP beforeex SUBSEP \
		      beforefile]++
	} else
		ends[(outer == "" ? "-" : outer) SUBSEP outerfile]++
	# The program is found at the end, once every file has its path.
	walk[last SUBSEP files SUBSEP (trunc != "")]++
}
/^FAILED / {
	failed = 1
	next
}
/^[^\t]/ {
	done_stack()
	if ($0 == "Stack=") {
		instack = 1; nuser = 0; trunc = ""; before = "-"; prev = "-"
		last = "-"; files = ""; lastfile = ""; outer = ""
		outerfile = ""
	} else if ($0 !~ /^TransitionStack=/)
		events++
	next
}
# "\tFUNC @ 0xPC", then "\t\tFILE:LINE"
instack && /^\t[^\t]/ {
	line = substr($0, 2)
	at = index(line, " @ 0x")
	fn = substr(line, 1, at - 1)
	pc = substr(line, at + 3)
	want = ""
	if (fn ~ /^\[user stack truncated: /) {
		trunc = substr(fn, 24, length(fn) - 24)
		# An unnamed frame by its binary: offsets scatter the count.
		before = prev
		beforeex = prev
		beforefile = prevfile
		sub(/\+0x[0-9a-f]+$/, "", before)
	}
	thisfile = ""
	if (user_pc(pc)) {
		nuser++
		tag = substr(pc, 3, 1)
		if (tag == "1" || tag == "4") {
			# The file index; its path from a frame of line 0.
			f = substr(pc, 4, 6)
			if (f != lastfile)
				files = files " " f
			lastfile = f
			outer = fn
			outerfile = f
			thisfile = f
			if (!(f in path))
				want = f
		} else if (tag == "2") {
			outer = fn
			outerfile = ""
		}
	}
	prev = fn
	prevfile = thisfile
	last = fn
	next
}
want != "" && /^\t\t/ {
	if ($0 ~ /^\t\t\/.*:0$/)
		path[want] = substr($0, 3, length($0) - 4)
	want = ""
}
# A shared library (or the loader): no program.
function library(p) {
	sub(/.*\//, "", p)
	return p ~ /\.so$/ || p ~ /\.so\./
}
END {
	done_stack()
	printf "trace: %d events, %d with a stack, %d of those with user " \
		"frames (%.1f%%), %d of these truncated (%.1f%%)\n", events,
		stacks, withuser, stacks ? 100 * withuser / stacks : 0,
		truncated, withuser ? 100 * truncated / withuser : 0
	printf "user frames per stack that has some:"
	for (d = 0; d <= 9; d++)
		if (d in depth)
			printf " %s%d: %.1f%%", d == 9 ? ">" : "", d == 9 ? 8 : d,
				100 * depth[d] / withuser
	printf "\n"
	# The twenty commonest, each with its commonest frame before as
	# it is (an offset, for a stripped binary) and the file of it.
	for (k in exact) {
		split(k, part, SUBSEP)
		if (exact[k] > exbest[part[1]]) {
			exbest[part[1]] = exact[k]
			exfn[part[1]] = part[2]
			exfile[part[1]] = part[3] in path ? path[part[3]] : "-"
		}
	}
	for (i = 0; i < 20; i++) {
		top = ""
		for (k in site)
			if (top == "" || site[k] > site[top])
				top = k
		if (top == "")
			break
		printf "%d\t%s\t%s\t%s\n", site[top], top, exfn[top],
			exfile[top] > ENVIRON["SITES"]
		delete site[top]
	}
	# The eight commonest, with their file (for gotrace-less names).
	for (i = 0; i < 8; i++) {
		top = ""
		for (k in ends)
			if (top == "" || ends[k] > ends[top])
				top = k
		if (top == "")
			break
		split(top, part, SUBSEP)
		# "-": read takes two tabs for one.
		printf "%s\t%s\t%d\n", part[1], part[2] in path ? path[part[2]] : "-",
			ends[top] > ENVIRON["ENDS"]
		delete ends[top]
	}
	# Per comm: walks, complete, and the program of most walks.
	for (k in walk) {
		split(k, part, SUBSEP)
		c = part[1]
		n = walk[k]
		walks[c] += n
		if (!part[3])
			complete[c] += n
		nf = split(part[2], fl, " ")
		for (i = nf; i >= 1; i--)
			if ((fl[i] in path) && !library(path[fl[i]])) {
				prog[c SUBSEP path[fl[i]]] += n
				break
			}
	}
	for (k in prog) {
		split(k, part, SUBSEP)
		if (prog[k] > best[part[1]]) {
			best[part[1]] = prog[k]
			bestp[part[1]] = part[2]
		}
	}
	for (c in walks)
		printf "%d\t%d\t%s\t%s\n", walks[c], complete[c], c,
			c in bestp ? bestp[c] : "-" \
			> ENVIRON["ROWS"]
	exit failed || withuser == 0
}' || { cat "$err"; exit 1; }

# The roots, one a line.
roots() {
	printf '%s\n' "${GT_USTACK_ROOT:-}" | tr : '\n' | grep . || true
}
# in_root ROOT PATH: PATH in ROOT, its symbolic links followed there
# (Debian's /usr/bin/systemd is one to /lib/systemd/systemd), or nothing.
in_root() {
	ir_p=$2 ir_n=0
	while [ -L "$1$ir_p" ] && [ $ir_n -lt 16 ]; do
		ir_t=$(readlink "$1$ir_p")
		case $ir_t in
		/*) ir_p=$ir_t ;;
		*) ir_p=${ir_p%/*}/$ir_t ;;
		esac
		ir_n=$((ir_n + 1))
	done
	[ -f "$1$ir_p" ] && echo "$1$ir_p"
	return 0
}
# prog_of COMM: the program named as the comm (15 bytes at most) in the
# roots: a file of a bin, sbin or systemd directory, the only one whose
# name begins so if the comm is cut.
prog_of() {
	c=$1
	case $c in */* | '' | '('* | *'*'* | *'?'* | *'['*) return 0 ;; esac
	for r in $(roots); do
		for d in /usr/lib/systemd /usr/bin /usr/sbin /lib/systemd /bin /sbin; do
			if [ -n "$(in_root "$r" "$d/$c")" ]; then
				echo "$d/$c"
				return 0
			fi
			[ ${#c} -ge 15 ] || continue
			found=$(cd "$r$d" 2>/dev/null && ls -d -- "$c"* 2>/dev/null) || true
			if [ -n "$found" ] && [ "$(printf '%s\n' "$found" | wc -l)" = 1 ]; then
				echo "$d/$found"
				return 0
			fi
		done
	done
}
# eh_frame PATH: yes, no, or ? (the file is in none of the roots).
eh_frame() {
	for r in $(roots); do
		f=$(in_root "$r" "$1")
		[ -n "$f" ] || continue
		if readelf -S -W "$f" 2>/dev/null | grep -q ' \.eh_frame '; then
			echo yes
		else
			echo no
		fi
		return 0
	done
	echo "?"
}

# sym_at PATH OFFSET: "NAME+0xDELTA", the exported function (or the
# entry point, _start) at or before file offset OFFSET of PATH in the
# roots, for the frames of stripped binaries that gotrace symbolize
# leaves binary+0xOFFSET; nothing if none within 4 KiB.
sym_at() {
	for r in $(roots); do
		f=$(in_root "$r" "$1")
		[ -n "$f" ] || continue
		{
			readelf -hlW "$f" 2>/dev/null | awk '
			/Entry point address:/ { print "entry", $4 }
			$1 == "LOAD" && $NF ~ /^0x/ && $(NF - 1) ~ /E/ {
				print "load", $2, $3, $5
			}'
			nm -D --defined-only "$f" 2>/dev/null |
				awk '$2 ~ /^[TtWi]$/ { print "sym", "0x" $1, $3 }'
		} | awk -v off="$2" '
		# (mawk has no strtonum.)
		function num(h,  i, v) {
			h = tolower(h)
			sub(/^0x/, "", h)
			for (i = 1; i <= length(h); i++)
				v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		$1 == "entry" { entry = num($2) }
		$1 == "load" { lo[++n] = num($2); lv[n] = num($3); lz[n] = num($4) }
		$1 == "sym" { sv[++m] = num($2); sn[m] = $3; sub(/@.*/, "", sn[m]) }
		END {
			o = num(off)
			if (entry) { sv[++m] = entry; sn[m] = "_start" }
			# A virtual address to its offset in the file.
			best = -1
			for (i = 1; i <= m; i++)
				for (j = 1; j <= n; j++)
					if (sv[i] >= lv[j] && sv[i] < lv[j] + lz[j]) {
						so = sv[i] - lv[j] + lo[j]
						if (so <= o && so > best) {
							best = so
							name = sn[i]
						}
					}
			# Far from any: a static function, not worth the name.
			if (best >= 0 && o - best < 4096)
				printf "%s+0x%x\n", name, o - best
		}'
		return 0
	done
}

# Where walks stopped, and the ends of the complete ones, named where
# the binary is stripped.
echo "walks cut short, commonest first: events, reason | frame before | the last frame of the stack (the comm) [the commonest frame before, if unnamed]"
while IFS="$(printf '\t')" read -r n s fn file; do
	at=
	case $fn in
	*+0x*) [ "$file" != - ] && at=$(sym_at "$file" "0x${fn##*+0x}") ;;
	esac
	case $fn in
	*+0x*) printf '%7d  %s [%s%s]\n' "$n" "$s" "$fn" "${at:+ = $at}" ;;
	*) printf '%7d  %s\n' "$n" "$s" ;;
	esac
done < "$sites"
printf "complete walks end at, commonest first:"
while IFS="$(printf '\t')" read -r fn file n; do
	at=
	case $fn in
	*+0x*) [ "$file" != - ] && at=$(sym_at "$file" "0x${fn##*+0x}") ;;
	esac
	printf ' %s%s (%d)' "$fn" "${at:+ = $at}" "$n"
done < "$ends"
echo

# The table, commonest comm first; a program without .eh_frame (or not
# found) is left out of the measure.
echo "walks by comm, most first: walks, complete (no truncation frame), .eh_frame, comm, program (~: by its name)"
sort -t "$(printf '\t')" -k1,1nr "$rows" | {
	all=0 allc=0 eh=0 ehc=0 unk=0
	pct() { echo "$1 $2" | awk '{ printf "%.1f%%", $2 ? 100 * $1 / $2 : 0 }'; }
	while IFS="$(printf '\t')" read -r w c comm prog; do
		mark=
		if [ "$prog" = - ]; then
			prog=$(prog_of "$comm")
			[ -n "$prog" ] && mark="~"
		fi
		has="?"
		[ -n "$prog" ] && has=$(eh_frame "$prog")
		[ -n "$prog" ] || prog=-
		all=$((all + w)) allc=$((allc + c))
		case $has in
		yes) eh=$((eh + w)) ehc=$((ehc + c)) ;;
		"?") unk=$((unk + w)) ;;
		esac
		printf '%7d %7s  %-3s  %-16s %s%s\n' "$w" "$(pct "$c" "$w")" \
			"$has" "$comm" "$mark" "$prog"
	done
	echo "complete walks: $allc of $all ($(pct "$allc" "$all")); where the program has .eh_frame: $ehc of $eh ($(pct "$ehc" "$eh")); $unk walks of programs not found (?)"
}
