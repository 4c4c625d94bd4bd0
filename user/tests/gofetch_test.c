// SPDX-License-Identifier: GPL-2.0
/*
 * gofetch_test.c - a Go program's trace over HTTP (gofetch.c)
 *
 * Each case forks a server that takes one connection on 127.0.0.1 or on
 * a Unix socket, passes the request it read back through a pipe and
 * answers with canned bytes, as Go's net/http/pprof answers (a chunked
 * 200, its 404 and 500 texts) or as no good server does.  The answer's
 * first bytes go out a few at a time, so that the client meets its lines
 * and chunks cut anywhere.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gofetch.h"
#include "tap.h"

static char dir[] = "/tmp/gofetch_test.XXXXXX";
static char sock_path[64], out_path[64];
static int tcp_fd, unix_fd, out_fd;
static unsigned int port;

/* A growing buffer: the answer, or the trace it carries. */
struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(2);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A trace of @n bytes: the 16-byte header "go 1.@v trace", then noise. */
static void make_trace(struct buf *t, int v, size_t n)
{
	char hdr[16] = { 0 };
	uint32_t x = 2463534242u;

	snprintf(hdr, sizeof(hdr), "go 1.%d trace", v);
	put(t, hdr, sizeof(hdr));
	for (size_t i = sizeof(hdr); i < n; i++) {
		uint8_t byte;

		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		byte = (uint8_t)x;
		put(t, &byte, 1);
	}
}

/* @t chunked in chunks of varied sizes, one with an extension. */
static void chunked(struct buf *a, const struct buf *t, bool last)
{
	static const size_t sizes[] = { 1, 15, 4096, 17, 40000, 3 };
	char line[32];
	size_t at = 0;

	for (int i = 0; at < t->len; i++) {
		size_t n = sizes[i % 6];

		if (n > t->len - at)
			n = t->len - at;
		snprintf(line, sizeof(line), i == 2 ? "%zx;x=y\r\n" : "%zx\r\n", n);
		puts_(a, line);
		put(a, t->p + at, n);
		puts_(a, "\r\n");
		at += n;
	}
	if (last)
		puts_(a, "0\r\n\r\n");
}

static void head_200_chunked(struct buf *a)
{
	puts_(a, "HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"trace\"\r\n"
		 "Content-Type: application/octet-stream\r\nX-Content-Type-Options: nosniff\r\n"
		 "Date: Mon, 01 Jan 2024 00:00:00 GMT\r\nConnection: close\r\n"
		 "Transfer-Encoding: chunked\r\n\r\n");
}

static void head_length(struct buf *a, const char *status, size_t len)
{
	char line[64];

	puts_(a, status);
	puts_(a, "\r\nContent-Type: text/plain; charset=utf-8\r\n");
	snprintf(line, sizeof(line), "Content-Length: %zu\r\n\r\n", len);
	puts_(a, line);
}

/*
 * Serve @a once on @lfd: the request read (to its empty line) goes
 * down *@req_fd, then the answer, its first 600 bytes 7 at a time.
 */
static pid_t serve(int lfd, const struct buf *a, int *req_fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		char req[4096];
		size_t n = 0, at = 0;
		int fd;

		alarm(5);
		close(pfd[0]);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			_exit(2);
		while (n < sizeof(req) - 1) {
			ssize_t r = read(fd, req + n, sizeof(req) - 1 - n);

			if (r <= 0)
				_exit(2);
			n += (size_t)r;
			req[n] = 0;
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		if (write(pfd[1], req, n) != (ssize_t)n)
			_exit(2);
		close(pfd[1]);
		while (at < a->len) {
			size_t k = at < 600 ? 7 : a->len - at;
			ssize_t r;

			if (k > a->len - at)
				k = a->len - at;
			r = write(fd, a->p + at, k);
			if (r <= 0)
				_exit(3);
			at += (size_t)r;
			if (at < 600)
				usleep(200);
		}
		close(fd);
		_exit(0);
	}
	close(pfd[1]);
	*req_fd = pfd[0];
	return pid;
}

struct result {
	int ret;
	char err[512];
	char req[4096];
	struct buf out;
};

static void reset_out(void)
{
	if (ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET))
		exit(2);
}

static void read_out(struct buf *b)
{
	char tmp[65536];
	ssize_t n;
	int fd = open(out_path, O_RDONLY);

	b->len = 0;
	while (fd >= 0 && (n = read(fd, tmp, sizeof(tmp))) > 0)
		put(b, tmp, (size_t)n);
	if (fd >= 0)
		close(fd);
}

/* gt_gofetch(@url) against a server of @a on @lfd (-1: none). */
static void fetch(struct result *r, const char *url, unsigned int seconds,
		  int lfd, const struct buf *a)
{
	int req_fd = -1, st;
	pid_t pid = -1;
	ssize_t n;

	reset_out();
	r->err[0] = r->req[0] = 0;
	if (lfd >= 0)
		pid = serve(lfd, a, &req_fd);
	r->ret = gt_gofetch(url, seconds, out_fd, r->err, sizeof(r->err));
	if (pid > 0) {
		n = read(req_fd, r->req, sizeof(r->req) - 1);
		r->req[n > 0 ? n : 0] = 0;
		close(req_fd);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    (WEXITSTATUS(st) && WEXITSTATUS(st) != 3))
			diag("the server ended with status %#x", st);
	}
	read_out(&r->out);
	if (r->err[0])
		diag("%s", r->err);
}

static bool said(const struct result *r, const char *text)
{
	return strstr(r->err, text) != NULL;
}

static bool out_is(const struct result *r, const struct buf *t)
{
	return r->out.len == t->len && !memcmp(r->out.p, t->p, t->len);
}

static int listen_tcp(bool do_listen, unsigned int *p)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	socklen_t len = sizeof(in);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof(in)) ||
	    (do_listen && listen(fd, 4)) ||
	    getsockname(fd, (struct sockaddr *)&in, &len))
		exit(2);
	*p = ntohs(in.sin_port);
	return fd;
}

/* On ::1, or -1 where the machine has no IPv6. */
static int listen_tcp6(unsigned int *p)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t len = sizeof(in6);
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&in6, sizeof(in6)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&in6, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*p = ntohs(in6.sin6_port);
	return fd;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&un, sizeof(un)) || listen(fd, 4))
		exit(2);
	return fd;
}

int main(void)
{
	struct result r = { 0 };
	struct buf t = { 0 }, a = { 0 };
	char url[256], want[256];
	unsigned int closed_port, port6;
	int fd;

	/* A stuck case fails the test rather than hanging make check. */
	alarm(30);
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 2;
	snprintf(sock_path, sizeof(sock_path), "%s/pprof.sock", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.trace", dir);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	tcp_fd = listen_tcp(true, &port);
	unix_fd = listen_unix(sock_path);
	if (out_fd < 0)
		return 2;

	/* Go's answer: chunked, streamed, the bytes as they were. */
	make_trace(&t, 23, 100000);
	head_200_chunked(&a);
	chunked(&a, &t, true);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == 0 && out_is(&r, &t),
	   "chunked 200 of a go 1.23 trace: 0, the file is the trace byte for byte (%zu of %zu bytes)",
	   r.out.len, t.len);
	snprintf(want, sizeof(want), "Host: 127.0.0.1:%u\r\n", port);
	if (!ok(!strncmp(r.req, "GET /debug/pprof/trace?seconds=1 HTTP/1.1\r\n", 43) &&
		strstr(r.req, want) && strstr(r.req, "\r\nConnection: close\r\n"),
		"the request: GET /debug/pprof/trace?seconds=1 HTTP/1.1, Host, Connection: close"))
		diag("request: %s", r.req);

	/* Content-Length, on a Unix socket, under a prefix. */
	t.len = a.len = 0;
	make_trace(&t, 22, 5000);
	head_length(&a, "HTTP/1.1 200 OK", t.len);
	put(&a, t.p, t.len);
	snprintf(url, sizeof(url), "unix:%s:/app/", sock_path);
	fetch(&r, url, 2, unix_fd, &a);
	ok(r.ret == 0 && out_is(&r, &t),
	   "Content-Length 200 of a go 1.22 trace over a Unix socket: 0, byte for byte");
	if (!ok(!strncmp(r.req, "GET /app/debug/pprof/trace?seconds=2 HTTP/1.1\r\n", 47) &&
		strstr(r.req, "\r\nHost: localhost\r\n"),
		"unix:SOCK:/app/ asks for /app/debug/pprof/trace?seconds=2, Host: localhost"))
		diag("request: %s", r.req);

	/* HTTP/1.0, after a 100 Continue: the body ends with the connection. */
	t.len = a.len = 0;
	make_trace(&t, 26, 3000);
	puts_(&a, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\n");
	put(&a, t.p, t.len);
	snprintf(url, sizeof(url), "http://localhost:%u/debug/pprof/", port);
	fetch(&r, url, 3, tcp_fd, &a);
	ok(r.ret == 0 && out_is(&r, &t),
	   "HTTP/1.0 200 of a go 1.26 trace ending with the connection, after a 100: 0, byte for byte");
	ok(!strncmp(r.req, "GET /debug/pprof/trace?seconds=3 ", 33),
	   "a URL ending in /debug/pprof/ gets /trace added, localhost reaches 127.0.0.1");
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/x/debug/pprof/trace", port);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == 0 && !strncmp(r.req, "GET /x/debug/pprof/trace?seconds=1 ", 35),
	   "a URL ending in /debug/pprof/trace is the path as it is");

	/* IPv6, in brackets. */
	fd = listen_tcp6(&port6);
	if (fd >= 0) {
		snprintf(url, sizeof(url), "http://[::1]:%u", port6);
		fetch(&r, url, 1, fd, &a);
		snprintf(want, sizeof(want), "\r\nHost: [::1]:%u\r\n", port6);
		ok(r.ret == 0 && out_is(&r, &t) && strstr(r.req, want),
		   "http://[::1]:PORT: 0, byte for byte, Host: [::1]:PORT");
		close(fd);
	} else {
		ok(1, "# SKIP no IPv6 loopback");
	}

	/* Go's 404 for a program without net/http/pprof. */
	a.len = 0;
	head_length(&a, "HTTP/1.1 404 Not Found", 19);
	puts_(&a, "404 page not found\n");
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	fetch(&r, url, 1, tcp_fd, &a);
	snprintf(want, sizeof(want), "http://127.0.0.1:%u/debug/pprof/trace?seconds=1: HTTP 404 Not Found: the program does not serve net/http/pprof",
		 port);
	ok(r.ret == -1 && !strcmp(r.err, want) && !r.out.len,
	   "404: -1, \"URL: HTTP 404 Not Found: the program does not serve net/http/pprof\", nothing written");

	/* pprof's 500 when the program traces already, chunked. */
	a.len = 0;
	puts_(&a, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "X-Go-Pprof: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "44\r\nCould not enable tracing: runtime error: tracing is already enabled\n"
		  "\r\n0\r\n\r\n");
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "seconds=1: HTTP 500 Internal Server Error: Could not enable tracing: runtime error: tracing is already enabled") &&
	   !said(&r, "\n") && !r.out.len,
	   "500: -1 with the first line of its text, nothing written");

	/* A program built with Go 1.21. */
	t.len = a.len = 0;
	make_trace(&t, 21, 2000);
	head_200_chunked(&a);
	chunked(&a, &t, true);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, ": the program's trace is in the go 1.21 format: merging needs a program built with Go 1.22 or newer") &&
	   !r.out.len, "a go 1.21 trace: -1, too old, named, nothing written");

	/* A format newer than gotrace's. */
	t.len = a.len = 0;
	make_trace(&t, 27, 2000);
	head_200_chunked(&a);
	chunked(&a, &t, true);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "go 1.27 format, which this gotrace does not read"),
	   "a go 1.27 trace: -1, a format gotrace does not read");

	/* Cut short in a chunk: 100 bytes of a 4096-byte one. */
	t.len = a.len = 0;
	make_trace(&t, 23, 100);
	head_200_chunked(&a);
	puts_(&a, "1000\r\n");
	put(&a, t.p, t.len);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, ": the connection closed after 100 bytes of the trace") &&
	   out_is(&r, &t),
	   "cut short in a chunk: -1, the bytes counted, the part that came written");

	/* Cut short of its Content-Length, and between chunks. */
	a.len = 0;
	head_length(&a, "HTTP/1.1 200 OK", 5000);
	put(&a, t.p, t.len);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "the connection closed after 100 bytes of the trace"),
	   "cut short of its Content-Length: -1, the bytes counted");
	a.len = 0;
	head_200_chunked(&a);
	chunked(&a, &t, false);
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "the connection closed after 100 bytes of the trace"),
	   "cut short before the last chunk: -1");

	/* Garbage, a short body, a bad chunk, no HTTP, no answer. */
	a.len = 0;
	head_length(&a, "HTTP/1.1 200 OK", 31);
	puts_(&a, "<html><body>hello</body></html>");
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, ": not an execution trace (starts with \"<html><body>hell\")") &&
	   !r.out.len, "an HTML page: -1, not an execution trace, its start shown");
	a.len = 0;
	head_length(&a, "HTTP/1.1 200 OK", 4);
	puts_(&a, "go 1");
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "not an execution trace (only \"go 1\")"),
	   "a 4-byte body: -1, not an execution trace");
	a.len = 0;
	head_200_chunked(&a);
	puts_(&a, "zz\r\nhello\r\n0\r\n\r\n");
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, ": bad chunked encoding after 0 bytes of the trace"),
	   "a chunk size that is not hex: -1, bad chunked encoding");
	a.len = 0;
	puts_(&a, "SSH-2.0-OpenSSH_9.2p1\r\n");
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "not an HTTP server's answer (it starts with \"SSH-2.0-OpenSSH_\")"),
	   "an SSH server: -1, not HTTP");
	a.len = 0;
	fetch(&r, url, 1, tcp_fd, &a);
	ok(r.ret == -1 && said(&r, "the server closed the connection without an answer"),
	   "no answer at all: -1");

	/* Nobody listening. */
	fd = listen_tcp(false, &closed_port);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", closed_port);
	fetch(&r, url, 1, -1, NULL);
	snprintf(want, sizeof(want), "cannot connect to 127.0.0.1:%u: Connection refused",
		 closed_port);
	ok(r.ret == -1 && !strcmp(r.err, want), "a closed port: -1, \"%s\"", want);
	snprintf(url, sizeof(url), "unix:%s/none.sock", dir);
	fetch(&r, url, 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "cannot connect to ") &&
	   said(&r, "/none.sock: No such file or directory"),
	   "a Unix socket that is not there: -1, cannot connect");

	/* URLs refused before connecting. */
	fetch(&r, "https://127.0.0.1:6060", 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "plain HTTP only"), "https: -1, plain HTTP only");
	fetch(&r, "http://example.org:6060", 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "example.org is not an IP address or localhost"),
	   "a host name: -1, no names looked up");
	fetch(&r, "http://::1:6060", 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "IPv6 address in brackets"),
	   "an IPv6 address without brackets: -1");
	fetch(&r, "http://127.0.0.1:6060/?seconds=9", 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "no query"), "a query in the URL: -1");
	fetch(&r, "ftp://127.0.0.1", 1, -1, NULL);
	ok(r.ret == -1 && said(&r, "not an http://HOST:PORT or unix:/PATH URL"),
	   "another scheme: -1");

	close(out_fd);
	close(tcp_fd);
	close(unix_fd);
	unlink(out_path);
	unlink(sock_path);
	rmdir(dir);
	free(t.p);
	free(a.p);
	free(r.out.p);
	return tap_done();
}
