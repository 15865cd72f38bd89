// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_splice_test.c - Loopback splice path (splice/tcp_splice.c,
 *				 passt/nsock.c)
 *
 * Every test runs in a scratch network namespace (fake_netns.c) with real
 * loopback TCP sockets.  Expected behaviour comes from the kernel's
 * documentation, not from our code: splice(2) ("A return value of 0 means
 * end of input"; EAGAIN when SPLICE_F_NONBLOCK is given or a descriptor is
 * non-blocking and the operation would block), tcp(7) and RFC 9293 3.5.3
 * (a reset fails the peer's calls with ECONNRESET), shutdown(2), socket(7)
 * (SO_NETNS_COOKIE, Linux 5.14: the cookie of the network namespace a
 * socket belongs to) and proc(5) (Seccomp, CapEff and NoNewPrivs in
 * /proc/PID/status).  Byte streams are a fixed pattern the test checks
 * itself.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "../../lib/inany.h"
#include "../../lib/log.h"
#include "../../passt/epoll_ref.h"
#include "../../passt/flow.h"
#include "../../passt/fwd.h"
#include "../../passt/passt.h"
#include "../../passt/nsock.h"
#include "../../splice/splice.h"
#include "../../splice/tcp_splice_internal.h"
#include "fake_netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71	/* include/uapi/asm-generic/socket.h */
#endif

#define PATTERN_LEN		(4 * 1024 * 1024)

static struct ctx ctx;
static uint8_t pattern[PATTERN_LEN];
static uint8_t rbuf[256 * 1024];

/**
 * setup() - Scratch namespace, pattern, quiet logs, fresh statistics
 */
static void setup(void)
{
	size_t i;

	netns_enter_scratch();
	log_level = LOG_ERR;
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + i / 251);
	memset(&passt_stats, 0, sizeof(passt_stats));
}

/**
 * setup_ctx() - setup(), plus a pasta context with one -T rule and no
 *		 namespace (so no helper): the splice path is on
 */
static void setup_ctx(void)
{
	setup();
	memset(&ctx, 0, sizeof(ctx));
	ctx.c.mode = MODE_PASTA;
	ctx.c.tcp_out.n = 1;
	ctx.ns_fd = -1;
	ctx.timer_next = INT64_MAX;
	ctx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ctx.epollfd, 0);
	ck_assert_int_eq(flow_init(256), 0);
	ck_assert_int_eq(splice_init(&ctx), 0);
}

/**
 * listener() - Listening TCP socket on a loopback address, ephemeral port
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	Result: its port, host order
 *
 * Return: socket
 */
static int listener(int af, uint16_t *port)
{
	struct sockaddr_storage sa = { 0 };
	socklen_t sl = sizeof(sa);
	int s = socket(af, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	if (af == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&sa;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&sa;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		sl = sizeof(*a);
	}
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sl), 0);
	ck_assert_int_eq(listen(s, 128), 0);
	sl = sizeof(sa);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(af == AF_INET ? ((struct sockaddr_in *)&sa)->sin_port :
			  ((struct sockaddr_in6 *)&sa)->sin6_port);
	return s;
}

/**
 * connect_lo() - Blocking connect to a loopback port
 * @af:		AF_INET or AF_INET6
 * @port:	Port, host order
 *
 * Return: connected socket
 */
static int connect_lo(int af, uint16_t port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT,
				   .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr = { htonl(INADDR_LOOPBACK) },
				  .sin_port = htons(port) };
	int s = socket(af, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	if (af == AF_INET)
		ck_assert_int_eq(connect(s, (struct sockaddr *)&a4,
					 sizeof(a4)), 0);
	else
		ck_assert_int_eq(connect(s, (struct sockaddr *)&a6,
					 sizeof(a6)), 0);
	return s;
}

/**
 * tcp_pair() - Connected loopback TCP pair
 * @af:		AF_INET or AF_INET6
 * @client:	Result: connecting side, blocking
 * @server:	Result: accepted side, non-blocking
 */
static void tcp_pair(int af, int *client, int *server)
{
	uint16_t port;
	int l = listener(af, &port);

	*client = connect_lo(af, port);
	*server = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	ck_assert_int_ge(*server, 0);
	close(l);
}

/**
 * conn_make() - A spliced connection between two loopback pairs
 * @conn:	Result: s[0] accepted from @c0, s[1] connected to @sv
 * @c0:		Result: the client, blocking
 * @sv:		Result: the server, blocking
 */
static void conn_make(struct tcp_splice_conn *conn, int *c0, int *sv)
{
	int s1;

	memset(conn, 0, sizeof(*conn));
	tcp_pair(AF_INET, c0, &conn->s[0]);
	tcp_pair(AF_INET, &s1, sv);
	fcntl(s1, F_SETFL, O_NONBLOCK);
	conn->s[1] = s1;
	/* *sv is the accepted side here: make it blocking for the test */
	fcntl(*sv, F_SETFL, 0);
	ck_assert_int_eq(splice_pipe_take(conn->pipe[0]), 0);
	ck_assert_int_eq(splice_pipe_take(conn->pipe[1]), 0);
}

/**
 * check_pattern() - Received bytes equal the pattern at an offset
 * @buf:	Bytes
 * @off:	Offset into the pattern
 * @len:	Length
 */
static void check_pattern(const uint8_t *buf, size_t off, size_t len)
{
	ck_assert_msg(!memcmp(buf, pattern + off, len),
		      "data differs in bytes %zu..%zu", off, off + len);
}

/**
 * pump() - Send pattern bytes into @in and forward them until @out has all
 * @conn:	Connection
 * @d:		Direction to forward
 * @in:		Socket written by the test
 * @out:	Socket read by the test
 * @len:	Bytes (at most PATTERN_LEN)
 */
static void pump(struct tcp_splice_conn *conn, unsigned d, int in, int out,
		 size_t len)
{
	int64_t end = now_ms() + 15000;
	size_t sent = 0, got = 0;

	while (got < len) {
		ssize_t n;

		if (sent < len) {
			n = send(in, pattern + sent, len - sent, MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
		}
		ck_assert_int_eq(splice_dir_forward(conn, d), 0);
		n = recv(out, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n > 0) {
			ck_assert_uint_le(got + (size_t)n, len);
			check_pattern(rbuf, got, (size_t)n);
			got += (size_t)n;
		}
		ck_assert_msg(now_ms() < end, "stuck at %zu of %zu bytes",
			      got, len);
	}
}

/* splice(2): an empty non-blocking socket gives EAGAIN, not 0 */
START_TEST(test_kernel_splice_empty_socket_eagain)
{
	int c, s, p[2];

	tcp_pair(AF_INET, &c, &s);
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	errno = 0;
	ck_assert_int_eq(splice(s, NULL, p[1], NULL, 65536,
				SPLICE_F_NONBLOCK), -1);
	ck_assert_int_eq(errno, EAGAIN);
}
END_TEST

/* splice(2): "A return value of 0 means end of input", after the peer's
 * shutdown(SHUT_WR) and once the queued bytes are read
 */
START_TEST(test_kernel_splice_eof_returns_zero)
{
	int c, s, p[2];

	tcp_pair(AF_INET, &c, &s);
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(send(c, "abc", 3, 0), 3);
	ck_assert_int_eq(shutdown(c, SHUT_WR), 0);
	usleep(10000);
	ck_assert_int_eq(splice(s, NULL, p[1], NULL, 65536,
				SPLICE_F_NONBLOCK), 3);
	ck_assert_int_eq(splice(s, NULL, p[1], NULL, 65536,
				SPLICE_F_NONBLOCK), 0);
}
END_TEST

/* splice(2): writing into a full socket with SPLICE_F_NONBLOCK gives
 * EAGAIN, the bytes stay in the pipe
 */
START_TEST(test_kernel_splice_full_socket_eagain)
{
	int c, s, p[2], small = 4096, i;
	ssize_t n = 0;

	tcp_pair(AF_INET, &c, &s);
	setsockopt(c, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(write(p[1], pattern, 4096), 4096);
		n = splice(p[0], NULL, s, NULL, 4096, SPLICE_F_NONBLOCK);
		if (n < 0)
			break;
	}
	ck_assert_int_eq(n, -1);
	ck_assert_int_eq(errno, EAGAIN);
}
END_TEST

/* 4 MiB from the client reach the server in order, and back */
START_TEST(test_splice_dir_forward_moves_bytes_in_order)
{
	struct tcp_splice_conn conn;
	int c0, sv;

	conn_make(&conn, &c0, &sv);
	pump(&conn, 0, c0, sv, PATTERN_LEN);
	pump(&conn, 1, sv, c0, PATTERN_LEN);
	ck_assert_uint_eq(conn.pipe_used[0], 0);
	ck_assert_uint_eq(conn.pipe_used[1], 0);
	ck_assert_uint_eq(conn.events, 0);
	ck_assert_uint_eq(splice_stats.bytes, 2 * PATTERN_LEN);
}
END_TEST

/* A FIN from the client reaches the server after its data (shutdown(2)),
 * while the server's reply still flows back; then the server's FIN
 */
START_TEST(test_splice_dir_forward_half_close)
{
	struct tcp_splice_conn conn;
	int64_t end = now_ms() + 5000;
	size_t got = 0;
	int c0, sv;

	conn_make(&conn, &c0, &sv);
	ck_assert_int_eq(send(c0, pattern, 1000, 0), 1000);
	ck_assert_int_eq(shutdown(c0, SHUT_WR), 0);
	for (;;) {
		ssize_t n;

		ck_assert_int_eq(splice_dir_forward(&conn, 0), 0);
		n = recv(sv, rbuf + got, sizeof(rbuf) - got, MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n > 0)
			got += (size_t)n;
		ck_assert(now_ms() < end);
	}
	ck_assert_uint_eq(got, 1000);
	check_pattern(rbuf, 0, 1000);
	ck_assert(conn.events & SEV_FIN_RCVD(0));
	ck_assert(conn.events & SEV_FIN_SENT(0));
	ck_assert(!(conn.events & SEV_FIN_SENT(1)));

	/* The other direction still carries data */
	pump(&conn, 1, sv, c0, 300000);
	ck_assert_int_eq(shutdown(sv, SHUT_WR), 0);
	for (;;) {
		ssize_t n;

		ck_assert_int_eq(splice_dir_forward(&conn, 1), 0);
		n = recv(c0, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n == 0)
			break;
		ck_assert_int_lt(n, 0);
		ck_assert(now_ms() < end);
	}
	ck_assert(conn.events & SEV_FIN_SENT(1));
}
END_TEST

/* A receiver that doesn't read: forwarding stops with the bytes in the
 * pipe and SFL_OUT_WAIT set, without blocking; nothing is lost after
 */
START_TEST(test_splice_dir_forward_back_pressure)
{
	int c0, sv, rcvbuf = 131072, sndbuf = 65536;
	int64_t end = now_ms() + 10000;
	struct tcp_splice_conn conn;
	size_t sent = 0, got = 0;

	/* Small buffers, but not below one loopback segment (64 KiB), which
	 * would leave the sender waiting for window probes
	 */
	conn_make(&conn, &c0, &sv);
	setsockopt(sv, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(conn.s[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));

	while (!(conn.flags & SFL_OUT_WAIT(0))) {
		ssize_t n = send(c0, pattern + sent, PATTERN_LEN - sent,
				 MSG_DONTWAIT);

		if (n > 0)
			sent += (size_t)n;
		ck_assert_int_eq(splice_dir_forward(&conn, 0), 0);
		ck_assert(now_ms() < end);
	}
	ck_assert_uint_gt(conn.pipe_used[0], 0);

	while (got < sent) {
		ssize_t n;

		ck_assert_int_eq(splice_dir_forward(&conn, 0), 0);
		n = recv(sv, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n > 0) {
			check_pattern(rbuf, got, (size_t)n);
			got += (size_t)n;
		}
		ck_assert(now_ms() < end);
	}
	ck_assert(!(conn.flags & SFL_OUT_WAIT(0)));
	ck_assert_uint_eq(conn.pipe_used[0], 0);
}
END_TEST

/* The client resets (SO_LINGER 0): forwarding fails with ECONNRESET */
START_TEST(test_splice_dir_forward_reset)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	struct tcp_splice_conn conn;
	int c0, sv, ret = 0, i;

	conn_make(&conn, &c0, &sv);
	ck_assert_int_eq(send(c0, pattern, 100, 0), 100);
	setsockopt(c0, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(c0);
	for (i = 0; i < 100 && !ret; i++) {
		ret = splice_dir_forward(&conn, 0);
		usleep(1000);
	}
	ck_assert_int_eq(ret, -ECONNRESET);
}
END_TEST

/**
 * loop_once() - One round of a main loop restricted to the splice path
 * @ms:		epoll_wait() timeout, ms
 */
static void loop_once(int ms)
{
	struct epoll_event ev[32];
	int n, i;

	n = epoll_wait(ctx.epollfd, ev, 32, ms);
	ctx.now = now_ms();
	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		if (ref.type == EPOLL_TYPE_TCP_SPLICE)
			splice_tcp_handler(&ctx, ref, ev[i].events);
		else if (ref.type == EPOLL_TYPE_NS_HELPER)
			nsock_handler(&ctx, ev[i].events);
	}
	if (ctx.now >= ctx.timer_next) {
		ctx.timer_next = INT64_MAX;
		nsock_refill();
		flow_timer(&ctx);
	}
	flow_free_flush();	/* as the main loop does after each batch */
}

/**
 * accept_spliced() - A client connects to a -T listener, the splice path
 *		      takes the accepted socket
 * @af:		Address family of the client
 * @l:		Listener playing the -T port
 * @lport:	Its port
 * @to_port:	Target port
 *
 * Return: the client's socket
 */
static int accept_spliced(int af, int l, uint16_t lport, uint16_t to_port)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	union inany peer;
	uint16_t pport;
	int c, s;

	c = connect_lo(af, lport);
	s = accept4(l, (struct sockaddr *)&sa, &sl,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
	ck_assert_int_ge(s, 0);
	ctx.now = now_ms();
	inany_from_sockaddr(&peer, &pport, &sa);
	ck_assert(splice_tcp_accept(&ctx, s, &peer, pport, lport, to_port,
				    true));
	return c;
}

/**
 * recv_wait() - Receive with the loop running until @len bytes or EOF
 * @s:		Socket, blocking
 * @buf:	Buffer
 * @len:	Bytes wanted
 *
 * Return: bytes received (less than @len only at EOF), or -errno
 */
static ssize_t recv_wait(int s, uint8_t *buf, size_t len)
{
	int64_t end = now_ms() + 5000;
	size_t got = 0;

	while (got < len && now_ms() < end) {
		ssize_t n = recv(s, buf + got, len - got, MSG_DONTWAIT);

		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n > 0)
			got += (size_t)n;
		else
			loop_once(10);
	}
	return (ssize_t)got;
}

/**
 * count_fds() - Open file descriptors of this process
 *
 * Return: count
 */
static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* -T: the connection is carried to the target port on loopback, same
 * family, data both ways, and both sides' FINs close the flow
 */
START_TEST(test_splice_accept_ns_carries_data_both_ways)
{
	int afs[2] = { AF_INET, AF_INET6 }, i;

	for (i = 0; i < 2; i++) {
		uint16_t lport, sport;
		int l = listener(afs[i], &lport), srv = listener(afs[i], &sport);
		int c = accept_spliced(afs[i], l, lport, sport), sv;

		loop_once(10);
		sv = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		ck_assert_int_ge(sv, 0);

		ck_assert_int_eq(send(c, pattern, 70000, 0), 70000);
		ck_assert_int_eq(recv_wait(sv, rbuf, 70000), 70000);
		check_pattern(rbuf, 0, 70000);
		ck_assert_int_eq(send(sv, pattern, 5000, 0), 5000);
		ck_assert_int_eq(recv_wait(c, rbuf, 5000), 5000);
		check_pattern(rbuf, 0, 5000);

		ck_assert_int_eq(flow_count(), 1);
		shutdown(c, SHUT_WR);
		ck_assert_int_eq(recv_wait(sv, rbuf, 1), 0);	/* EOF */
		close(sv);
		ck_assert_int_eq(recv_wait(c, rbuf, 1), 0);
		loop_once(10);
		ck_assert_int_eq(flow_count(), 0);
		close(c);
		close(l);
		close(srv);
	}
	ck_assert_uint_eq(splice_stats.flows_opened, 2);
	ck_assert_uint_eq(splice_stats.flows_closed, 2);
	ck_assert_uint_eq(splice_stats.resets, 0);
}
END_TEST

/* Nothing listens on the target port: the client is reset */
START_TEST(test_splice_accept_refused_resets_client)
{
	uint16_t lport, sport;
	int l = listener(AF_INET, &lport), srv = listener(AF_INET, &sport), c;

	close(srv);		/* a port nobody listens on */
	c = accept_spliced(AF_INET, l, lport, sport);
	ck_assert_int_eq(recv_wait(c, rbuf, 1), -ECONNRESET);
	ck_assert_int_eq(flow_count(), 0);
	ck_assert_uint_eq(splice_stats.connect_failed, 1);
	ck_assert_uint_eq(splice_stats.resets, 1);
}
END_TEST

/* The server resets: the client sees ECONNRESET, the flow is gone */
START_TEST(test_splice_accept_server_reset_reaches_client)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	uint16_t lport, sport;
	int l = listener(AF_INET6, &lport), srv = listener(AF_INET6, &sport);
	int c = accept_spliced(AF_INET6, l, lport, sport), sv;

	loop_once(10);
	sv = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(sv, 0);
	setsockopt(sv, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(sv);
	ck_assert_int_eq(recv_wait(c, rbuf, 1), -ECONNRESET);
	ck_assert_int_eq(flow_count(), 0);
}
END_TEST

/* 300 connections, some reset half-way: every fd is released (the pools
 * are back to their size once the timer ran)
 */
START_TEST(test_splice_accept_no_fd_leak)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	uint16_t lport, sport;
	int l = listener(AF_INET, &lport), srv = listener(AF_INET, &sport);
	unsigned before = count_fds(), i;
	int64_t end;

	for (i = 0; i < 300; i++) {
		int c = accept_spliced(AF_INET, l, lport, sport), sv;

		loop_once(10);
		sv = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		ck_assert_int_ge(sv, 0);
		ck_assert_int_eq(send(c, pattern, 1000, 0), 1000);
		ck_assert_int_eq(recv_wait(sv, rbuf, 1000), 1000);
		if (i % 3 == 2)
			setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
		if (i % 3 != 2)
			ck_assert_int_eq(recv_wait(sv, rbuf, 1), 0);
		else
			recv_wait(sv, rbuf, 1);
		close(sv);
	}
	end = now_ms() + 3000;
	while ((flow_count() || count_fds() != before) && now_ms() < end)
		loop_once(10);
	ck_assert_int_eq(flow_count(), 0);
	ck_assert_uint_eq(count_fds(), before);
	ck_assert_uint_eq(splice_pipe_pool_count(), SPLICE_PIPE_POOL);
	ck_assert_uint_eq(splice_stats.flows_closed, 300);
}
END_TEST

/* Host side: non-loopback peers, --no-splice, and a missing namespace
 * helper all leave the socket to the tap path, untouched
 */
START_TEST(test_splice_accept_host_side_declines)
{
	struct in_addr r4 = { .s_addr = htonl(0xc6336402) };	/* 198.51.100.2 */
	struct in_addr lo4 = { .s_addr = htonl(INADDR_LOOPBACK) };
	union inany peer;
	int c, s;

	tcp_pair(AF_INET, &c, &s);
	inany_from_v4(&peer, r4);
	ck_assert(!splice_tcp_accept(&ctx, s, &peer, 40000, 80, 80, false));
	inany_from_v4(&peer, lo4);
	ck_assert(!splice_tcp_accept(&ctx, s, &peer, 40000, 80, 80, false));
	ctx.c.no_splice = true;
	ck_assert(!splice_tcp_accept(&ctx, s, &peer, 40000, 80, 80, false));
	ck_assert_int_ge(fcntl(s, F_GETFD), 0);		/* still open */
	ck_assert_int_eq(flow_count(), 0);
}
END_TEST

static int ns_other = -1;		/* the "target" namespace */
static uint64_t cookie_here, cookie_other;

/**
 * netns_cookie() - Namespace cookie of a socket (socket(7))
 * @s:		Socket
 *
 * Return: cookie
 */
static uint64_t netns_cookie(int s)
{
	socklen_t sl = sizeof(uint64_t);
	uint64_t c = 0;

	ck_assert_int_eq(getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &c, &sl),
			 0);
	return c;
}

/**
 * setup_nsock() - setup(), then a second namespace to be the target
 */
static void setup_nsock(void)
{
	int here, s;

	setup();
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	s = socket(AF_INET, SOCK_STREAM, 0);
	cookie_here = netns_cookie(s);
	close(s);

	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	ns_other = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	s = socket(AF_INET, SOCK_STREAM, 0);
	cookie_other = netns_cookie(s);
	close(s);
	ck_assert_int_eq(setns(here, CLONE_NEWNET), 0);
	close(here);
	ck_assert_uint_ne(cookie_here, cookie_other);

	memset(&ctx, 0, sizeof(ctx));
	ctx.c.mode = MODE_PASTA;
	ctx.ns_fd = ns_other;
	ctx.timer_next = INT64_MAX;
	ctx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ctx.epollfd, 0);
	ck_assert_int_eq(nsock_init(&ctx, true, false), 0);
}

/* Sockets from the helper belong to the target namespace and are
 * non-blocking, close-on-exec TCP sockets with TCP_NODELAY
 */
START_TEST(test_nsock_sockets_live_in_target_namespace)
{
	int afs[2] = { AF_INET, AF_INET6 }, i;

	for (i = 0; i < 2; i++) {
		int s, v = 0, type = 0;
		socklen_t sl = sizeof(v);

		ck_assert_uint_eq(nsock_avail(afs[i]), NSOCK_POOL);
		s = nsock_get(afs[i]);
		ck_assert_int_ge(s, 0);
		ck_assert_uint_eq(netns_cookie(s), cookie_other);
		ck_assert(fcntl(s, F_GETFL) & O_NONBLOCK);
		ck_assert(fcntl(s, F_GETFD) & FD_CLOEXEC);
		ck_assert_int_eq(getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v,
					    &sl), 0);
		ck_assert_int_eq(v, 1);
		sl = sizeof(v);
		ck_assert_int_eq(getsockopt(s, SOL_SOCKET, SO_DOMAIN, &type,
					    &sl), 0);
		ck_assert_int_eq(type, afs[i]);
		close(s);
	}
}
END_TEST

/* Taking more than a pool holds waits for the helper, and every socket
 * is still in the target namespace
 */
START_TEST(test_nsock_get_beyond_pool)
{
	int s[NSOCK_POOL * 3], i;

	for (i = 0; i < (int)ARRAY_SIZE(s); i++) {
		s[i] = nsock_get(AF_INET6);
		ck_assert_int_ge(s[i], 0);
		ck_assert_uint_eq(netns_cookie(s[i]), cookie_other);
	}
	for (i = 0; i < (int)ARRAY_SIZE(s); i++)
		close(s[i]);
}
END_TEST

/* A refill request is answered through the epoll set */
START_TEST(test_nsock_refill_through_epoll)
{
	int64_t end = now_ms() + 3000;
	int i;

	for (i = 0; i < 5; i++)
		close(nsock_get(AF_INET));
	ck_assert_uint_eq(nsock_avail(AF_INET), NSOCK_POOL - 5);
	ck_assert(nsock_refill_due());
	nsock_refill();
	ck_assert(!nsock_refill_due());
	while (nsock_avail(AF_INET) < NSOCK_POOL && now_ms() < end)
		loop_once(100);
	ck_assert_uint_eq(nsock_avail(AF_INET), NSOCK_POOL);
}
END_TEST

/* proc(5): the helper has no capabilities, no_new_privs and a seccomp
 * filter (mode 2), and it is in the target namespace
 */
START_TEST(test_nsock_helper_confined)
{
	char path[64], line[256], ns_link[64], ns_target[64];
	bool seccomp = false, capeff = false, nnp = false;
	pid_t pid = nsock_pid();
	struct stat st_h, st_t;
	FILE *f;

	ck_assert_int_gt(pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "Seccomp:\t2\n"))
			seccomp = true;
		if (!strcmp(line, "CapEff:\t0000000000000000\n"))
			capeff = true;
		if (!strcmp(line, "NoNewPrivs:\t1\n"))
			nnp = true;
	}
	fclose(f);
	ck_assert(seccomp);
	ck_assert(capeff);
	ck_assert(nnp);

	snprintf(ns_link, sizeof(ns_link), "/proc/%d/ns/net", pid);
	snprintf(ns_target, sizeof(ns_target), "/proc/self/fd/%d", ns_other);
	ck_assert_int_eq(stat(ns_link, &st_h), 0);
	ck_assert_int_eq(stat(ns_target, &st_t), 0);
	ck_assert_uint_eq(st_h.st_ino, st_t.st_ino);
}
END_TEST

/* The events of a spliced connection: nothing is read while connect() is
 * under way; a direction is shut for writing (shutdown(2) SHUT_WR, our FIN
 * on s[!d]) only after EOF was read from s[d]; EOFs and shutdowns are
 * never taken back, SEV_CONNECTING is (an IPv4 fallback connects again)
 */
START_TEST(test_splice_events_table)
{
	const unsigned both_rcvd = SEV_FIN_RCVD_0 | SEV_FIN_RCVD_1;
	unsigned d;

	ck_assert(splice_events_allowed(0, SEV_CONNECTING));
	ck_assert(splice_events_allowed(SEV_CONNECTING, 0));
	ck_assert(!splice_events_allowed(SEV_CONNECTING,
					 SEV_CONNECTING | SEV_FIN_RCVD_0));
	ck_assert(!splice_events_allowed(SEV_FIN_RCVD_1,
					 SEV_FIN_RCVD_1 | SEV_CONNECTING));
	for (d = 0; d < 2; d++) {
		ck_assert(splice_events_allowed(0, SEV_FIN_RCVD(d)));
		ck_assert(splice_events_allowed(SEV_FIN_RCVD(d),
					SEV_FIN_RCVD(d) | SEV_FIN_SENT(d)));
		ck_assert(!splice_events_allowed(0, SEV_FIN_SENT(d)));
		ck_assert(!splice_events_allowed(SEV_FIN_RCVD(!d),
					SEV_FIN_RCVD(!d) | SEV_FIN_SENT(d)));
		ck_assert(!splice_events_allowed(SEV_FIN_RCVD(d), 0));
		ck_assert(!splice_events_allowed(
			SEV_FIN_RCVD(d) | SEV_FIN_SENT(d), SEV_FIN_RCVD(d)));
	}
	ck_assert(splice_events_allowed(both_rcvd | SEV_FIN_SENT_0,
			both_rcvd | SEV_FIN_SENT_0 | SEV_FIN_SENT_1));
	ck_assert(!splice_events_allowed(0, 1U << SEV_COUNT));
}
END_TEST

/* Flags: the family and the side are fixed at accept, the IPv4 fallback
 * happens once, to an IPv6 connection from the host, back-pressure comes
 * and goes
 */
START_TEST(test_splice_flags_table)
{
	ck_assert(splice_flags_allowed(0, 0, SFL_FROM_NS | SFL_IPV6));
	ck_assert(!splice_flags_allowed(SEV_CONNECTING, 0, SFL_IPV6));
	ck_assert(!splice_flags_allowed(SEV_FIN_RCVD_0, SFL_FROM_NS, 0));
	ck_assert(splice_flags_allowed(SEV_CONNECTING, SFL_IPV6,
				       SFL_IPV6 | SFL_V4_FALLBACK));
	ck_assert(!splice_flags_allowed(SEV_CONNECTING, 0, SFL_V4_FALLBACK));
	ck_assert(!splice_flags_allowed(SEV_CONNECTING,
					SFL_IPV6 | SFL_FROM_NS,
					SFL_IPV6 | SFL_FROM_NS |
					SFL_V4_FALLBACK));
	ck_assert(!splice_flags_allowed(0, SFL_IPV6 | SFL_V4_FALLBACK,
					SFL_IPV6));
	ck_assert(splice_flags_allowed(SEV_FIN_RCVD_1, SFL_IPV6,
				       SFL_IPV6 | SFL_OUT_WAIT_0));
	ck_assert(splice_flags_allowed(SEV_FIN_RCVD_1,
				       SFL_IPV6 | SFL_OUT_WAIT(1), SFL_IPV6));
}
END_TEST

/**
 * tcp_splice_suite() - Test cases of splice/
 *
 * Return: the suite
 */
static Suite *tcp_splice_suite(void)
{
	Suite *s = suite_create("tcp_splice");
	TCase *tc;

	tc = tcase_create("states");
	tcase_add_test(tc, test_splice_events_table);
	tcase_add_test(tc, test_splice_flags_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("kernel");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_kernel_splice_empty_socket_eagain);
	tcase_add_test(tc, test_kernel_splice_eof_returns_zero);
	tcase_add_test(tc, test_kernel_splice_full_socket_eagain);
	suite_add_tcase(s, tc);

	tc = tcase_create("forward");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_splice_dir_forward_moves_bytes_in_order);
	tcase_add_test(tc, test_splice_dir_forward_half_close);
	tcase_add_test(tc, test_splice_dir_forward_back_pressure);
	tcase_add_test(tc, test_splice_dir_forward_reset);
	suite_add_tcase(s, tc);

	tc = tcase_create("accept");
	tcase_add_checked_fixture(tc, setup_ctx, NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_splice_accept_ns_carries_data_both_ways);
	tcase_add_test(tc, test_splice_accept_refused_resets_client);
	tcase_add_test(tc, test_splice_accept_server_reset_reaches_client);
	tcase_add_test(tc, test_splice_accept_no_fd_leak);
	tcase_add_test(tc, test_splice_accept_host_side_declines);
	suite_add_tcase(s, tc);

	tc = tcase_create("nsock");
	tcase_add_checked_fixture(tc, setup_nsock, NULL);
	tcase_add_test(tc, test_nsock_sockets_live_in_target_namespace);
	tcase_add_test(tc, test_nsock_get_beyond_pool);
	tcase_add_test(tc, test_nsock_refill_through_epoll);
	tcase_add_test(tc, test_nsock_helper_confined);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - Run the suite, CK_ENV chooses the verbosity
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(tcp_splice_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
