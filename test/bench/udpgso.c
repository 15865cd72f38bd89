// SPDX-License-Identifier: GPL-2.0-or-later
/* test/bench/udpgso.c - A UDP bulk sender with segmentation offload
 * (UDP_SEGMENT) and a receiver with UDP_GRO, for the G scenarios of
 * test/bench/run.sh
 *
 *   udpgso serve ADDR PORT SECONDS
 *	Reads with UDP_GRO (udp(7), Linux 5.0) into 64 KiB for SECONDS:
 *	what one read returns may hold several datagrams of one sender, all
 *	of the size in the SOL_UDP/UDP_GRO cmsg but the last; it counts the
 *	datagrams and their bytes.  A datagram of 4 bytes "RPT?" (from a
 *	socket of its own: never joined with data) is answered with the
 *	counts so far, as text: "DATAGRAMS BYTES".
 *   udpgso run ADDR PORT LEN SECONDS
 *	Sends LEN-byte datagrams to ADDR:PORT for SECONDS, as many as fit in
 *	64 KiB (at most 64) per send() with UDP_SEGMENT set on the socket
 *	(udp(7), Linux 4.18), blocking; then, after half a second, asks the
 *	server for its counts (up to 20 tries, 200 ms each) and prints one
 *	JSON line: sent, received, bytes, seconds, rate (datagrams per
 *	second received), lost, client_cpu_s.
 *
 * Only for the bench: addresses come from run.sh's scratch namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_UDP
#define SOL_UDP		17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif

#define BUF_MAX		65535
#define SEGS_MAX	64

static uint8_t buf[BUF_MAX];

/**
 * now_s() - Monotonic time
 *
 * Return: seconds
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * addr_fill() - An IPv4 or IPv6 socket address from text
 * @ss:		Filled
 * @addr:	Address, numeric
 * @port:	Port
 *
 * Return: its length, 0 if @addr is not an address
 */
static socklen_t addr_fill(struct sockaddr_storage *ss, const char *addr,
			   int port)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return sizeof(*a6);
	}
	return 0;
}

/**
 * sock_big() - A UDP socket with 16 MiB buffers where allowed
 * @af:		Address family
 *
 * Return: socket, exits on failure
 */
static int sock_big(int af)
{
	int s = socket(af, SOCK_DGRAM, 0), sz = 16 << 20;

	if (s < 0) {
		perror("socket");
		exit(1);
	}
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	return s;
}

/**
 * serve() - The GRO receiver
 * @addr:	Address to bind
 * @port:	Port
 * @secs:	Lifetime, seconds
 *
 * Return: 0, 1 on set-up errors
 */
static int serve(const char *addr, int port, double secs)
{
	unsigned long long dgrams = 0, bytes = 0;
	struct sockaddr_storage ss;
	double end = now_s() + secs;
	socklen_t sl = addr_fill(&ss, addr, port);
	int s, one = 1;

	if (!sl) {
		fprintf(stderr, "bad address %s\n", addr);
		return 1;
	}
	s = sock_big(ss.ss_family);
	setsockopt(s, SOL_UDP, UDP_GRO, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&ss, sl)) {
		perror("bind");
		return 1;
	}
	while (now_s() < end) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct sockaddr_storage peer;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_name = &peer,
				     .msg_namelen = sizeof(peer),
				     .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct pollfd p = { .fd = s, .events = POLLIN };
		struct cmsghdr *cm;
		ssize_t n;
		int seg = 0;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recvmsg(s, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		if (n == 4 && !memcmp(buf, "RPT?", 4)) {
			char r[64];
			int l = snprintf(r, sizeof(r), "%llu %llu", dgrams,
					 bytes);

			sendto(s, r, (size_t)l, 0, (struct sockaddr *)&peer,
			       mh.msg_namelen);
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_UDP &&
			    cm->cmsg_type == UDP_GRO)
				memcpy(&seg, CMSG_DATA(cm), sizeof(seg));
		dgrams += (seg > 0 && n > seg) ?
			  (unsigned long long)((n + seg - 1) / seg) : 1;
		bytes += (unsigned long long)n;
	}
	return 0;
}

/**
 * run() - The GSO sender, then the receiver's counts
 * @addr:	Server address
 * @port:	Port
 * @len:	Datagram payload length, bytes
 * @secs:	Sending time, seconds
 *
 * Return: 0 if the server answered, 1 if not
 */
static int run(const char *addr, int port, int len, double secs)
{
	unsigned long long sent = 0, got = 0, bytes = 0;
	int s, q, k, tries, errors = 0, seg = len;
	struct sockaddr_storage ss;
	socklen_t sl = addr_fill(&ss, addr, port);
	double t0, t1;
	struct rusage ru;
	size_t total;

	if (!sl || len < 1 || len > 65000) {
		fprintf(stderr, "bad address or length\n");
		return 1;
	}
	k = BUF_MAX / len;
	if (k > SEGS_MAX)
		k = SEGS_MAX;
	if (k < 1)
		k = 1;
	total = (size_t)k * (size_t)len;
	s = sock_big(ss.ss_family);
	if (connect(s, (struct sockaddr *)&ss, sl)) {
		perror("connect");
		return 1;
	}
	if (k > 1 && setsockopt(s, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
		perror("UDP_SEGMENT");
		return 1;
	}
	t0 = now_s();
	for (t1 = t0; t1 - t0 < secs; t1 = now_s()) {
		int i;

		for (i = 0; i < 16; i++) {
			if (send(s, buf, total, 0) < 0) {
				if (errno != ECONNREFUSED && errno != ENOBUFS)
					errors++;
				continue;
			}
			sent += (unsigned long long)k;
		}
	}
	usleep(500000);

	q = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (q < 0 || connect(q, (struct sockaddr *)&ss, sl))
		return 1;
	for (tries = 0; tries < 20; tries++) {
		struct pollfd p = { .fd = q, .events = POLLIN };
		char r[64];
		ssize_t n;

		send(q, "RPT?", 4, 0);
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recv(q, r, sizeof(r) - 1, 0);
		if (n <= 0)
			continue;
		r[n] = 0;
		if (sscanf(r, "%llu %llu", &got, &bytes) == 2)
			break;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"sent\": %llu, \"received\": %llu, \"bytes\": %llu, "
	       "\"seconds\": %.3f, \"rate\": %.0f, \"lost\": %lld, "
	       "\"segs_per_send\": %d, \"errors\": %d, \"answered\": %s, "
	       "\"client_cpu_s\": %.3f}\n",
	       sent, got, bytes, t1 - t0, (double)got / (t1 - t0),
	       (long long)sent - (long long)got, k, errors,
	       tries < 20 ? "true" : "false",
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) /
	       1e6);
	return tries < 20 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atoi(argv[3]), atof(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "run"))
		return run(argv[2], atoi(argv[3]), atoi(argv[4]),
			   atof(argv[5]));
	fprintf(stderr, "usage: udpgso serve ADDR PORT SECONDS\n"
			"       udpgso run ADDR PORT LEN SECONDS\n");
	return 2;
}
