# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - TAP helpers for the shell tests of the gotrace command
#
# $GOTRACE is the binary under test (make check passes the sanitized one).

GOTRACE=${GOTRACE:-./gotrace}
T=$(mktemp -d "${TMPDIR:-/tmp}/gotrace-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	for f in "$T/out" "$T/err"; do
		[ -s "$f" ] && sed 's/^/# /' "$f" | head -20
	done
	return 0
}

# check NAME 'SHELL CONDITION': ok if the condition (eval'd) holds
check() {
	if eval "$2"; then
		ok "$1"
	else
		not_ok "$1"
		[ -f "$T/err" ] && sed 's/^/# stderr: /' "$T/err"
	fi
}

# run ARGS...: run gotrace, output in $T/out and $T/err, status in $rc
run() {
	"$GOTRACE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

has() {
	grep -q -- "$1" "$2"
}

# no_go WHAT: a Go the test needs is missing.  A failure, for make deps
# installs every one; a skip only when GT_ALLOW_NO_GO=1 asks for it.
no_go() {
	if [ "${GT_ALLOW_NO_GO:-0}" = 1 ]; then
		ok "# SKIP $1 (GT_ALLOW_NO_GO=1)"
	else
		not_ok "$1: 'make deps' installs it (GT_ALLOW_NO_GO=1 skips instead)"
	fi
}

# need_bpf: skip the whole test (TAP SKIP) where this host cannot run
# the BPF backend: not root, no BTF, or a gotrace built without it.
need_bpf() {
	if [ "$(id -u)" -ne 0 ]; then
		reason="not root: the BPF backend needs root"
	elif [ ! -r /sys/kernel/btf/vmlinux ]; then
		reason="this kernel has no BTF"
	elif ! "$GOTRACE" bpf-dump -h >/dev/null 2>&1; then
		reason="gotrace was built without the BPF backend"
	else
		return 0
	fi
	echo "1..0 # SKIP $reason"
	exit 0
}

done_testing() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

# The 76-byte minimal trace (min_trace.h), written by build/min_trace.
write_trace() {
	"$(dirname "$0")/../build/min_trace"
}

# cpuburn GO DIR SECONDS: build tests/cpuburn_go.go with the go command
# GO into DIR/cpuburn and run it for SECONDS: Go's runtime writes its CPU
# profile to DIR/prof.pb and its execution trace, with the CPU samples,
# to DIR/burn.trace.  0, or the status of the step that failed (the
# build's output in DIR/build.log).
cpuburn() {
	mkdir -p "$2" &&
		GOTOOLCHAIN=local GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}" \
		"$1" build -o "$2/cpuburn" "$(dirname "$0")/cpuburn_go.go" \
		>"$2/build.log" 2>&1 &&
		"$2/cpuburn" "$2/prof.pb" "$2/burn.trace" "$3"
}

# notify_listen LISTEN SOCKET OUT: plays systemd's NOTIFY_SOCKET at
# SOCKET (tests/notify_listen, the LISTEN binary), its messages in OUT;
# returns once the socket exists (at most 10 s), its pid in $listener.
notify_listen() {
	"$1" "$2" >"$3" &
	listener=$!
	nl_i=0
	while [ ! -S "$2" ] && [ $nl_i -lt 200 ]; do
		sleep 0.05
		nl_i=$((nl_i + 1))
	done
}

# go_env: for the tests of Go programs' own traces: B, where the command
# under test and the build's programs are; ROOT, the repository; GO123
# and GO127, the Go 1.23 and 1.27 that make deps installs (unless set),
# exported with GOTOOLCHAIN=local and a build cache of the tests'.
go_env() {
	B=$(dirname "$GOTRACE")
	ROOT=$(cd "$(dirname "$0")/../.." && pwd)
	GO123=${GO123:-/usr/lib/go-1.23/bin/go}
	GO127=${GO127:-${GT_STORE:-$ROOT/.cache}/go-1.27/usr/lib/go-1.27/bin/go}
	export GO123 GO127 GOTOOLCHAIN=local
	export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/gotrace-gocache}"
}
