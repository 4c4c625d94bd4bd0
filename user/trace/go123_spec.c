// SPDX-License-Identifier: GPL-2.0
/*
 * go123_spec.c - the layout of every timed event of the generational
 * format: how many values follow the type byte (the timestamp delta is
 * value 0) and which of them are stack or string ids.
 */
#include <stddef.h>
#include <stdio.h>

#include "go123.h"

#define B(i)	(1u << (i))

static const struct gt_go123_spec specs[GT_GO123_NR_TYPES] = {
	[9]  = { "ProcsChange", 3, 22, B(2), 0 },
	[10] = { "ProcStart", 3, 22, 0, 0 },
	[11] = { "ProcStop", 1, 22, 0, 0 },
	[12] = { "ProcSteal", 4, 22, 0, 0 },
	[13] = { "ProcStatus", 3, 22, 0, 0 },
	[14] = { "GoCreate", 4, 22, B(2) | B(3), 0 },
	[15] = { "GoCreateSyscall", 2, 22, 0, 0 },
	[16] = { "GoStart", 3, 22, 0, 0 },
	[17] = { "GoDestroy", 1, 22, 0, 0 },
	[18] = { "GoDestroySyscall", 1, 22, 0, 0 },
	[19] = { "GoStop", 3, 22, B(2), B(1) },
	[20] = { "GoBlock", 3, 22, B(2), B(1) },
	[21] = { "GoUnblock", 4, 22, B(3), 0 },
	[22] = { "GoSyscallBegin", 3, 22, B(2), 0 },
	[23] = { "GoSyscallEnd", 1, 22, 0, 0 },
	[24] = { "GoSyscallEndBlocked", 1, 22, 0, 0 },
	[25] = { "GoStatus", 4, 22, 0, 0 },
	[26] = { "STWBegin", 3, 22, B(2), B(1) },
	[27] = { "STWEnd", 1, 22, 0, 0 },
	[28] = { "GCActive", 2, 22, 0, 0 },
	[29] = { "GCBegin", 3, 22, B(2), 0 },
	[30] = { "GCEnd", 2, 22, 0, 0 },
	[31] = { "GCSweepActive", 2, 22, 0, 0 },
	[32] = { "GCSweepBegin", 2, 22, B(1), 0 },
	[33] = { "GCSweepEnd", 3, 22, 0, 0 },
	[34] = { "GCMarkAssistActive", 2, 22, 0, 0 },
	[35] = { "GCMarkAssistBegin", 2, 22, B(1), 0 },
	[36] = { "GCMarkAssistEnd", 1, 22, 0, 0 },
	[37] = { "HeapAlloc", 2, 22, 0, 0 },
	[38] = { "HeapGoal", 2, 22, 0, 0 },
	[39] = { "GoLabel", 2, 22, 0, B(1) },
	[40] = { "UserTaskBegin", 5, 22, B(4), B(3) },
	[41] = { "UserTaskEnd", 3, 22, B(2), 0 },
	[42] = { "UserRegionBegin", 4, 22, B(3), B(2) },
	[43] = { "UserRegionEnd", 4, 22, B(3), B(2) },
	[44] = { "UserLog", 5, 22, B(4), B(2) | B(3) },
	[45] = { "GoSwitch", 3, 23, 0, 0 },
	[46] = { "GoSwitchDestroy", 3, 23, 0, 0 },
	[47] = { "GoCreateBlocked", 4, 23, B(2) | B(3), 0 },
	[48] = { "GoStatusStack", 5, 23, B(4), 0 },
	[51] = { "ClockSnapshot", 4, 25, 0, 0 },
};

const struct gt_go123_spec *gt_go123_spec(unsigned int type)
{
	if (type >= GT_GO123_NR_TYPES || !specs[type].nargs)
		return NULL;
	return &specs[type];
}

const char *gt_go123_type_name(unsigned int type)
{
	static char buf[16];

	if (type < GT_GO123_NR_TYPES && specs[type].name)
		return specs[type].name;
	/* Not a timed event of an M's batch, but the walk gives samples too. */
	if (type == GT_GO123_EV_CPU_SAMPLE)
		return "CPUSample";
	snprintf(buf, sizeof(buf), "type %u", type);
	return buf;
}
