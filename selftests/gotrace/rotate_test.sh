#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gotrace record --rotate with the module: the session's go 1.23 stream
# written as a sequence of files, a new one at the first generation after
# every 2 s, while a workload with an exact ground truth runs for about
# 8 s (a ping-pong of 400 rounds and 20 ms sleeps, getppid calls, forks).
# Here: at least 3 complete files and no .tmp left, each one a trace of
# its own (the go 1.23 header, and gotrace check accepts it), and the
# files together hold the recorder's bytes once (each file repeats the
# header only).  The files go to the host as rotate-N.trace, each
# checked with Go 1.23 and 1.27; their generations joined behind one
# header are rotate-joined.trace, whose ground truth the host checks:
# every task and call counted once across the files.  The command waits
# half a second after gt_ping, the last task, has exited: the shell's
# wait returns once gt_ping is a zombie, before its last switch, and a
# recording stopped at once missed that end (newest, once).
. ./lib.sh

[ "$GT_BACKEND" = kmod ] || { echo "the module's rotation"; exit 4; }
use_format go1.23
dir=/tmp/rotate
rm -rf $dir
gen_param=/sys/module/gotrace/parameters/generation_ms
on_exit "echo $(cat $gen_param) > $gen_param"
echo 200 > $gen_param || fail "cannot set generation_ms=200"

./gotrace record --backend kmod --format go1.23 --rotate 2s -o $dir -- \
	sh -c './workload pingpong 400 20 & p=$!
	       for i in 1 2 3 4 5 6 7 8; do
		       ./workload getppid 100 && ./workload forks 2 || exit 1
	       done
	       wait $p; s=$?; sleep 0.5; exit $s' > /tmp/rot.out 2> /tmp/rot.err ||
	fail "gotrace record --rotate failed: $(cat /tmp/rot.err)"
cat /tmp/rot.err
ls -l $dir
[ -z "$(ls $dir | grep -v '\.trace$')" ] ||
	fail "files other than complete traces in $dir: $(ls $dir | tr '\n' ' ')"
n=$(ls $dir | wc -l)
[ "$n" -ge 3 ] || fail "$n files for 8 s rotated every 2 s, not 3 or more"
grep -q "written to $n files in $dir" /tmp/rot.err ||
	fail "the summary does not count the $n files"
bytes=$(sed -n 's/.*(\([0-9]*\) bytes) written to.*/\1/p' /tmp/rot.err)
[ -n "$bytes" ] || fail "no byte count in the summary"

k=0
total=0
joined=$GT_OUT/rotate-joined.trace
for f in $(ls $dir | sort); do
	k=$((k + 1))
	check_header "$dir/$f"
	./gotrace check -q "$dir/$f" ||
		fail "gotrace check refuses $f, file $k of $n"
	cp "$dir/$f" "$GT_OUT/rotate-$k.trace" || fail "cannot copy $f"
	size=$(wc -c < "$dir/$f")
	total=$((total + size))
	if [ $k -eq 1 ]; then
		cp "$dir/$f" "$joined"
	else
		tail -c +17 "$dir/$f" >> "$joined"
	fi
done
[ $((total - 16 * (n - 1))) -eq "$bytes" ] ||
	fail "the files hold $total bytes, $n headers, the recorder wrote $bytes"
./gotrace check -q "$joined" || fail "the joined files are not one trace"
echo "$n files, $total bytes, $bytes bytes of stream"

cat > "${joined%.trace}.expect" <<EOT
gt_ping create == 1
gt_pong create == 1
gt_ping end == 1
gt_pong end == 1
gt_ping block:chan_send+syscall:sys_write >= 400
gt_ping syscall:sys_write <= 400
gt_ping block:chan_receive+syscall:sys_read >= 400
gt_getppid create == 8
gt_getppid end == 8
gt_getppid syscall:sys_getppid == 800
gt_forker create == 24
gt_forker end == 24
gt_child create == 16
gt_child end == 16
EOT
