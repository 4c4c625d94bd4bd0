#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-trace.sh [--web] [--pprof] TRACE... - the checker of record.
#
# A trace is valid only if Go's own tools accept it: `go tool trace -d`
# of Go 1.21 (its strict parser of the "go 1.11" format) and
# `go tool trace -d=1` of Go 1.23 (which converts the trace to its new
# model and checks it again).  With --pprof, the sched, sync, syscall and
# net profiles of both versions must be produced without error; with
# --web, both web UIs must serve their pages (HTTP 200), including a few
# goroutine pages linked from /goroutines.
#
# Prints "ok TRACE (...)" per trace; exits 1 at the first failure, with
# the tool's own last words.  GO121 and GO123 override the go binaries.
set -euo pipefail

GO121=${GO121:-/usr/lib/go-1.21/bin/go}
GO123=${GO123:-/usr/lib/go-1.23/bin/go}
export GOTOOLCHAIN=local
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
# go tool trace -http opens a browser unless $BROWSER says otherwise.
export BROWSER=true

web=
pprof=
while [ $# -gt 0 ]; do
	case $1 in
	--web) web=1 ;;
	--pprof) pprof=1 ;;
	--) shift; break ;;
	-*) echo "usage: $0 [--web] [--pprof] TRACE..." >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "usage: $0 [--web] [--pprof] TRACE..." >&2; exit 2; }

tmp=$(mktemp -d)
server=
cleanup() {
	[ -z "$server" ] || kill "$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL $1: $2" >&2
	[ ! -s "$tmp/err" ] || tail -n 5 "$tmp/err" | sed 's/^/  /' >&2
	exit 1
}

# The parsers print the trace; a failure shows as a non-zero exit or, in
# some versions, only as a message.
parse() {
	local go=$1 flag=$2 trace=$3
	if ! "$go" tool trace "$flag" "$trace" > "$tmp/out" 2> "$tmp/err"; then
		fail "$trace" "$("$go" env GOVERSION) go tool trace $flag exited with an error"
	fi
	if grep -qiE 'failed to (parse|read)|parsing trace: |panic:' "$tmp/out" "$tmp/err"; then
		fail "$trace" "$("$go" env GOVERSION) go tool trace $flag reported an error"
	fi
}

profiles() {
	local go=$1 trace=$2 kind
	for kind in sched sync syscall net; do
		"$go" tool trace -pprof="$kind" "$trace" > "$tmp/prof" 2> "$tmp/err" ||
			fail "$trace" "$("$go" env GOVERSION) -pprof=$kind failed"
	done
}

# Fetch one page; it must answer 200 with a body.
page() {
	local base=$1 path=$2 trace=$3 version=$4 code
	code=$(curl -s -o "$tmp/page" -w '%{http_code}' --max-time 120 "$base$path") || code=000
	[ "$code" = 200 ] && [ -s "$tmp/page" ] ||
		fail "$trace" "$version web UI: $path answered $code"
}

webui() {
	local go=$1 trace=$2 version base i path
	version=$("$go" env GOVERSION)
	: > "$tmp/err"
	"$go" tool trace -http=127.0.0.1:0 "$trace" > "$tmp/http.out" 2> "$tmp/err" &
	server=$!
	base=
	for i in $(seq 1 600); do
		base=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$tmp/http.out" "$tmp/err" | head -n 1 | sed 's/^[^:]*://' || true)
		[ -n "$base" ] && break
		kill -0 "$server" 2>/dev/null || fail "$trace" "$version web UI exited"
		sleep 0.1
	done
	[ -n "$base" ] || fail "$trace" "$version web UI did not start"
	base=${base#*http}
	base=http$base
	for path in / /goroutines /trace /jsontrace /mmu /io /block /syscall \
		    /sched /usertasks /userregions; do
		page "$base" "$path" "$trace" "$version"
	done
	# A few goroutine pages, as linked from the goroutine list.
	page "$base" /goroutines "$trace" "$version"
	grep -oE 'href="/goroutines?\?(id|name)=[^"]*"' "$tmp/page" | head -n 3 |
		sed 's/^href="//; s/"$//; s/&amp;/\&/g' > "$tmp/links" || true
	[ -s "$tmp/links" ] || fail "$trace" "$version web UI: no goroutine links on /goroutines"
	while read -r path; do
		page "$base" "$path" "$trace" "$version"
	done < "$tmp/links"
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	server=
}

for trace in "$@"; do
	[ -r "$trace" ] || fail "$trace" "cannot read it"
	parse "$GO121" -d "$trace"
	parse "$GO123" -d=1 "$trace"
	what="go1.21 -d, go1.23 -d=1"
	if [ -n "$pprof" ]; then
		profiles "$GO121" "$trace"
		profiles "$GO123" "$trace"
		what="$what, pprof"
	fi
	if [ -n "$web" ]; then
		webui "$GO121" "$trace"
		webui "$GO123" "$trace"
		what="$what, web"
	fi
	echo "ok $trace ($what)"
done
