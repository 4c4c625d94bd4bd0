#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The generational format's tables are a generation's: format=go1.23,
# max_stacks=1024 (two tables of 512 stacks, one per generation by
# parity), generation_ms=60000 (the longest: time ends no generation
# during the test), and a workload that names far more
# distinct stacks than that: 400 programs of distinct names (gts_1 to
# gts_400, symbolic links to the workload, which keeps its file's name),
# one after the other, each execs, sleeps 10 ms in clock_nanosleep and
# exits.  Every stack ends with the comm frame of its task, so each
# program brings stacks of its own: its comm stack, its syscalls', its
# sleep's (some 6000 stacks over the generations of a 6.12 guest, about
# half of them distinct, and as many again the comm stacks of the tasks
# alive, which each generation states).  A session-wide table of 1024
# would overflow; here no stack may be lost (stack_overflows 0 in the
# status, through the status ioctl), a generation whose table passes
# three quarters ends early (10 generations or more, where the light
# workload's buffers would end a few at most), and the host checks,
# with Go 1.23 and 1.27, that the first, a middle and the last program
# are each created once under their own names.
. ./lib.sh

gen_param=/sys/module/gotrace/parameters/generation_ms
stacks_param=/sys/module/gotrace/parameters/max_stacks
nprog=400

use_format go1.23
on_exit "echo $(cat $gen_param) > $gen_param"
on_exit "echo $(cat $stacks_param) > $stacks_param"
echo 60000 > $gen_param || fail "cannot set generation_ms=60000"
echo 1024 > $stacks_param || fail "cannot set max_stacks=1024"
[ "$(cat $stacks_param)" = 1024 ] ||
	fail "max_stacks reads back '$(cat $stacks_param)', not 1024"

dir=/tmp/gts
mkdir -p $dir || fail "cannot create $dir"
i=1
while [ $i -le $nprog ]; do
	ln -sf "$PWD/workload" $dir/gts_$i || fail "cannot link gts_$i"
	i=$((i + 1))
done

out=$GT_OUT/tables_go123.trace
cat $GT_DEV > "$out" &
reader=$!
cleanup_on_exit $reader
wait_state recording
start=$(date +%s)

i=1
while [ $i -le $nprog ]; do
	$dir/gts_$i renamed || fail "gts_$i failed"
	i=$((i + 1))
done
settle
secs=$(($(date +%s) - start + 1))

./gotrace status --json > /tmp/tables-status.json ||
	fail "gotrace status failed"
if ! grep -q '^  "state": "recording",$' /tmp/tables-status.json ||
   ! grep -q '^  "stack_overflows": 0,$' /tmp/tables-status.json ||
   ! grep -q '^  "lost_events": 0,$' /tmp/tables-status.json; then
	cat /tmp/tables-status.json
	fail "the session lost stacks or events, or stopped"
fi
echo stop > $GT_DEV || fail "echo stop failed"
wait_gone $reader 300 || fail "cat did not end within 30 s of stop"
wait $reader || fail "cat exited with $?"
check_header "$out"

./gotrace check "$out" > /tmp/tables-check.txt 2>&1 || {
	cat /tmp/tables-check.txt
	fail "gotrace check refuses the trace"
}
grep -E '^  (duration|generations|events|stacks) ' /tmp/tables-check.txt
gens=$(awk '$1 == "generations" { print $2 }' /tmp/tables-check.txt)
echo "tables_go123.trace: $(wc -c < "$out") bytes, $gens generations in about $secs s"
# Time ends none of them: the tables (and maybe a buffer) do.
[ "${gens:-0}" -ge 10 ] ||
	fail "${gens:-no} generations in $secs s: the tables did not end them"

cat > "${out%.trace}.expect" <<EOT
gts_1 create == 1
gts_1 end == 1
gts_$((nprog / 2)) create == 1
gts_$((nprog / 2)) end == 1
gts_$nprog create == 1
gts_$nprog end == 1
EOT

exit 0
