#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A recording made inside a pid namespace (a container, unshare -p,
# systemd's PrivatePIDs=) filters with that namespace's pids: gotrace
# record -p of a process there records that process, not the host's
# task of the same number (in a new namespace, pid 2 is the first child
# of its init, and on the host kthreadd).  The status gives the reader's
# pid in the namespace of whoever asks.
. ./lib.sh

command -v unshare >/dev/null || { echo "no unshare"; exit 4; }
# The debug kernel (allnoconfig and its checkers) has no pid namespaces:
# unshare -p fails there with EINVAL.
[ -e /proc/self/ns/pid ] ||
	{ echo "no pid namespaces in this kernel (CONFIG_PID_NS)"; exit 4; }
out=$GT_OUT/pidns.trace
fifo=/tmp/gt_pidns_fifo
pids=/tmp/gt_pidns_pids
rm -f "$fifo" "$pids"
mkfifo "$fifo" || fail "mkfifo"

# In the namespace: gt_gated (pid 2 there) waits for a byte on the FIFO,
# gotrace records it alone; once that records, gotrace status there is
# saved, and the namespace's pids of both; after gt_gated's 100 getppid
# calls, the recording stops.
unshare -p -f --mount-proc sh -c '
	./corner gate "$1" 100 &
	g=$!
	./gotrace record -q -o "$2" -p $g &
	r=$!
	i=0
	until [ "$(cat /sys/class/misc/gotrace/status/state)" = recording ]; do
		i=$((i + 1))
		[ $i -le 300 ] || exit 1
		sleep 0.1
	done
	./gotrace status > "$3.status"
	echo "$g $r" > "$3"
	wait $g || exit 1
	kill -INT $r
	wait $r
' sh "$fifo" "$out" "$pids" &
ns=$!
cleanup_on_exit $ns
wait_file "$pids"
read -r g r < "$pids"
echo "# in the namespace: gt_gated $g, gotrace record $r"
cat "$pids.status"

# The reader's pid as each side sees it.
grep -q "^reader pid: *$r\$" "$pids.status" ||
	fail "gotrace status in the namespace does not show its reader, pid $r"
host_r=$(status_of reader_pid)
grep -q "^NSpid:[[:space:]]*$host_r[[:space:]]*$r\$" "/proc/$host_r/status" ||
	fail "reader_pid $host_r is not, on the host, the namespace's pid $r: $(grep NSpid "/proc/$host_r/status")"

echo go > "$fifo"
wait $ns || fail "the recording in the namespace failed"
./gotrace check -q "$out" || fail "gotrace check refused $out"
echo "# the host's task $g: $(cat "/proc/$g/comm")"
cat > "$GT_OUT/pidns.expect" <<EOT
names gt_gated
gt_gated syscall:sys_getppid == 100
EOT
exit 0
