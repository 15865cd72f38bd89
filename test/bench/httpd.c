// SPDX-License-Identifier: GPL-2.0-or-later
/* test/bench/httpd.c - Minimal HTTP/1.1 server for the connection-rate benchmark
 *
 * One thread, one epoll set: accepts TCP connections on ADDR:PORT, reads a
 * request up to its blank line, answers "200 OK" with a 13-byte body and
 * "Connection: close", then closes.  The point is a server cheap enough that
 * the path under test (pasta, slirp4netns, the kernel) limits the rate, and
 * identical for every implementation.  It exits after LIFETIME seconds
 * (SIGALRM) so that it can never outlive a benchmark run.
 *
 * Usage: httpd ADDR PORT LIFETIME_S
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FD		65536	/* highest file descriptor we track */
#define REQ_MAX		2048	/* bytes of one request we keep, at most */

static const char reply[] =
	"HTTP/1.1 200 OK\r\n"
	"Content-Type: text/plain\r\n"
	"Content-Length: 13\r\n"
	"Connection: close\r\n"
	"\r\n"
	"Hello, world\n";

/* Last bytes seen on each connection, to find "\r\n\r\n" across reads */
static unsigned int tail[MAX_FD];

/**
 * conn_close() - Close a connection and forget its state
 * @ep:		epoll file descriptor
 * @fd:		connection socket
 */
static void conn_close(int ep, int fd)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	tail[fd] = 0;
	close(fd);
}

/**
 * conn_read() - Read what a client sent, answer once its header is complete
 * @ep:		epoll file descriptor
 * @fd:		connection socket, non-blocking
 *
 * The reply is smaller than any socket send buffer, so one send() completes
 * it on a fresh connection; a short send closes the connection anyway.
 */
static void conn_read(int ep, int fd)
{
	char buf[REQ_MAX];
	ssize_t n, i;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			conn_close(ep, fd);
			return;
		}
		if (n < 0)
			return;

		for (i = 0; i < n; i++) {
			tail[fd] = (tail[fd] << 8) | (unsigned char)buf[i];
			if (tail[fd] == 0x0d0a0d0a) {
				send(fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL);
				shutdown(fd, SHUT_WR);
				conn_close(ep, fd);
				return;
			}
		}
	}
}

/**
 * main() - Listen, serve until LIFETIME_S expires
 * @argc:	argument count, 4
 * @argv:	program name, IPv4 or IPv6 address, port, lifetime in seconds
 *
 * Return: never on success (SIGALRM ends the process), 1 on a setup error
 *
 * Context: a benchmark helper, not part of passt: no seccomp filter applies
 */
int main(int argc, char **argv)
{
	struct sockaddr_storage ss = { 0 };
	struct epoll_event ev, events[64];
	int one = 1, s, ep, n, i, fd;
	socklen_t sl;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT LIFETIME_S\n", argv[0]);
		return 1;
	}

	if (strchr(argv[1], ':')) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(atoi(argv[2]));
		if (inet_pton(AF_INET6, argv[1], &a6->sin6_addr) != 1)
			return 1;
		sl = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;

		a4->sin_family = AF_INET;
		a4->sin_port = htons(atoi(argv[2]));
		if (inet_pton(AF_INET, argv[1], &a4->sin_addr) != 1)
			return 1;
		sl = sizeof(*a4);
	}

	alarm(atoi(argv[3]));

	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&ss, sl) || listen(s, 4096)) {
		perror("httpd: listen");
		return 1;
	}

	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = s;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev)) {
		perror("httpd: epoll");
		return 1;
	}

	for (;;) {
		n = epoll_wait(ep, events, 64, -1);
		for (i = 0; i < n; i++) {
			if (events[i].data.fd != s) {
				conn_read(ep, events[i].data.fd);
				continue;
			}
			while ((fd = accept4(s, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
				if (fd >= MAX_FD) {
					close(fd);
					continue;
				}
				ev.events = EPOLLIN;
				ev.data.fd = fd;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
					close(fd);
			}
		}
	}
}
