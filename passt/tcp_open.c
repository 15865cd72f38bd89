// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_open.c - New TCP connections: the guest's SYN, and connections
 *		      accepted on forwarded ports
 *
 * DOC: Theory of Operation
 *
 * Outbound: a SYN from the guest with no flow (tcp_conn_from_tap()) takes
 * a flow table entry (flow_alloc(), which may evict an idle UDP flow),
 * opens a non-blocking socket bound as fwd_sock_outbound() says, and starts
 * connect() to the destination fwd_nat_to_host_port() translates; the
 * handshake then goes on in tcp.c.  A destination that can't be reached
 * at once (no route, prohibited) is answered with an ICMP destination
 * unreachable quoting the SYN (tcp_syn_unreach()), a refusal with an RST.
 * Until connect() completes, the socket has IP_RECVERR (IPV6_RECVERR): an
 * error from a router that fails it is relayed as it is, from that router
 * (tcp_syn_icmp_relay()); once connected, the option is off again, so that
 * errors about an established connection stay soft (tcp(7), ip(7)).
 *
 * Inbound: tcp_listen_handler() accepts on a -t/-T listener and asks
 * fwd_tcp_path() which path the connection takes: the splice path
 * (flow_accept()) or the tap path, where it becomes a SYN to the
 * guest with an ISN from tcp_isn() (RFC 6528: a keyed hash of the tuple
 * plus a 4 us clock).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "fwd.h"
#include "icmp.h"
#include "limits.h"
#include "ctx.h"
#include "siphash.h"
#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_opt.h"
#include "tcp_seq.h"

static uint8_t tcp_isn_key[16];

/**
 * tcp_isn() - Initial sequence number, RFC 6528 section 3
 * @key:	Connection tuple
 *
 * ISN = M + F(tuple, secret): M is a timer ticking every 4 microseconds
 * (RFC 9293 3.4.1), F is SipHash-2-4 of the tuple under a random key.
 *
 * #syscalls clock_gettime
 * Return: ISN
 */
static uint32_t tcp_isn(const struct flow_key *key)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return (uint32_t)siphash24(tcp_isn_key, key, sizeof(*key)) +
	       (uint32_t)(ns >> 12);
}

/**
 * tcp_sock_recverr() - Switch IP_RECVERR or IPV6_RECVERR on a TCP socket
 * @s:		Socket
 * @v4:		IPv4 socket (IP_RECVERR), else IPv6 (IPV6_RECVERR)
 * @on:		Switch on; off also empties the error queue (ip(7))
 *
 * With the option on, the kernel also treats ICMP errors about an
 * established connection as fatal (tcp_v4_err(), RFC 1122 4.2.3.9 asks
 * for soft errors there): on only while connecting.
 *
 * #syscalls setsockopt
 */
void tcp_sock_recverr(int s, bool v4, bool on)
{
	int v = on;

	if (v4)
		setsockopt(s, IPPROTO_IP, IP_RECVERR, &v, sizeof(v));
	else
		setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &v, sizeof(v));
}

/**
 * tcp_syn_quote() - Rebuild the guest's SYN for the quote of an ICMP error
 * @conn:	Connection in TAP_SYN_RCVD
 * @q:		Buffer, at least 40 + TCP_HLEN bytes
 *
 * The SYN frame is gone by now: the quote rebuilds its IP header and TCP
 * header from the flow, without options (data offset 5) and with a zero
 * checksum.  Receivers match the error by addresses, ports and sequence
 * number, which are the guest's: ISN = RCV.NXT - 1.
 *
 * Return: bytes written
 */
static size_t tcp_syn_quote(const struct tcp_conn *conn, uint8_t *q)
{
	const struct flow_key *k = &conn->f.key;
	uint8_t *th;
	size_t l3;

	l3 = frame_l3_fill(q, &k->gaddr, &k->faddr, IPPROTO_TCP, TCP_HLEN);
	th = q + l3;
	memset(th, 0, TCP_HLEN);
	put_be16(th, k->gport);
	put_be16(th + 2, k->fport);
	put_be32(th + 4, conn->seq_from_tap - 1);
	th[12] = (TCP_HLEN / 4) << 4;
	th[13] = F_SYN;
	put_be16(th + 14, conn->wnd_from_tap_last_unscaled);
	return l3 + TCP_HLEN;
}

/**
 * tcp_syn_unreach() - Answer a guest's SYN with ICMP destination unreachable
 * @ctx:	Context
 * @conn:	Connection in TAP_SYN_RCVD whose connect() failed
 * @err:	connect() error, positive errno
 *
 * For ENETUNREACH, EHOSTUNREACH, EACCES, EPERM (and ENOPROTOOPT over
 * IPv4) the guest gets what a router would send (icmp_unreach_to_guest()),
 * so that its connect() fails as it would without us, instead of an RST
 * ("connection refused"), quoting its SYN (tcp_syn_quote()).
 *
 * Return: true if the error was sent, false if the caller should reset
 */
bool tcp_syn_unreach(struct ctx *ctx, const struct tcp_conn *conn, int err)
{
	uint8_t q[40 + TCP_HLEN];

	return icmp_unreach_to_guest(ctx, &conn->f.key, err, q,
				     tcp_syn_quote(conn, q));
}

/**
 * tcp_syn_icmp_relay() - Relay the ICMP error that failed our connect()
 * @ctx:	Context
 * @conn:	Connection in TAP_SYN_RCVD whose connect() failed, its socket
 *		with IP_RECVERR or IPV6_RECVERR (set in tcp_conn_from_tap())
 *
 * A router's error about our SYN (destination unreachable of any code,
 * time exceeded: RFC 1122 4.2.3.9) ends the host's connect(), and the
 * kernel queues it: the guest gets the same error from that router
 * (icmp_sock_err_to_guest()), quoting its SYN, and its kernel fails its
 * own connect() as the host's did.
 *
 * Return: true if an error was relayed, false if none was queued (the
 * error was the host's own: tcp_syn_unreach())
 */
bool tcp_syn_icmp_relay(struct ctx *ctx, const struct tcp_conn *conn)
{
	const struct flow_key *k = &conn->f.key;
	uint8_t q[40 + TCP_HLEN];
	union inany host;
	uint16_t hport;

	if (!fwd_nat_to_host_port(&ctx->c, &k->faddr, k->fport, &host, &hport))
		return false;
	return icmp_sock_err_to_guest(ctx, conn->sock, k, &host, q,
				      tcp_syn_quote(conn, q));
}

/**
 * tcp_conn_from_tap() - New outbound connection from a guest SYN
 * @ctx:	Context
 * @f:		SYN frame
 * @s:		Its fields
 *
 * The socket is bound as -o and --outbound-if4/6 say (fwd_sock_outbound()),
 * except towards the host's loopback; a failure there resets the guest.
 *
 * #syscalls socket setsockopt bind epoll_ctl connect
 */
void tcp_conn_from_tap(struct ctx *ctx, const struct frame *f,
		       const struct tcp_seg *s)
{
	struct sockaddr_storage sa;
	struct tcp_opts o;
	struct tcp_conn *conn;
	union inany host;
	union flow *flow;
	uint16_t hport;
	socklen_t sl;
	int one = 1, ret;
	int af = f->af;

	if (tcp_opt_parse(f->l4 + TCP_HLEN, f->l4_hlen - TCP_HLEN, &o) < 0) {
		tcp_count(TCP_COUNT_BAD_OPTS, 1);
		return;
	}
	if (!fwd_nat_to_host_port(&ctx->c, &f->dst, f->dport, &host, &hport)) {
		tcp_rst_reply(ctx, f);
		return;
	}

	flow = flow_alloc(ctx);
	if (!flow) {
		flow_tcp_refused_full();
		limits_refused(ctx->now, LIMIT_FLOWS,
			       "TCP connection from the guest");
		tcp_rst_reply(ctx, f);
		return;
	}
	conn = &flow->tcp;
	flow_activate(flow, FLOW_TCP);
	conn->sock = -1;
	flow_key_fill(&conn->f.key, IPPROTO_TCP, &f->src, f->sport, &f->dst,
		      f->dport);
	if (flow_hash_add(flow) < 0) {
		flow_free(flow);
		return;
	}
	if (af == AF_INET)
		conn_flag(conn, TFL_IPV4);

	conn_event(conn, TEV_TAP_SYN_RCVD);
	conn->seq_from_tap = s->seq + 1;
	conn->seq_wnd_edge_to_tap = conn->seq_from_tap;
	conn->ws_from_tap = o.ws >= 0 ? (uint8_t)o.ws : 0;
	conn->ws_to_tap = o.ws >= 0 ? TCP_WS_OUR : 0;
	tcp_snd_wnd_set(conn, s->wnd);		/* not scaled in a SYN (RFC 7323 2.2) */
	conn->wnd_from_tap_last_unscaled = s->wnd;
	conn->mss_to_tap = o.mss ? o.mss : (af == AF_INET ? TCP_MSS_DEFAULT4 :
							     TCP_MSS_DEFAULT6);
	conn->mss_to_tap = (uint16_t)MIN((int)conn->mss_to_tap, ctx->c.mtu -
					 (af == AF_INET ? 40 : 60));
	conn->iss_to_tap = tcp_isn(&conn->f.key);
	conn->seq_to_tap = conn->seq_ack_from_tap = conn->seq_max_to_tap =
		conn->iss_to_tap;
	conn->rto_ms = RTO_INIT_MS;
	conn->last_active_ms = ctx->now;
	conn->reader = tcp_reader_of(inany_v4(&host) ? AF_INET : AF_INET6);
	conn->wnd_to_tap = TCP_WND_INIT;

	conn->sock = socket(inany_v4(&host) ? AF_INET : AF_INET6,
			    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    IPPROTO_TCP);
	if (conn->sock < 0) {
		flow_refused_nofile();
		limits_refused(ctx->now, LIMIT_FDS,
			       "TCP connection from the guest, socket()");
		tcp_rst_reply(ctx, f);
		flow_free((union flow *)conn);	/* never opened: not closed */
		return;
	}
	setsockopt(conn->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(conn->sock, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	/* A router's error about the SYN, for the guest: until connected */
	tcp_sock_recverr(conn->sock, inany_v4(&host), true);

	sl = sockaddr_from_inany(&sa, &host, hport, 0);
	tcp_count(TCP_COUNT_FLOWS_OPENED, 1);
	flow_dbg(conn, "SYN from guest, connecting");

	ret = fwd_sock_outbound(&ctx->c, conn->sock, &host, true);
	if (ret < 0) {
		flow_dbg(conn, "outbound bind (-o, --outbound-if): %s",
			 strerror(-ret));
		tcp_rst_reply(ctx, f);
		tcp_conn_free(conn, false, "bind() failed");
		return;
	}

	if (tcp_epoll_ctl(ctx, conn, EPOLL_CTL_ADD) < 0) {
		tcp_rst_reply(ctx, f);
		tcp_conn_free(conn, false, "epoll_ctl() failed");
		return;
	}

	ret = connect(conn->sock, (struct sockaddr *)&sa, sl);
	if (ret < 0 && errno != EINPROGRESS) {
		int err = errno;

		flow_dbg(conn, "connect(): %s", strerror(err));
		if (!tcp_syn_unreach(ctx, conn, err))
			tcp_rst_reply(ctx, f);
		tcp_conn_free(conn, false, "connect() failed");
		return;
	}
	/* Completion (immediate or not) comes as EPOLLOUT */
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_listen_handler() - Connection on a forwarded port (-t): SYN to guest
 * @ctx:	Context
 * @ref:	epoll reference (rule, port)
 *
 * Context: main loop
 * #syscalls accept4 setsockopt close epoll_ctl
 */
void tcp_listen_handler(struct ctx *ctx, union epoll_ref ref)
{
	const struct fwd_table *t = ref.listen.ns ? &ctx->c.tcp_out :
						    &ctx->c.tcp_in;
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	int s, tries;

	for (tries = 0; tries < 64; tries++) {
		union inany peer, src, gaddr;
		const union inany *taddr;
		struct tcp_conn *conn;
		union flow *flow;
		uint16_t pport, gport;
		int af;

		sl = sizeof(sa);
		s = accept4((int)ref.fd, (struct sockaddr *)&sa, &sl,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (s < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* reset it, or the listener wakes us forever */
				flow_refused_nofile();
				limits_refused(ctx->now, LIMIT_FDS,
					       "TCP connection to a forwarded "
					       "port, accept4()");
				if (!limits_accept_refuse((int)ref.fd))
					continue;
			} else if (errno != EAGAIN && errno != EINTR) {
				debug("accept4(): %s", strerror(errno));
			}
			return;
		}

		inany_from_sockaddr(&peer, &pport, &sa);
		gport = ref.listen.dyn ?
			fwd_dyn_port(t, ref.listen.rule, ref.listen.port) :
			fwd_port(t, ref.listen.rule, ref.listen.port);
		taddr = fwd_taddr(t, ref.listen.rule, ref.listen.dyn);

		/* A target address is reached over the tap path */
		if (!taddr &&
		    fwd_tcp_path(ctx, &peer, ref.listen.ns) == FWD_PATH_SPLICE) {
			const struct flow_accept a = {
				.proto = IPPROTO_TCP, .s = s, .peer = peer,
				.peer_port = pport, .port = ref.listen.port,
				.to_port = gport, .from_ns = ref.listen.ns,
			};

			if (flow_accept(ctx, FLOW_TCP_SPLICE, &a))
				continue;	/* taken by the splice path */
		}

		af = inany_af(&peer);
		/* No guest attached (passt before QEMU connects): keep the
		 * connection, the SYN goes out with its retries and back-off
		 * as the kernel's (tcp_syn_retries), and at once when a guest
		 * attaches (tcp_flow_guest_attached())
		 */
		if ((af == AF_INET && !ctx->c.ip4.enabled) ||
		    (af == AF_INET6 && !ctx->c.ip6.enabled) ||
		    (!tap_connected() && ctx->c.mode != MODE_PASST)) {
			struct linger l = { 1, 0 };

			setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			close(s);
			continue;
		}

		/* No address to show this peer as (no gateway, -i given):
		 * refuse at once rather than send a SYN from 0.0.0.0 or ::
		 * that the guest drops as a martian
		 */
		if (!fwd_nat_to_guest(&ctx->c, &peer, &src)) {
			struct linger l = { 1, 0 };

			tcp_count(TCP_COUNT_REFUSED_NO_SOURCE, 1);
			setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			close(s);
			continue;
		}

		flow = flow_alloc(ctx);
		if (!flow) {
			struct linger l = { 1, 0 };

			flow_tcp_refused_full();
			limits_refused(ctx->now, LIMIT_FLOWS,
				       "TCP connection to a forwarded port");
			setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			close(s);
			continue;
		}

		if (taddr)
			gaddr = *taddr;
		else
			fwd_guest_addr(&ctx->c, af, &gaddr);

		conn = &flow->tcp;
		flow_activate(flow, FLOW_TCP);
		conn->sock = s;
		flow_key_fill(&conn->f.key, IPPROTO_TCP, &gaddr, gport, &src,
			      pport);
		if (flow_hash_add(flow) < 0) {
			/* Same tuple as a live flow: can't happen unless the
			 * peer reuses a port that's still open; refuse
			 */
			struct linger l = { 1, 0 };

			setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			close(s);
			flow_free(flow);
			continue;
		}
		if (af == AF_INET)
			conn_flag(conn, TFL_IPV4);
		/* TCP_NODELAY, SO_KEEPALIVE: from the listener, see
		 * fwd_listen_sock()
		 */
		conn_event(conn, TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT);
		conn->reader = tcp_reader_of(sa.ss_family);
		conn->ws_to_tap = TCP_WS_OUR;
		conn->mss_to_tap = (uint16_t)MIN(
			ctx->c.mtu - (af == AF_INET ? 40 : 60), 65535);
		conn->iss_to_tap = tcp_isn(&conn->f.key);
		conn->seq_ack_from_tap = conn->seq_max_to_tap =
			conn->iss_to_tap;
		conn->rto_ms = RTO_INIT_MS;
		conn->last_active_ms = ctx->now;
		conn->rtt_start_ms = ctx->now;
		tcp_rcv_wnd_update(ctx, conn);
		conn->wnd_to_tap = MIN(conn->wnd_to_tap, 65535U << TCP_WS_OUR);

		if (tcp_epoll_ctl(ctx, conn, EPOLL_CTL_ADD) < 0) {
			tcp_conn_free(conn, true, "epoll_ctl() failed");
			continue;
		}
		tcp_count(TCP_COUNT_FLOWS_OPENED, 1);
		conn->seq_to_tap = conn->iss_to_tap;
		tcp_send_flags(ctx, conn, F_SYN);
		conn->seq_to_tap = conn->iss_to_tap + 1;
		conn->seq_max_to_tap = conn->seq_to_tap;
		flow_dbg(conn, "accepted on port %u, SYN to guest",
			 ref.listen.port);
		tcp_timer_arm(ctx, conn);
	}
}

/**
 * tcp_open_init() - Seed the key of the initial sequence numbers
 *
 * #syscalls getrandom
 * Context: set-up (tcp_init()); dies if the kernel gives no randomness
 */
void tcp_open_init(void)
{
	if (getrandom(tcp_isn_key, sizeof(tcp_isn_key), 0) !=
	    sizeof(tcp_isn_key))
		die_perror("getrandom");
}
