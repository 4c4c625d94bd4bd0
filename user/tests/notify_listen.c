// SPDX-License-Identifier: GPL-2.0
/*
 * notify_listen.c - plays systemd's end of NOTIFY_SOCKET for notify_test.sh
 *
 * notify_listen PATH: binds a datagram socket at PATH and prints every
 * message it receives, one line per variable ("READY=1"), flushed at
 * once so the test can wait on the file.  It runs until killed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_listen PATH\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("notify_listen");
		return 1;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			perror("notify_listen: recv");
			return 1;
		}
		buf[n] = '\0';
		printf("%s\n", buf);
		fflush(stdout);
	}
}
