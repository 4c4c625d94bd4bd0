// SPDX-License-Identifier: GPL-2.0
/*
 * gofetch.c - a Go program's execution trace over HTTP (gofetch.h)
 *
 * net/http/pprof's trace handler starts the runtime's tracer, sleeps
 * for ?seconds= and stops it, writing the trace while it runs: a 200 of
 * unknown length, so chunked.  This is the least of HTTP/1.1 that talks
 * to it: one GET with Connection: close, a body of either framing (or
 * one that ends with the connection, from an HTTP/1.0 server), and no
 * TLS, redirects or name lookups.  The program runs on this machine,
 * whose scheduler its trace is merged with, so a literal address or
 * localhost names it, and a static gotrace has no resolver to call.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "gofetch.h"
#include "trace/go123.h"
#include "trace/go123_read.h"
#include "util.h"

#ifndef GT_VERSION
#define GT_VERSION "unknown"
#endif

#define GF_BUF		65536
/* Go's head is some 200 bytes; a server that never ends one is wrong. */
#define GF_HEAD_MAX	65536
/* To connect and to send the request: the server answers only later. */
#define GF_CONNECT_MS	10000
/* The first line of an error's body, as much of it as a message takes. */
#define GF_REASON_MAX	160

struct gf_url {
	bool unix_sock;
	char host[INET6_ADDRSTRLEN];	/* localhost or an address */
	unsigned int port;
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char authority[sizeof("[]:65535") + INET6_ADDRSTRLEN];
	char path[1024];
	char name[1200];	/* the request's URL, for messages */
};

enum gf_framing { GF_UNTIL_CLOSE, GF_LENGTH, GF_CHUNKED };

struct gf_conn {
	int fd;
	unsigned long long timeout;	/* s without a byte: give up */
	const char *name;
	char *err;
	size_t errlen;
	bool in_trace;		/* messages count the trace's bytes */
	uint64_t got;		/* of the trace, so far */
	enum gf_framing framing;
	uint64_t left;		/* of the body (GF_LENGTH) or of its chunk */
	bool chunks;		/* a chunk came: its CRLF ends it */
	bool done;		/* the body ended */
	size_t at, len;
	uint8_t buf[GF_BUF];
};

/* body_next(): the connection closed before the body's end. */
#define GF_CUT	(-2)

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_http(const char *url, const char *auth, size_t alen,
		      struct gf_url *u, char *err, size_t errlen)
{
	const char *host = auth, *port = NULL, *end = auth + alen;
	size_t hlen;
	uint8_t addr[sizeof(struct in6_addr)];
	bool v6 = false;

	if (alen >= sizeof(u->authority))
		return fail(err, errlen, "%s: the host is too long", url);
	memcpy(u->authority, auth, alen);
	u->authority[alen] = 0;
	if (*auth == '[') {
		const char *close = memchr(auth, ']', alen);

		if (!close || (close + 1 < end && close[1] != ':'))
			return fail(err, errlen, "%s: a bracket ']' must end the IPv6 address",
				    url);
		host = auth + 1;
		hlen = (size_t)(close - host);
		port = close + 1 < end ? close + 2 : NULL;
		v6 = true;
	} else {
		const char *colon = memchr(auth, ':', alen);

		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return fail(err, errlen, "%s: write an IPv6 address in brackets: http://[::1]:6060",
				    url);
		hlen = colon ? (size_t)(colon - auth) : alen;
		port = colon ? colon + 1 : NULL;
	}
	if (!hlen || hlen >= sizeof(u->host))
		return fail(err, errlen, "%s: no host", url);
	memcpy(u->host, host, hlen);
	u->host[hlen] = 0;
	u->port = 80;
	if (port) {
		unsigned long p = 0;

		if (port == end)
			return fail(err, errlen, "%s: no port after ':'", url);
		for (const char *c = port; c < end && p <= 65535; c++)
			p = *c >= '0' && *c <= '9' ?
			    p * 10 + (unsigned long)(*c - '0') : ULONG_MAX;
		if (!p || p > 65535)
			return fail(err, errlen, "%s: bad port", url);
		u->port = (unsigned int)p;
	}
	if ((v6 || strcmp(u->host, "localhost")) &&
	    inet_pton(v6 ? AF_INET6 : AF_INET, u->host, addr) != 1)
		return fail(err, errlen, "%s: %s is not an IP address or localhost (gotrace looks up no names)",
			    url, u->host);
	return 0;
}

/* @url into @u, with the path of the trace of @seconds. */
static int parse_url(const char *url, unsigned int seconds, struct gf_url *u,
		     char *err, size_t errlen)
{
	const char *prefix;
	size_t plen;
	int n;

	memset(u, 0, sizeof(*u));
	/* What goes into the request line as it is: nothing that ends it. */
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return fail(err, errlen, "\"%s\": a URL has no spaces or control characters",
				    url);
	if (!strncasecmp(url, "https://", 8))
		return fail(err, errlen, "%s: gotrace fetches the trace over plain HTTP only: serve net/http/pprof on http:// (localhost or a Unix socket)",
			    url);
	if (!strncmp(url, "http://", 7)) {
		const char *auth = url + 7;
		size_t alen = strcspn(auth, "/");

		if (parse_http(url, auth, alen, u, err, errlen))
			return -1;
		prefix = auth + alen;
	} else if (!strncmp(url, "unix:", 5)) {
		const char *sock = url + 5, *sep = strstr(sock, ":/");
		size_t slen = sep ? (size_t)(sep - sock) : strlen(sock);

		if (!slen || slen >= sizeof(u->sock))
			return fail(err, errlen, "%s: %s", url, slen ?
				    "the socket's path is too long" :
				    "no socket path after unix:");
		memcpy(u->sock, sock, slen);
		u->unix_sock = true;
		/* Go's server takes any host; HTTP/1.1 wants one. */
		strcpy(u->authority, "localhost");
		prefix = sep ? sep + 1 : "";
	} else {
		return fail(err, errlen, "%s: not an http://HOST:PORT or unix:/PATH URL",
			    url);
	}
	if (strpbrk(prefix, "?#"))
		return fail(err, errlen, "%s: no query in the URL: gotrace asks for ?seconds= itself",
			    url);
	plen = strlen(prefix);
	while (plen && prefix[plen - 1] == '/')
		plen--;
	n = snprintf(u->path, sizeof(u->path), "%.*s%s?seconds=%u", (int)plen,
		     prefix, gt_has_suffix(prefix, plen, "/debug/pprof/trace") ? "" :
		     gt_has_suffix(prefix, plen, "/debug/pprof") ? "/trace" :
		     "/debug/pprof/trace", seconds);
	if (n < 0 || (size_t)n >= sizeof(u->path))
		return fail(err, errlen, "%s: the URL is too long", url);
	if (u->unix_sock)
		snprintf(u->name, sizeof(u->name), "unix:%s:%s", u->sock, u->path);
	else
		snprintf(u->name, sizeof(u->name), "http://%s%s", u->authority,
			 u->path);
	return 0;
}

/*
 * A connected blocking socket to @sa, or -errno.  Connecting without
 * blocking bounds the wait for an address that drops the SYN, and a
 * signal then interrupts only poll(), which is simply called again.
 */
static int dial(const struct sockaddr *sa, socklen_t salen)
{
	uint64_t deadline = gt_now_ns() + GF_CONNECT_MS * 1000000ULL;
	int fd, e = 0;
	socklen_t elen = sizeof(e);

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, sa, salen) < 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (errno != EINPROGRESS) {
			e = errno;
			goto out;
		}
		for (;;) {
			uint64_t now = gt_now_ns();
			int r;

			if (now >= deadline) {
				e = ETIMEDOUT;
				goto out;
			}
			r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
			if (r > 0)
				break;
			if (r < 0 && errno != EINTR) {
				e = errno;
				goto out;
			}
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
			e = errno;
		if (e)
			goto out;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		e = errno;
out:
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

/* Connect to @u's server: localhost is 127.0.0.1, then ::1. */
static int connect_url(const struct gf_url *u, char *err, size_t errlen)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	bool lo = !strcmp(u->host, "localhost");
	int fd = -EINVAL, fd6;

	if (u->unix_sock) {
		memcpy(un.sun_path, u->sock, sizeof(u->sock));
		fd = dial((struct sockaddr *)&un, sizeof(un));
		if (fd < 0)
			return fail(err, errlen, "cannot connect to %s: %s",
				    u->sock, strerror(-fd));
		return fd;
	}
	in.sin_port = in6.sin6_port = htons((uint16_t)u->port);
	if (lo || inet_pton(AF_INET, u->host, &in.sin_addr) == 1) {
		if (lo)
			in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = dial((struct sockaddr *)&in, sizeof(in));
		if (fd >= 0 || !lo)
			goto done;
	}
	if (lo)
		in6.sin6_addr = in6addr_loopback;
	else
		inet_pton(AF_INET6, u->host, &in6.sin6_addr);
	/* localhost: 127.0.0.1's refusal says more than ::1's absence. */
	fd6 = dial((struct sockaddr *)&in6, sizeof(in6));
	fd = fd6 >= 0 || !lo ? fd6 : fd;
done:
	if (fd < 0)
		return fail(err, errlen, "cannot connect to %s: %s", u->authority,
			    strerror(-fd));
	return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		/* A server that closed early is an error, not SIGPIPE. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* More bytes into the buffer: > 0, 0 at the end, -1 with the message. */
static int fill(struct gf_conn *c)
{
	ssize_t n;

	if (c->at) {
		memmove(c->buf, c->buf + c->at, c->len - c->at);
		c->len -= c->at;
		c->at = 0;
	}
	if (c->len == sizeof(c->buf))
		return 1;
	do
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0) {
		c->len += (size_t)n;
		return n > 0;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		n = snprintf(c->err, c->errlen, "%s: nothing came for %llu s",
			     c->name, c->timeout);
	else
		n = snprintf(c->err, c->errlen, "%s: %s", c->name,
			     strerror(errno));
	if (c->in_trace && n >= 0 && (size_t)n < c->errlen)
		snprintf(c->err + n, c->errlen - (size_t)n,
			 " after %" PRIu64 " bytes of the trace", c->got);
	return -1;
}

/*
 * The next line, its CR LF replaced by NULs: 1, 0 if the connection
 * closed first, -1 with the message.
 */
static int get_line(struct gf_conn *c, char **line, size_t *len)
{
	for (;;) {
		uint8_t *p = c->buf + c->at;
		uint8_t *nl = memchr(p, '\n', c->len - c->at);
		int r;

		if (nl) {
			*nl = 0;
			*len = (size_t)(nl - p);
			if (*len && nl[-1] == '\r') {
				nl[-1] = 0;
				(*len)--;
			}
			*line = (char *)p;
			c->at += (size_t)(nl - p) + 1;
			return 1;
		}
		if (!c->at && c->len == sizeof(c->buf))
			return fail(c->err, c->errlen, "%s: a line of the answer is longer than %zu bytes",
				    c->name, sizeof(c->buf));
		r = fill(c);
		if (r <= 0)
			return r;
	}
}

/* A chunk's size line (after the previous chunk's CR LF). */
static int next_chunk(struct gf_conn *c)
{
	char *line, *p;
	size_t len;
	int r;

	if (c->chunks) {
		r = get_line(c, &line, &len);
		if (r <= 0)
			return r ? r : GF_CUT;
		if (len)
			goto bad;
	}
	c->chunks = true;
	r = get_line(c, &line, &len);
	if (r <= 0)
		return r ? r : GF_CUT;
	c->left = 0;
	for (p = line; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

		if (d < 0)
			break;
		if (c->left >> 56)
			goto bad;
		c->left = c->left << 4 | (uint64_t)d;
	}
	/* Extensions after ';' mean nothing to us. */
	if (p == line || (*p && *p != ';' && *p != ' ' && *p != '\t'))
		goto bad;
	/* The last chunk: its trailer is of no interest either. */
	if (!c->left)
		c->done = true;
	return 1;
bad:
	if (!c->in_trace)
		return fail(c->err, c->errlen, "%s: bad chunked encoding", c->name);
	return fail(c->err, c->errlen, "%s: bad chunked encoding after %" PRIu64 " bytes of the trace",
		    c->name, c->got);
}

/*
 * The body's next bytes in place (*@p, *@n): 1, 0 at its end, GF_CUT
 * if the connection closed before it, -1 with the message.
 */
static int body_next(struct gf_conn *c, const uint8_t **p, size_t *n)
{
	size_t avail;
	int r;

	if (!c->done && c->framing == GF_CHUNKED && !c->left) {
		r = next_chunk(c);
		if (r <= 0)
			return r;
	}
	if (c->framing == GF_LENGTH && !c->left)
		c->done = true;
	if (c->done)
		return 0;
	if (c->at == c->len) {
		r = fill(c);
		if (r < 0)
			return -1;
		if (!r) {
			if (c->framing != GF_UNTIL_CLOSE)
				return GF_CUT;
			c->done = true;
			return 0;
		}
	}
	avail = c->len - c->at;
	if (c->framing != GF_UNTIL_CLOSE) {
		if (avail > c->left)
			avail = (size_t)c->left;
		c->left -= avail;
	}
	*p = c->buf + c->at;
	*n = avail;
	c->at += avail;
	return 1;
}

/*
 * The status line and the headers: the status into *@status, its text
 * into @reason, the body's framing into @c.  0, or -1 with the message.
 */
static int read_head(struct gf_conn *c, int *status, char *reason,
		     size_t rlen)
{
	size_t total = 0, len;
	bool chunked = false, length = false;
	char *line;
	int r;

again:
	r = get_line(c, &line, &len);
	if (r <= 0)
		return r ? r : fail(c->err, c->errlen, "%s: the server closed the connection without an answer",
				    c->name);
	if (strncmp(line, "HTTP/1.", 7) || len < 12 || line[8] != ' ' ||
	    line[9] < '1' || line[9] > '5' || line[10] < '0' || line[10] > '9' ||
	    line[11] < '0' || line[11] > '9' || (line[12] && line[12] != ' ')) {
		char show[4 * 16 + 1];

		return fail(c->err, c->errlen, "%s: not an HTTP server's answer (it starts with \"%s\")",
			    c->name, gt_fmt_printable((uint8_t *)line,
						      len < 16 ? len : 16, show,
						      sizeof(show)));
	}
	*status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + line[11] - '0';
	snprintf(reason, rlen, "%s", line[12] ? line + 13 : "");
	for (;;) {
		char *colon, *v;

		r = get_line(c, &line, &len);
		if (r <= 0)
			return r ? r : fail(c->err, c->errlen, "%s: the connection closed in the answer's header",
					    c->name);
		total += len;
		if (total > GF_HEAD_MAX)
			return fail(c->err, c->errlen, "%s: the answer's header is longer than %d bytes",
				    c->name, GF_HEAD_MAX);
		if (!len)
			break;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		if (!strcasecmp(line, "Transfer-Encoding") && strcasestr(v, "chunked")) {
			chunked = true;
		} else if (!strcasecmp(line, "Content-Length")) {
			char *end;

			errno = 0;
			c->left = strtoull(v, &end, 10);
			if (errno || end == v || *v == '-' ||
			    strspn(end, " \t") != strlen(end))
				return fail(c->err, c->errlen, "%s: bad Content-Length \"%s\"",
					    c->name, v);
			length = true;
		}
	}
	/* 100 Continue and the like come before the answer itself. */
	if (*status < 200)
		goto again;
	c->framing = chunked ? GF_CHUNKED : length ? GF_LENGTH : GF_UNTIL_CLOSE;
	return 0;
}

/* What a non-200 answer says: the first line of its body (Go's text). */
static int refused(struct gf_conn *c, int status, const char *reason)
{
	uint8_t first[GF_REASON_MAX];
	char show[4 * GF_REASON_MAX + 1];
	size_t have = 0, n;
	const uint8_t *p;
	bool eol = false;

	if (status == 404)
		return fail(c->err, c->errlen, "%s: HTTP 404 %s: the program does not serve net/http/pprof",
			    c->name, reason);
	while (!eol && have < sizeof(first) && body_next(c, &p, &n) > 0) {
		const uint8_t *nl = memchr(p, '\n', n);

		if (nl) {
			n = (size_t)(nl - p);
			eol = true;
		}
		if (n > sizeof(first) - have)
			n = sizeof(first) - have;
		memcpy(first + have, p, n);
		have += n;
	}
	while (have && (first[have - 1] == '\r' || first[have - 1] == ' '))
		have--;
	gt_fmt_printable(first, have, show, sizeof(show));
	return fail(c->err, c->errlen, "%s: HTTP %d %s%s%s", c->name, status,
		    reason, have ? ": " : "", show);
}

/* Does @hdr, the body's first 16 bytes, start a trace we merge? */
static int check_header(struct gf_conn *c, const uint8_t *hdr)
{
	unsigned int v = 0;
	size_t i = 5;
	char show[4 * 16 + 1];

	if (gt_go123_header(hdr, 16))
		return 0;
	/* Older and newer formats: "go 1.N trace", NUL-padded. */
	if (!memcmp(hdr, "go 1.", 5)) {
		for (; i < 8 && hdr[i] >= '0' && hdr[i] <= '9'; i++)
			v = v * 10 + (hdr[i] - '0');
		if (i > 5 && i + 6 <= 16 && !memcmp(hdr + i, " trace", 6)) {
			for (i += 6; i < 16 && !hdr[i]; i++)
				;
			if (i == 16 && v < GT_GO123_GO122)
				return fail(c->err, c->errlen, "%s: the program's trace is in the go 1.%u format: merging needs a program built with Go 1.22 or newer",
					    c->name, v);
			if (i == 16)
				return fail(c->err, c->errlen, "%s: the program's trace is in the go 1.%u format, which this gotrace does not read",
					    c->name, v);
		}
	}
	return fail(c->err, c->errlen, "%s: not an execution trace (starts with \"%s\")",
		    c->name, gt_fmt_printable(hdr, 16, show, sizeof(show)));
}

/* The 200's body into @out, its header checked before a byte is written. */
static int stream(struct gf_conn *c, int out)
{
	uint8_t hdr[16];
	char show[4 * 16 + 1];
	const uint8_t *p;
	size_t n;
	int r, e;

	c->in_trace = true;
	while ((r = body_next(c, &p, &n)) > 0) {
		if (c->got < sizeof(hdr)) {
			size_t take = sizeof(hdr) - (size_t)c->got;

			if (take > n)
				take = n;
			memcpy(hdr + c->got, p, take);
			c->got += take;
			p += take;
			n -= take;
			if (c->got < sizeof(hdr))
				continue;
			if (check_header(c, hdr))
				return -1;
			e = gt_write_all(out, hdr, sizeof(hdr));
			if (e)
				goto write_err;
		}
		e = gt_write_all(out, p, n);
		if (e)
			goto write_err;
		c->got += n;
	}
	if (r == GF_CUT)
		return fail(c->err, c->errlen, "%s: the connection closed after %" PRIu64 " bytes of the trace",
			    c->name, c->got);
	if (r < 0)
		return -1;
	if (!c->got)
		return fail(c->err, c->errlen, "%s: not an execution trace (an empty answer)",
			    c->name);
	if (c->got < sizeof(hdr))
		return fail(c->err, c->errlen, "%s: not an execution trace (only \"%s\")",
			    c->name, gt_fmt_printable(hdr, (size_t)c->got, show,
						      sizeof(show)));
	return 0;
write_err:
	return fail(c->err, c->errlen, "writing the trace of %s: %s", c->name,
		    strerror(-e));
}

int gt_gofetch(const char *url, unsigned int seconds, int out, char *err,
	       size_t errlen)
{
	struct gf_url u;
	struct gf_conn *c;
	struct timeval tv = { .tv_sec = GF_CONNECT_MS / 1000 };
	char req[sizeof(u.path) + sizeof(u.authority) + 160];
	char reason[64];
	int fd, status = 0, ret = -1, e;

	if (!seconds)
		return fail(err, errlen, "%s: the trace must last at least a second",
			    url);
	if (parse_url(url, seconds, &u, err, errlen))
		return -1;
	fd = connect_url(&u, err, errlen);
	if (fd < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return fail(err, errlen, "%s: out of memory", u.name);
	}
	*c = (struct gf_conn){ .fd = fd, .timeout = seconds + 30ULL,
			       .name = u.name, .err = err, .errlen = errlen };
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: " GT_NAME "/" GT_VERSION
		 "\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
		 u.path, u.authority);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		goto sys_err;
	/*
	 * An idle program's trace may come only once the tracer stops,
	 * SECONDS after the request: wait that long and more.
	 */
	tv.tv_sec = (time_t)c->timeout;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto sys_err;
	e = send_all(fd, req, strlen(req));
	if (e) {
		fail(err, errlen, "%s: sending the request: %s", u.name,
		     strerror(-e));
		goto out;
	}
	if (read_head(c, &status, reason, sizeof(reason)))
		goto out;
	if (status != 200)
		refused(c, status, reason);
	else
		ret = stream(c, out);
	goto out;
sys_err:
	fail(err, errlen, "%s: %s", u.name, strerror(errno));
out:
	free(c);
	close(fd);
	return ret;
}
