/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify.h - tell systemd how a recording goes (sd_notify)
 *
 * Under a Type=notify unit systemd sets NOTIFY_SOCKET: gotrace record
 * says READY=1 once the session records, STATUS= with its rate and size
 * while it runs, and STOPPING=1 when it stops.  Built without libsystemd
 * (GT_HAVE_SYSTEMD unset) every call does nothing and gt_notify_enabled()
 * is false: such a build's units are Type=exec (the top Makefile's
 * install).
 */
#ifndef GOTRACE_NOTIFY_H
#define GOTRACE_NOTIFY_H

#include <stdbool.h>

/* Built with libsystemd and started by systemd with NOTIFY_SOCKET set. */
bool gt_notify_enabled(void);
/* Built with libsystemd: "sd_notify" for --version, else "". */
const char *gt_notify_feature(void);

void gt_notify_ready(void);
void gt_notify_stopping(void);
__attribute__((format(printf, 1, 2)))
void gt_notify_status(const char *fmt, ...);

#endif
