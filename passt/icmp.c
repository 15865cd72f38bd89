// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/icmp.c - ICMP and ICMPv6 echo through ping sockets
 *
 * DOC: Theory of Operation
 *
 * An echo request from the guest goes out through an unprivileged "ping
 * socket" (socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), ICMPv6 likewise;
 * icmp(7), allowed by net.ipv4.ping_group_range).  One socket per (guest
 * address, echo identifier, destination) flow, connected to the translated
 * destination.  The kernel owns the identifier on such sockets (it uses the
 * socket's local port), so replies come back with its identifier and we put
 * the guest's back before building the reply frame.  Flows idle for
 * PING_TIMEOUT_MS are closed.  If the kernel refuses ping sockets, one
 * warning says so and echo requests are dropped from then on.
 *
 * Errors to the guest.  When a guest's TCP connection can't be made
 * because the host has no route, or a firewall forbids it, the guest gets
 * the ICMP or ICMPv6 destination unreachable a router would send, from the
 * gateway address, quoting its SYN (icmp_unreach_to_guest()).  The frame
 * itself is built by tap/'s icmp_err_fill(), shared with UDP's port
 * unreachable errors.
 */
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../conf/log.h"
#include "../tap/csum.h"
#include "../tap/guest.h"
#include "../tap/hdr.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "fwd.h"
#include "icmp.h"
#include "udp.h"
#include "limits.h"
#include "passt.h"

#define PING_TIMEOUT_MS		60000
#define ICMP_BUF		65536

struct icmp_stats icmp_stats;
static bool icmp_disabled;
static uint8_t icmp_buf[ICMP_BUF];

/**
 * icmp_flow_free() - Close a ping flow
 * @ctx:	Context
 * @pf:		Flow
 *
 * #syscalls epoll_ctl close
 */
static void icmp_flow_free(struct ctx *ctx, struct ping_flow *pf)
{
	if (pf->sock >= 0) {
		epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, pf->sock, NULL);
		close(pf->sock);
	}
	flow_free((union flow *)pf);
}

/**
 * icmp_flow_new() - Open a ping socket for a new echo flow
 * @ctx:	Context
 * @key:	Flow key
 * @dst:	Translated destination
 *
 * The socket is bound as -o and --outbound-if4/6 say (fwd_sock_outbound()).
 *
 * #syscalls socket setsockopt bind connect close epoll_ctl
 * Return: flow, or NULL (table full, no ping sockets, or a bind() or
 *	   connect() error)
 */
static struct ping_flow *icmp_flow_new(struct ctx *ctx,
				       const struct flow_key *key,
				       const union inany *dst)
{
	int af = inany_af(dst);
	int proto = af == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
	union epoll_ref ref = { .type = EPOLL_TYPE_PING };
	struct sockaddr_storage sa;
	struct epoll_event ev;
	struct ping_flow *pf;
	union flow *flow;
	socklen_t sl;
	int s;

	s = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (s < 0) {
		if (errno == EACCES || errno == EPERM) {
			warn("ping sockets not permitted (net.ipv4.ping_group_range): ICMP echo disabled");
			icmp_disabled = true;
		} else if (errno == EMFILE || errno == ENFILE) {
			flow_stats.refused_nofile++;
			limits_refused(ctx->now, LIMIT_FDS, "ICMP echo, socket()");
		}
		return NULL;
	}
	if (fwd_sock_outbound(&ctx->c, s, dst, true) < 0) {
		debug_perror("ICMP echo: outbound bind");
		close(s);
		return NULL;
	}
	sl = sockaddr_from_inany(&sa, dst, 0, 0);
	if (connect(s, (struct sockaddr *)&sa, sl) < 0) {
		close(s);
		return NULL;
	}

	flow = flow_alloc(ctx);
	if (!flow) {
		limits_refused(ctx->now, LIMIT_FLOWS, "ICMP echo");
		close(s);
		return NULL;
	}
	pf = &flow->ping;
	flow_activate(flow, FLOW_PING);
	pf->f.key = *key;
	pf->sock = s;
	pf->last_active_ms = ctx->now;
	flow_hash_add(flow);

	ref.fd = (uint32_t)s;
	ref.flow = flow_idx(flow);
	ev.events = EPOLLIN;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev) < 0) {
		icmp_flow_free(ctx, pf);
		return NULL;
	}
	timer_want(ctx, ctx->now + PING_TIMEOUT_MS);
	return pf;
}

/**
 * icmp_tap_handler() - Echo request from the guest
 * @ctx:	Context
 * @f:		ICMP or ICMPv6 frame (frame_parse() checked 8 bytes of header)
 *
 * #syscalls sendto
 * Return: true if the frame was an echo request we handled (or dropped
 *	   because echo is disabled), false if it's another ICMP type
 */
bool icmp_tap_handler(struct ctx *ctx, const struct frame *f)
{
	struct flow_key key;
	struct ping_flow *pf;
	union inany dst;
	union flow *flow;
	uint8_t type;

	if (f->l4_hlen < sizeof(struct icmphdr))  /* the other family's */
		return false;
	/* type is the first byte of struct icmphdr and struct icmp6_hdr */
	type = hdr_get8(f->l4, struct icmphdr, type);
	if (!((f->af == AF_INET && type == ICMP_ECHO) ||
	      (f->af == AF_INET6 && type == ICMP6_ECHO_REQUEST)))
		return false;
	if (ctx->c.no_icmp || icmp_disabled)
		return true;
	if (!fwd_nat_to_host(&ctx->c, &f->dst, &dst))
		return true;

	flow_key_fill(&key, f->proto, &f->src, f->sport, &f->dst, 0);
	flow = flow_lookup(&key);
	if (flow && flow->f.type == FLOW_PING)
		pf = &flow->ping;
	else
		pf = icmp_flow_new(ctx, &key, &dst);
	if (!pf)
		return true;

	/* The kernel fills in the identifier and the checksum */
	if (send(pf->sock, f->l4, f->l4_len, MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		icmp_stats.echo_to_host++;
	pf->last_active_ms = ctx->now;
	return true;
}

/**
 * icmp_sock_handler() - Echo reply on a ping socket: frame to the guest
 * @ctx:	Context
 * @ref:	epoll reference (flow index)
 * @events:	epoll events (unused: a reply or nothing)
 *
 * #syscalls recvfrom
 */
void icmp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	(void)events;
	union flow *flow = flow_at(ref.flow);
	struct ping_flow *pf = &flow->ping;
	int i;

	if (flow->f.type != FLOW_PING || pf->sock != (int)ref.fd)
		return;

	for (i = 0; i < 16; i++) {
		const struct conf *c = &ctx->c;
		bool v4 = inany_v4(&pf->f.key.gaddr);
		size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, len;
		ssize_t n;
		uint8_t *l2;
		uint16_t ck;
		uint32_t sum;

		n = recv(pf->sock, icmp_buf, sizeof(icmp_buf), MSG_DONTWAIT);
		if (n < (ssize_t)sizeof(struct icmphdr))
			return;

		len = ETH_HLEN + l3 + (size_t)n;
		l2 = tap_tx_frame(len);
		if (!l2)
			return;
		eth_hdr_fill(l2, tap_guest_mac_dst(),
			     c->mac_our, v4 ? ETH_P_IP : ETH_P_IPV6);
		l3_hdr_fill(l2 + ETH_HLEN, &pf->f.key.faddr, &pf->f.key.gaddr,
			    v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, (size_t)n);
		memcpy(l2 + ETH_HLEN + l3, icmp_buf, (size_t)n);

		/* Put back the guest's identifier, then the checksum: ICMP
		 * over the message (RFC 792), ICMPv6 with the pseudo-header
		 * (RFC 4443 2.3)
		 */
		hdr_put16(l2 + ETH_HLEN + l3, struct icmphdr, un.echo.id,
			  pf->f.key.gport);
		hdr_put16(l2 + ETH_HLEN + l3, struct icmphdr, checksum, 0);
		sum = v4 ? 0 : csum_pseudo(&pf->f.key.faddr, &pf->f.key.gaddr,
					   IPPROTO_ICMPV6, (size_t)n);
		ck = csum(l2 + ETH_HLEN + l3, (size_t)n, sum);
		memcpy(l2 + ETH_HLEN + l3 + ICMP_CSUM_OFF, &ck, sizeof(ck));

		icmp_stats.echo_from_host++;
		pf->last_active_ms = ctx->now;
	}
}

/**
 * icmp_flow_timer() - Close an idle echo flow (flow_timer())
 * @ctx:	Context
 * @flow:	Flow of type FLOW_PING
 *
 * Return: when it will be idle for PING_TIMEOUT_MS, ms; INT64_MAX if freed
 */
static int64_t icmp_flow_timer(struct ctx *ctx, union flow *flow)
{
	if (ctx->now - flow->ping.last_active_ms >= PING_TIMEOUT_MS) {
		icmp_flow_free(ctx, &flow->ping);
		return INT64_MAX;
	}
	return flow->ping.last_active_ms + PING_TIMEOUT_MS;
}

/**
 * icmp_flow_guest_gone() - Close an echo flow: the guest went away
 * @ctx:	Context
 * @flow:	Flow of type FLOW_PING
 * @ms:		Unused (nothing we acknowledged waits in an echo flow)
 */
static void icmp_flow_guest_gone(struct ctx *ctx, union flow *flow,
				 unsigned ms)
{
	(void)ms;
	icmp_flow_free(ctx, &flow->ping);
}

/**
 * icmp_unreach_code() - Destination unreachable type and code for an errno
 * @v4:		ICMP (IPv4) rather than ICMPv6
 * @err:	Error of a host socket's connect(), positive errno
 * @type:	Result: ICMP type 3 or ICMPv6 type 1 (destination unreachable)
 * @code:	Result: its code
 *
 * ENETUNREACH: net unreachable (ICMP code 0, RFC 792) or no route to
 * destination (ICMPv6 code 0, RFC 4443 3.1).  EHOSTUNREACH: host
 * unreachable (ICMP code 1) or address unreachable (ICMPv6 code 3).
 * EACCES and EPERM (a host route of type prohibit, or a firewall):
 * communication administratively prohibited (ICMP code 13, RFC 1812
 * 5.2.7.1) or administratively prohibited (ICMPv6 code 1).
 *
 * Return: true if @err maps to an unreachable error, false otherwise
 */
bool icmp_unreach_code(bool v4, int err, uint8_t *type, uint8_t *code)
{
	*type = v4 ? ICMP_DEST_UNREACH : ICMP6_DST_UNREACH;
	switch (err) {
	case ENETUNREACH:
		*code = v4 ? ICMP_NET_UNREACH : ICMP6_DST_UNREACH_NOROUTE;
		return true;
	case EHOSTUNREACH:
		*code = v4 ? ICMP_HOST_UNREACH : ICMP6_DST_UNREACH_ADDR;
		return true;
	case EACCES:
	case EPERM:
		*code = v4 ? ICMP_PKT_FILTERED : ICMP6_DST_UNREACH_ADMIN;
		return true;
	default:
		return false;
	}
}

/**
 * icmp_unreach_to_guest() - Send the guest a destination unreachable error
 * @ctx:	Context
 * @k:		Guest-side tuple of the offending packet (@k->gaddr is the
 *		guest, @k->faddr the destination it wanted)
 * @err:	Host error that stands for the unreachable destination,
 *		positive errno (see icmp_unreach_code())
 * @quote:	The offending packet as the guest sent it: IP header and at
 *		least 8 bytes of L4 header
 * @qlen:	Bytes at @quote
 *
 * The error comes from the guest's gateway address, as from a router; with
 * no gateway of that family, from the destination itself.
 *
 * Return: true if the error was queued, false if @err has no ICMP
 *	   equivalent (or the tap side is gone or full)
 */
bool icmp_unreach_to_guest(struct ctx *ctx, const struct flow_key *k,
			   int err, const uint8_t *quote, size_t qlen)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&k->gaddr);
	union inany src = k->faddr;
	uint8_t type, code, *l2;

	if (!icmp_unreach_code(v4, err, &type, &code) || !tap_connected())
		return false;
	if (v4 && c->ip4.gw.s_addr)
		inany_from_v4(&src, c->ip4.gw);
	else if (!v4 && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw))
		src.a6 = c->ip6.gw;

	l2 = tap_tx_frame(icmp_err_len(v4, qlen));
	if (!l2)
		return false;
	icmp_err_fill(l2, tap_guest_mac_dst(), c->mac_our,
		      &src, &k->gaddr, type, code, 0, quote, qlen);
	return true;
}

/**
 * icmp_stats_print() - Print the counters of ICMP echo, and the flow layer's
 *			refusals for want of descriptors
 */
static void icmp_stats_print(void)
{
	info_always("stats: ICMP echo to host %lu, replies %lu; flows refused (no fds) %lu",
		    icmp_stats.echo_to_host, icmp_stats.echo_from_host,
		    flow_stats.refused_nofile);
}

static const struct flow_ops icmp_flow_ops = {
	.name		= "ICMP echo",
	.epoll_type	= EPOLL_TYPE_PING,
	.sock		= icmp_sock_handler,
	.timer		= icmp_flow_timer,
	.guest_gone	= icmp_flow_guest_gone,
	.stats_print	= icmp_stats_print,
	.counters	= (const uint64_t *)&icmp_stats,
	.ncounters	= sizeof(icmp_stats) / sizeof(uint64_t),
};
FLOW_OPS_REGISTER(FLOW_PING, icmp_flow_ops)
