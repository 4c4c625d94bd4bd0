// SPDX-License-Identifier: GPL-2.0
/*
 * go111_events.c - names and value layouts of the "go 1.11 trace" event types
 */
#include <stddef.h>

#include "go111_events.h"

/*
 * Values after the type byte, as Go 1.21's EventDescriptions and argNum
 * say for version 1.11: timestamp delta (if @ts), args, stack id (if
 * @stk).  EvStack and EvString have their own layouts.
 */
static const struct {
	const char *name;
	unsigned char nvals;
	bool ts;
	bool stk;
} descs[GT_TRACE_NR_TYPES] = {
	[GOTRACE_EV_BATCH]		= { "Batch",		2, false, false },
	[GOTRACE_EV_FREQUENCY]		= { "Frequency",	1, false, false },
	[GOTRACE_EV_STACK]		= { "Stack",		0, false, false },
	[GOTRACE_EV_GOMAXPROCS]		= { "Gomaxprocs",	3, true,  true  },
	[GOTRACE_EV_PROC_START]		= { "ProcStart",	2, true,  false },
	[GOTRACE_EV_PROC_STOP]		= { "ProcStop",		1, true,  false },
	[GOTRACE_EV_GC_START]		= { "GCStart",		3, true,  true  },
	[GOTRACE_EV_GC_DONE]		= { "GCDone",		1, true,  false },
	[GOTRACE_EV_STW_START]		= { "STWStart",		2, true,  false },
	[GOTRACE_EV_STW_DONE]		= { "STWDone",		1, true,  false },
	[GOTRACE_EV_GC_SWEEP_START]	= { "GCSweepStart",	2, true,  true  },
	[GOTRACE_EV_GC_SWEEP_DONE]	= { "GCSweepDone",	3, true,  false },
	[GOTRACE_EV_GO_CREATE]		= { "GoCreate",		4, true,  true  },
	[GOTRACE_EV_GO_START]		= { "GoStart",		3, true,  false },
	[GOTRACE_EV_GO_END]		= { "GoEnd",		1, true,  false },
	[GOTRACE_EV_GO_STOP]		= { "GoStop",		2, true,  true  },
	[GOTRACE_EV_GO_SCHED]		= { "GoSched",		2, true,  true  },
	[GOTRACE_EV_GO_PREEMPT]		= { "GoPreempt",	2, true,  true  },
	[GOTRACE_EV_GO_SLEEP]		= { "GoSleep",		2, true,  true  },
	[GOTRACE_EV_GO_BLOCK]		= { "GoBlock",		2, true,  true  },
	[GOTRACE_EV_GO_UNBLOCK]		= { "GoUnblock",	4, true,  true  },
	[GOTRACE_EV_GO_BLOCK_SEND]	= { "GoBlockSend",	2, true,  true  },
	[GOTRACE_EV_GO_BLOCK_RECV]	= { "GoBlockRecv",	2, true,  true  },
	[GOTRACE_EV_GO_BLOCK_SELECT]	= { "GoBlockSelect",	2, true,  true  },
	[GOTRACE_EV_GO_BLOCK_SYNC]	= { "GoBlockSync",	2, true,  true  },
	[GOTRACE_EV_GO_BLOCK_COND]	= { "GoBlockCond",	2, true,  true  },
	[GOTRACE_EV_GO_BLOCK_NET]	= { "GoBlockNet",	2, true,  true  },
	[GOTRACE_EV_GO_SYSCALL]		= { "GoSysCall",	2, true,  true  },
	[GOTRACE_EV_GO_SYSEXIT]		= { "GoSysExit",	4, true,  false },
	[GOTRACE_EV_GO_SYSBLOCK]	= { "GoSysBlock",	1, true,  false },
	[GOTRACE_EV_GO_WAITING]		= { "GoWaiting",	2, true,  false },
	[GOTRACE_EV_GO_INSYSCALL]	= { "GoInSyscall",	2, true,  false },
	[GOTRACE_EV_HEAP_ALLOC]		= { "HeapAlloc",	2, true,  false },
	[GOTRACE_EV_HEAP_GOAL]		= { "HeapGoal",		2, true,  false },
	[GOTRACE_EV_TIMER_GOROUTINE]	= { "TimerGoroutine",	1, false, false },
	[GOTRACE_EV_FUTILE_WAKEUP]	= { "FutileWakeup",	1, true,  false },
	[GOTRACE_EV_STRING]		= { "String",		0, false, false },
	[GOTRACE_EV_GO_START_LOCAL]	= { "GoStartLocal",	2, true,  false },
	[GOTRACE_EV_GO_UNBLOCK_LOCAL]	= { "GoUnblockLocal",	3, true,  true  },
	[GOTRACE_EV_GO_SYSEXIT_LOCAL]	= { "GoSysExitLocal",	3, true,  false },
	[GOTRACE_EV_GO_START_LABEL]	= { "GoStartLabel",	4, true,  false },
	[GOTRACE_EV_GO_BLOCK_GC]	= { "GoBlockGC",	2, true,  true  },
	[GOTRACE_EV_GC_MARK_ASSIST_START] = { "GCMarkAssistStart", 2, true, true },
	[GOTRACE_EV_GC_MARK_ASSIST_DONE] = { "GCMarkAssistDone", 1, true, false },
	[GOTRACE_EV_USER_TASK_CREATE]	= { "UserTaskCreate",	5, true,  true  },
	[GOTRACE_EV_USER_TASK_END]	= { "UserTaskEnd",	3, true,  true  },
	[GOTRACE_EV_USER_REGION]	= { "UserRegion",	5, true,  true  },
	[GOTRACE_EV_USER_LOG]		= { "UserLog",		4, true,  true  },
};

const char *gt_trace_type_name(unsigned int type)
{
	return type && type < GT_TRACE_NR_TYPES ? descs[type].name : NULL;
}

bool gt_trace_type_layout(unsigned int type, unsigned int *nvals, bool *ts,
			  bool *stk)
{
	if (!type || type >= GT_TRACE_NR_TYPES)
		return false;
	*nvals = descs[type].nvals;
	*ts = descs[type].ts;
	*stk = descs[type].stk;
	return true;
}

bool gt_trace_type_is_block(unsigned int type)
{
	switch (type) {
	case GOTRACE_EV_GO_SLEEP:
	case GOTRACE_EV_GO_BLOCK:
	case GOTRACE_EV_GO_BLOCK_SEND:
	case GOTRACE_EV_GO_BLOCK_RECV:
	case GOTRACE_EV_GO_BLOCK_SELECT:
	case GOTRACE_EV_GO_BLOCK_SYNC:
	case GOTRACE_EV_GO_BLOCK_COND:
	case GOTRACE_EV_GO_BLOCK_NET:
	case GOTRACE_EV_GO_BLOCK_GC:
		return true;
	default:
		return false;
	}
}
