// SPDX-License-Identifier: GPL-2.0
/*
 * control_args.c - the command line of the control commands
 */
#include <getopt.h>
#include <stdio.h>

#include "control_args.h"
#include "util.h"

int gt_control_args(int argc, char **argv, const char *name,
		    void (*usage)(FILE *f), const char **device)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "device",	required_argument,	NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*device = NULL;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return GT_EXIT_OK;
		case 'D':
			*device = optarg;
			break;
		default:
			gt_usage_hint(name);
			return GT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		gt_err("%s takes no argument ('%s')", name, argv[optind]);
		return GT_EXIT_USAGE;
	}
	return -1;
}
