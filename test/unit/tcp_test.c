// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_test.c - The TCP engine (passt/tcp.c) against RFC 9293
 *
 * The guest side is a socketpair() in place of the tap: the test writes
 * frames the way a guest would and reads what the engine sends back (the
 * passt stream framing, tap/tap.c).  The host side is the real kernel: a
 * listening TCP socket on 127.0.0.1.  Expected values come from RFC 9293
 * (handshake numbers, RST generation) and from what the real host peer
 * sends or receives.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../passt/flow.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/tcp_seq.h"
#include "../../tap/csum.h"
#include "../../tap/frame.h"
#include "../../tap/guest.h"
#include "../../tap/tap.h"

#define F_FIN	0x01
#define F_SYN	0x02
#define F_RST	0x04
#define F_PSH	0x08
#define F_ACK	0x10

static const uint8_t mac_our[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
static const uint8_t mac_guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static struct ctx ctx;
static int tapfd[2];
static int lsock;		/* host-side listener on 127.0.0.1 */
static uint16_t lport;		/* its port */

/**
 * struct seg - A segment the engine sent to the guest
 */
struct seg {
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t wnd;
	uint16_t sport, dport;
	uint16_t mss;		/* MSS option, 0 if none */
	int ws;			/* window scale option, -1 if none */
	uint8_t data[2048];
	size_t len;
};

static void setup_common(bool fallback, unsigned flow_max)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	struct conf *c = &ctx.c;

	memset(&ctx, 0, sizeof(ctx));
	c->mode = MODE_PASST;
	c->mtu = 65520;
	memcpy(c->mac_our, mac_our, 6);
	memcpy(c->mac_guest, mac_guest, 6);
	c->mac_guest_set = true;
	tap_guest_init(c);
	c->ip4.enabled = true;
	inet_pton(AF_INET, "203.0.113.15", &c->ip4.addr);
	c->ip4.prefix_len = 24;
	inet_pton(AF_INET, "203.0.113.2", &c->ip4.gw);
	c->ip4.map_host_loopback = c->ip4.gw;
	c->flow_max = flow_max;
	c->peek_fallback = fallback;

	tcp_flow_register();	/* as main() does: timers reach TCP */
	ck_assert_int_eq(flow_init(flow_max), 0);
	ctx.epollfd = epoll_create1(0);
	ck_assert_int_ge(ctx.epollfd, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, tapfd), 0);
	fcntl(tapfd[0], F_SETFL, O_NONBLOCK);
	tap_init(TAP_STREAM, tapfd[0], false);
	ctx.now = now_ms();
	ctx.timer_next = INT64_MAX;
	tcp_init(&ctx);

	lsock = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(lsock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lsock, 16), 0);
	getsockname(lsock, (struct sockaddr *)&sa, &sl);
	lport = ntohs(sa.sin_port);
	memset(&passt_stats, 0, sizeof(passt_stats));
}

static void setup_peek(void)
{
	setup_common(false, 16);
}

static void setup_discard(void)
{
	setup_common(true, 16);
}

static void setup_small_table(void)
{
	setup_common(false, 2);
}

/* Build an Ethernet/IPv4/TCP frame from the guest at @buf (zeroed, at
 * least 54 + @optlen + @len bytes); returns its length
 */
static size_t build_seg(uint8_t *buf, uint16_t sport, uint16_t dport,
			uint8_t flags, uint32_t seq, uint32_t ack, uint16_t wnd,
			const uint8_t *opt, size_t optlen,
			const void *data, size_t len)
{
	size_t l4 = 20 + optlen + len;
	struct in_addr src, dst;
	uint16_t ck;
	uint8_t *ip = buf + 14, *th = ip + 20;

	inet_pton(AF_INET, "203.0.113.15", &src);
	inet_pton(AF_INET, "203.0.113.2", &dst);
	memcpy(buf, mac_our, 6);
	memcpy(buf + 6, mac_guest, 6);
	buf[12] = 0x08;
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(20 + l4));
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	ck = csum(ip, 20, 0);
	memcpy(ip + 10, &ck, 2);
	put_be16(th, sport);
	put_be16(th + 2, dport);
	put_be32(th + 4, seq);
	put_be32(th + 8, ack);
	th[12] = (uint8_t)(((20 + optlen) / 4) << 4);
	th[13] = flags;
	put_be16(th + 14, wnd);
	if (optlen)
		memcpy(th + 20, opt, optlen);
	if (len)
		memcpy(th + 20 + optlen, data, len);
	return 14 + 20 + l4;
}

/* Guest -> engine: build a frame and hand it over */
static void send_seg(uint16_t sport, uint16_t dport, uint8_t flags,
		     uint32_t seq, uint32_t ack, uint16_t wnd,
		     const uint8_t *opt, size_t optlen,
		     const void *data, size_t len)
{
	uint8_t buf[2048] = { 0 };
	struct frame f;
	size_t n = build_seg(buf, sport, dport, flags, seq, ack, wnd, opt,
			     optlen, data, len);

	ck_assert_int_eq(frame_parse(buf, n, &f), 0);
	ctx.now = now_ms();
	tcp_tap_handler(&ctx, &f, 1);
	tap_flush();
}

/* Run the event loop's TCP part until nothing happens for @ms */
static void pump(int ms)
{
	struct epoll_event ev[8];
	int n, i;

	while ((n = epoll_wait(ctx.epollfd, ev, 8, ms)) > 0) {
		ctx.now = now_ms();
		for (i = 0; i < n; i++) {
			union epoll_ref ref = { .u64 = ev[i].data.u64 };

			if (ref.type == EPOLL_TYPE_TCP)
				tcp_sock_handler(&ctx, ref, ev[i].events);
		}
		tap_flush();
	}
}

static bool read_full(int fd, void *p, size_t len, int ms)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, ms) <= 0)
			return false;
		n = read(fd, (uint8_t *)p + got, len - got);
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

/* Engine -> guest: next TCP segment from the socketpair, within @ms */
static bool recv_seg(struct seg *s, int ms)
{
	uint8_t lenb[4], buf[70000];
	struct frame f;
	size_t i, optlen;
	uint32_t len;

	for (;;) {
		if (!read_full(tapfd[1], lenb, 4, ms))
			return false;
		len = get_be32(lenb);
		ck_assert_uint_le(len, sizeof(buf));
		ck_assert(read_full(tapfd[1], buf, len, ms));
		ck_assert_int_eq(frame_parse(buf, len, &f), 0);
		if (f.proto == IPPROTO_TCP)
			break;
	}

	/* Checksum over pseudo-header and segment must verify to 0 (RFC
	 * 9293 3.1): the stream back-end never leaves it partial
	 */
	ck_assert_uint_eq(csum(f.l4, f.l4_len, csum_pseudo(&f.src, &f.dst,
				IPPROTO_TCP, f.l4_len)), 0);

	s->sport = f.sport;
	s->dport = f.dport;
	s->seq = get_be32(f.l4 + 4);
	s->ack = get_be32(f.l4 + 8);
	s->flags = f.l4[13];
	s->wnd = get_be16(f.l4 + 14);
	s->len = MIN(f.payload_len, sizeof(s->data));
	memcpy(s->data, f.payload, s->len);
	s->mss = 0;
	s->ws = -1;
	optlen = f.l4_hlen - 20;
	for (i = 0; i < optlen;) {
		const uint8_t *o = f.l4 + 20 + i;

		if (o[0] == 0)
			break;
		if (o[0] == 1) {
			i++;
			continue;
		}
		if (o[0] == 2)
			s->mss = get_be16(o + 2);
		if (o[0] == 3)
			s->ws = o[2];
		i += o[1];
	}
	return true;
}

/* Guest connects to the listener: SYN, SYN-ACK, ACK.  Returns the accepted
 * host-side socket; *iss gets the engine's ISS.
 */
static int handshake(uint16_t sport, uint32_t guest_isn, uint32_t *iss)
{
	static const uint8_t opt[] = { 0x02, 0x04, 0x05, 0xb4,	/* MSS 1460 */
				       0x01, 0x03, 0x03, 0x07 };	/* WS 7 */
	struct seg s;
	int a;

	send_seg(sport, lport, F_SYN, guest_isn, 0, 65535, opt, sizeof(opt),
		 NULL, 0);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_SYN | F_ACK);
	*iss = s.seq;
	send_seg(sport, lport, F_ACK, guest_isn + 1, s.seq + 1, 1024, NULL, 0,
		 NULL, 0);
	a = accept(lsock, NULL, NULL);
	ck_assert_int_ge(a, 0);
	pump(20);
	return a;
}

/* RFC 9293 3.5, figure 6: the SYN-ACK acknowledges SEG.SEQ + 1; our MSS
 * is the MTU less 40 bytes of IPv4 and TCP headers (RFC 9293 3.7.1), and
 * window scaling is offered because the SYN offered it (RFC 7323 1.3)
 */
START_TEST(test_tcp_syn_ack_acknowledges_isn_plus_one)
{
	static const uint8_t opt[] = { 0x02, 0x04, 0x05, 0xb4,
				       0x01, 0x03, 0x03, 0x07 };
	struct seg s;

	send_seg(40001, lport, F_SYN, 1000, 0, 65535, opt, sizeof(opt),
		 NULL, 0);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_SYN | F_ACK);
	ck_assert_uint_eq(s.ack, 1001);
	ck_assert_uint_eq(s.sport, lport);
	ck_assert_uint_eq(s.dport, 40001);
	ck_assert_uint_eq(s.mss, 65520 - 40);
	ck_assert_int_ge(s.ws, 0);
	ck_assert_int_le(s.ws, 14);
}
END_TEST

/* No window scale option in the SYN: none in the SYN-ACK (RFC 7323 1.3) */
START_TEST(test_tcp_syn_ack_no_ws_without_ws)
{
	static const uint8_t opt[] = { 0x02, 0x04, 0x05, 0xb4 };
	struct seg s;

	send_seg(40002, lport, F_SYN, 5, 0, 65535, opt, sizeof(opt), NULL, 0);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_int_eq(s.ws, -1);
}
END_TEST

/* Data from the guest reaches the host peer, and is acknowledged */
START_TEST(test_tcp_data_from_guest_reaches_peer)
{
	uint32_t iss;
	char buf[16] = { 0 };
	struct seg s;
	int a = handshake(40010, 7000, &iss);

	send_seg(40010, lport, F_ACK | F_PSH, 7001, iss + 1, 1024, NULL, 0,
		 "hello", 5);
	ck_assert_int_eq(recv(a, buf, sizeof(buf), 0), 5);
	ck_assert_str_eq(buf, "hello");
	ck_assert(recv_seg(&s, 1000));
	ck_assert(s.flags & F_ACK);
	ck_assert_uint_eq(s.ack, 7006);
	close(a);
}
END_TEST

/* Data from the host peer goes to the guest at ISS + 1; unacknowledged, it
 * is sent again, the same bytes at the same sequence number, after the RTO
 * (RFC 6298 5.4), from the host socket's queue
 */
static void data_to_guest_and_retransmit(void)
{
	uint32_t iss;
	struct seg s, r;
	int a = handshake(40020, 9000, &iss);

	ck_assert_int_eq(send(a, "world", 5, 0), 5);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.seq, iss + 1);
	ck_assert_uint_eq(s.ack, 9001);
	ck_assert_uint_eq(s.len, 5);
	ck_assert_mem_eq(s.data, "world", 5);

	/* No ACK from the guest: let the RTO expire (initial RTO is 1 s,
	 * RFC 6298 2.1; the RTT sample of the handshake may have lowered it)
	 */
	ctx.now = now_ms() + 61000;
	flow_timer(&ctx);
	tap_flush();
	ck_assert(recv_seg(&r, 1000));
	ck_assert_uint_eq(r.seq, iss + 1);
	ck_assert_uint_eq(r.len, 5);
	ck_assert_mem_eq(r.data, "world", 5);

	/* Now ACK it: nothing more is sent, the host queue is consumed */
	send_seg(40020, lport, F_ACK, 9001, iss + 6, 1024, NULL, 0, NULL, 0);
	ck_assert(!recv_seg(&r, 100));
	ck_assert_uint_ge(tcp_stats.retrans, 1);
	close(a);
}

START_TEST(test_tcp_retransmit_peek_offset)
{
	data_to_guest_and_retransmit();
}
END_TEST

START_TEST(test_tcp_retransmit_discard)
{
	data_to_guest_and_retransmit();
}
END_TEST

/* Three duplicate ACKs make us resend from SND.UNA (RFC 5681 3.2) */
START_TEST(test_tcp_fast_retransmit_on_three_dup_acks)
{
	uint32_t iss;
	struct seg s, r;
	int a = handshake(40025, 100, &iss), i;

	ck_assert_int_eq(send(a, "0123456789", 10, 0), 10);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.len, 10);
	for (i = 0; i < 3; i++)
		send_seg(40025, lport, F_ACK, 101, iss + 1, 1024, NULL, 0,
			 NULL, 0);
	ck_assert(recv_seg(&r, 1000));
	ck_assert_uint_eq(r.seq, iss + 1);
	ck_assert_mem_eq(r.data, "0123456789", 10);
	ck_assert_uint_eq(tcp_stats.fast_retrans, 1);
	close(a);
}
END_TEST

/* The host peer's close becomes a FIN after its data; the guest's FIN
 * becomes end of file for the host peer (RFC 9293 3.6)
 */
START_TEST(test_tcp_fin_both_ways)
{
	uint32_t iss;
	struct seg s;
	char b[8];
	int a = handshake(40030, 300, &iss);

	ck_assert_int_eq(send(a, "abc", 3, 0), 3);
	shutdown(a, SHUT_WR);
	pump(50);
	ck_assert(recv_seg(&s, 1000));
	if (s.len == 3 && !(s.flags & F_FIN))
		ck_assert(recv_seg(&s, 1000));
	ck_assert(s.flags & F_FIN);
	ck_assert_uint_eq(s.seq + s.len, iss + 1 + 3);

	/* Guest ACKs data and FIN, then closes its side */
	send_seg(40030, lport, F_ACK, 301, iss + 5, 1024, NULL, 0, NULL, 0);
	send_seg(40030, lport, F_ACK | F_FIN, 301, iss + 5, 1024, NULL, 0,
		 NULL, 0);
	ck_assert_int_eq(recv(a, b, sizeof(b), 0), 0);	/* EOF */
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.ack, 302);		/* FIN counts one */
	ck_assert_uint_eq(flow_count(), 0);	/* both closed: released */
	close(a);
}
END_TEST

/* RFC 9293 3.10.7.1: a segment with ACK for no connection gets
 * <SEQ=SEG.ACK><CTL=RST>
 */
START_TEST(test_tcp_rst_reply_with_ack)
{
	struct seg s;

	send_seg(40040, lport, F_ACK, 1234, 0xdeadbeef, 1024, NULL, 0,
		 NULL, 0);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_RST);
	ck_assert_uint_eq(s.seq, 0xdeadbeef);
}
END_TEST

/* ... and one without ACK gets <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>,
 * where FIN counts one
 */
START_TEST(test_tcp_rst_reply_without_ack)
{
	struct seg s;

	send_seg(40041, lport, F_FIN, 5000, 0, 1024, NULL, 0, "xy", 2);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_RST | F_ACK);
	ck_assert_uint_eq(s.seq, 0);
	ck_assert_uint_eq(s.ack, 5003);
}
END_TEST

/* A RST is never answered (RFC 9293 3.10.7.1) */
START_TEST(test_tcp_rst_not_answered)
{
	struct seg s;

	send_seg(40042, lport, F_RST, 5000, 0, 0, NULL, 0, NULL, 0);
	ck_assert(!recv_seg(&s, 100));
}
END_TEST

/* A refused connect() (nothing listening) becomes an RST that
 * acknowledges the SYN, which the guest accepts in SYN-SENT (RFC 9293
 * 3.10.7.3)
 */
START_TEST(test_tcp_refused_connect_gives_rst)
{
	struct seg s;
	uint16_t closed = lport;

	close(lsock);			/* nothing listens on lport now */
	send_seg(40050, closed, F_SYN, 777, 0, 65535, NULL, 0, NULL, 0);
	pump(100);
	ck_assert(recv_seg(&s, 1000));
	ck_assert(s.flags & F_RST);
	ck_assert(s.flags & F_ACK);
	ck_assert_uint_eq(s.ack, 778);
}
END_TEST

/* A full flow table refuses a new connection with an RST and counts it,
 * and the existing connections keep working
 */
START_TEST(test_tcp_table_full_refuses_new)
{
	uint32_t iss1, iss2;
	char buf[8] = { 0 };
	struct seg s;
	int a1 = handshake(40060, 10, &iss1);
	int a2 = handshake(40061, 20, &iss2);

	send_seg(40062, lport, F_SYN, 30, 0, 65535, NULL, 0, NULL, 0);
	ck_assert(recv_seg(&s, 1000));
	ck_assert(s.flags & F_RST);
	ck_assert_uint_eq(s.ack, 31);
	ck_assert_uint_eq(flow_stats.tcp_refused_full, 1);

	send_seg(40060, lport, F_ACK | F_PSH, 11, iss1 + 1, 1024, NULL, 0,
		 "ok", 2);
	ck_assert_int_eq(recv(a1, buf, sizeof(buf), 0), 2);
	ck_assert_str_eq(buf, "ok");
	close(a1);
	close(a2);
}
END_TEST

/* A segment out of order is not delivered, and is answered with ACKs
 * that repeat RCV.NXT (RFC 9293 3.10.7.4, RFC 5681 4.2)
 */
START_TEST(test_tcp_out_of_order_not_delivered)
{
	uint32_t iss;
	struct seg s;
	char buf[8];
	int a = handshake(40070, 50, &iss);

	send_seg(40070, lport, F_ACK, 61, iss + 1, 1024, NULL, 0, "late", 4);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.ack, 51);
	ck_assert_int_eq(recv(a, buf, sizeof(buf), MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(a);
}
END_TEST

/* Zero window from the guest: nothing is sent, the persist timer sends a
 * probe that elicits an ACK (RFC 9293 3.8.6.1), and a window update
 * resumes the transfer
 */
START_TEST(test_tcp_zero_window_probe_and_resume)
{
	uint32_t iss;
	struct seg s;
	int a = handshake(40080, 900, &iss);

	send_seg(40080, lport, F_ACK, 901, iss + 1, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(send(a, "data", 4, 0), 4);
	pump(50);
	ck_assert(!recv_seg(&s, 100));

	ctx.now = now_ms() + 61000;
	flow_timer(&ctx);
	tap_flush();
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_ACK);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_uint_eq(s.seq, iss);		/* SND.NXT - 1: out of window */

	send_seg(40080, lport, F_ACK, 901, iss + 1, 1024, NULL, 0, NULL, 0);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.seq, iss + 1);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_mem_eq(s.data, "data", 4);
	close(a);
}
END_TEST

/* A keepalive (or zero-window probe) from the guest, an empty segment at
 * SEG.SEQ = RCV.NXT - 1 as Linux sends them (tcp_xmit_probe_skb()), is not
 * acceptable and is answered with <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>
 * (RFC 9293 3.10.7.4); an empty segment at RCV.NXT (a plain ACK) is not
 */
START_TEST(test_tcp_keepalive_answered)
{
	uint32_t iss;
	struct seg s;
	int a = handshake(40090, 3000, &iss);

	send_seg(40090, lport, F_ACK, 3001, iss + 1, 1024, NULL, 0, NULL, 0);
	ck_assert(!recv_seg(&s, 100));

	send_seg(40090, lport, F_ACK, 3000, iss + 1, 1024, NULL, 0, NULL, 0);
	ck_assert(recv_seg(&s, 1000));
	ck_assert_uint_eq(s.flags, F_ACK);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_uint_eq(s.seq, iss + 1);
	ck_assert_uint_eq(s.ack, 3001);
	close(a);
}
END_TEST

/* A guest sending many segments (1000 bytes) to a host peer that reads a
 * little now and then, and everything once our window is closed: every ACK covers exactly the bytes the host socket
 * took, the right edge
 * of the window never moves left by a unit of our window scale or more
 * (RFC 9293 3.8.6; RFC 7323 2.4 for the rounding), the window closes once
 * the socket is full and opens again as the peer reads, and the host peer
 * gets every byte, in order.
 */
START_TEST(test_tcp_window_follows_socket)
{
	static uint8_t want[8 << 20], got[sizeof(want)];
	uint32_t iss, seq = 7001, edge = 0;
	int a = handshake(40100, 7000, &iss), rb = 65536;
	size_t off = 0, rd = 0;
	unsigned rounds = 0, closed = 0, partial = 0;
	struct seg s;

	for (off = 0; off < sizeof(want); off++)
		want[off] = (uint8_t)(off * 13 + off / 1000);
	setsockopt(a, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	fcntl(a, F_SETFL, O_NONBLOCK);

	for (off = 0; off < sizeof(want) && rounds < 200000; rounds++) {
		size_t len = MIN(1000, sizeof(want) - off);
		uint32_t e;
		ssize_t n;

		if (!edge || seq_ge(edge, seq + (uint32_t)len)) {
			send_seg(40100, lport, F_ACK, seq, iss + 1, 1024,
				 NULL, 0, want + off, len);
			ck_assert(recv_seg(&s, 1000));
			/* all of it, or (socket full: the window can't
			 * shrink, RFC 9293 3.8.6) what it took, and the guest
			 * sends the rest again
			 */
			ck_assert(seq_ge(s.ack, seq) &&
			  seq_le(s.ack, seq + (uint32_t)len));
			if (s.ack != seq + len)
				partial++;
			off += s.ack - seq;
			seq = s.ack;
			while (partial && recv_seg(&s, 0))
				;	/* the duplicate ACKs */
		} else {
			/* window closed: the host peer reads, the socket
			 * sends EPOLLOUT, we send a window update
			 */
			closed++;
			while ((n = read(a, got + rd, sizeof(got) - rd)) > 0)
				rd += (size_t)n;
			pump(1);
			if (!recv_seg(&s, 5))
				continue;
			ck_assert_uint_eq(s.ack, seq);
		}
		e = s.ack + ((uint32_t)s.wnd << 8);	/* we shift by 8 */
		if (edge)
			ck_assert_msg(!seq_lt(e + 255, edge),
				      "right edge moved left: %u -> %u", edge, e);
		edge = e;
		if (!(rounds % 64)) {
			n = read(a, got + rd, MIN(sizeof(got) - rd, 1000));
			if (n > 0)
				rd += (size_t)n;
		}
	}
	ck_assert_uint_eq(off, sizeof(want));
	ck_assert_uint_gt(closed, 0);
	while (rd < sizeof(got)) {
		ssize_t n;

		pump(2);
		n = read(a, got + rd, sizeof(got) - rd);
		if (n > 0)
			rd += (size_t)n;
		else
			ck_assert(rounds++ < 400000);
	}
	ck_assert_mem_eq(got, want, sizeof(want));
	close(a);
}
END_TEST

/* Engine -> guest over a SOCK_SEQPACKET "tap device": one frame per read */
static bool recv_dev_seg(int fd, struct seg *s, int ms)
{
	static uint8_t buf[70000];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct frame f;
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, ms) <= 0)
			return false;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return false;
		ck_assert_int_eq(frame_parse(buf, (size_t)n, &f), 0);
		if (f.proto == IPPROTO_TCP)
			break;
	}
	ck_assert_uint_eq(csum(f.l4, f.l4_len, csum_pseudo(&f.src, &f.dst,
				IPPROTO_TCP, f.l4_len)), 0);
	s->seq = get_be32(f.l4 + 4);
	s->flags = f.l4[13];
	s->len = MIN(f.payload_len, sizeof(s->data));
	memcpy(s->data, f.payload, s->len);
	return true;
}

/* The tap device refuses frames (a full SOCK_SEQPACKET queue answers
 * EAGAIN, as a congested tap would): SND.NXT and the reader's position go
 * back to the first frame that wasn't written, so the guest gets the
 * stream without a hole, without waiting for duplicate ACKs or the RTO
 * (the host peer's bytes are the reference)
 */
static void tap_drop_reverts(void)
{
	static uint8_t want[40 * 1460], got[40 * 1460];
	uint32_t iss, next;
	size_t off = 0, i;
	int a = handshake(40090, 300, &iss), dev[2], sb = 16384;
	unsigned rounds = 0;
	struct seg s;

	for (i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 7 + i / 1460);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, dev), 0);
	fcntl(dev[0], F_SETFL, O_NONBLOCK);
	/* a few frames, then EAGAIN */
	setsockopt(dev[0], SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	tap_init(TAP_DEV, dev[0], false);

	ck_assert_int_eq(send(a, want, sizeof(want), 0), (ssize_t)sizeof(want));
	pump(50);
	ck_assert_uint_gt(tcp_stats.tap_dropped, 0);

	next = iss + 1;
	while (off < sizeof(want) && rounds++ < 100) {
		while (recv_dev_seg(dev[1], &s, 10)) {
			ck_assert_uint_eq(s.seq, next);	/* never a hole */
			ck_assert_uint_le(off + s.len, sizeof(got));
			memcpy(got + off, s.data, s.len);
			off += s.len;
			next += (uint32_t)s.len;
		}
		/* the main loop's next turn */
		tap_tx_unblock();
		tcp_tap_resume(&ctx);
		tap_flush();
	}
	ck_assert_uint_eq(off, sizeof(want));
	ck_assert_mem_eq(got, want, sizeof(want));
	ck_assert_uint_eq(tcp_stats.rto, 0);
	ck_assert_uint_eq(tcp_stats.fast_retrans, 0);
	close(dev[0]);
	close(dev[1]);
	close(a);
}

START_TEST(test_tcp_tap_drop_reverts_peek_offset)
{
	tap_drop_reverts();
}
END_TEST

START_TEST(test_tcp_tap_drop_reverts_discard)
{
	tap_drop_reverts();
}
END_TEST

/* Three duplicate ACKs after a burst the guest lost from its second
 * segment on: everything from SND.UNA to SND.NXT goes again at once, not
 * one segment per round trip (without SACK the guest can't say what it
 * has; RFC 5681 3.2)
 */
START_TEST(test_tcp_fast_retransmit_whole_hole)
{
	static uint8_t data[5 * 1460];
	uint32_t iss, end;
	struct seg s;
	int a = handshake(40095, 500, &iss), i;
	size_t n = 0;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (uint8_t)i;
	ck_assert_int_eq(send(a, data, sizeof(data), 0), (ssize_t)sizeof(data));
	pump(50);
	while (recv_seg(&s, 100))
		n += s.len;
	ck_assert_uint_eq(n, sizeof(data));
	end = iss + 1 + sizeof(data);

	/* The guest got the first segment only */
	for (i = 0; i < 4; i++)
		send_seg(40095, lport, F_ACK, 501, iss + 1 + 1460, 1024, NULL, 0,
			 NULL, 0);
	n = 0;
	while (recv_seg(&s, 100)) {
		ck_assert_uint_eq(s.seq, iss + 1 + 1460 + n);
		ck_assert_mem_eq(s.data, data + 1460 + n, s.len);
		n += s.len;
	}
	ck_assert_uint_eq(iss + 1 + 1460 + n, end);
	ck_assert_uint_eq(tcp_stats.fast_retrans, 1);
	close(a);
}
END_TEST

/* 256 segments of no flow in one batch: each gets its RST, with a stack
 * the old recursive handler (a frame of its own per segment) overflowed
 */
static void *unknown_flow_batch(void *arg)
{
	static uint8_t bufs[TCP_MAX_BATCH][64];
	static struct frame f[TCP_MAX_BATCH];
	unsigned i;

	(void)arg;
	for (i = 0; i < TCP_MAX_BATCH; i++) {
		size_t n = build_seg(bufs[i], 40100, lport, F_ACK, 1000 + i, 77,
				     512, NULL, 0, NULL, 0);

		ck_assert_int_eq(frame_parse(bufs[i], n, &f[i]), 0);
	}
	return (void *)(uintptr_t)tcp_tap_handler(&ctx, f, TCP_MAX_BATCH);
}

START_TEST(test_tcp_unknown_flow_batch_flat_stack)
{
	pthread_attr_t attr;
	pthread_t t;
	void *ret;

	/* 128 KiB: 256 recursion levels of the old handler needed ~2 MiB */
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&attr, 128 << 10), 0);
	ck_assert_int_eq(pthread_create(&t, &attr, unknown_flow_batch, NULL), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_uint_eq((uintptr_t)ret, TCP_MAX_BATCH);
	ck_assert_uint_eq(tcp_stats.rst_to_tap, TCP_MAX_BATCH);
}
END_TEST

static void teardown(void)
{
	close(tapfd[0]);
	close(tapfd[1]);
	close(lsock);
	close(ctx.epollfd);
}

static Suite *tcp_suite(void)
{
	Suite *s = suite_create("tcp");
	TCase *hs = tcase_create("handshake"), *d = tcase_create("data");
	TCase *dd = tcase_create("data_discard_reader");
	TCase *cl = tcase_create("close"), *tf = tcase_create("table_full");

	tcase_add_checked_fixture(hs, setup_peek, teardown);
	tcase_add_test(hs, test_tcp_syn_ack_acknowledges_isn_plus_one);
	tcase_add_test(hs, test_tcp_syn_ack_no_ws_without_ws);
	tcase_add_test(hs, test_tcp_refused_connect_gives_rst);

	tcase_add_checked_fixture(d, setup_peek, teardown);
	tcase_add_test(d, test_tcp_data_from_guest_reaches_peer);
	tcase_add_test(d, test_tcp_retransmit_peek_offset);
	tcase_add_test(d, test_tcp_fast_retransmit_on_three_dup_acks);
	tcase_add_test(d, test_tcp_out_of_order_not_delivered);
	tcase_add_test(d, test_tcp_zero_window_probe_and_resume);
	tcase_add_test(d, test_tcp_keepalive_answered);
	tcase_add_test(d, test_tcp_window_follows_socket);
	tcase_add_test(d, test_tcp_tap_drop_reverts_peek_offset);
	tcase_add_test(d, test_tcp_fast_retransmit_whole_hole);
	tcase_add_test(d, test_tcp_unknown_flow_batch_flat_stack);

	tcase_add_checked_fixture(dd, setup_discard, teardown);
	tcase_add_test(dd, test_tcp_retransmit_discard);
	tcase_add_test(dd, test_tcp_tap_drop_reverts_discard);

	tcase_add_checked_fixture(cl, setup_peek, teardown);
	tcase_add_test(cl, test_tcp_fin_both_ways);
	tcase_add_test(cl, test_tcp_rst_reply_with_ack);
	tcase_add_test(cl, test_tcp_rst_reply_without_ack);
	tcase_add_test(cl, test_tcp_rst_not_answered);

	tcase_add_checked_fixture(tf, setup_small_table, teardown);
	tcase_add_test(tf, test_tcp_table_full_refuses_new);

	suite_add_tcase(s, hs);
	suite_add_tcase(s, d);
	suite_add_tcase(s, dd);
	suite_add_tcase(s, cl);
	suite_add_tcase(s, tf);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tcp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
