// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - sd_notify() for the systemd units (notify.h)
 *
 * libsystemd does the protocol (the datagram, the credentials, the
 * abstract socket names); this file only decides whether to call it.
 * A failed notification is not an error of the recording: systemd times
 * the unit out if READY never arrives, and says so in the journal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "notify.h"

#ifdef GT_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>

bool gt_notify_enabled(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s && *s;
}

const char *gt_notify_feature(void)
{
	return "sd_notify";
}

void gt_notify_ready(void)
{
	if (gt_notify_enabled())
		sd_notify(0, "READY=1");
}

void gt_notify_stopping(void)
{
	if (gt_notify_enabled())
		sd_notify(0, "STOPPING=1");
}

void gt_notify_status(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	if (!gt_notify_enabled())
		return;
	n = snprintf(msg, sizeof(msg), "STATUS=");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	sd_notify(0, msg);
}
#else
bool gt_notify_enabled(void)
{
	return false;
}

const char *gt_notify_feature(void)
{
	return "";
}

void gt_notify_ready(void)
{
}

void gt_notify_stopping(void)
{
}

void gt_notify_status(const char *fmt, ...)
{
	(void)fmt;
}
#endif
