#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-trace.sh [--web] [--pprof] TRACE... - the checker of record.
#
# A trace is valid only if Go's own tools accept it.  Which tools depends
# on the trace's 16-byte header:
#   * "go 1.11 trace" (and anything that is not a generational header):
#     `go tool trace -d FILE` of Go 1.21 (its strict parser of the
#     "go 1.11 trace" format; -d is a boolean flag there), and
#     `go tool trace -d=1 FILE` of Go 1.23 (-d is an integer there: a bare
#     -d would swallow FILE), which converts the trace to the new model.
#     (Go 1.27 reads this format too, through the same conversion; it is
#     not part of the check.)
#   * "go 1.22 trace", "go 1.23 trace" (the generational format): Go 1.23
#     (-d=1) and Go 1.27 (`go tool trace -d=parsed FILE`).
#   * "go 1.25 trace", "go 1.26 trace": Go 1.27 only (Go 1.23 refuses
#     them: "unknown or unsupported trace version").
# A run fails on a non-zero exit and on any stderr line that is not one
# of the tools' progress messages (Go 1.23's web UI and profiles go on
# after some errors and only log them).  Every version writes its parse
# errors and panics to stderr, so stdout is not read.
#
# --pprof: `go tool trace -pprof=TYPE FILE` for sched, sync, syscall and
#   net with every version of the format must exit 0 with no error
#   message.  An empty profile is fine: the tools then still write a
#   valid (small) gzipped pprof profile and exit 0.  A trace larger than
#   GT_PPROF_ALL_MAX bytes (2 MiB: the storms of the VM tests, 4 to 8 MB)
#   gets only the two profiles the storms are about (sched: scheduler
#   latency; syscall), from the newest reader of its format; every reader
#   still parses it, and every smaller trace gets every profile of every
#   reader.  Each profile of such a trace takes 5 to 15 s: on 6.12 the
#   three storms took half of the host's checking time.
# --web: each version serves the trace (`go tool trace -http=127.0.0.1:0`,
#   the kernel picks a free port, read back from the tool's "listening on"
#   line); every main page must answer HTTP 200 with a body, and so must
#   the goroutine pages linked from /goroutines (1.21 /goroutine?id=PC,
#   1.23 and 1.27 /goroutine?name=NAME), the per-goroutine timelines they
#   link to (/jsontrace?goid=N) and the time ranges the main page links
#   to, the user task and region pages linked from /usertasks and
#   /userregions (gotrace's systemd units) with the per-region profiles
#   (/regionio?type=..., regionblock, regionsyscall, regionsched) each
#   region page links to; the server log must stay free of errors and
#   panics.  Servers are
#   stopped at the end, also on failure or interrupt.
#
# Prints "ok TRACE (go1.21, go1.23[, web][, pprof])" per trace (the Go
# versions that read it); exits 1 at the first failure, naming the trace
# and the Go version, with the last lines the tool printed.  GO121, GO123
# and GO127 override the go binaries; Go 1.27 is the one scripts/go127.sh
# unpacked into $GT_STORE (default: the repository's .cache/).
set -eu
set -o pipefail

GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
GO127=${GO127:-${GT_STORE:-$(cd "$(dirname "$0")/.." && pwd)/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
# go tool trace -http opens a browser: let it run `true` instead.
export BROWSER=true

usage() {
	echo "usage: $0 [--web] [--pprof] TRACE..." >&2
	exit 2
}

web=
pprof=
while [ $# -gt 0 ]; do
	case $1 in
	--web) web=1 ;;
	--pprof) pprof=1 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || usage

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-trace.XXXXXX")
servers=
jobs_pids=
cleanup() {
	local pid
	for pid in $servers $jobs_pids; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $servers $jobs_pids; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fail TRACE VERSION WHAT [LOGFILE]
fail() {
	echo "FAIL $1: $2: $3" >&2
	if [ $# -ge 4 ] && [ -s "$4" ]; then
		# A panic's message comes before its goroutine dump.
		if [ "$(wc -l < "$4")" -gt 8 ] &&
		   grep -qE '^(panic|fatal error|\[signal)' "$4"; then
			echo "  first error line:" >&2
			grep -m 2 -E '^(panic|fatal error|\[signal)' "$4" | sed 's/^/  | /' >&2
		fi
		echo "  last lines of its output:" >&2
		tail -n 8 "$4" | sed 's/^/  | /' >&2
	fi
	exit 1
}

# The go binary, its version and its dump flag, per checker tag.
declare -A gobin=([121]=$GO121 [123]=$GO123 [127]=$GO127)
declare -A dflag=([121]=-d [123]=-d=1 [127]=-d=parsed)
declare -A goversion=()
declare -A tracebin=()

# use_go TAG: check the binary once, remember its version and its trace
# tool.  Go 1.27 has no prebuilt `go tool trace`: the first call builds it
# into GOCACHE (about a minute), once, before runs in parallel would each
# build it (make deps installs it in the toolchain: scripts/go127.sh).
# The parsers and profiles run the tool's binary itself: `go tool trace`
# starts the go command first, a second Go process on each of the ten or
# so runs per trace, for nothing but finding that binary.  The web UI
# keeps `go tool trace` (its pages run `go tool pprof` from the GOROOT
# the go command gives it).
# What it learns is kept in GOCACHE, beside the go binary's path, and
# taken from there while it is newer than the binary: the VM tests call
# this script once per trace, over a hundred times a boot, and those
# three runs of the go command cost 0.1 CPU-s each time.
use_go() {
	local tag=$1 dir memo line
	[ -z "${goversion[$tag]:-}" ] || return 0
	[ -x "${gobin[$tag]}" ] || {
		echo "FAIL: no go binary at ${gobin[$tag]} (set GO$tag${2:+; $2})" >&2
		exit 1
	}
	memo=$GOCACHE/gotrace-check-trace/${gobin[$tag]//\//_}
	# (Only with the tool's binary still there: without one, ask again.)
	if [ "$memo" -nt "${gobin[$tag]}" ] && { read -r line < "$memo"; } 2>/dev/null &&
	   [ -x "${line#* }" ]; then
		goversion[$tag]=${line%% *}
		tracebin[$tag]=${line#* }
		return 0
	fi
	goversion[$tag]=$("${gobin[$tag]}" env GOVERSION)
	if [ "$tag" = 127 ]; then
		"${gobin[$tag]}" tool trace -h > /dev/null 2>&1 || true
	fi
	dir=$("${gobin[$tag]}" env GOTOOLDIR)
	if [ -x "$dir/trace" ]; then
		tracebin[$tag]=$dir/trace
	else
		tracebin[$tag]=
	fi
	mkdir -p "${memo%/*}" 2>/dev/null &&
		echo "${goversion[$tag]} ${tracebin[$tag]:--}" > "$memo.$$" &&
		mv -f "$memo.$$" "$memo" 2>/dev/null || true
}

# readers TRACE: the checker tags for the trace's header.
readers() {
	local header
	header=$(head -c 16 "$1" | tr -d '\0')
	case $header in
	"go 1.22 trace" | "go 1.23 trace") echo "123 127" ;;
	"go 1.25 trace" | "go 1.26 trace") echo "127" ;;
	*) echo "121 123" ;;
	esac
}

# Stderr lines the tools print when all is well (after the log prefix).
benign='^(Parsing trace\.\.\.|Splitting trace( for viewer)?\.\.\.|Preparing trace for viewer\.\.\.|Opening browser\. Trace viewer is listening on http://[^ ]+|[0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B \([0-9.]+%\) processed\.\.\.)$'

# check_log TRACE VERSION WHAT LOGFILE: only benign lines in a log.
# Read by the shell itself: a process costs about 10 ms of CPU here, and
# there are a dozen logs per trace, nearly all of them empty or benign.
check_log() {
	local line
	: > "$tmp/unexpected"
	while IFS= read -r line || [ -n "$line" ]; do
		# The log package's date and time prefix.
		[[ $line =~ ^[0-9]{4}/[0-9]{2}/[0-9]{2}\ [0-9:]{8}\ (.*)$ ]] &&
			line=${BASH_REMATCH[1]}
		[[ $line =~ $benign ]] || printf '%s\n' "$line" >> "$tmp/unexpected"
	done < "$4"
	[ ! -s "$tmp/unexpected" ] ||
		fail "$1" "$2" "$3 reported an error" "$tmp/unexpected"
}

# start TAG CHECKER TRACE ARGS...: a tool run in the background, by the
# checker tag's trace binary (use_go).  Its stdout, a -d listing of up to
# hundreds of MB or a profile, goes to /dev/null: every version reports a
# parse error on stderr and exits non-zero (log.Fatal, or its own dief()),
# and its listing is written a line per write(): through a pipe to a
# scanner, the largest trace of a VM run (3.4 MB, 190 MB of listing) cost
# 23 CPU-s instead of 11.
start() {
	local tag=$1 checker=$2 trace=$3
	shift 3
	(
		set +e
		if [ -n "${tracebin[$checker]}" ]; then
			"${tracebin[$checker]}" "$@" "$trace"
		else
			"${gobin[$checker]}" tool trace "$@" "$trace"
		fi > /dev/null 2> "$tmp/$tag.err"
		echo "$?" > "$tmp/$tag.rc"
	) &
	jobs_pids="$jobs_pids $!"
}

# finish TAG TRACE VERSION ARGS...: the run must have succeeded quietly.
finish() {
	local tag=$1 trace=$2 version=$3 rc
	shift 3
	rc=unknown
	[ ! -s "$tmp/$tag.rc" ] || read -r rc < "$tmp/$tag.rc"
	[ "$rc" = 0 ] ||
		fail "$trace" "$version" "go tool trace $* exited with status $rc" "$tmp/$tag.err"
	check_log "$trace" "$version" "go tool trace $*" "$tmp/$tag.err"
}

wait_all() {
	local pid
	for pid in $jobs_pids; do
		wait "$pid" || true
	done
	jobs_pids=
}

# profiles TRACE TAG...: the profiles $kinds of every version, the
# versions of a kind at once (a profile re-reads the whole trace: on a
# 6 MB trace one takes several seconds and up to 1 GB).
profiles() {
	local trace=$1 kind tag
	shift
	for kind in $kinds; do
		for tag in "$@"; do
			start "p$tag" "$tag" "$trace" -pprof="$kind"
		done
		wait_all
		for tag in "$@"; do
			finish "p$tag" "$trace" "${goversion[$tag]}" -pprof="$kind"
		done
	done
}

# page TRACE VERSION BASE PATH: must answer 200 with a body.
page() {
	local trace=$1 version=$2 base=$3 path=$4 code
	code=$(curl -sS -o "$tmp/page" -w '%{http_code}' --max-time 300 \
		"$base$path" 2> "$tmp/curl") || code="000 ($(cat "$tmp/curl"))"
	[ "$code" = 200 ] ||
		fail "$trace" "$version" "web UI: $path answered HTTP $code" "$tmp/page"
	[ -s "$tmp/page" ] ||
		fail "$trace" "$version" "web UI: $path answered an empty page" "$tmp/http.err"
	case $path in
	/jsontrace*)
		[ "$(head -c 1 "$tmp/page")" = "{" ] ||
			fail "$trace" "$version" "web UI: $path is not JSON" "$tmp/page"
		;;
	esac
	pages=$((pages + 1))
}

# links PATTERN MAX: hrefs of the last page matching PATTERN, unescaped.
links() {
	{ grep -oE "href=\"$1\"" "$tmp/page" || true; } | head -n "$2" |
		sed 's/^href="//; s/"$//; s/&amp;/\&/g'
}

webui() {
	local trace=$1 version=$2 go=$3 server base i path gpages
	# The server's shell truncates these files only once it runs: until
	# then they would hold the previous server's log, whose address, of
	# a server killed since, refused the connection (a loaded host made
	# a web check of the second Go version fail so).  Gone, they are
	# read only once this server has made them.
	rm -f "$tmp/http.out" "$tmp/http.err"
	"$go" tool trace -http=127.0.0.1:0 "$trace" > "$tmp/http.out" 2> "$tmp/http.err" &
	server=$!
	servers="$servers $server"
	base=
	for i in $(seq 1 3000); do
		base=$(grep -sohE 'listening on http://127\.0\.0\.1:[0-9]+' \
			"$tmp/http.err" "$tmp/http.out" | head -n 1 | sed 's/^listening on //' || true)
		[ -z "$base" ] || break
		kill -0 "$server" 2>/dev/null ||
			fail "$trace" "$version" "web UI exited before serving" "$tmp/http.err"
		sleep 0.1
	done
	[ -n "$base" ] || fail "$trace" "$version" "web UI did not start in 300 s" "$tmp/http.err"

	pages=0
	page "$trace" "$version" "$base" /
	links '/trace\?[^"]*' 4 > "$tmp/ranges"
	for path in /goroutines /trace /jsontrace /mmu /io /block /syscall \
		    /sched /usertasks /userregions /io?raw=1 /block?raw=1 \
		    /syscall?raw=1 /sched?raw=1; do
		page "$trace" "$version" "$base" "$path"
	done
	if [ "$go" != "$GO121" ]; then
		page "$trace" "$version" "$base" '/jsontrace?view=thread'
	fi
	# The time ranges of the main page (large traces are split).
	while read -r path; do
		page "$trace" "$version" "$base" "/json${path#/}"
	done < "$tmp/ranges"
	# The user tasks and regions gotrace names after systemd units, and
	# each region type's per-unit profiles (/regionio?type=..., ...).
	page "$trace" "$version" "$base" /usertasks
	links '/usertask\?type=[^"]*' 4 > "$tmp/utasks"
	while read -r path; do
		page "$trace" "$version" "$base" "$path"
	done < "$tmp/utasks"
	page "$trace" "$version" "$base" /userregions
	links '/userregion\?type=[^"]*' 4 > "$tmp/uregions"
	while read -r path; do
		page "$trace" "$version" "$base" "$path"
		links '/region(io|block|syscall|sched)\?type=[^"&]*' 4 \
			> "$tmp/uprofiles"
		while read -r prof; do
			page "$trace" "$version" "$base" "$prof"
		done < "$tmp/uprofiles"
	done < "$tmp/uregions"
	# A few goroutine groups, and a timeline of one goroutine of each.
	page "$trace" "$version" "$base" /goroutines
	links '/goroutine\?(id|name)=[^"]*' 4 > "$tmp/groups"
	[ -s "$tmp/groups" ] ||
		fail "$trace" "$version" "web UI: no goroutine links on /goroutines" "$tmp/page"
	gpages=0
	while read -r path; do
		page "$trace" "$version" "$base" "$path"
		links '/trace\?goid=[0-9]+' 1 > "$tmp/goid"
		if [ -s "$tmp/goid" ]; then
			path=$(cat "$tmp/goid")
			page "$trace" "$version" "$base" "/json${path#/}"
		fi
		gpages=$((gpages + 1))
	done < "$tmp/groups"

	kill -0 "$server" 2>/dev/null ||
		fail "$trace" "$version" "web UI died while serving" "$tmp/http.err"
	check_log "$trace" "$version" "web UI (server log)" "$tmp/http.err"
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	servers=${servers% "$server"}
	[ -z "${VERBOSE:-}" ] ||
		echo "  $version web UI: $pages pages, $gpages goroutine groups" >&2
}

for trace in "$@"; do
	[ -f "$trace" ] && [ -r "$trace" ] || fail "$trace" "-" "cannot read it"
	tags=$(readers "$trace")
	what=
	for tag in $tags; do
		use_go "$tag" "$([ "$tag" != 127 ] || echo 'make deps unpacks it')"
		what="${what:+$what, }go1.${tag#1}"
	done
	# The parsers at once: a 10 MB trace takes seconds, not minutes.
	for tag in $tags; do
		start "d$tag" "$tag" "$trace" "${dflag[$tag]}"
	done
	wait_all
	for tag in $tags; do
		finish "d$tag" "$trace" "${goversion[$tag]}" "${dflag[$tag]}"
	done
	if [ -n "$web" ]; then
		for tag in $tags; do
			webui "$trace" "${goversion[$tag]}" "${gobin[$tag]}"
		done
		what="$what, web"
	fi
	if [ -n "$pprof" ]; then
		if [ "$(stat -c %s "$trace")" -gt "${GT_PPROF_ALL_MAX:-2097152}" ]; then
			newest=${tags##* }
			kinds="sched syscall"
			profiles "$trace" "$newest"
			what="$what, pprof sched+syscall go1.${newest#1}"
		else
			kinds="sched sync syscall net"
			# shellcheck disable=SC2086
			profiles "$trace" $tags
			what="$what, pprof"
		fi
	fi
	echo "ok $trace ($what)"
done
