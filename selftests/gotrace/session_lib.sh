# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# session_lib.sh - waiting on the session's state (sourced after lib.sh):
# tests wait for what they need to be true, never for a fixed time.

GT_STATUS=/sys/class/misc/gotrace/status

# Background processes of the test, killed when it exits however it
# exits: one left blocked would hold the test's output open.
GT_BG=
bg() {
	GT_BG="$GT_BG $1"
}
bg_kill() {
	for p in $GT_BG; do
		kill "$p" 2>/dev/null
	done
}
trap bg_kill EXIT

# The value of key $1 in the status file.
status_of() {
	awk -v k="$1" '$1 == k { print $2; exit }' $GT_STATUS
}

# Wait up to 30 s until the session is recording (its snapshot written,
# the probes armed).
wait_recording() {
	i=0
	until [ "$(status_of state)" = recording ]; do
		[ "$i" -ge 300 ] && fail "no session recording after 30 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# Wait up to 30 s until file $1 exists.
wait_file() {
	i=0
	until [ -e "$1" ]; do
		[ "$i" -ge 300 ] && fail "$1 did not appear within 30 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# The session must still be recording, having lost nothing: $1 says when.
still_recording() {
	[ "$(status_of state)" = recording ] &&
		[ "$(status_of lost_events)" = 0 ] || {
		cat $GT_STATUS
		fail "the session stopped or lost events $1"
	}
}
