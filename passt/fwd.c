// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/fwd.c - Address translation between the guest's view and the host's
 *
 * The guest believes it has the host's address and talks to the host's
 * gateway.  Two guest-side addresses stand for the host itself (upstream
 * passt's defaults, passt.1 "Handling of traffic with local destination"):
 *  - --map-host-loopback (default: the gateway address, unless --no-map-gw):
 *    traffic to it goes to the host's loopback (127.0.0.1 or ::1), and
 *    connections from the host's loopback appear to come from it;
 *  - --map-guest-addr (default: none): traffic to it goes to the host's own
 *    address, and connections from that address appear to come from it.
 * Every other address is used as is, in both directions.  Ports 53 and
 * 853 of a --dns-forward address go to the --dns-host name server, of
 * either family (fwd_dns_host()).
 *
 * Listeners for forwarded ports (-t, -u on the host; -T, -U in the
 * namespace) are opened here: one socket per port, dual-stack (IPv6 with
 * IPV6_V6ONLY off) when both families are enabled and the rule has no
 * address, non-blocking, registered with epoll with the rule and port in
 * the reference.  In the namespace, a rule without an address binds the
 * loopback addresses instead, 127.0.0.1 and ::1 (two sockets): those ports
 * serve the namespace's own programs, not its network.  Every socket comes
 * out of the table's budget (passt/limits.c): ports of "all" and
 * exclusion-only rules beyond it are skipped, with one line for the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../tap/guest.h"
#include "epoll_ref.h"
#include "flow.h"
#include "restart.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "limits.h"
#include "ctx.h"
#include "nsock.h"
#include "udp_gso.h"
#include "udp_mcast.h"

static const union inany inany_any4 = {
	.v4 = { .one = { 0xff, 0xff }, .a4 = { .s_addr = 0 } } };

/* Listening sockets of the rules, per table (enum fwd_tbl) and rule index:
 * a runtime change of the rules (passt/ctl.c) closes, keeps or moves them
 */
static struct fwd_socks fwd_reg[FWD_TBLS][CONF_MAX_FWD_RULES];

/**
 * fwd_socks_add() - Record a listening socket of a rule
 * @l:		The rule's sockets
 * @fd:		Socket
 * @port:	Its port, host order
 *
 * Return: 0, or -ENOMEM
 */
int fwd_socks_add(struct fwd_socks *l, int fd, uint16_t port)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 8;
		struct fwd_lsock *s = realloc(l->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		l->s = s;
		l->cap = cap;
	}
	l->s[l->n].fd = fd;
	l->s[l->n].port = port;
	l->n++;
	return 0;
}

/**
 * fwd_socks_of() - Listening sockets of a rule
 * @tbl:	Table
 * @rule:	Rule index
 *
 * Return: the record, owned by fwd.c
 */
struct fwd_socks *fwd_socks_of(enum fwd_tbl tbl, unsigned rule)
{
	return &fwd_reg[tbl][rule];
}

/**
 * fwd_listen_close_tbl() - Close the listening sockets of a table's rules
 * @tbl:	Table (FWD_TBL_T: -t)
 *
 * A migration source lets its guest's ports go (as upstream), so that a
 * destination on the same host (a test, a local migration) can bind them,
 * and the connections it rebuilds their addresses.  close() takes each off
 * the epoll set (epoll(7), Q6).
 *
 * #syscalls:passt close
 * Return: sockets closed
 */
unsigned fwd_listen_close_tbl(enum fwd_tbl tbl)
{
	unsigned i, j, n = 0;

	for (i = 0; i < CONF_MAX_FWD_RULES; i++) {
		struct fwd_socks *l = &fwd_reg[tbl][i];

		for (j = 0; j < l->n; j++, n++)
			close(l->s[j].fd);
		l->n = 0;
	}
	return n;
}

/**
 * fwd_listen_count() - Listening sockets of forwarded ports open now
 *
 * Return: sockets of the rules of all tables, and of "auto" ports
 */
unsigned long fwd_listen_count(void)
{
	unsigned long n = fwd_auto_socks(NULL);
	unsigned i, j;

	for (i = 0; i < FWD_TBLS; i++) {
		for (j = 0; j < CONF_MAX_FWD_RULES; j++)
			n += fwd_reg[i][j].n;
	}
	return n;
}

/**
 * fwd_listen_room() - Listening sockets that may still be opened
 * @c:		Configuration (mode, --flow-max)
 *
 * The budget of limits_listen_budget() for RLIMIT_NOFILE, as at start-up,
 * less the sockets open now: what is left of the limit stays for flows,
 * the socket and pipe pools, and set-up (the -c socket and its client).
 *
 * Context: run time (passt/ctl.c, passt/fwd_auto.c)
 * Return: number of sockets, ULONG_MAX for no limit
 */
unsigned long fwd_listen_room(const struct conf *c)
{
	unsigned long budget = limits_listen_budget(limits_nofile(),
						    c->flow_max,
						    c->mode == MODE_PASTA);
	unsigned long open = fwd_listen_count();

	if (budget == ULONG_MAX)
		return ULONG_MAX;
	return budget > open ? budget - open : 0;
}

/**
 * fwd_nat_to_host() - Translate a destination from the guest's view
 * @c:		Configuration
 * @dst:	Destination as the guest sent it
 * @host:	Destination for the host socket
 *
 * A loopback destination never comes from a well-behaved guest (RFC 1122
 * 3.2.1.3 (g), RFC 4291 2.5.3: such packets must not leave a host), and
 * would reach the host's own loopback services unmapped: refused.
 *
 * Return: false if the destination must not be reached (unspecified,
 *	   multicast or loopback), true otherwise
 */
bool fwd_nat_to_host(const struct conf *c, const union inany *dst,
		     union inany *host)
{
	const struct in_addr *d4 = inany_v4(dst);

	*host = *dst;
	if (inany_is_loopback(dst))
		return false;
	if (d4) {
		if (d4->s_addr == INADDR_ANY || IN_MULTICAST(ntohl(d4->s_addr)))
			return false;
		if (c->ip4.map_host_loopback.s_addr &&
		    d4->s_addr == c->ip4.map_host_loopback.s_addr) {
			struct in_addr lo = { htonl(INADDR_LOOPBACK) };

			inany_from_v4(host, lo);
		} else if (c->ip4.map_guest_addr.s_addr &&
			   d4->s_addr == c->ip4.map_guest_addr.s_addr) {
			inany_from_v4(host, c->ip4.addr);
		}
		return true;
	}

	if (IN6_IS_ADDR_UNSPECIFIED(&dst->a6) || IN6_IS_ADDR_MULTICAST(&dst->a6))
		return false;
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_host_loopback) &&
	    IN6_ARE_ADDR_EQUAL(&dst->a6, &c->ip6.map_host_loopback))
		host->a6 = in6addr_loopback;
	else if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_guest_addr) &&
		 IN6_ARE_ADDR_EQUAL(&dst->a6, &c->ip6.map_guest_addr))
		host->a6 = c->ip6.addr;
	return true;
}

/**
 * fwd_is_dns_port() - Is a destination port one of the DNS services?
 * @port:	Destination port, host order
 *
 * Port 53 carries DNS over UDP and TCP (RFC 1035 4.2), port 853 DNS over
 * TLS (RFC 7858, TCP) and over DTLS or QUIC (RFC 8094, RFC 9250, UDP).
 *
 * Return: true for 53 and 853
 */
static bool fwd_is_dns_port(uint16_t port)
{
	return port == 53 || port == 853;
}

/**
 * fwd_dns_host() - Name server for queries to a --dns-forward address
 * @c:		Configuration
 * @dst:	Destination as the guest sent it
 * @host:	Result: the --dns-host address to use
 *
 * @dst must be the --dns-forward address of its own family.  The name
 * server of the same family is preferred; if there is none (say, the
 * host's resolv.conf lists only ::1 and the guest queries an IPv4
 * address), the other family's is used: the host socket then has that
 * family, while the guest keeps talking to @dst.
 *
 * Return: true if @dst is a --dns-forward address and a name server was
 *	   found, false otherwise
 */
static bool fwd_dns_host(const struct conf *c, const union inany *dst,
			 union inany *host)
{
	const struct in_addr *d4 = inany_v4(dst);
	bool has4 = c->ip4.dns_host.s_addr != 0;
	bool has6 = !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_host);

	if (d4 && (!c->ip4.dns_fwd.s_addr ||
		   d4->s_addr != c->ip4.dns_fwd.s_addr))
		return false;
	if (!d4 && (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_fwd) ||
		    !IN6_ARE_ADDR_EQUAL(&dst->a6, &c->ip6.dns_fwd)))
		return false;

	if (has4 && (d4 || !has6))
		inany_from_v4(host, c->ip4.dns_host);
	else if (has6)
		host->a6 = c->ip6.dns_host;
	else
		return false;
	return true;
}

/**
 * fwd_nat_to_host_port() - Translate a TCP or UDP destination, DNS included
 * @c:		Configuration
 * @dst:	Destination address as the guest sent it
 * @dport:	Destination port, host order
 * @host:	Destination address for the host socket; its family may
 *		differ from @dst's (DNS, see fwd_dns_host())
 * @hport:	Destination port for the host socket, host order
 *
 * Ports 53 and 853 of a --dns-forward address go to the same port of the
 * --dns-host name server, if there is one; everything else is translated
 * by fwd_nat_to_host() with the port unchanged.  Replies need no reverse
 * step: frames to the guest are built from the guest-side tuple, so they
 * come from the --dns-forward address and the port the guest used.
 *
 * Return: false if the destination must not be reached, true otherwise
 */
bool fwd_nat_to_host_port(const struct conf *c, const union inany *dst,
			  uint16_t dport, union inany *host, uint16_t *hport)
{
	*hport = dport;
	if (fwd_is_dns_port(dport) && fwd_dns_host(c, dst, host))
		return true;
	return fwd_nat_to_host(c, dst, host);
}

/**
 * fwd_nat_to_guest() - Translate a host peer's address for the guest
 * @c:		Configuration
 * @peer:	Address of the host-side peer
 * @src:	Source address the guest will see
 *
 * Loopback peers, and peers using the host's own address (which the guest
 * also has), appear as --map-host-loopback (or --map-guest-addr for the
 * latter if set), else as the gateway.  With none of them (a host with no
 * default route, -i given) there is no address to show such a peer as:
 * the unspecified address is only a source while a host configures itself
 * (RFC 1122 3.2.1.3 (a), RFC 4291 2.5.2), so the caller must drop the
 * datagram or refuse the connection.
 *
 * Return: true if @src is usable, false if it is unspecified
 */
bool fwd_nat_to_guest(const struct conf *c, const union inany *peer,
		      union inany *src)
{
	const struct in_addr *p4 = inany_v4(peer);

	*src = *peer;
	if (p4) {
		bool lo = (ntohl(p4->s_addr) >> 24) == 127;
		bool self = p4->s_addr == c->ip4.addr.s_addr;

		if (self && c->ip4.map_guest_addr.s_addr)
			inany_from_v4(src, c->ip4.map_guest_addr);
		else if ((lo || self) && c->ip4.map_host_loopback.s_addr)
			inany_from_v4(src, c->ip4.map_host_loopback);
		else if (lo || self)
			inany_from_v4(src, c->ip4.gw);
	} else {
		bool lo = IN6_IS_ADDR_LOOPBACK(&peer->a6);
		bool self = IN6_ARE_ADDR_EQUAL(&peer->a6, &c->ip6.addr);

		if (self && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_guest_addr))
			src->a6 = c->ip6.map_guest_addr;
		else if ((lo || self) &&
			 !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_host_loopback))
			src->a6 = c->ip6.map_host_loopback;
		else if (lo || self)
			src->a6 = c->ip6.gw;
	}
	return !inany_is_unspecified(src);
}

/**
 * fwd_guest_addr() - The guest's address of a family
 * @c:		Configuration
 * @af:		AF_INET or AF_INET6
 * @addr:	Result: the address the guest last used, else the configured one
 */
void fwd_guest_addr(const struct conf *c, int af, union inany *addr)
{
	if (af == AF_INET) {
		inany_set(addr, AF_INET, tap_guest.addr4_seen.s_addr ?
			  &tap_guest.addr4_seen : &c->ip4.addr);
		return;
	}
	if (!IN6_IS_ADDR_UNSPECIFIED(&tap_guest.addr6_seen))
		addr->a6 = tap_guest.addr6_seen;
	else
		addr->a6 = c->ip6.addr;
}

/**
 * fwd_tcp_path() - Which path a connection accepted on a forwarded port takes
 * @ctx:	Context
 * @peer:	Source of the connection
 * @from_ns:	The listener is in the namespace (-T)
 *
 * pasta only (passt has no namespace to splice to): every -T connection
 * is spliced (it came over the namespace's loopback); a -t connection is
 * spliced if it comes from a loopback address, splicing isn't disabled
 * (--no-splice) and the namespace socket helper runs.  The splice path
 * may still decline one it can't carry (flow_accept()): it then takes
 * the tap path.
 *
 * Return: enum fwd_path
 */
enum fwd_path fwd_tcp_path(const struct ctx *ctx, const union inany *peer,
			   bool from_ns)
{
	if (ctx->c.mode != MODE_PASTA || !flow_type_on(FLOW_TCP_SPLICE))
		return FWD_PATH_TAP;
	if (from_ns)
		return FWD_PATH_SPLICE;
	if (ctx->c.no_splice || !inany_is_loopback(peer) || !nsock_ready())
		return FWD_PATH_TAP;
	return FWD_PATH_SPLICE;
}

/**
 * fwd_splice_ns_target() - Where a spliced -t/-u flow from the host's
 *			    loopback goes in the namespace
 * @c:		Configuration
 * @af:		AF_INET or AF_INET6, the peer's family
 * @dst:	Result: the namespace's own address of @af (the address the
 *		guest last used, else the configured one), or the loopback
 *		address with --host-lo-to-ns-lo, and with --splice-only
 *		(the namespace has no other address then)
 *
 * A service bound to the namespace's loopback only is private to the
 * namespace: the host's loopback must not reach it.  The namespace's own
 * address is local there too, so the connection still runs over its lo,
 * and reaches what listens on a wildcard or on that address.
 *
 * Return: 0, or -EADDRNOTAVAIL if the namespace has no address of @af
 */
int fwd_splice_ns_target(const struct conf *c, int af, union inany *dst)
{
	if (c->host_lo_to_ns_lo || c->splice_only) {
		if (af == AF_INET) {
			struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };

			inany_from_v4(dst, lo);
		} else {
			memset(dst, 0, sizeof(*dst));
			dst->a6 = in6addr_loopback;
		}
		return 0;
	}
	memset(dst, 0, sizeof(*dst));
	fwd_guest_addr(c, af, dst);
	if (inany_is_unspecified(dst))
		return -EADDRNOTAVAIL;
	return 0;
}

/**
 * fwd_port() - Target port for a port of a rule
 * @t:		Table
 * @rule:	Rule index
 * @port:	Listening port, host order
 *
 * Return: target port, host order
 */
uint16_t fwd_port(const struct fwd_table *t, unsigned rule, uint16_t port)
{
	const struct fwd_rule *r = &t->rules[rule];

	return (uint16_t)(r->to + (port - r->first));
}

/**
 * fwd_src_is_taddr() - Does a guest frame come from a target address?
 * @c:		Configuration
 * @f:		Valid frame from the guest or namespace
 *
 * Replies from a target address (PORT:ADDR/PORT, a container behind a
 * bridge in the namespace) are not the guest's own: learning that address
 * as the guest's (tap_guest_learn()) would send every other forwarded
 * connection, and the splice path, to the container.
 *
 * Return: true if @f's source is the target address of a -t or -u rule
 */
bool fwd_src_is_taddr(const struct conf *c, const struct frame *f)
{
	const struct fwd_table *t[] = { &c->tcp_in, &c->udp_in };
	unsigned i, j;

	if (f->af == AF_INET) {
		const struct in_addr *a4 = inany_v4(&f->src);

		if (!a4 || a4->s_addr == tap_guest.addr4_seen.s_addr)
			return false;	/* the usual case: nothing to look up */
	} else if (f->af == AF_INET6) {
		if (IN6_ARE_ADDR_EQUAL(&f->src.a6, &tap_guest.addr6_seen))
			return false;
	} else {
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (j = 0; j < t[i]->n; j++) {
			const struct fwd_rule *r = &t[i]->rules[j];

			if (r->tset && inany_equals(&r->taddr, &f->src))
				return true;
		}
	}
	return false;
}

/**
 * fwd_dyn_port() - Target port for a port "auto" listens on
 * @t:		Table
 * @idx:	Index of its range in @t->auto_only (epoll reference)
 * @port:	Listening port, host order
 *
 * Return: the port of the other side it forwards to: the same one, or the
 *	   target of its range ("2222:22,auto")
 */
uint16_t fwd_dyn_port(const struct fwd_table *t, unsigned idx, uint16_t port)
{
	const struct fwd_excl *o = &t->auto_only[idx];

	if (idx >= t->auto_nonly || port < o->first || port > o->last)
		return port;
	return (uint16_t)(o->to + (port - o->first));
}

/**
 * fwd_taddr() - Target address of a rule (PORT:ADDR/PORT), if it has one
 * @t:		Table
 * @rule:	Rule index
 * @dyn:	The port is one of "auto" (no rule, no target address)
 *
 * A connection or datagram to a port of such a rule goes to that address
 * on the guest or namespace side, over the tap path, instead of to the
 * guest's own address (upstream's target addresses, c8145c3, e67acde):
 * podman points it at a container behind the namespace's bridge.
 *
 * Return: the address, or NULL if the rule has none
 */
const union inany *fwd_taddr(const struct fwd_table *t, unsigned rule,
			     bool dyn)
{
	if (dyn || rule >= t->n || !t->rules[rule].tset)
		return NULL;
	return &t->rules[rule].taddr;
}

/**
 * fwd_outbound() - Source address and interface for a guest-initiated socket
 * @c:		Configuration (-o, --outbound-if4, --outbound-if6)
 * @host:	Host-side destination (after fwd_nat_to_host())
 * @baddr:	Result: the -o address of @host's family, or unspecified
 * @ifname:	Result: the --outbound-if4/6 name of @host's family, or ""
 *
 * Destinations on the host's loopback (the --map-host-loopback address)
 * get neither: a loopback connection can't leave from another address or
 * interface.
 *
 * Return: true if @baddr is a specific address to bind to
 */
bool fwd_outbound(const struct conf *c, const union inany *host,
		  union inany *baddr, const char **ifname)
{
	bool v4 = inany_v4(host);

	*baddr = v4 ? inany_any4 : (union inany){ 0 };
	*ifname = "";
	if (inany_is_loopback(host))
		return false;

	*ifname = v4 ? c->ip4.ifname_bind : c->ip6.ifname_bind;
	if (v4 && c->ip4.addr_out.s_addr) {
		inany_set(baddr, AF_INET, &c->ip4.addr_out);
		return true;
	}
	if (!v4 && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr_out)) {
		baddr->a6 = c->ip6.addr_out;
		return true;
	}
	return false;
}

/**
 * fwd_sock_outbound() - Bind a new guest-initiated socket as -o and
 *			 --outbound-if4/6 say, before its connect()
 * @c:		Configuration
 * @s:		Socket of @host's family, not bound yet
 * @host:	Host-side destination (after fwd_nat_to_host())
 * @bind_addr:	Also bind() to the -o address, port 0 (false: the caller
 *		binds itself, to a port of its choice)
 *
 * #syscalls setsockopt bind
 * Return: 0, or -errno from setsockopt(SO_BINDTODEVICE) or bind()
 */
int fwd_sock_outbound(const struct conf *c, int s, const union inany *host,
		      bool bind_addr)
{
	struct sockaddr_storage sa;
	const char *ifname;
	union inany baddr;
	socklen_t sl;

	if (!fwd_outbound(c, host, &baddr, &ifname))
		bind_addr = false;
	if (*ifname && setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				  (socklen_t)strlen(ifname)) < 0)
		return -errno;
	if (!bind_addr)
		return 0;
	sl = sockaddr_from_inany(&sa, &baddr, 0, 0);
	if (bind(s, (struct sockaddr *)&sa, sl) < 0)
		return -errno;
	return 0;
}

/**
 * fwd_udp_rcvbuf() - Size the receive queue of a forwarded UDP port's socket
 * @s:		UDP socket
 *
 * A burst from many new peers waits while each one's flow is set up, and
 * a bulk sender on a fast link (a kernel sender with UDP_SEGMENT fills
 * 8 MiB in about 3 ms at 25 Gbit/s) outruns us whenever we wait for a CPU:
 * the queue, not our speed, decides what is lost (make bench G2: 70 % of
 * the datagrams dropped at the socket, UdpRcvbufErrors, with the daemon
 * busy 20 % of the time).  So FWD_UDP_RCVBUF is asked with SO_RCVBUFFORCE
 * where we may (CAP_NET_ADMIN over the socket's network namespace: pasta
 * or passt started as root, set-up only, socket(7)), as a receiver with
 * the privilege would, else with SO_RCVBUF, which the kernel caps at
 * net.core.rmem_max.  Either way the kernel doubles the value for its own
 * overhead, and memory is charged only for datagrams actually queued.
 *
 * Context: set-up, or the main loop (auto ports: no capabilities left,
 *	    SO_RCVBUFFORCE fails with EPERM and SO_RCVBUF applies)
 * #syscalls setsockopt
 */
static void fwd_udp_rcvbuf(int s)
{
	int rcvbuf = FWD_UDP_RCVBUF;

	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
}

/**
 * fwd_listen_sock() - Open, bind and register one listening socket
 * @ctx:	Context
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @r:		Rule
 * @rule:	Rule index
 * @port:	Port, host order
 * @af:		AF_INET or AF_INET6 (with @dual: IPV6_V6ONLY off)
 * @dual:	Dual-stack wildcard socket
 * @ns:		Socket lives in the namespace (for the epoll reference)
 * @dyn:	Port of "auto" (epoll reference)
 * @helper:	In the namespace, the socket comes from the namespace
 *		socket helper (passt/nsock.c): at run time
 * @addr:	Bind address for a rule without one, NULL for the wildcard
 *
 * #syscalls socket setsockopt bind listen epoll_ctl close
 * Return: the socket, or -errno
 */
static int fwd_listen_sock(struct ctx *ctx, uint8_t proto,
			   const struct fwd_rule *r, unsigned rule,
			   uint16_t port, int af, bool dual, bool ns, bool dyn,
			   bool helper, const union inany *addr)
{
	int type = proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	union epoll_ref ref = { .type = proto == IPPROTO_TCP ?
				EPOLL_TYPE_TCP_LISTEN : EPOLL_TYPE_UDP_LISTEN };
	struct sockaddr_storage sa;
	struct epoll_event ev;
	union inany any;
	socklen_t sl;
	int s, one = 1, zero = 0, ret;

	if (ns && helper)
		s = nsock_get_type(af, proto == IPPROTO_UDP);
	else
		s = socket(af, type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (s < 0)
		return ns && helper ? s : -errno;

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (af == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, dual ? &zero : &one,
			   sizeof(int));
	if (ctx->c.freebind) {
		setsockopt(s, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
		if (af == AF_INET6)
			setsockopt(s, IPPROTO_IPV6, IPV6_FREEBIND, &one,
				   sizeof(one));
	}
	if (proto == IPPROTO_UDP)
		fwd_udp_rcvbuf(s);
	if (proto == IPPROTO_UDP && af == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
	if (proto == IPPROTO_UDP && (af == AF_INET || dual))
		setsockopt(s, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	/* IPv4 groups joined by programs of the host reach a wildcard IPv4
	 * socket (IP_MULTICAST_ALL, on by default there), but a dual-stack
	 * one only with the option set: it's off for AF_INET6 sockets
	 * (passt/udp_mcast.c)
	 */
	if (proto == IPPROTO_UDP && dual && !ns)
		setsockopt(s, IPPROTO_IP, IP_MULTICAST_ALL, &one, sizeof(one));
	/* ICMP errors about the guest's replies to peers (passt/udp.c):
	 * IPv4 ones on a dual-stack socket need IP_RECVERR too (ip(7))
	 */
	if (proto == IPPROTO_UDP && !ns && af == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	if (proto == IPPROTO_UDP && !ns && (af == AF_INET || dual))
		setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	/* Super-datagrams from peers on either side (passt/udp.c,
	 * udp_gso.c): a -U port's go on whole, spliced to the host
	 */
	if (proto == IPPROTO_UDP)
		udp_gro_set(s);
	if (r->ifname[0] &&
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, r->ifname,
		       (socklen_t)strlen(r->ifname)) < 0) {
		ret = -errno;
		goto close_s;
	}

	if (r->af != AF_UNSPEC) {
		sl = sockaddr_from_inany(&sa, &r->addr, port, 0);
	} else if (addr) {
		sl = sockaddr_from_inany(&sa, addr, port, 0);
	} else if (af == AF_INET) {
		any = inany_any4;	/* 0.0.0.0, IPv4-mapped */
		sl = sockaddr_from_inany(&sa, &any, port, 0);
	} else {
		memset(&any, 0, sizeof(any));
		sl = sockaddr_from_inany(&sa, &any, port, 0);
	}

	if (bind(s, (struct sockaddr *)&sa, sl) < 0) {
		ret = -errno;
		goto close_s;
	}
	/* -u GROUP/PORT: receive that group (passt/udp_mcast.c) */
	if (proto == IPPROTO_UDP && r->af != AF_UNSPEC &&
	    (ret = udp_mcast_join(s, &r->addr, r->ifname)) < 0)
		goto close_s;
	if (proto == IPPROTO_TCP) {
		/* Every connection we accept wants both: set here once, not
		 * twice per connection (an accepted socket is a copy of its
		 * listener, sk_clone_lock(); tcp_create_openreq_child() arms
		 * the keepalive timer of a copy with SOCK_KEEPOPEN)
		 */
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	}
	/* The kernel's cap, net.core.somaxconn (4096 by default): a burst
	 * while we're busy waits in the accept queue; a backlog of 128
	 * dropped the 129th handshake and its peer backed off for up to a
	 * minute (listen(2), Documentation/networking/ip-sysctl.rst)
	 */
	if (proto == IPPROTO_TCP && listen(s, SOMAXCONN) < 0) {
		ret = -errno;
		goto close_s;
	}

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ref.listen.port = port;
	ref.listen.rule = (uint8_t)rule;
	ref.listen.ns = ns;
	ref.listen.dyn = dyn;
	ev.events = EPOLLIN;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev) < 0) {
		ret = -errno;
		goto close_s;
	}
	return s;
close_s:
	close(s);
	return ret;
}

/**
 * fwd_listen_one() - fwd_listen_sock() for a port of a rule, recorded
 * @ctx:	Context
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @r:		Rule
 * @rule:	Rule index
 * @port:	Port, host order
 * @af:		AF_INET or AF_INET6
 * @dual:	Dual-stack wildcard socket
 * @ns:		Socket lives in the namespace
 * @helper:	Namespace socket from the helper (run time)
 * @addr:	Bind address for a rule without one, NULL for the wildcard
 * @l:		Where to record the socket
 *
 * Return: 0, or -errno
 */
static int fwd_listen_one(struct ctx *ctx, uint8_t proto,
			  const struct fwd_rule *r, unsigned rule,
			  uint16_t port, int af, bool dual, bool ns,
			  bool helper, const union inany *addr,
			  struct fwd_socks *l)
{
	int s = fwd_listen_sock(ctx, proto, r, rule, port, af, dual, ns,
				false, helper, addr);

	if (s < 0)
		return s;
	if (fwd_socks_add(l, s, port)) {
		close(s);
		return -ENOMEM;
	}
	return 0;
}

/**
 * fwd_listen_dyn() - Open the listeners of one "auto" port
 * @ctx:	Context
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @r:		Bind address and interface (struct fwd_table.auto_bind)
 * @port:	Port to listen on, host order
 * @idx:	Range of struct fwd_table.auto_only it belongs to (0 without
 *		any), for the epoll reference: fwd_dyn_port()
 * @ns:		In the namespace (-T, -U): sockets from the namespace socket
 *		helper, bound to 127.0.0.1 and ::1 unless @r has an address
 * @fds:	Result: the sockets, -1 for none (two at most)
 *
 * As fwd_listen() does for a port of a rule, at run time.
 *
 * Context: main loop
 * Return: number of sockets opened (at least one), or -errno of the first
 *	   failure
 */
int fwd_listen_dyn(struct ctx *ctx, uint8_t proto, const struct fwd_rule *r,
		   uint16_t port, unsigned idx, bool ns, int fds[2])
{
	bool v4 = ctx->c.ip4.enabled, v6 = ctx->c.ip6.enabled;
	union inany lo4, lo6 = { .a6 = IN6ADDR_LOOPBACK_INIT };
	struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };

	inany_from_v4(&lo4, lo);
	fds[0] = fds[1] = -1;
	if (r->af != AF_UNSPEC) {
		fds[0] = fwd_listen_sock(ctx, proto, r, idx, port,
					 inany_af(&r->addr), false, ns, true,
					 true, NULL);
	} else if (ns) {
		fds[0] = fwd_listen_sock(ctx, proto, r, idx, port, AF_INET,
					 false, ns, true, true, &lo4);
		fds[1] = fwd_listen_sock(ctx, proto, r, idx, port, AF_INET6,
					 false, ns, true, true, &lo6);
		if (fds[0] < 0 && fds[1] >= 0) {
			fds[0] = fds[1];
			fds[1] = -1;
		} else if (fds[1] < 0) {
			fds[1] = -1;
		}
	} else if (v6) {
		fds[0] = fwd_listen_sock(ctx, proto, r, idx, port, AF_INET6, v4,
					 ns, true, true, NULL);
		if (fds[0] == -EAFNOSUPPORT && v4)
			fds[0] = fwd_listen_sock(ctx, proto, r, idx, port,
						 AF_INET, false, ns, true,
						 true, NULL);
	} else {
		fds[0] = fwd_listen_sock(ctx, proto, r, idx, port, AF_INET,
					 false, ns, true, true, NULL);
	}
	if (fds[0] < 0) {
		int ret = fds[0];

		fds[0] = -1;
		return ret;
	}
	return fds[1] >= 0 ? 2 : 1;
}

/**
 * fwd_listen_port() - Open the listeners of one port of a rule
 * @ctx:	Context
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @r:		Rule
 * @rule:	Its index, for the epoll reference
 * @port:	Port, host order
 * @ns:		In the namespace: a rule without an address binds 127.0.0.1
 *		and ::1 (one of them is enough: ::1 may be disabled)
 * @helper:	Namespace sockets from the helper (run time, passt/ctl.c)
 * @l:		The rule's record of sockets, appended to
 *
 * On the host, a rule without an address gets one dual-stack socket if
 * both families are enabled (an IPv4 one if IPv6 sockets can't be had).
 *
 * Return: 0 if a socket was opened, else -errno of the failure
 */
int fwd_listen_port(struct ctx *ctx, uint8_t proto, const struct fwd_rule *r,
		    unsigned rule, uint16_t port, bool ns, bool helper,
		    struct fwd_socks *l)
{
	bool v4 = ctx->c.ip4.enabled, v6 = ctx->c.ip6.enabled;
	union inany lo4, lo6 = { .a6 = IN6ADDR_LOOPBACK_INIT };
	struct in_addr lo = { .s_addr = htonl(INADDR_LOOPBACK) };
	int ret;

	inany_from_v4(&lo4, lo);
	if (r->af != AF_UNSPEC)
		return fwd_listen_one(ctx, proto, r, rule, port,
				      inany_af(&r->addr), false, ns, helper,
				      NULL, l);
	if (ns) {
		int r4 = -EAFNOSUPPORT, r6 = -EAFNOSUPPORT;

		/* Only the enabled families (-4, -6).  IPv4: any 127.0.0.0/8
		 * address, as the wildcard bound to lo; what arrives there
		 * for another address is refused by the handlers
		 */
		if (v4) {
			struct fwd_rule lr = *r;
			bool any = !r->ifname[0];

			if (any)
				memcpy(lr.ifname, "lo", 3);
			r4 = fwd_listen_one(ctx, proto, &lr, rule, port,
					    AF_INET, false, ns, helper,
					    any ? &inany_any4 : &lo4, l);
		}
		if (v6)
			r6 = fwd_listen_one(ctx, proto, r, rule, port,
					    AF_INET6, false, ns, helper, &lo6,
					    l);
		/* One family is enough (::1 may be disabled) */
		return !r4 || !r6 ? 0 : r4;
	}
	if (v6) {
		ret = fwd_listen_one(ctx, proto, r, rule, port, AF_INET6, v4,
				     ns, helper, NULL, l);
		if (ret == -EAFNOSUPPORT && v4)
			ret = fwd_listen_one(ctx, proto, r, rule, port,
					     AF_INET, false, ns, helper, NULL,
					     l);
		return ret;
	}
	return fwd_listen_one(ctx, proto, r, rule, port, AF_INET, false, ns,
			      helper, NULL, l);
}

/**
 * fwd_listen() - Open listeners for every port of a table
 * @ctx:	Context (epoll instance)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @t:		Table (-t, -u, -T or -U)
 * @ns:		Sockets are opened in the namespace (the caller entered it);
 *		rules without an address bind 0.0.0.0 on lo (any 127.0.0.0/8
 *		address) and ::1 there
 *
 * Ports of weak rules beyond the table's descriptor budget are skipped
 * (limits_listen_take()), with one warning naming the option.  The
 * sockets are recorded per rule (fwd_socks_of()).
 *
 * Context: set-up, in the network namespace where the ports are
 * Return: number of ports with a socket, or -errno for a port of a
 *	   non-weak rule that can't be bound (the error is logged with the
 *	   port)
 */
int fwd_listen(struct ctx *ctx, uint8_t proto, const struct fwd_table *t,
	       bool ns)
{
	const char *pname = proto == IPPROTO_TCP ? "TCP" : "UDP";
	bool udp = proto == IPPROTO_UDP;
	enum limits_tbl tbl = ns ? (udp ? LIMITS_TBL_UNS : LIMITS_TBL_TNS) :
				   (udp ? LIMITS_TBL_U : LIMITS_TBL_T);
	enum fwd_tbl ft = fwd_tbl_id(udp, ns);
	bool v4 = ctx->c.ip4.enabled, v6 = ctx->c.ip6.enabled;
	unsigned i, opened = 0, skipped = 0;

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		struct fwd_socks *l = fwd_socks_of(ft, i);
		unsigned p;

		for (p = r->first; p <= r->last; p++) {
			unsigned socks = ns && r->af == AF_UNSPEC ? v4 + v6 : 1;
			unsigned before = l->n;
			int ret;

			if (!limits_listen_take(tbl, r->weak, socks)) {
				skipped++;
				continue;
			}
			ret = fwd_listen_port(ctx, proto, r, i, (uint16_t)p, ns,
					      false, l);
			if (l->n - before < socks)
				limits_listen_put(tbl, r->weak,
						  socks - (l->n - before));
			if (ret < 0 && !r->weak) {
				err("%s port %u: can't listen: %s", pname, p,
				    strerror(-ret));
				return ret;
			}
			if (!ret)
				opened++;
		}
	}

	if (skipped)
		warn("%s: %u ports skipped, RLIMIT_NOFILE %lu leaves no more "
		     "descriptors for listening sockets (%u ports bound): "
		     "raise the limit (ulimit -n) to forward them",
		     limits_listen_opt(tbl), skipped, limits_nofile(), opened);
	return (int)opened;
}

/**
 * fwd_restart_save() - Old process: a record per forwarded-port listener
 * @b:		Stream being written (passt/restart.h)
 * @fds:	Descriptors to send
 * @max:	Room in @fds
 *
 * Listeners of "auto" ports (passt/fwd_auto.c) are not handed over: the
 * new process's first scan opens them again, once the old one is gone.
 *
 * Context: restart_give(), between batches
 */
void fwd_restart_save(struct restart_buf *b, int *fds, size_t max)
{
	unsigned t, i, j;

	for (t = 0; t < FWD_TBLS; t++) {
		for (i = 0; i < CONF_MAX_FWD_RULES; i++) {
			const struct fwd_socks *l = &fwd_reg[t][i];

			for (j = 0; j < l->n; j++) {
				struct restart_rec r = {
					.type = RESTART_REC_LISTEN };

				r.u.listen.proto = t & 1 ? IPPROTO_UDP :
							   IPPROTO_TCP;
				r.u.listen.tbl = (uint8_t)t;
				r.u.listen.rule = (uint8_t)i;
				r.u.listen.ns = t & 2;
				r.u.listen.port = l->s[j].port;
				r.u.listen.fd = restart_fd_add(b, fds, max,
							       l->s[j].fd);
				restart_put(b, &r);
			}
		}
	}
}

/**
 * fwd_restart_adopt() - New process: a received listener into our loop
 * @ctx:	Context
 * @l:		Its record
 * @fd:		The socket
 *
 * Context: set-up, restart_adopt()
 * #syscalls epoll_ctl
 */
void fwd_restart_adopt(struct ctx *ctx, const struct restart_listen *l, int fd)
{
	union epoll_ref ref = { .type = l->proto == IPPROTO_TCP ?
				EPOLL_TYPE_TCP_LISTEN : EPOLL_TYPE_UDP_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };

	if (fd < 0)
		return;
	if (l->tbl != fwd_tbl_id(l->proto == IPPROTO_UDP, l->ns)) {
		close(fd);
		return;
	}
	ref.fd = (uint32_t)fd & EPOLL_REF_FD_MAX;
	ref.listen.port = l->port;
	ref.listen.rule = l->rule;
	ref.listen.ns = l->ns;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fd, &ev) ||
	    fwd_socks_add(&fwd_reg[l->tbl][l->rule], fd, l->port)) {
		warn_perror("restart: listener of port %u", l->port);
		close(fd);
	}
}
