// SPDX-License-Identifier: GPL-2.0-or-later
/* test/bench/udpq.c - DNS-like UDP request/response load: many clients, a new
 * source port for every query
 *
 * "udpq serve ADDR PORT LIFETIME_S" answers every datagram on ADDR:PORT with
 * the same bytes (a 64-byte "answer" for a 32-byte "query" would change
 * nothing the daemons care about), one thread, until LIFETIME_S (SIGALRM).
 *
 * "udpq run DST PORT CLIENTS SECONDS" keeps CLIENTS queries in flight, as
 * stub resolvers do: each query opens a new socket (so the kernel picks a new
 * ephemeral source port: a new flow for a NAT), connects it to DST:PORT,
 * sends 32 bytes (client number, query number, a random tag), waits for the
 * answer, checks that it carries the same bytes, closes the socket and
 * starts the next query.  No answer within TIMEOUT_MS (1000, as the shortest
 * resolver timeouts) counts as unanswered; an ICMP port unreachable
 * (ECONNREFUSED) as refused; wrong bytes as bad.  No new query starts after
 * SECONDS; the run ends when the last one is answered or timed out.
 * Prints one JSON object: queries, replies, unanswered, refused, bad,
 * replies per second over SECONDS, latency p50/p99/max in seconds (query
 * sent to answer read), and the client's own CPU seconds.
 *
 * Usage: udpq serve ADDR PORT LIFETIME_S
 *        udpq run DST PORT CLIENTS SECONDS [TIMEOUT_MS]
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QUERY_LEN	32	/* bytes of a query, as a small DNS question */
#define CLIENTS_MAX	10000	/* concurrent clients, at most */

/**
 * struct query - One client's query in flight
 * @fd:		its socket, -1 if none
 * @seq:	query number of this client
 * @tag:	random bytes the answer must carry
 * @sent_ns:	CLOCK_MONOTONIC time the query was sent, ns
 */
struct query {
	int fd;
	uint32_t seq;
	uint64_t tag;
	uint64_t sent_ns;
};

static struct query q[CLIENTS_MAX];
static double *lat;		/* latencies of answered queries, s */
static size_t nlat, lat_cap;
static unsigned long n_sent, n_unanswered, n_refused, n_bad, n_err;

/**
 * now_ns() - CLOCK_MONOTONIC in nanoseconds
 *
 * Return: current time, ns
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * query_fill() - Write the bytes of client @i's current query
 * @i:		client number
 * @buf:	QUERY_LEN bytes, filled: client, sequence, tag, then the tag again
 */
static void query_fill(unsigned i, uint8_t *buf)
{
	uint32_t c = (uint32_t)i;

	memcpy(buf, &c, 4);
	memcpy(buf + 4, &q[i].seq, 4);
	memcpy(buf + 8, &q[i].tag, 8);
	memcpy(buf + 16, &q[i].tag, 8);
	memcpy(buf + 24, &q[i].sent_ns, 8);
}

/**
 * query_end() - Close client @i's socket
 * @ep:		epoll descriptor
 * @i:		client number
 */
static void query_end(int ep, unsigned i)
{
	if (q[i].fd < 0)
		return;
	epoll_ctl(ep, EPOLL_CTL_DEL, q[i].fd, NULL);
	close(q[i].fd);
	q[i].fd = -1;
}

/**
 * query_start() - Open a new socket for client @i and send its next query
 * @ep:		epoll descriptor
 * @i:		client number
 * @dst:	server address
 *
 * Return: 0, or -1 if no socket could be opened or sent on (counted in n_err)
 */
static int query_start(int ep, unsigned i, const struct sockaddr_in *dst)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint8_t buf[QUERY_LEN];
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		n_err++;
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) < 0) {
		close(fd);
		n_err++;
		return -1;
	}
	q[i].fd = fd;
	q[i].seq++;
	q[i].tag = ((uint64_t)random() << 32) ^ (uint64_t)random();
	q[i].sent_ns = now_ns();
	query_fill(i, buf);
	ev.data.u32 = i;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ||
	    send(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
		query_end(ep, i);
		n_err++;
		return -1;
	}
	n_sent++;
	return 0;
}

/**
 * query_read() - Read client @i's answer, check and time it
 * @ep:		epoll descriptor
 * @i:		client number
 *
 * Return: 1 if the query is over (answered, refused, bad), 0 to keep waiting
 */
static int query_read(int ep, unsigned i)
{
	uint8_t buf[QUERY_LEN * 2], want[QUERY_LEN];
	ssize_t n;

	n = recv(q[i].fd, buf, sizeof(buf), 0);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0) {
		if (errno == ECONNREFUSED)
			n_refused++;
		else
			n_err++;
		query_end(ep, i);
		return 1;
	}
	query_fill(i, want);
	if (n != QUERY_LEN || memcmp(buf, want, QUERY_LEN)) {
		n_bad++;
	} else {
		if (nlat == lat_cap) {
			lat_cap = lat_cap ? lat_cap * 2 : 65536;
			lat = realloc(lat, lat_cap * sizeof(*lat));
			if (!lat) {
				perror("realloc");
				exit(1);
			}
		}
		lat[nlat++] = (double)(now_ns() - q[i].sent_ns) / 1e9;
	}
	query_end(ep, i);
	return 1;
}

/**
 * cmp_double() - qsort() comparison of two doubles
 * @a:		first
 * @b:		second
 *
 * Return: -1, 0 or 1
 */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/**
 * pct() - Nearest-rank percentile of the sorted latencies
 * @p:		percentile, 0 to 100
 *
 * Return: latency in seconds, -1 if there is none
 */
static double pct(double p)
{
	size_t k;

	if (!nlat)
		return -1;
	k = (size_t)(p / 100.0 * (double)nlat + 0.999999);
	if (k < 1)
		k = 1;
	return lat[k > nlat ? nlat - 1 : k - 1];
}

/**
 * run() - The client side, see the file comment
 * @dst:	server address
 * @clients:	queries kept in flight
 * @secs:	seconds during which new queries start
 * @timeout_ms:	a query not answered by then is unanswered
 *
 * Return: 0 if at least one answer came, 1 otherwise
 */
static int run(const struct sockaddr_in *dst, unsigned clients, unsigned secs,
	       unsigned timeout_ms)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)secs * 1000000000ULL;
	uint64_t tmo = (uint64_t)timeout_ms * 1000000ULL, last_sweep = t0;
	struct epoll_event ev[256];
	unsigned i, active = 0;
	struct rusage ru;
	int ep, stop = 0;

	ep = epoll_create1(0);
	if (ep < 0) {
		perror("epoll_create1");
		return 1;
	}
	srandom((unsigned)t0);
	for (i = 0; i < clients; i++) {
		q[i].fd = -1;
		if (!query_start(ep, i, dst))
			active++;
	}
	while (active || !stop) {
		uint64_t t = now_ns();
		int n, k;

		if (!stop && t >= end)
			stop = 1;
		n = epoll_wait(ep, ev, 256, 10);
		for (k = 0; k < n; k++) {
			i = ev[k].data.u32;
			if (!query_read(ep, i))
				continue;
			active--;
			if (!stop && !query_start(ep, i, dst))
				active++;
		}
		t = now_ns();
		if (t - last_sweep < 10000000ULL)
			continue;
		last_sweep = t;
		for (i = 0; i < clients; i++) {
			if (q[i].fd < 0) {
				/* socket() or send() failed: try again */
				if (!stop && !query_start(ep, i, dst))
					active++;
				continue;
			}
			if (t - q[i].sent_ns < tmo)
				continue;
			n_unanswered++;
			query_end(ep, i);
			active--;
			if (!stop && !query_start(ep, i, dst))
				active++;
		}
		if (stop && !active)
			break;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_double);
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"clients\": %u, \"seconds\": %u, \"queries\": %lu, "
	       "\"replies\": %zu, \"unanswered\": %lu, \"refused\": %lu, "
	       "\"bad\": %lu, \"errors\": %lu, \"rate\": %.1f, "
	       "\"p50_s\": %.6f, \"p99_s\": %.6f, \"max_s\": %.6f, "
	       "\"client_cpu_s\": %.3f}\n",
	       clients, secs, n_sent, nlat, n_unanswered, n_refused, n_bad,
	       n_err, (double)nlat / secs, pct(50), pct(99),
	       nlat ? lat[nlat - 1] : -1.0,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return nlat ? 0 : 1;
}

/**
 * serve() - The server side: echo every datagram to its sender
 * @addr:	address to bind
 * @lifetime:	seconds before SIGALRM ends the process
 *
 * Return: 1 on set-up failure (never returns otherwise)
 */
static int serve(const struct sockaddr_in *addr, unsigned lifetime)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, buf = 4 << 20;

	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (const struct sockaddr *)addr, sizeof(*addr))) {
		perror("udpq serve");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	alarm(lifetime);
	for (;;) {
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		uint8_t b[2048];
		ssize_t n;

		n = recvfrom(s, b, sizeof(b), 0, (struct sockaddr *)&peer, &plen);
		if (n < 0)
			continue;
		sendto(s, b, (size_t)n, 0, (struct sockaddr *)&peer, plen);
	}
}

/**
 * main() - Entry point, see the file comment
 * @argc:	argument count
 * @argv:	serve ADDR PORT LIFETIME_S, or run DST PORT CLIENTS SECONDS [TIMEOUT_MS]
 *
 * Return: 0 on success, 1 on failure, 2 on bad usage
 */
int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	if (argc < 5 || inet_pton(AF_INET, argv[2], &a.sin_addr) != 1)
		goto usage;
	a.sin_port = htons((uint16_t)atoi(argv[3]));
	if (!strcmp(argv[1], "serve") && argc == 5)
		return serve(&a, (unsigned)atoi(argv[4]));
	if (!strcmp(argv[1], "run") && (argc == 6 || argc == 7)) {
		unsigned c = (unsigned)atoi(argv[4]), s = (unsigned)atoi(argv[5]);

		if (c < 1 || c > CLIENTS_MAX || s < 1)
			goto usage;
		return run(&a, c, s, argc == 7 ? (unsigned)atoi(argv[6]) : 1000);
	}
usage:
	fprintf(stderr, "usage: udpq serve ADDR PORT LIFETIME_S\n"
			"       udpq run DST PORT CLIENTS SECONDS [TIMEOUT_MS]\n");
	return 2;
}
