#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-trace.sh [--web] [--pprof] TRACE... - the checker of record.
#
# A trace is valid only if Go's own tools accept it:
#   * `go tool trace -d FILE` of Go 1.21 (its strict parser of the
#     "go 1.11 trace" format; -d is a boolean flag there), and
#   * `go tool trace -d=1 FILE` of Go 1.23 (-d is an integer there: a bare
#     -d would swallow FILE), which converts the trace to the new model.
# A run fails on a non-zero exit, on a panic or parse error message on
# stdout, and on any stderr line that is not one of the tools' progress
# messages (Go 1.23's web UI and profiles go on after some errors and
# only log them).
#
# --pprof: `go tool trace -pprof=TYPE FILE` for sched, sync, syscall and
#   net with both versions must exit 0 with no error message.  An empty
#   profile is fine: both versions then still write a valid (small)
#   gzipped pprof profile and exit 0.
# --web: each version serves the trace (`go tool trace -http=127.0.0.1:0`,
#   the kernel picks a free port, read back from the tool's "listening on"
#   line); every main page must answer HTTP 200 with a body, and so must
#   the goroutine pages linked from /goroutines (1.21 /goroutine?id=PC,
#   1.23 /goroutine?name=NAME), the per-goroutine timelines they link to
#   (/jsontrace?goid=N) and the time ranges the main page links to; the
#   server log must stay free of errors and panics.  Servers are stopped
#   at the end, also on failure or interrupt.
#
# Prints "ok TRACE (go1.21, go1.23[, web][, pprof])" per trace; exits 1 at
# the first failure, naming the trace and the Go version, with the last
# lines the tool printed.  GO121 and GO123 override the go binaries.
set -eu
set -o pipefail

GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
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

for go in "$GO121" "$GO123"; do
	[ -x "$go" ] || { echo "FAIL: no go binary at $go (set GO121/GO123)" >&2; exit 1; }
done
v121=$("$GO121" env GOVERSION)
v123=$("$GO123" env GOVERSION)

# Stderr lines the tools print when all is well (after the log prefix).
benign='^(Parsing trace\.\.\.|Splitting trace( for viewer)?\.\.\.|Preparing trace for viewer\.\.\.|Opening browser\. Trace viewer is listening on http://[^ ]+|[0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B \([0-9.]+%\) processed\.\.\.)$'
# Lines that are an error wherever they appear.
errors='^(failed |panic:|fatal error:|goroutine [0-9]+ \[|http: panic|Encountered error|Lost [0-9.]+%)'

# check_log TRACE VERSION WHAT LOGFILE: only benign lines in a log.
check_log() {
	sed -E 's,^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9:]{8} ,,' "$4" |
		grep -vE "$benign" > "$tmp/unexpected" || true
	[ ! -s "$tmp/unexpected" ] ||
		fail "$1" "$2" "$3 reported an error" "$tmp/unexpected"
}

# start TAG GO TRACE ARGS...: a tool run in the background.  Stdout is only
# scanned for error lines (a -d listing can be hundreds of MB), never kept.
start() {
	local tag=$1 go=$2 trace=$3
	shift 3
	(
		set +e
		"$go" tool trace "$@" "$trace" 2> "$tmp/$tag.err" |
			LC_ALL=C grep -E "$errors" > "$tmp/$tag.outerr"
		echo "${PIPESTATUS[0]}" > "$tmp/$tag.rc"
	) &
	jobs_pids="$jobs_pids $!"
}

# finish TAG TRACE VERSION ARGS...: the run must have succeeded quietly.
finish() {
	local tag=$1 trace=$2 version=$3 rc
	shift 3
	rc=$(cat "$tmp/$tag.rc" 2>/dev/null || echo "unknown")
	[ "$rc" = 0 ] ||
		fail "$trace" "$version" "go tool trace $* exited with status $rc" "$tmp/$tag.err"
	[ ! -s "$tmp/$tag.outerr" ] ||
		fail "$trace" "$version" "go tool trace $* printed an error" "$tmp/$tag.outerr"
	check_log "$trace" "$version" "go tool trace $*" "$tmp/$tag.err"
}

wait_all() {
	local pid
	for pid in $jobs_pids; do
		wait "$pid" || true
	done
	jobs_pids=
}

# profiles TRACE: every profile of both versions, the two versions of a
# kind at once (a profile re-reads the whole trace: on a 6 MB trace one
# takes several seconds and up to 1 GB).
profiles() {
	local trace=$1 kind
	for kind in sched sync syscall net; do
		start p121 "$GO121" "$trace" -pprof="$kind"
		start p123 "$GO123" "$trace" -pprof="$kind"
		wait_all
		finish p121 "$trace" "$v121" -pprof="$kind"
		finish p123 "$trace" "$v123" -pprof="$kind"
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
	"$go" tool trace -http=127.0.0.1:0 "$trace" > "$tmp/http.out" 2> "$tmp/http.err" &
	server=$!
	servers="$servers $server"
	base=
	for i in $(seq 1 3000); do
		base=$(grep -ohE 'listening on http://127\.0\.0\.1:[0-9]+' \
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
	if [ "$go" = "$GO123" ]; then
		page "$trace" "$version" "$base" '/jsontrace?view=thread'
	fi
	# The time ranges of the main page (large traces are split).
	while read -r path; do
		page "$trace" "$version" "$base" "/json${path#/}"
	done < "$tmp/ranges"
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
	# Both parsers at once: a 10 MB trace takes seconds, not minutes.
	start d121 "$GO121" "$trace" -d
	start d123 "$GO123" "$trace" -d=1
	wait_all
	finish d121 "$trace" "$v121" -d
	finish d123 "$trace" "$v123" -d=1
	what="go1.21, go1.23"
	if [ -n "$web" ]; then
		webui "$trace" "$v121" "$GO121"
		webui "$trace" "$v123" "$GO123"
		what="$what, web"
	fi
	if [ -n "$pprof" ]; then
		profiles "$trace"
		what="$what, pprof"
	fi
	echo "ok $trace ($what)"
done
