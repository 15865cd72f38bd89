// SPDX-License-Identifier: GPL-2.0-or-later
/* test/bench/migconns.c - Many idle TCP connections in a migrating guest
 *
 * Runs inside the QEMU guest of test/bench/migrate.sh, built statically on
 * the host and put in its initramfs.  It listens on a port (the host's
 * clients reach it through passt's -t forward: "inbound" connections) and
 * opens connections of its own to a server on the host through the gateway
 * ("outbound"), then echoes every byte it reads on any of them back on the
 * same connection, from one epoll loop.  The host side (migconns.py) sends
 * a probe on each connection before and after the migration and checks the
 * echo; in between the connections are idle.
 *
 * Usage: migconns LPORT NIN GW OPORT NOUT
 *   LPORT	port to listen on (IPv4, any address)
 *   NIN	inbound connections expected (reported when all are in)
 *   GW		IPv4 address of the gateway (the host, through passt)
 *   OPORT	port of the host's server
 *   NOUT	outbound connections to open, one after the other
 *
 * Lines for the host start with "GUEST migconns " on standard output (the
 * serial console): "listening", "out N" once N outbound connections are
 * up, "in N" once N inbound ones are accepted, "closed IN OUT" whenever a
 * connection ends (reset or EOF: the host counts it as lost), "error ..."
 * on a failure.
 *
 * Needs one descriptor per connection: RLIMIT_NOFILE is raised to
 * MIGCONNS_NOFILE (the guest's init starts with 1024, the kernel's
 * INR_OPEN_CUR), which root may do (setrlimit(2)).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MIGCONNS_NOFILE	65536	/* descriptors: connections, plus a few */
#define MIGCONNS_EVENTS	64	/* epoll events per wait */
#define MIGCONNS_BUF	4096	/* bytes read at once; probes are 16 */

/**
 * migconns_say() - One line for the host on standard output, flushed
 * @what:	Text after "GUEST migconns "
 * @a:		First number, or -1 for none
 * @b:		Second number, or -1 for none
 */
static void migconns_say(const char *what, long a, long b)
{
	printf("GUEST migconns %s", what);
	if (a >= 0)
		printf(" %ld", a);
	if (b >= 0)
		printf(" %ld", b);
	printf("\n");
	fflush(stdout);
}

/**
 * migconns_add() - Watch a descriptor for input
 * @ep:		epoll descriptor
 * @fd:		Socket
 * @tag:	Stored with the event: 0 for the listener, 1 inbound, 2 outbound
 *
 * Return: 0, or -1 with errno set by epoll_ctl()
 */
static int migconns_add(int ep, int fd, unsigned tag)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u64 = (uint64_t)tag << 32 | (uint32_t)fd;
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/**
 * migconns_connect() - One outbound connection, blocking
 * @gw:		Gateway's address and the server's port
 *
 * Return: connected socket, or -1 with errno set
 */
static int migconns_connect(const struct sockaddr_in *gw)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (s < 0)
		return -1;
	if (connect(s, (const struct sockaddr *)gw, sizeof(*gw))) {
		int e = errno;

		close(s);
		errno = e;
		return -1;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

/**
 * main() - Listen, connect out, echo forever
 * @argc:	Argument count, 6
 * @argv:	LPORT NIN GW OPORT NOUT, see the file's head
 *
 * Return: 1 on a set-up error; otherwise runs until the guest powers off
 */
int main(int argc, char **argv)
{
	struct sockaddr_in la = { .sin_family = AF_INET }, gw = la;
	struct rlimit rl = { MIGCONNS_NOFILE, MIGCONNS_NOFILE };
	long nin, nout, in = 0, out = 0, gone_in = 0, gone_out = 0;
	struct epoll_event ev[MIGCONNS_EVENTS];
	char buf[MIGCONNS_BUF];
	int ep, lfd, one = 1, i;

	if (argc != 6) {
		fprintf(stderr, "usage: %s LPORT NIN GW OPORT NOUT\n", argv[0]);
		return 1;
	}
	nin = atol(argv[2]);
	nout = atol(argv[5]);
	la.sin_port = htons((uint16_t)atoi(argv[1]));
	gw.sin_port = htons((uint16_t)atoi(argv[4]));
	if (inet_pton(AF_INET, argv[3], &gw.sin_addr) != 1) {
		migconns_say("error bad gateway address", -1, -1);
		return 1;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl))
		migconns_say("error setrlimit", errno, -1);

	ep = epoll_create1(EPOLL_CLOEXEC);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ep < 0 || lfd < 0) {
		migconns_say("error socket", errno, -1);
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&la, sizeof(la)) ||
	    listen(lfd, 4096) || migconns_add(ep, lfd, 0)) {
		migconns_say("error listen", errno, -1);
		return 1;
	}
	migconns_say("listening", -1, -1);

	for (; out < nout; out++) {
		int s = migconns_connect(&gw);

		if (s < 0 || migconns_add(ep, s, 2)) {
			migconns_say("error connect", errno, out);
			return 1;
		}
	}
	if (nout)
		migconns_say("out", out, -1);

	for (;;) {
		int n = epoll_wait(ep, ev, MIGCONNS_EVENTS, -1);

		if (n < 0 && errno != EINTR) {
			migconns_say("error epoll_wait", errno, -1);
			return 1;
		}
		for (i = 0; i < n; i++) {
			int fd = (int)(uint32_t)ev[i].data.u64;
			unsigned tag = (unsigned)(ev[i].data.u64 >> 32);
			ssize_t r;

			if (tag == 0) {
				int s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

				if (s < 0)
					continue;
				setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one,
					   sizeof(one));
				if (migconns_add(ep, s, 1)) {
					migconns_say("error epoll_ctl", errno,
						     -1);
					close(s);
					continue;
				}
				if (++in == nin)
					migconns_say("in", in, -1);
				continue;
			}
			r = read(fd, buf, sizeof(buf));
			if (r > 0) {
				/* a few bytes: the send buffer takes them */
				if (write(fd, buf, (size_t)r) != r)
					migconns_say("error short echo", r, -1);
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			close(fd);
			if (tag == 1)
				gone_in++;
			else
				gone_out++;
			migconns_say("closed", gone_in, gone_out);
		}
	}
}
