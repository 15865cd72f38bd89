// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/seq.c - Harness: sequences of guest frames and host actions
 *
 * The frame and stream harnesses see one input at a time with no host
 * peer, so a connection never gets past its SYN.  Here an input is a small
 * program: guest TCP segments built from a few bytes each (for one of
 * SEQ_CONNS guest connections, with sequence and acknowledgment numbers
 * relative to what each side sent so far), raw frames, UDP datagrams,
 * batches handed to passt_frames_input() (the real batch grouping and
 * dispatch of the main loop), and host actions on real loopback peers in
 * the harness's empty network namespace: TCP servers on 127.0.0.1 (where
 * the guest's connections to the gateway, mapped to the host's loopback,
 * end up), accepting, writing, reading, half-closing, resetting, a UDP
 * echo server, host socket events dispatched to the daemon's handlers the
 * way passt_loop() does, and the clock.  Host peers also connect to a
 * forwarded port (-t SEQ_FWD_PORT, tcp_listen_handler()): the daemon's SYN
 * to the guest is answered by the program like any other segment.  The
 * guest can stop reading the stream, so that the daemon's writes block
 * and connections wait for their turn at the tap (tcp_tap_resume(), run
 * as the main loop does once the stream takes data again), and disconnect
 * and connect again (frames built while it is away are discarded).  What the
 * daemon sends to the guest (a passt stream, full checksums) is parsed to
 * learn its sequence numbers, so that the next segments ACK real data.
 *
 * Each input starts with no flow: at its end every connection is reset
 * (flow_abort_all()), host sockets are closed and the clock runs past the
 * UDP timeout.
 *
 * Program bytes, op in the low nibble, connection in bits 4-5:
 *   0 SYN [win]          1 segment [flags len seq ack win]   2 flush batch
 *   3 raw frame [len16 bytes...]     4 accept                5 host write [n]
 *   6 host shutdown(SHUT_WR)         7 host reset            8 host read [n]
 *   9 host events (epoll, handlers)  10 clock [ms/10]        11 UDP out [len]
 *   12 UDP echo from the host        13 host connects to the forwarded port
 *   14 guest stops / starts reading the stream
 *   15 guest disconnects / connects again (passt_client_gone(), then
 *      passt_listen_handler() as passt.c runs them, flow_guest_gone() and
 *      flow_guest_attached(): connections wait for their host peers' ACKs,
 *      SYNs that waited go out again)
 * For a connection the host opened (13), op 0 is the guest's SYN-ACK, unless
 * bit 6 is set: that makes it a connection from the guest again.
 */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>

#include "../../lib/inany.h"
#include "fuzz.h"
#include "../../passt/epoll_ref.h"
#include "../../passt/flow.h"
#include "../../passt/fwd.h"
#include "../../passt/frame_input.h"
#include "../../passt/icmp.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/udp.h"
#include "../../tap/csum.h"
#include "../../tap/tap.h"

#define SEQ_CONNS	4		/* guest connections, host peers */
#define SEQ_BATCH	16		/* frames per passt_frames_input() */
#define SEQ_FRAME	1600		/* bytes per built frame */
#define SEQ_PORT	8080		/* TCP servers: 8080 and 8081 */
#define SEQ_UDP_PORT	7007		/* UDP echo server */
#define SEQ_GPORT	40000		/* guest ports: 40000 + connection */
#define SEQ_FWD_PORT	9090		/* -t 9090: host to guest, same port */
#define SEQ_SNDBUF	(1 << 14)	/* stream buffer, bytes: fills up */
#define SEQ_OPS		512		/* program bytes run per input */

static struct ctx seq_ctx;
static bool seq_ready;			/* seq_setup() done */
static int seq_sp[2];			/* [0]: daemon's stream, [1]: ours */
static int seq_lsock[2];		/* TCP servers */
static int seq_usock = -1;		/* UDP echo server */
static int seq_host[SEQ_CONNS];		/* accepted, in order; -1: none */
static bool seq_paused;			/* guest doesn't read the stream */
static bool seq_gone;			/* guest disconnected */
static size_t seq_have;			/* bytes of the stream not parsed */

static const uint8_t seq_our_mac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
static const uint8_t seq_guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/**
 * struct seq_conn - What the harness knows of one guest connection
 * @g_nxt:	Guest's next sequence number
 * @d_nxt:	Next sequence number expected from the daemon (0: none yet)
 * @g_isn:	Guest's initial sequence number
 * @in:		Opened by the host, to the forwarded port
 * @gport:	Guest's port, host order
 * @rport:	Remote port as the guest sees it (0: SYN not seen yet)
 */
static struct seq_conn {
	uint32_t g_nxt, d_nxt, g_isn;
	bool in;
	uint16_t gport, rport;
} seq_conns[SEQ_CONNS];

/* Frames start 2 bytes into 8-byte aligned slots: the IP header is then
 * aligned, as in the tap and stream buffers (NET_IP_ALIGN)
 */
static uint8_t seq_frames[SEQ_BATCH][SEQ_FRAME + 8] __attribute__((aligned(8)));
static const uint8_t *seq_fp[SEQ_BATCH];
static size_t seq_len[SEQ_BATCH];
static unsigned seq_n;

/**
 * seq_stream_open() - A new stream between the daemon and the guest
 */
static void seq_stream_open(void)
{
	int sz = SEQ_SNDBUF;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       seq_sp))
		abort();
	setsockopt(seq_sp[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(seq_sp[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	seq_have = 0;
}

/**
 * seq_conn_out() - Make @k a guest connection to a server, none sent yet
 * @k:		Connection
 */
static void seq_conn_out(unsigned k)
{
	memset(&seq_conns[k], 0, sizeof(seq_conns[k]));
	seq_conns[k].gport = (uint16_t)(SEQ_GPORT + k);
	seq_conns[k].rport = (uint16_t)(SEQ_PORT + (k & 1));
}

/**
 * seq_conns_init() - Guest connections to the servers, none opened
 */
static void seq_conns_init(void)
{
	unsigned k;

	for (k = 0; k < SEQ_CONNS; k++)
		seq_conn_out(k);
}

/**
 * seq_setup() - Namespace, passt-mode context, stream, host servers
 */
static void seq_setup(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ctx *ctx = &seq_ctx;
	struct fwd_rule *r = &ctx->c.tcp_in.rules[0];
	int one = 1, i;

	fuzz_isolate_net();
	fuzz_conf(&ctx->c);
	ctx->c.mode = MODE_PASST;
	r->af = AF_INET;
	inany_from_v4(&r->addr, a.sin_addr);
	r->first = r->last = r->to = SEQ_FWD_PORT;
	ctx->c.tcp_in.n = 1;
	ctx->ns_fd = ctx->host_ns_fd = -1;
	if (flow_init(ctx->c.flow_max))
		abort();
	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epollfd < 0)
		abort();
	seq_stream_open();
	tcp_init(ctx);
	udp_init(ctx);
	tap_init(TAP_STREAM, seq_sp[0], false);
	if (fwd_listen(ctx, IPPROTO_TCP, &ctx->c.tcp_in, false) != 1)
		abort();

	for (i = 0; i < 2; i++) {
		seq_lsock[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
				      SOCK_CLOEXEC, 0);
		a.sin_port = htons((uint16_t)(SEQ_PORT + i));
		setsockopt(seq_lsock[i], SOL_SOCKET, SO_REUSEADDR, &one,
			   sizeof(one));
		if (seq_lsock[i] < 0 ||
		    bind(seq_lsock[i], (struct sockaddr *)&a, sizeof(a)) ||
		    listen(seq_lsock[i], 64))
			abort();
	}
	seq_usock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			   0);
	a.sin_port = htons(SEQ_UDP_PORT);
	if (seq_usock < 0 || bind(seq_usock, (struct sockaddr *)&a, sizeof(a)))
		abort();
	for (i = 0; i < SEQ_CONNS; i++)
		seq_host[i] = -1;
	seq_conns_init();
	ctx->now = 1000;
	ctx->timer_next = INT64_MAX;
}

/**
 * seq_ip4() - Ethernet and IPv4 header from the guest to the gateway
 * @f:		Frame buffer
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4len:	Bytes after the IPv4 header
 *
 * Return: pointer to the L4 header
 */
static uint8_t *seq_ip4(uint8_t *f, uint8_t proto, size_t l4len)
{
	struct iphdr *ip = (struct iphdr *)(f + 14);

	memcpy(f, seq_our_mac, 6);
	memcpy(f + 6, seq_guest_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons((uint16_t)(20 + l4len));
	ip->ttl = 64;
	ip->protocol = proto;
	ip->saddr = seq_ctx.c.ip4.addr.s_addr;
	ip->daddr = seq_ctx.c.ip4.gw.s_addr;
	ip->check = csum(ip, 20, 0);
	return f + 34;
}

/**
 * seq_l4_csum() - Complete the TCP or UDP checksum, as a guest would
 * @f:		Frame from seq_ip4()
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4len:	Bytes of the L4 header and payload
 * @off:	Offset of the checksum field in the L4 header
 */
static void seq_l4_csum(uint8_t *f, uint8_t proto, size_t l4len, size_t off)
{
	const struct iphdr *ip = (const struct iphdr *)(f + 14);
	struct in_addr s = { ip->saddr }, d = { ip->daddr };
	uint16_t c;

	f[34 + off] = f[34 + off + 1] = 0;
	c = csum(f + 34, l4len,
		 csum_pseudo4(s, d, proto, (uint16_t)l4len));
	memcpy(f + 34 + off, &c, 2);
}

static uint8_t *seq_slot(void);

/**
 * seq_tcp() - Build a guest TCP segment into the batch
 * @k:		Connection
 * @flags:	TCP flags
 * @seq:	Sequence number
 * @ack:	Acknowledgment number
 * @win:	Window (unscaled)
 * @len:	Payload bytes
 * @syn_opts:	Add MSS and window scale options
 */
static void seq_tcp(unsigned k, uint8_t flags, uint32_t seq, uint32_t ack,
		    uint16_t win, size_t len, bool syn_opts)
{
	size_t hl = syn_opts ? 28 : 20, i;
	uint8_t *f = seq_slot();
	struct tcphdr *th = (struct tcphdr *)seq_ip4(f, IPPROTO_TCP, hl + len);
	uint8_t *opt = (uint8_t *)th + 20;

	memset(th, 0, hl);
	th->source = htons(seq_conns[k].gport);
	th->dest = htons(seq_conns[k].rport);
	th->seq = htonl(seq);
	th->ack_seq = htonl(ack);
	th->doff = (uint16_t)((hl / 4) & 0xf);
	((uint8_t *)th)[13] = flags;
	th->window = htons(win);
	if (syn_opts) {
		opt[0] = 2; opt[1] = 4; opt[2] = 1460 >> 8; opt[3] = 1460 & 0xff;
		opt[4] = 1; opt[5] = 3; opt[6] = 3; opt[7] = 7;
	}
	for (i = 0; i < len; i++)
		f[34 + hl + i] = (uint8_t)(seq + i);
	seq_l4_csum(f, IPPROTO_TCP, hl + len, 16);
	seq_len[seq_n - 1] = 34 + hl + len;
}

/**
 * seq_conn_of() - Which connection a segment from the daemon is for
 * @gport:	Guest's port (destination), host order
 * @rport:	Remote port (source), host order
 * @syn:	SYN without ACK: may open a connection the host started
 *
 * Return: connection index, SEQ_CONNS if none
 */
static unsigned seq_conn_of(uint16_t gport, uint16_t rport, bool syn)
{
	unsigned k;

	for (k = 0; k < SEQ_CONNS; k++)
		if (seq_conns[k].gport == gport && seq_conns[k].rport == rport)
			return k;
	for (k = 0; syn && k < SEQ_CONNS; k++)
		if (seq_conns[k].in && !seq_conns[k].rport &&
		    gport == seq_conns[k].gport) {
			seq_conns[k].rport = rport;
			return k;
		}
	return SEQ_CONNS;
}

/**
 * seq_parse_out() - Read what the daemon sent the guest, learn its
 *		     sequence numbers (nothing while the guest is paused)
 */
static void seq_parse_out(void)
{
	static uint8_t buf[1 << 16], acc[1 << 17];
	size_t have = seq_have;
	ssize_t n;

	while (!seq_paused && !seq_gone && (n = recv(seq_sp[1], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		size_t off = 0;

		if (have + (size_t)n > sizeof(acc))
			have = 0;	/* never for sane output: resync */
		memcpy(acc + have, buf, (size_t)n);
		have += (size_t)n;
		while (have - off >= 4) {
			uint32_t fl = (uint32_t)acc[off] << 24 |
				      (uint32_t)acc[off + 1] << 16 |
				      (uint32_t)acc[off + 2] << 8 |
				      acc[off + 3];
			const uint8_t *f = acc + off + 4;
			struct iphdr ip_, *ip = &ip_;
			struct tcphdr th_, *th = &th_;
			unsigned k, ihl, thl, plen;
			uint32_t end;

			if (fl > sizeof(acc) - 4) {
				have = off = 0;
				break;
			}
			if (have - off - 4 < fl)
				break;
			off += 4 + fl;
			if (fl < 54 || f[12] != 0x08 || f[13] != 0x00)
				continue;
			memcpy(ip, f + 14, sizeof(*ip));
			ihl = ip->ihl * 4U;
			if (ip->protocol != IPPROTO_TCP || fl < 14 + ihl + 20)
				continue;
			memcpy(th, f + 14 + ihl, sizeof(*th));
			k = seq_conn_of(ntohs(th->dest), ntohs(th->source),
					th->syn && !th->ack);
			thl = th->doff * 4U;
			if (k >= SEQ_CONNS || ntohs(ip->tot_len) < ihl + thl)
				continue;
			plen = ntohs(ip->tot_len) - ihl - thl;
			end = ntohl(th->seq) + plen + th->syn + th->fin;
			if (th->syn || !seq_conns[k].d_nxt ||
			    (int32_t)(end - seq_conns[k].d_nxt) > 0)
				seq_conns[k].d_nxt = end;
		}
		memmove(acc, acc + off, have - off);
		have -= off;
	}
	seq_have = have;
}

/**
 * seq_tail() - What the main loop does after its events: write the
 *		stream, the guest reads it, connections that waited for
 *		the tap take their turn (tcp_tap_resume()), as passt_loop()
 */
static void seq_tail(void)
{
	tap_flush();
	seq_parse_out();
	if (tap_tx_pending()) {		/* EPOLLOUT, passt_tap_handler() */
		tap_flush();
		seq_parse_out();
	}
	if (tcp_tap_waiting() && !tap_tx_blocked())
		tcp_tap_resume(&seq_ctx);
	tap_flush();
	seq_parse_out();
	flow_free_flush();
}

/**
 * seq_flush() - Hand the batch to the daemon, as passt_tap_handler() does
 */
static void seq_flush(void)
{
	if (seq_n && !seq_gone)
		passt_frames_input(&seq_ctx, seq_fp, seq_len, seq_n);
	seq_n = 0;
	seq_tail();
}

/**
 * seq_slot() - Take the next frame slot of the batch, flushing a full batch
 *
 * Return: frame buffer
 */
static uint8_t *seq_slot(void)
{
	if (seq_n == SEQ_BATCH)
		seq_flush();
	seq_fp[seq_n] = seq_frames[seq_n] + 2;
	return seq_frames[seq_n++] + 2;
}

/**
 * seq_events() - Host socket events to the daemon's handlers, as the main
 *		  loop dispatches them
 */
static void seq_events(void)
{
	struct epoll_event ev[32];
	int n, i;

	n = epoll_wait(seq_ctx.epollfd, ev, 32, 0);
	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };
		uint32_t e = ev[i].events;

		switch (ref.type) {
		case EPOLL_TYPE_TCP:
			tcp_sock_handler(&seq_ctx, ref, e);
			break;
		case EPOLL_TYPE_TCP_LISTEN:
			tcp_listen_handler(&seq_ctx, ref);
			break;
		case EPOLL_TYPE_UDP:
			udp_sock_handler(&seq_ctx, ref, e);
			break;
		case EPOLL_TYPE_UDP_LISTEN:
			udp_listen_handler(&seq_ctx, ref, e);
			break;
		case EPOLL_TYPE_PING:
			icmp_sock_handler(&seq_ctx, ref, e);
			break;
		default:
			break;
		}
	}
	seq_tail();
}

/**
 * seq_clock() - Advance the clock, run the timers that are due
 * @ms:		Milliseconds
 */
static void seq_clock(int64_t ms)
{
	struct ctx *ctx = &seq_ctx;

	ctx->now += ms;
	if (ctx->now >= ctx->timer_next) {
		ctx->timer_next = INT64_MAX;
		flow_timer(ctx);
	}
	seq_tail();
}

/**
 * seq_host_close() - Close a host peer, with a reset if asked
 * @k:		Peer
 * @rst:	SO_LINGER 0 first: close() sends RST
 */
static void seq_host_close(unsigned k, bool rst)
{
	struct linger l = { 1, 0 };

	if (seq_host[k] < 0)
		return;
	if (rst)
		setsockopt(seq_host[k], SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(seq_host[k]);
	seq_host[k] = -1;
}

/**
 * seq_accept() - Accept what the servers have, into free peer slots
 */
static void seq_accept(void)
{
	unsigned k, i;

	for (i = 0; i < 2; i++) {
		for (k = 0; k < SEQ_CONNS; k++) {
			int s;

			if (seq_host[k] >= 0)
				continue;
			s = accept4(seq_lsock[i], NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (s < 0)
				break;
			seq_host[k] = s;
		}
	}
}

/**
 * seq_guest_toggle() - The guest disconnects, or connects again
 *
 * As passt.c's passt_client_gone() and passt_listen_handler(), without the
 * epoll registration (the harness reads the stream itself).
 */
static void seq_guest_toggle(void)
{
	struct ctx *ctx = &seq_ctx;

	seq_flush();
	if (!seq_gone) {
		tap_flush();
		close(seq_sp[0]);
		close(seq_sp[1]);
		tap_detach();
		flow_guest_gone(ctx, 1000);
		seq_gone = true;
	} else {
		seq_stream_open();
		tap_init(TAP_STREAM, seq_sp[0], false);
		seq_gone = false;
		flow_guest_attached(ctx);
	}
	seq_tail();
}

/**
 * seq_connect() - Host peer @k connects to the forwarded port
 * @k:		Peer and connection, taken over if in use
 *
 * Connection @k becomes one the host opened: its next SYN from the
 * daemon gives its remote port.
 */
static void seq_connect(unsigned k)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(SEQ_FWD_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s;

	seq_host_close(k, true);
	s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return;
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) &&
	    errno != EINPROGRESS) {
		close(s);
		return;
	}
	seq_host[k] = s;
	memset(&seq_conns[k], 0, sizeof(seq_conns[k]));
	seq_conns[k].in = true;
	seq_conns[k].gport = SEQ_FWD_PORT;
}

/**
 * seq_reset() - End of an input: no flow, no peer, nothing pending
 */
static void seq_reset(void)
{
	unsigned k;
	int s, i;

	seq_paused = false;
	if (seq_gone)
		seq_guest_toggle();
	seq_flush();
	for (k = 0; k < SEQ_CONNS; k++)
		seq_host_close(k, true);
	for (i = 0; i < 2; i++)
		while ((s = accept4(seq_lsock[i], NULL, NULL,
				    SOCK_CLOEXEC)) >= 0)
			close(s);
	seq_events();	/* connections to the forwarded port: accepted */
	flow_abort_all(&seq_ctx);
	tap_flush();
	flow_free_flush();
	seq_clock(1000 * (seq_ctx.c.udp_timeout_s + 1));
	seq_clock(1000 * (seq_ctx.c.udp_timeout_s + 1));
	seq_events();
	seq_parse_out();
	seq_conns_init();
}

/**
 * seq_byte() - Next program byte
 * @d:		Input
 * @size:	Its length
 * @pos:	Position, advanced
 *
 * Return: the byte, 0 past the end
 */
static uint8_t seq_byte(const uint8_t *d, size_t size, size_t *pos)
{
	return *pos < size ? d[(*pos)++] : 0;
}

/**
 * LLVMFuzzerTestOneInput() - Run one program
 * @data:	Program
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t junk[1 << 16];
	size_t pos = 0;
	unsigned ops;

	if (!seq_ready) {
		seq_setup();
		seq_ready = true;
	}

	for (ops = 0; pos < size && ops < SEQ_OPS; ops++) {
		uint8_t op = seq_byte(data, size, &pos);
		unsigned k = (op >> 4) & (SEQ_CONNS - 1);
		struct seq_conn *c = &seq_conns[k];

		switch (op & 0x0f) {
		case 0: {	/* SYN: a new connection from port k */
			uint16_t win = (uint16_t)(seq_byte(data, size, &pos)
						  << 8 | 0xff);

			if (op & 0x40)
				seq_conn_out(k);
			c->g_isn = 0x10000000U * (k + 1) + (uint32_t)ops;
			c->g_nxt = c->g_isn + 1;
			if (c->in) {	/* SYN-ACK to the daemon's SYN */
				seq_tcp(k, TH_SYN | TH_ACK, c->g_isn, c->d_nxt,
					win, 0, true);
				break;
			}
			c->d_nxt = 0;
			seq_tcp(k, TH_SYN, c->g_isn, 0, win, 0, true);
			break;
		}
		case 1: {	/* segment */
			uint8_t fl = seq_byte(data, size, &pos);
			size_t len = seq_byte(data, size, &pos) * 8U;
			int8_t ds = (int8_t)seq_byte(data, size, &pos);
			int8_t da = (int8_t)seq_byte(data, size, &pos);
			uint32_t da32 = (uint32_t)(int32_t)da;	/* mod 2^32 */
			uint32_t ack = c->d_nxt + da32;
			uint16_t win = (uint16_t)(seq_byte(data, size, &pos)
						  << 8);
			uint32_t seq = c->g_nxt + (uint32_t)(ds * 64);

			len = MIN(len, (size_t)1460);
			seq_tcp(k, fl, seq, ack, win, len, false);
			if (!ds)
				c->g_nxt += (uint32_t)len + !!(fl & TH_FIN);
			break;
		}
		case 2:
			seq_flush();
			break;
		case 3: {	/* raw frame */
			size_t len = seq_byte(data, size, &pos);
			uint8_t *f;

			len = len << 8 | seq_byte(data, size, &pos);
			len = MIN(MIN(len, size - pos), (size_t)SEQ_FRAME);
			f = seq_slot();
			memcpy(f, data + pos, len);
			seq_len[seq_n - 1] = len;
			pos += len;
			break;
		}
		case 4:
			seq_accept();
			break;
		case 5:		/* host writes */
			if (seq_host[k] >= 0) {
				size_t n = (seq_byte(data, size, &pos) + 1U) *
					   256;

				memset(junk, 'a' + (int)k, MIN(n, sizeof(junk)));
				if (send(seq_host[k], junk, MIN(n, sizeof(junk)),
					 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
					(void)0;
			}
			break;
		case 6:
			if (seq_host[k] >= 0)
				shutdown(seq_host[k], SHUT_WR);
			break;
		case 7:
			seq_host_close(k, true);
			break;
		case 8:		/* host reads: the window opens */
			if (seq_host[k] >= 0) {
				size_t n = (seq_byte(data, size, &pos) + 1U) *
					   256;

				if (recv(seq_host[k], junk,
					 MIN(n, sizeof(junk)),
					 MSG_DONTWAIT) < 0)
					(void)0;
			}
			break;
		case 9:
			seq_flush();
			seq_events();
			break;
		case 10:
			seq_flush();
			seq_clock(seq_byte(data, size, &pos) * 10);
			break;
		case 11: {	/* UDP from the guest to the echo server */
			size_t len = MIN(seq_byte(data, size, &pos) * 4U,
					 (size_t)1400);
			uint8_t *f = seq_slot();
			uint8_t *u = seq_ip4(f, IPPROTO_UDP, 8 + len);

			u[0] = (uint8_t)((SEQ_GPORT + k) >> 8);
			u[1] = (uint8_t)(SEQ_GPORT + k);
			u[2] = SEQ_UDP_PORT >> 8;
			u[3] = SEQ_UDP_PORT & 0xff;
			u[4] = (uint8_t)((8 + len) >> 8);
			u[5] = (uint8_t)(8 + len);
			memset(u + 8, 'u', len);
			seq_l4_csum(f, IPPROTO_UDP, 8 + len, 6);
			seq_len[seq_n - 1] = 34 + 8 + len;
			break;
		}
		case 12: {	/* the echo server answers what it got */
			struct sockaddr_storage sa;
			socklen_t sl = sizeof(sa);
			ssize_t n = recvfrom(seq_usock, junk, sizeof(junk),
					     MSG_DONTWAIT,
					     (struct sockaddr *)&sa, &sl);

			if (n >= 0 && sendto(seq_usock, junk, (size_t)n,
					     MSG_DONTWAIT,
					     (struct sockaddr *)&sa, sl) < 0)
				(void)0;
			break;
		}
		case 13:	/* the host connects to the forwarded port */
			seq_connect(k);
			break;
		case 14:
			seq_paused = !seq_paused;
			if (!seq_paused)
				seq_tail();
			break;
		case 15:
			seq_guest_toggle();
			break;
		default:
			break;
		}
	}
	seq_flush();
	seq_events();
	seq_reset();
	return 0;
}
