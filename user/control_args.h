/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control_args.h - the command line of the control commands (gotrace stop,
 * gotrace snapshot): no argument, only --help and --device
 */
#ifndef GOTRACE_CONTROL_ARGS_H
#define GOTRACE_CONTROL_ARGS_H

#include <stdio.h>

/*
 * Parse @argv of command @name, whose usage @usage prints.  Returns -1 to
 * go on, *@device set (NULL: the default device), else the exit code:
 * GT_EXIT_OK after --help, GT_EXIT_USAGE after saying what was wrong.
 */
int gt_control_args(int argc, char **argv, const char *name,
		    void (*usage)(FILE *f), const char **device);

#endif /* GOTRACE_CONTROL_ARGS_H */
