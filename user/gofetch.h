/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gofetch.h - a running Go program's execution trace from its
 * net/http/pprof endpoint, for gotrace record --go URL
 */
#ifndef GOTRACE_GOFETCH_H
#define GOTRACE_GOFETCH_H

#include <stddef.h>

/*
 * Fetch @seconds (at least 1) of the Go program's execution trace from
 * @url into the file descriptor @out, as its bytes arrive.  @url is
 *
 *   http://HOST[:PORT][/PREFIX]   HOST an IPv4 address, an IPv6 address
 *                                 in brackets or "localhost" (PORT 80)
 *   unix:/PATH/TO.SOCK[:/PREFIX]  an HTTP server on a Unix socket
 *
 * and the request's path PREFIX/debug/pprof/trace?seconds=N; a PREFIX
 * that already ends in /debug/pprof or /debug/pprof/trace is taken as
 * that (the page's address as the browser shows it).  Only traces of Go
 * 1.22 or newer (the "go 1.22 trace" to "go 1.26 trace" formats) are
 * accepted.  A reply that stops coming for @seconds + 30 s is an error.
 *
 * Returns 0 once the whole trace is in @out; -1 with one line for the
 * user in @err (@errlen bytes) otherwise, naming the request's URL or
 * the address: "cannot connect to 127.0.0.1:6060: Connection refused",
 * "http://127.0.0.1:6060/debug/pprof/trace?seconds=5: HTTP 500 Internal
 * Server Error: Could not enable tracing: tracing is already enabled".
 * Nothing is written to @out before the trace's header is checked; a
 * trace cut short leaves the part that came.
 */
int gt_gofetch(const char *url, unsigned int seconds, int out, char *err,
	       size_t errlen);

#endif /* GOTRACE_GOFETCH_H */
