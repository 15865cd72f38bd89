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
 * PING_TIMEOUT_MS are closed, and so are flows whose source address the
 * host lost (icmp_flow_host_changed()).  If the kernel refuses ping
 * sockets, one warning says so and echo requests are dropped from then on.
 *
 * The guest's TTL or hop limit goes out with its requests (IP_TTL,
 * IPV6_UNICAST_HOPS), so that "ping -t" and "ping -t 1" mean what they
 * say.  ICMP errors about them (destination unreachable of any code,
 * fragmentation needed or packet too big, time exceeded) reach the ping
 * socket's error queue (IP_RECVERR, IPV6_RECVERR) and go to the guest as
 * the same error from the router that sent it, quoting its request with
 * its own identifier (icmp_sock_errqueue()).  A request the host can't
 * send at all (connect() fails: a local route "unreachable", "prohibit")
 * is answered the same way as a TCP SYN (icmp_unreach_to_guest()).
 *
 * Errors to the guest.  When a guest's TCP connection can't be made
 * because the host has no route, or a firewall forbids it, the guest gets
 * the ICMP or ICMPv6 destination unreachable a router would send, from the
 * gateway address, quoting its SYN (icmp_unreach_to_guest()).  The frame
 * itself is built by tap/'s frame_icmp_err_fill(), shared with UDP's port
 * unreachable errors.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "../tap/csum.h"
#include "../tap/guest.h"
#include "../tap/hdr.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "fwd.h"
#include "icmp.h"
#include "udp.h"
#include "limits.h"
#include "ctx.h"

#define PING_TIMEOUT_MS		60000
#define ICMP_BUF		65536

static struct icmp_stats icmp_stats;
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
 * @err:	Set to connect()'s errno if that is what failed, else left
 *		alone
 *
 * The socket is bound as -o and --outbound-if4/6 say (fwd_sock_outbound()).
 *
 * #syscalls socket setsockopt bind connect close epoll_ctl
 * Return: flow, or NULL (table full, no ping sockets, or a bind() or
 *	   connect() error)
 */
static struct ping_flow *icmp_flow_new(struct ctx *ctx,
				       const struct flow_key *key,
				       const union inany *dst, int *err)
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
			flow_refused_nofile();
			limits_refused(ctx->now, LIMIT_FDS, "ICMP echo, socket()");
		}
		return NULL;
	}
	{
		int one = 1;	/* errors about our requests: ip(7), ipv6(7) */

		if (af == AF_INET)
			setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
		else
			setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &one,
				   sizeof(one));
	}
	if (fwd_sock_outbound(&ctx->c, s, dst, true) < 0) {
		debug_perror("ICMP echo: outbound bind");
		close(s);
		return NULL;
	}
	sl = sockaddr_from_inany(&sa, dst, 0, 0);
	if (connect(s, (struct sockaddr *)&sa, sl) < 0) {
		if (err)
			*err = errno;
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

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
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
 * #syscalls sendto setsockopt
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
	int err = 0;

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
		pf = icmp_flow_new(ctx, &key, &dst, &err);
	if (!pf) {
		if (err)	/* No route, or a prohibit route: as for TCP */
			icmp_unreach_to_guest(ctx, &key, err, f->l3,
					      f->l3_hlen + f->l4_len);
		return true;
	}

	/* The guest's TTL or hop limit, as UDP does (traceroute -I) */
	if (f->ttl && f->ttl != pf->ttl) {
		int ttl = f->ttl;

		if (f->af == AF_INET)
			setsockopt(pf->sock, IPPROTO_IP, IP_TTL, &ttl,
				   sizeof(ttl));
		else
			setsockopt(pf->sock, IPPROTO_IPV6, IPV6_UNICAST_HOPS,
				   &ttl, sizeof(ttl));
		pf->ttl = f->ttl;
	}
	pf->last_len = (uint16_t)f->l4_len;

	/* The kernel fills in the identifier and the checksum */
	if (send(pf->sock, f->l4, f->l4_len, MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		icmp_stats.echo_to_host++;
	pf->last_active_ms = ctx->now;
	return true;
}

/**
 * icmp_err_relayable() - Which errors from a host socket go to the guest
 * @ee:		Extended error from the socket's error queue (ip(7), ipv6(7))
 * @v4:		The flow is IPv4 (only ICMP errors count), else IPv6
 * @mtu:	Result: MTU to put in the error (fragmentation needed, RFC
 *		1191 4; packet too big, RFC 4443 3.2), 0 for other errors
 *
 * Relayed: destination unreachable of any code (RFC 792, RFC 4443 3.1),
 * fragmentation needed and packet too big with the MTU the kernel read
 * from them (ee_info), time exceeded (RFC 792, RFC 4443 3.3).  Dropped:
 * errors of local origin (the host's own, such as EMSGSIZE before
 * sending), parameter problems (their pointer is into the packet the host
 * built, not the guest's: RFC 792, RFC 4443 3.4), and the kernel's other
 * reports (source quench, redirect: RFC 6633, RFC 1812 4.3.3.2).
 *
 * Return: true if the error should be relayed
 */
bool icmp_err_relayable(const struct sock_extended_err *ee, bool v4,
			uint32_t *mtu)
{
	*mtu = 0;
	if (ee->ee_origin != (v4 ? SO_EE_ORIGIN_ICMP : SO_EE_ORIGIN_ICMP6))
		return false;
	if (v4) {
		if (ee->ee_type == ICMP_DEST_UNREACH &&
		    ee->ee_code == ICMP_FRAG_NEEDED)
			*mtu = ee->ee_info;
		return ee->ee_type == ICMP_DEST_UNREACH ||
		       ee->ee_type == ICMP_TIME_EXCEEDED;
	}
	if (ee->ee_type == ICMP6_PACKET_TOO_BIG)
		*mtu = ee->ee_info;
	return ee->ee_type == ICMP6_DST_UNREACH ||
	       ee->ee_type == ICMP6_PACKET_TOO_BIG ||
	       ee->ee_type == ICMP6_TIME_EXCEEDED;
}

/**
 * icmp_errqueue_recv() - Read one error from a socket's error queue
 * @s:		Socket with IP_RECVERR or IPV6_RECVERR
 * @mh:		Message header: a control buffer of ICMP_ERRQUEUE_CBUF bytes
 *		(more if the socket adds other ancillary data), and the name
 *		and data buffers the caller wants filled, if any; updated by
 *		recvmsg()
 * @ee:		Result: the extended error in @mh's control buffer (ip(7),
 *		ipv6(7): IP_RECVERR or IPV6_RECVERR message), NULL if there is
 *		none
 *
 * Non-blocking: an empty queue is an error (EAGAIN), not a wait.
 *
 * #syscalls recvmsg
 * Return: bytes of the offending packet read into @mh's data buffers, or
 *	   -1 with errno set (EAGAIN: nothing queued)
 */
ssize_t icmp_errqueue_recv(int s, struct msghdr *mh,
			   const struct sock_extended_err **ee)
{
	struct cmsghdr *cm;
	ssize_t len;

	*ee = NULL;
	len = recvmsg(s, mh, MSG_ERRQUEUE | MSG_DONTWAIT);
	if (len < 0)
		return len;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if ((cm->cmsg_level == IPPROTO_IP &&
		     cm->cmsg_type == IP_RECVERR) ||
		    (cm->cmsg_level == IPPROTO_IPV6 &&
		     cm->cmsg_type == IPV6_RECVERR))
			*ee = (const struct sock_extended_err *)CMSG_DATA(cm);
	return len;
}

/**
 * icmp_err_source() - Source of a relayed error as the guest sees it
 * @c:		Configuration
 * @ee:		Extended error from icmp_errqueue_recv(), the node that sent
 *		it (SO_EE_OFFENDER) after it
 * @v4:		The socket is IPv4 (the offender must be AF_INET), else IPv6
 *		(AF_INET6)
 * @hdst:	Destination of the offending packet as the host socket sent
 *		it, NULL if it has none
 * @gdst:	The same destination as the guest sent it
 * @src:	Result: @gdst if the offender is @hdst (the destination
 *		itself), else the offender translated like any host peer
 *		(fwd_nat_to_guest(): the host itself appears as the gateway),
 *		unspecified if there is no address to show it as
 *
 * Return: false if the offender is missing or of the other family, true
 *	   with @src set otherwise
 */
bool icmp_err_source(const struct conf *c, const struct sock_extended_err *ee,
		     bool v4, const union inany *hdst, const union inany *gdst,
		     union inany *src)
{
	struct sockaddr_storage off = { 0 };
	union inany from;
	uint16_t port;

	memcpy(&off, SO_EE_OFFENDER(ee),
	       v4 ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	if (off.ss_family != (v4 ? AF_INET : AF_INET6))
		return false;
	inany_from_sockaddr(&from, &port, &off);
	if (hdst && inany_equals(&from, hdst))
		*src = *gdst;
	else
		fwd_nat_to_guest(c, &from, src);
	return true;
}

/**
 * icmp_err_send() - Queue an ICMP or ICMPv6 error frame to the guest
 * @c:		Configuration (our MAC)
 * @src:	Source of the error as the guest sees it (a router, or the
 *		destination itself)
 * @dst:	The guest's address: source of the offending packet
 * @type:	ICMP (RFC 792) or ICMPv6 (RFC 4443) type
 * @code:	Code
 * @info:	MTU for fragmentation needed (RFC 1191 4) or packet too big
 *		(RFC 4443 3.2), else 0 (frame_icmp_err_fill())
 * @quote:	The offending packet as the guest sent it: IP header and at
 *		least 8 bytes of L4 header
 * @qlen:	Bytes at @quote
 *
 * The caller checks tap_connected() first.  Used for UDP's errors too
 * (the quote from udp_icmp_quote()).
 *
 * Return: true if the frame was queued, false if the tap queue is full
 */
bool icmp_err_send(const struct conf *c, const union inany *src,
		   const union inany *dst, uint8_t type, uint8_t code,
		   uint32_t info, const uint8_t *quote, size_t qlen)
{
	uint8_t *l2 = tap_tx_frame(frame_icmp_err_len(inany_v4(dst), qlen));

	if (!l2)
		return false;
	frame_icmp_err_fill(l2, tap_guest_mac_dst(), c->mac_our, src, dst, type,
			    code, info, quote, qlen);
	return true;
}

/**
 * icmp_sock_errqueue() - Relay ICMP errors queued on a ping socket
 * @ctx:	Context
 * @pf:		Echo flow, its socket with IP_RECVERR or IPV6_RECVERR
 *
 * The kernel queues an error about one of our requests with the quoted
 * ICMP message as data, from its header on, with the identifier the
 * kernel chose (ping_err() in net/ipv4/ping.c), and the router that sent
 * it as SO_EE_OFFENDER.  The guest gets the same error (type, code, MTU:
 * icmp_err_relayable()) from that router as it sees it
 * (fwd_nat_to_guest(); the destination itself as the guest addressed it),
 * quoting an IP header from the guest to the
 * destination it pinged, then the quoted message with the guest's own
 * identifier back in place and the checksum adjusted for it (RFC 1624):
 * the guest's ping matches the error by destination, identifier and
 * sequence number (RFC 792: the quote is the IP header and at least 8
 * bytes of the datagram).
 *
 * Return: number of errors read from the queue
 */
static unsigned icmp_sock_errqueue(struct ctx *ctx, const struct ping_flow *pf)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&pf->f.key.gaddr);
	const union inany *hdst;
	union inany dst;
	unsigned n;

	/* The destination as the host sent to it, to tell it from routers */
	hdst = fwd_nat_to_host(c, &pf->f.key.faddr, &dst) ? &dst : NULL;

	for (n = 0; n < 16; n++) {
		uint8_t cbuf[ICMP_ERRQUEUE_CBUF];
		const struct sock_extended_err *ee;
		uint8_t q[40 + 1232];	/* at most what fits in 1280 */
		struct iovec iov;
		struct msghdr mh = { .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf),
				     .msg_iov = &iov, .msg_iovlen = 1 };
		size_t l3, qlen, ilen;
		uint32_t mtu, sum;
		union inany src;
		ssize_t len;
		uint16_t id;

		l3 = v4 ? 20 : 40;
		iov.iov_base = q + l3;
		iov.iov_len = sizeof(q) - l3;
		len = icmp_errqueue_recv(pf->sock, &mh, &ee);
		if (len < 0)
			break;
		if (!ee || !icmp_err_relayable(ee, v4, &mtu) ||
		    len < 8 || !tap_connected())
			continue;
		if (!icmp_err_source(c, ee, v4, hdst, &pf->f.key.faddr, &src) ||
		    inany_is_unspecified(&src))
			continue;		/* no gateway to show */

		/* The quoted request: the guest's identifier, and the
		 * checksum adjusted for it (RFC 1624, eqn. 3)
		 */
		ilen = (size_t)len;
		id = get_be16(q + l3 + 4);
		sum = (uint16_t)~get_be16(q + l3 + 2);
		sum += (uint16_t)~id;
		sum += pf->f.key.gport;
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		put_be16(q + l3 + 2, (uint16_t)~sum);
		put_be16(q + l3 + 4, pf->f.key.gport);
		frame_l3_fill(q, &pf->f.key.gaddr, &pf->f.key.faddr,
			      v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6,
			      MAX(ilen, (size_t)pf->last_len));
		qlen = l3 + ilen;

		if (!icmp_err_send(c, &src, &pf->f.key.gaddr, ee->ee_type,
				   ee->ee_code, mtu, q, qlen))
			break;
		icmp_stats.errors_to_guest++;
		debug("ICMP%s echo: type %u code %u (MTU %u) relayed to the guest",
		      v4 ? "" : "v6", ee->ee_type, ee->ee_code, mtu);
	}
	return n;
}

/**
 * icmp_sock_handler() - Echo reply on a ping socket: frame to the guest
 * @ctx:	Context
 * @ref:	epoll reference (flow index)
 * @events:	epoll events: EPOLLIN for replies, EPOLLERR for queued
 *		errors (icmp_sock_errqueue())
 *
 * #syscalls recvfrom
 */
VISIBLE_IF_UNIT
void icmp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	union flow *flow = flow_at(ref.flow);
	struct ping_flow *pf = &flow->ping;
	int i;

	if (flow->f.type != FLOW_PING || pf->sock != (int)ref.fd)
		return;
	if (events & EPOLLERR)
		icmp_sock_errqueue(ctx, pf);

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
		frame_eth_fill(l2, tap_guest_mac_dst(),
			       c->mac_our, v4 ? ETH_P_IP : ETH_P_IPV6);
		frame_l3_fill(l2 + ETH_HLEN, &pf->f.key.faddr, &pf->f.key.gaddr,
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
 * icmp_flow_host_changed() - Close an echo flow whose host-side address the
 *			      host no longer has
 * @ctx:	Context
 * @flow:	Flow of type FLOW_PING
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * The ping socket keeps the source address it got at connect(): the
 * guest's later requests with this identifier would be dropped until the
 * flow is idle for PING_TIMEOUT_MS, which a "ping" that keeps asking
 * never is.  As for UDP (udp_flow_host_changed()), the flow goes quietly,
 * like the kernel's masquerading of an address that went away: the next
 * request opens a new flow from an address the host has.
 */
static void icmp_flow_host_changed(struct ctx *ctx, union flow *flow,
				   bool (*has_addr)(int af, const void *addr))
{
	if (!flow_sock_addr_gone(flow->ping.sock, has_addr))
		return;
	flow_dbg(flow, "host-side address gone, closing");
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
 * 5.2.7.1) or administratively prohibited (ICMPv6 code 1).  ENOPROTOOPT
 * (a router's protocol unreachable, ICMP code 2; ICMPv6 has none, RFC
 * 4443 uses a parameter problem): protocol unreachable, IPv4 only.
 * Others (ECONNREFUSED: port unreachable, or an RST; EPROTO: parameter
 * problem; ETIMEDOUT) have no error here: the caller resets.
 *
 * Return: true if @err maps to an unreachable error, false otherwise
 */
VISIBLE_IF_UNIT
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
	case ENOPROTOOPT:
		*code = ICMP_PROT_UNREACH;
		return v4;
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
	uint8_t type, code;

	if (!icmp_unreach_code(v4, err, &type, &code) || !tap_connected())
		return false;
	if (v4 && c->ip4.gw.s_addr)
		inany_from_v4(&src, c->ip4.gw);
	else if (!v4 && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw))
		src.a6 = c->ip6.gw;

	return icmp_err_send(c, &src, &k->gaddr, type, code, 0, quote, qlen);
}

/**
 * icmp_sock_err_to_guest() - Relay the ICMP error queued on a host socket
 * @ctx:	Context
 * @s:		Socket with IP_RECVERR or IPV6_RECVERR, of @k's family
 * @k:		Guest-side tuple of the offending packet (@k->gaddr is the
 *		guest, @k->faddr the destination it wanted)
 * @hdst:	@k->faddr as translated for the host (the socket's peer)
 * @quote:	The offending packet as the guest sent it: IP header and at
 *		least 8 bytes of L4 header
 * @qlen:	Bytes at @quote
 *
 * Reads the socket's error queue (ip(7), ipv6(7)) up to the first error
 * icmp_err_relayable() accepts, and sends the guest that error (type,
 * code, MTU), quoting @quote, from the node that sent it: @k->faddr if it
 * is the destination itself (@hdst), else the router as the guest sees it
 * (fwd_nat_to_guest(); the host itself appears as the gateway).  For a TCP
 * connect() that failed on a router's error: the guest's kernel then
 * fails its connect() the same way.
 *
 * Return: true if an error was sent, false if none was queued (or the tap
 *	   side is gone or full)
 */
bool icmp_sock_err_to_guest(struct ctx *ctx, int s, const struct flow_key *k,
			    const union inany *hdst, const uint8_t *quote,
			    size_t qlen)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&k->gaddr);
	unsigned n;

	for (n = 0; n < 16; n++) {
		uint8_t cbuf[ICMP_ERRQUEUE_CBUF];
		const struct sock_extended_err *ee;
		struct msghdr mh = { .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		union inany src;
		uint32_t mtu;

		if (icmp_errqueue_recv(s, &mh, &ee) < 0)
			return false;
		if (!ee || !icmp_err_relayable(ee, v4, &mtu))
			continue;
		if (!icmp_err_source(c, ee, v4, hdst, &k->faddr, &src) ||
		    !tap_connected() || inany_is_unspecified(&src))
			continue;		/* no gateway to show */

		if (!icmp_err_send(c, &src, &k->gaddr, ee->ee_type,
				   ee->ee_code, mtu, quote, qlen))
			return false;
		debug("ICMP%s type %u code %u (MTU %u) about a SYN relayed to the guest",
		      v4 ? "" : "v6", ee->ee_type, ee->ee_code, mtu);
		return true;
	}
	return false;
}

/**
 * icmp_stats_print() - Print the counters of ICMP echo, and the flow layer's
 *			refusals for want of descriptors
 */
static void icmp_stats_print(void)
{
	info_always("stats: ICMP echo to host %lu, replies %lu, errors relayed %lu; flows refused (no fds) %lu",
		    icmp_stats.echo_to_host, icmp_stats.echo_from_host,
		    icmp_stats.errors_to_guest, flow_stats.refused_nofile);
}

static const struct flow_ops icmp_flow_ops = {
	.name		= "ICMP echo",
	.epoll_type	= EPOLL_TYPE_PING,
	.sock		= icmp_sock_handler,
	.timer		= icmp_flow_timer,
	.guest_gone	= icmp_flow_guest_gone,
	.host_changed	= icmp_flow_host_changed,
	.stats_print	= icmp_stats_print,
	.counters	= (const uint64_t *)&icmp_stats,
	.ncounters	= sizeof(icmp_stats) / sizeof(uint64_t),
};

/**
 * icmp_flow_register() - Register the operations of ICMP echo flows
 *
 * Context: start of main() (the entry point names each flow type)
 */
void icmp_flow_register(void)
{
	flow_ops_register(FLOW_PING, &icmp_flow_ops);
}
