#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Under lockdown for confidentiality the device serves nothing, as
# tracefs refuses its trace files.  Lockdown cannot be lowered again and
# also closes /dev/port, through which the guest reports its verdict: the
# test runs only when asked for, GT_VM_APPEND=GT_LOCKDOWN_TEST=1 (then
# read its TAP line on the console; the run itself reports no verdict),
# after every other test but dmesg_clean_test.sh.
. ./lib.sh

[ -n "${GT_LOCKDOWN_TEST:-}" ] ||
	{ echo "GT_LOCKDOWN_TEST not set: not locking the guest down"; exit 4; }

sec=/sys/kernel/security
[ -f $sec/lockdown ] || mount -t securityfs securityfs $sec 2>/dev/null
[ -w $sec/lockdown ] || { echo "no lockdown LSM"; exit 4; }
grep -q '\[none\]' $sec/lockdown || { echo "already locked down"; exit 4; }
head -c 16 $GT_DEV > /dev/null || fail "the device refused before lockdown"
echo confidentiality > $sec/lockdown || fail "cannot lock down"
grep -q '\[confidentiality\]' $sec/lockdown || fail "not locked down"
if err=$(head -c 16 $GT_DEV 2>&1 > /dev/null); then
	fail "the device served a trace under lockdown"
fi
echo "$err"
case $err in
*"not permitted"*) ;;
*) fail "open under lockdown: '$err', want EPERM" ;;
esac
[ -w $GT_DEV ] && { echo stop > $GT_DEV; } 2>/dev/null &&
	fail "a control handle opened under lockdown"
exit 0
