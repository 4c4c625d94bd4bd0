#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The documented way to record: cat reads, another shell writes "stop",
# cat gets the rest of the trace and end of file.
. ./lib.sh

record_while "$GT_OUT/cat-stop.trace" sleep 1
