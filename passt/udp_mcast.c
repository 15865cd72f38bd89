// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp_mcast.c - UDP multicast and broadcast, both ways
 *
 * DOC: Theory of Operation
 *
 * Guest to host.  A guest datagram to an IPv4 multicast group (224.0.0.0/4,
 * RFC 5771), to the limited broadcast address 255.255.255.255 or to the
 * broadcast address of the guest's prefix (RFC 919, RFC 922), or to an IPv6
 * group of a scope wider than the link (RFC 4291 2.7: site-local ff05::,
 * organisation-local ff08::, global ff0e::, ...) opens a flow of its own
 * (struct udp_flow with @mcast set).  Its host socket is not connected: each
 * datagram is sent with sendmmsg() to the group, so that replies from any
 * unicast responder (SSDP and WS-Discovery answers come from the responder's
 * own address, RFC 6762 allows the same for mDNS) are received on it.  The
 * socket is bound to the guest's source port when no socket of the host
 * has that port (SSDP responders answer to the port the query came from),
 * else to a port the kernel picks; answers to either reach the guest's
 * port.  It is bound without SO_REUSEADDR and SO_REUSEPORT, unlike unicast
 * flows: an unconnected socket joining a host service's port (avahi 5353,
 * LLMNR 5355, SSDP 1900, WS-Discovery 3702 share theirs with
 * SO_REUSEADDR) would take the unicast datagrams meant for the service,
 * as Linux gives a datagram to the socket bound last of those that match
 * it equally well (udp4_lib_lookup2(): new sockets go first in the hash
 * chain).  The one exception is a port one of our -u listeners has (an
 * mDNS responder in the guest): datagrams to it go to the guest already,
 * and mDNS answers must come from 5353 (RFC 6762 11), so it is shared.  Once
 * bound, the socket gets SO_REUSEADDR, so that a host service starting
 * later, or a -u auto listener, can bind the port too; being bound after
 * us, it then gets the unicast datagrams (not an IPv6 one with
 * SO_REUSEPORT, which Linux puts last in the chain: such a service gets
 * them again when the flow ends).  Being unconnected, the socket takes
 * datagrams from anyone to its port while the flow lives, and they reach
 * the guest as answers.  The socket has SO_BROADCAST, IP_MULTICAST_LOOP /
 * IPV6_MULTICAST_LOOP off (we must not hear our own datagrams on a -u
 * socket listening to the same group, and send them back to the guest) and
 * IP_MULTICAST_ALL / IPV6_MULTICAST_ALL off (it would otherwise get a copy
 * of every datagram to any group some other socket of the host joined on
 * that port).  The guest's TTL or hop limit is set as IP_TTL and
 * IP_MULTICAST_TTL, or IPV6_MULTICAST_HOPS: SSDP clients send with TTL 2 or
 * 4 on purpose.
 *
 * Replies are read with their source address and IP_PKTINFO/IPV6_PKTINFO
 * and become frames from the responder (as the guest sees it,
 * fwd_nat_to_guest()) to the guest's address and port, or to the group or
 * broadcast address they were sent to.  A broadcast of ours comes back to
 * us (the kernel loops broadcasts locally whatever IP_MULTICAST_LOOP
 * says): a broadcast from the socket's own port and one of the host's
 * addresses (the guest's, which pasta copies, or -o) is dropped and
 * counted (@own).  Multicast needs no such check: its loopback is off.
 *
 * IPv6 groups of interface-local and link-local scope (ff01::/16,
 * ff02::/16, and the reserved scope 0) stay on the guest's link: the
 * guest's link ends at the tap, its link-local addresses are not the
 * host's, and a host socket would need a link of the host (sin6_scope_id)
 * that nothing in the datagram names.  Such datagrams, datagrams to an
 * unspecified address or to port 0, and with --no-map-gw broadcasts (the
 * host's kernel always delivers a broadcast to its own sockets too, and
 * --no-map-gw says the guest doesn't reach the host itself) are the only
 * ones refused: dropped, counted (@refused) and logged at debug level.
 * IPv4 has no scope in the address, so 224.0.0.0/24 (mDNS 224.0.0.251,
 * LLMNR 224.0.0.252) and broadcasts leave through the interface the
 * host's routes choose for them, as for any program of the host.
 *
 * Host to guest.  The sockets of -u ports have IP_PKTINFO and
 * IPV6_RECVPKTINFO: when the header destination of a datagram is a group
 * or broadcast address, udp_mcast_rx_dst() tells udp.c to build the frame
 * to that address (destination MAC 01:00:5e + the low 23 bits of the group,
 * RFC 1112 6.4; 33:33 + the low 32 bits for IPv6, RFC 2464 7; all ones for
 * broadcast) instead of to the guest's unicast address.  The guest's
 * replies use the usual flow of that peer (udp.c, UDP_TAP_IN), never a
 * spliced one: a group datagram from a loopback peer (a program of the
 * host multicasting on lo) also goes to the group.  A -u socket bound to
 * the wildcard receives the groups any program of the host joined
 * (IP_MULTICAST_ALL, on by default for IPv4 sockets, set by fwd.c on
 * dual-stack ones, where Linux leaves it off); a -u rule bound to a group
 * address (-u 224.0.0.251/5353) joins that group itself (udp_mcast_join(): on its
 * interface if the rule names one, else where the host's routes send the
 * group).  A broadcast of ours seen on a -u socket (from the port of a
 * guest flow to that broadcast address and one of the host's addresses)
 * is dropped: the guest sent it.  A multicast datagram from the host's
 * address and the same port is another program's (an mDNS daemon of the
 * host shares port 5353): ours don't loop.
 *
 * Memory: one static receive batch; nothing is allocated per datagram.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "ctx.h"
#include "udp.h"
#include "udp_internal.h"
#include "udp_mcast.h"

#ifndef IP_MULTICAST_ALL
#define IP_MULTICAST_ALL	49	/* linux/in.h, Linux 2.6.31 */
#endif
#ifndef IPV6_MULTICAST_ALL
#define IPV6_MULTICAST_ALL	29	/* linux/in6.h, Linux 4.20 */
#endif

#define UDP_MCAST_BATCH		16	/* datagrams per recvmmsg() */
#define UDP_MCAST_ROUNDS	4	/* batches per event */

VISIBLE_IF_UNIT
struct udp_mcast_stats udp_mcast_stats;

static struct mmsghdr udp_mcast_mh[UDP_MCAST_BATCH];
static struct iovec udp_mcast_iov[UDP_MCAST_BATCH];
static struct sockaddr_storage udp_mcast_name[UDP_MCAST_BATCH];
static uint8_t udp_mcast_cmsg[UDP_MCAST_BATCH]
			     [CMSG_SPACE(sizeof(struct in6_pktinfo))]
	__attribute__((aligned(8)));
static uint8_t udp_mcast_drop[65536];

/**
 * udp_mcast_is_bcast4() - Is an IPv4 address a broadcast address for us?
 * @c:		Configuration (guest address and prefix length)
 * @a:		Address, network order
 *
 * Return: true for 255.255.255.255 and for the broadcast address of the
 *	   guest's prefix (all host bits set, prefixes up to /30)
 */
static bool udp_mcast_is_bcast4(const struct conf *c, struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr), mask;

	if (a.s_addr == INADDR_BROADCAST)
		return true;
	if (c->ip4.prefix_len <= 0 || c->ip4.prefix_len > 30)
		return false;
	mask = 0xffffffffU << (32 - c->ip4.prefix_len);
	return (h & mask) == (ntohl(c->ip4.addr.s_addr) & mask) &&
	       (h | mask) == 0xffffffffU;
}

/**
 * udp_mcast_is_group() - Is an address a multicast group or broadcast?
 * @c:		Configuration
 * @a:		Address
 *
 * Return: true for IPv4 multicast and broadcast (udp_mcast_is_bcast4()),
 *	   and for IPv6 multicast of any scope
 */
static bool udp_mcast_is_group(const struct conf *c, const union inany *a)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return IN_MULTICAST(ntohl(a4->s_addr)) ||
		       udp_mcast_is_bcast4(c, *a4);
	return IN6_IS_ADDR_MULTICAST(&a->a6);
}

/**
 * udp_mcast_classify() - What to do with a guest datagram of a new tuple
 * @c:		Configuration
 * @f:		Frame from the guest (UDP)
 *
 * Datagrams refused here are counted and logged at debug level: the only
 * ones are those to an unspecified address or port 0 (no endpoint), those
 * to IPv6 groups of scope 0, 1 or 2 (reserved, interface-local,
 * link-local: RFC 4291 2.7, they don't leave the guest's link), and, with
 * --no-map-gw, IPv4 broadcasts: the host's kernel delivers a broadcast to
 * its own sockets bound to the port as well (whatever IP_MULTICAST_LOOP
 * says), and --no-map-gw means the guest doesn't reach the host itself.
 *
 * Return: 1 for a group or broadcast destination (udp_mcast_sock()), 0
 *	   for unicast (the usual path), -1 if refused
 */
int udp_mcast_classify(const struct conf *c, const struct frame *f)
{
	const char *why = NULL;
	int ret = 0;

	if (inany_is_unspecified(&f->dst) || !f->dport) {
		why = "unspecified destination";
	} else if (!inany_v4(&f->dst) && IN6_IS_ADDR_MULTICAST(&f->dst.a6) &&
		   (f->dst.a6.s6_addr[1] & 0x0f) <= 2) {
		why = "IPv6 group of link-local scope, stays on the guest's link";
	} else if (c->no_map_gw && inany_v4(&f->dst) &&
		   udp_mcast_is_bcast4(c, *inany_v4(&f->dst))) {
		why = "broadcast with --no-map-gw, it would reach the host's own sockets";
	} else if (udp_mcast_is_group(c, &f->dst)) {
		ret = 1;
	}
	if (why) {
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		udp_mcast_stats.refused++;
		debug("UDP [%s]:%u -> [%s]:%u from the guest: dropped (%s)",
		      inany_ntop(&f->src, s), f->sport,
		      inany_ntop(&f->dst, d), f->dport, why);
		return -1;
	}
	return ret;
}

/**
 * udp_mcast_mac() - Ethernet destination for an IP group or broadcast
 * @c:		Configuration
 * @dst:	IP destination
 * @mac:	Result, 6 bytes, if @dst is a group or broadcast address
 *
 * IPv4 multicast: 01:00:5e and the low 23 bits of the group (RFC 1112
 * 6.4); IPv6 multicast: 33:33 and the low 32 bits (RFC 2464 7);
 * broadcast: ff:ff:ff:ff:ff:ff (RFC 894).
 *
 * Return: true if @mac was set
 */
bool udp_mcast_mac(const struct conf *c, const union inany *dst, uint8_t *mac)
{
	const struct in_addr *d4 = inany_v4(dst);

	if (d4 && IN_MULTICAST(ntohl(d4->s_addr))) {
		const uint8_t *b = (const uint8_t *)&d4->s_addr;

		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = b[1] & 0x7f;
		mac[4] = b[2];
		mac[5] = b[3];
		return true;
	}
	if (d4 && udp_mcast_is_bcast4(c, *d4)) {
		memset(mac, 0xff, ETH_ALEN);
		return true;
	}
	if (!d4 && IN6_IS_ADDR_MULTICAST(&dst->a6)) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, &dst->a6.s6_addr[12], 4);
		return true;
	}
	return false;
}

/**
 * udp_mcast_port_forwarded() - Is a host port one of our -u listeners?
 * @c:		Configuration
 * @af:		AF_INET or AF_INET6
 * @port:	Port, host order
 *
 * Return: true if a -u rule or -u auto has a socket of family @af (or a
 *	   rule of no address, whose socket takes both) on @port now
 */
static bool udp_mcast_port_forwarded(const struct conf *c, int af,
				     uint16_t port)
{
	static uint16_t dyn[CONF_FWD_AUTO_MAX];
	const struct fwd_table *t = &c->udp_in;
	unsigned i, k, n;

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		const struct fwd_socks *l = fwd_socks_of(FWD_TBL_U, i);

		if (r->af != AF_UNSPEC && inany_af(&r->addr) != af)
			continue;
		for (k = 0; k < l->n; k++) {
			if (l->s[k].port == port)
				return true;
		}
	}
	if (t->auto_bind.af != AF_UNSPEC &&
	    inany_af(&t->auto_bind.addr) != af)
		return false;
	n = fwd_auto_ports(t, dyn, CONF_FWD_AUTO_MAX);
	for (i = 0; i < n; i++) {
		if (dyn[i] == port)
			return true;
	}
	return false;
}

/**
 * udp_mcast_sock() - Host socket for a guest flow to a group or broadcast
 * @ctx:	Context
 * @dst:	Group or broadcast address (sets the family)
 * @sport:	Guest's source port, host order: bound if no socket has it, or
 *		if a -u listener of ours has it (udp_mcast_port_forwarded())
 * @bound:	Result: port the socket is bound to, host order
 *
 * See the DOC block for the options.  -o and --outbound-if4/6 apply as
 * for unicast flows (fwd_outbound(), fwd_sock_outbound()).
 *
 * #syscalls socket setsockopt bind getsockname close
 * Return: socket, not connected, or -errno
 */
int udp_mcast_sock(struct ctx *ctx, const union inany *dst, uint16_t sport,
		   uint16_t *bound)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(dst);
	int af = v4 ? AF_INET : AF_INET6;
	struct sockaddr_storage sa;
	union inany baddr, any = { 0 };
	int s, one = 1, zero = 0, ret;
	const char *ifname;
	uint16_t port;
	socklen_t sl;

	s = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s < 0) {
		flow_refused_nofile();
		return -errno;
	}
	if (v4) {
		inany_from_v4(&any, (struct in_addr){ 0 });
		setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
		setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &zero,
			   sizeof(zero));
		setsockopt(s, IPPROTO_IP, IP_MULTICAST_ALL, &zero,
			   sizeof(zero));
		setsockopt(s, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	} else {
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero,
			   sizeof(zero));
		setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_ALL, &zero,
			   sizeof(zero));
		setsockopt(s, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
			   sizeof(one));
	}
	ret = fwd_sock_outbound(c, s, dst, false);
	if (ret < 0)
		debug("UDP multicast SO_BINDTODEVICE: %s", strerror(-ret));
	if (!fwd_outbound(c, dst, &baddr, &ifname))
		baddr = any;
	else if (v4)	/* groups leave from the -o address's interface */
		setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, inany_v4(&baddr),
			   sizeof(struct in_addr));

	/* No SO_REUSEADDR, no SO_REUSEPORT: the port is ours only if no other
	 * socket of the host has it, whatever options that one set
	 */
	sl = sockaddr_from_inany(&sa, &baddr, sport, 0);
	ret = bind(s, (struct sockaddr *)&sa, sl) < 0 ? -errno : 0;
	if (ret == -EADDRINUSE && udp_mcast_port_forwarded(c, af, sport)) {
		/* The port is forwarded to the guest (-u): what shares it
		 * already goes to the guest, and mDNS answers must come
		 * from port 5353 (RFC 6762 11)
		 */
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		ret = bind(s, (struct sockaddr *)&sa, sl) < 0 ? -errno : 0;
	}
	if (!ret) {
		/* Whoever binds the port after us may share it (a -u auto
		 * listener, a host service starting): Linux gives unicast to
		 * the socket bound last, unless that one is an IPv6 one with
		 * SO_REUSEPORT
		 */
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	} else {
		sl = sockaddr_from_inany(&sa, &baddr, 0, 0);
		if (bind(s, (struct sockaddr *)&sa, sl) < 0) {
			ret = -errno;
			close(s);
			return ret;
		}
	}
	sl = sizeof(sa);
	if (getsockname(s, (struct sockaddr *)&sa, &sl) < 0) {
		ret = -errno;
		close(s);
		return ret;
	}
	inany_from_sockaddr(&baddr, &port, &sa);
	*bound = port;
	udp_mcast_stats.flows++;
	return s;
}

/**
 * udp_mcast_ttl() - Apply the guest's TTL or hop limit to a group flow
 * @uf:		Flow with @uf->mcast, its socket open
 * @ttl:	TTL (IPv4) or hop limit (IPv6) of the guest's datagram
 *
 * IPv4: IP_MULTICAST_TTL for groups, IP_TTL for broadcast (ip(7)): both
 * are set, the socket sends to one address only.  IPv6:
 * IPV6_MULTICAST_HOPS.
 *
 * #syscalls setsockopt
 */
void udp_mcast_ttl(struct udp_flow *uf, int ttl)
{
	if (inany_v4(&uf->f.key.gaddr)) {
		setsockopt(uf->sock, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
		setsockopt(uf->sock, IPPROTO_IP, IP_MULTICAST_TTL, &ttl,
			   sizeof(ttl));
	} else {
		setsockopt(uf->sock, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl,
			   sizeof(ttl));
	}
}

/**
 * udp_mcast_from_self() - Is a source one of the addresses we send from?
 * @c:		Configuration
 * @src:	Source address of a received datagram
 *
 * Return: true for the guest's address (the host's, which pasta copies),
 *	   the -o address and loopback
 */
static bool udp_mcast_from_self(const struct conf *c, const union inany *src)
{
	const struct in_addr *s4 = inany_v4(src);

	if (inany_is_loopback(src))
		return true;
	if (s4)
		return s4->s_addr == c->ip4.addr.s_addr ||
		       (c->ip4.addr_out.s_addr &&
			s4->s_addr == c->ip4.addr_out.s_addr);
	return IN6_ARE_ADDR_EQUAL(&src->a6, &c->ip6.addr) ||
	       (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr_out) &&
		IN6_ARE_ADDR_EQUAL(&src->a6, &c->ip6.addr_out));
}

/**
 * udp_mcast_own_bcast() - Is there a guest flow to a broadcast from a port?
 * @c:		Configuration
 * @dst:	Broadcast address the datagram was sent to
 * @dport:	Its port, host order
 * @sport:	Its source port, host order: the port of the flow's socket
 *
 * The guest's port is the key's, and usually the socket's too: one lookup.
 * If the socket has another port (a host service held the guest's), look
 * at the UDP flows to broadcast addresses, a scan of the flow table: only
 * for broadcasts from one of our addresses.
 *
 * Return: true if a group flow of ours sends from @sport to @dst, @dport
 */
static bool udp_mcast_own_bcast(const struct conf *c, const union inany *dst,
				uint16_t dport, uint16_t sport)
{
	union inany gaddr;
	struct flow_key k;
	union flow *flow;
	unsigned i, hwm;

	fwd_guest_addr(c, inany_af(dst), &gaddr);
	flow_key_fill(&k, IPPROTO_UDP, &gaddr, sport, dst, dport);
	flow = flow_lookup(&k);
	if (flow && flow->f.type == FLOW_UDP && flow->udp.mcast &&
	    flow->udp.mcast_port == sport)
		return true;

	hwm = flow_hwm();
	for (i = 0; i < hwm; i++) {
		const struct udp_flow *uf;

		flow = flow_at(i);
		if (flow->f.type != FLOW_UDP)
			continue;
		uf = &flow->udp;
		if (uf->mcast && uf->mcast_port == sport &&
		    uf->f.key.fport == dport &&
		    inany_equals(&uf->f.key.faddr, dst))
			return true;
	}
	return false;
}

/**
 * udp_mcast_rx_dst() - Datagram on a -u socket: to a group, or our own?
 * @ctx:	Context
 * @mh:		Received message, with its IP_PKTINFO/IPV6_PKTINFO data
 * @name:	Its source
 * @dport:	Port it was sent to (the forwarded port), host order
 * @dst:	Result: the group or broadcast address, if 1 is returned
 *
 * Return: 1 if the datagram goes to the guest as a datagram to @dst, 0
 *	   for unicast (to the guest's address), -1 to drop it (a
 *	   broadcast the guest sent through a group flow, heard back)
 */
int udp_mcast_rx_dst(struct ctx *ctx, struct msghdr *mh,
		     const struct sockaddr_storage *name, uint16_t dport,
		     union inany *dst)
{
	const struct conf *c = &ctx->c;
	union inany src;
	uint16_t sport;

	udp_pktinfo_parse(mh, NULL, dst, NULL);
	if (inany_is_unspecified(dst) || !udp_mcast_is_group(c, dst))
		return 0;
	inany_from_sockaddr(&src, &sport, name);
	/* Only broadcasts loop back: multicast loopback is off on our side */
	if (inany_v4(dst) && !IN_MULTICAST(ntohl(inany_v4(dst)->s_addr)) &&
	    udp_mcast_from_self(c, &src) &&
	    udp_mcast_own_bcast(c, dst, dport, sport)) {
		udp_mcast_stats.own++;
		return -1;
	}
	udp_mcast_stats.to_guest++;
	return 1;
}

/**
 * udp_mcast_drain() - Read and drop what a group flow's socket holds
 * @s:		Socket
 *
 * #syscalls recvfrom
 */
static void udp_mcast_drain(int s)
{
	unsigned i;

	for (i = 0; i < UDP_MCAST_BATCH * UDP_MCAST_ROUNDS; i++) {
		if (recv(s, udp_mcast_drop, sizeof(udp_mcast_drop),
			 MSG_DONTWAIT) < 0 && errno != EINTR)
			return;
		tap_tx_drop_count(1);
	}
}

/**
 * udp_mcast_sock_to_tap() - Replies on a group flow's socket: to the guest
 * @ctx:	Context
 * @uf:		Flow with @uf->mcast
 *
 * As udp.c does for connected flows (datagrams land in frame slots of the
 * tap transmit arena), but each one from its own source, to the guest's
 * port, and to the guest's address or the group or broadcast address it
 * was sent to.
 *
 * #syscalls recvmmsg
 */
void udp_mcast_sock_to_tap(struct ctx *ctx, struct udp_flow *uf)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&uf->f.key.gaddr), partial = tap_csum_offload();
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, hlen = ETH_HLEN + l3 + UDP_HLEN;
	size_t pmax = udp_payload_max(c->mtu, v4);
	size_t slot = ROUND_UP(TAP_HEADROOM + hlen + pmax, 8);
	int rounds;

	for (rounds = 0; rounds < UDP_MCAST_ROUNDS; rounds++) {
		unsigned n, i;
		struct tap_tx_room room;
		uint8_t *p;
		int r;

		if (!tap_connected() || !pmax) {
			udp_mcast_drain(uf->sock);
			return;
		}
		tap_tx_reserve(slot, 1, &room);
		p = room.p;
		n = room.n;
		if (!n) {
			udp_mcast_drain(uf->sock);
			return;
		}
		n = MIN(n, UDP_MCAST_BATCH);

		for (i = 0; i < n; i++) {
			struct msghdr *mh = &udp_mcast_mh[i].msg_hdr;

			udp_mcast_iov[i].iov_base = p + i * slot + TAP_HEADROOM +
						    hlen;
			udp_mcast_iov[i].iov_len = pmax;
			memset(mh, 0, sizeof(*mh));
			mh->msg_iov = &udp_mcast_iov[i];
			mh->msg_iovlen = 1;
			mh->msg_name = &udp_mcast_name[i];
			mh->msg_namelen = sizeof(udp_mcast_name[i]);
			mh->msg_control = udp_mcast_cmsg[i];
			mh->msg_controllen = sizeof(udp_mcast_cmsg[i]);
		}
		r = recvmmsg(uf->sock, udp_mcast_mh, n, MSG_DONTWAIT, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;

		for (i = 0; i < (unsigned)r; i++) {
			struct msghdr *mh = &udp_mcast_mh[i].msg_hdr;
			uint8_t *l2 = p + i * slot + TAP_HEADROOM;
			struct flow_key k = uf->f.key;
			union inany src, dst;
			uint16_t sport;
			size_t len;

			if (mh->msg_flags & MSG_TRUNC) {
				udp_count(UDP_COUNT_TOO_BIG, 1);
				continue;
			}
			inany_from_sockaddr(&src, &sport, &udp_mcast_name[i]);
			udp_pktinfo_parse(mh, NULL, &dst, NULL);
			if (inany_v4(&dst) &&
			    udp_mcast_is_bcast4(c, *inany_v4(&dst)) &&
			    sport == uf->mcast_port &&
			    udp_mcast_from_self(c, &src)) {
				udp_mcast_stats.own++;	/* our broadcast */
				continue;
			}
			if (!inany_is_unspecified(&dst) &&
			    udp_mcast_is_group(c, &dst)) {
				k.gaddr = dst;
				udp_mcast_stats.to_guest++;
			}
			if (!fwd_nat_to_guest(c, &src, &k.faddr)) {
				udp_count(UDP_COUNT_NO_SOURCE, 1);	/* no gateway */
				continue;
			}
			k.fport = sport;
			len = udp_frame_fill(c, l2, &k, udp_mcast_mh[i].msg_len,
					     partial);
			if (partial)
				tap_tx_add(l2, len, ETH_HLEN + l3, UDP_CSUM_OFF);
			else
				tap_tx_add(l2, len, TAP_CSUM_DONE, 0);
			udp_count(UDP_COUNT_DGRAMS_TO_TAP, 1);
		}
		udp_flow_touch(uf, ctx->now);
		uf->seen |= UDP_SEEN_ANSWER;
		if ((unsigned)r < n)
			return;
	}
}

/**
 * udp_mcast_join() - Join the group a -u rule is bound to
 * @s:		Forwarded-port socket, bound to @group, and to the device of
 *		@ifname already (SO_BINDTODEVICE, fwd_listen_sock())
 * @group:	IPv4 or IPv6 multicast address
 * @ifname:	Interface of the rule (-u ADDR%IF/PORT), "" for the one the
 *		host's routes choose
 *
 * The interface index comes from the socket (SO_BINDTOIFINDEX, Linux 5.0),
 * not from if_nametoindex(): that one needs ioctl(SIOCGIFINDEX), which the
 * seccomp filter doesn't allow (rules come at run time too: -c, and "auto"
 * ports), and it would look the name up in our network namespace, not the
 * one of a namespace-side socket.
 *
 * #syscalls setsockopt getsockopt
 * Return: 0 (also if @group isn't a multicast address), or -errno
 *	   (-ENODEV if @s isn't bound to a device while @ifname is given)
 */
int udp_mcast_join(int s, const union inany *group, const char *ifname)
{
	const struct in_addr *g4 = inany_v4(group);
	socklen_t sl = sizeof(int);
	int idx = 0;

	if (g4 ? !IN_MULTICAST(ntohl(g4->s_addr)) :
		 !IN6_IS_ADDR_MULTICAST(&group->a6))
		return 0;
	if (ifname && *ifname) {
		if (getsockopt(s, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, &sl) < 0)
			return -errno;
		if (idx <= 0)
			return -ENODEV;
	}
	if (g4) {
		struct ip_mreqn m = { .imr_multiaddr = *g4,
				      .imr_ifindex = idx };

		if (setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m,
			       sizeof(m)) < 0)
			return -errno;
	} else {
		struct ipv6_mreq m = { .ipv6mr_multiaddr = group->a6,
				       .ipv6mr_interface = (unsigned)idx };

		if (setsockopt(s, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m,
			       sizeof(m)) < 0)
			return -errno;
	}
	return 0;
}

/**
 * udp_mcast_stats_log() - Print the counters (--stats, exit)
 */
void udp_mcast_stats_log(void)
{
	info_always("stats: UDP multicast/broadcast flows %lu, refused %lu, to guest %lu, own heard back %lu",
		    udp_mcast_stats.flows, udp_mcast_stats.refused,
		    udp_mcast_stats.to_guest, udp_mcast_stats.own);
}
