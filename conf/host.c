// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/host.c - The configuration derived from the host's links, addresses
 *		 and routes
 *
 * netlink_host_defaults() looks at the routes, links and addresses of the
 * current namespace once, from a snapshot of three libnl caches
 * (netlink_dump(), lib/netlink.c), and picks for each address family a
 * "template" interface whose address, prefix length and default gateway
 * the guest gets; for pasta --config-net it also records the template's
 * other global addresses and its routes (fixed-size lists in struct conf).
 * netlink_watch_derive() does the same on the caches that lib/netlink.c
 * keeps up to date while pasta follows the host.
 *
 * Only what reads or writes struct conf is here; the netlink operations
 * themselves (links, addresses, routes, the watch) are in lib/netlink.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include "../lib/log.h"
#include "../lib/netlink.h"
#include "../lib/visible.h"
#include "host.h"
#include "host_internal.h"

/**
 * netlink_ip_unspec() - Is an address all zeroes (0.0.0.0 or ::)?
 * @af:		AF_INET or AF_INET6
 * @addr:	Address, network order
 *
 * Return: true if unspecified
 */
static bool netlink_ip_unspec(int af, const void *addr)
{
	static const uint8_t zero[sizeof(struct in6_addr)];

	return !memcmp(addr, zero, netlink_af_len(af));
}

/**
 * netlink_is_loopback() - Is this link a loopback device?
 * @nc:		Snapshot
 * @ifindex:	Interface index
 *
 * Return: true for IFF_LOOPBACK links (and for unknown indices)
 */
static bool netlink_is_loopback(const struct netlink_caches *nc, int ifindex)
{
	struct rtnl_link *link = rtnl_link_get(nc->links, ifindex);
	bool lo;

	if (!link)
		return true;
	lo = rtnl_link_get_flags(link) & IFF_LOOPBACK;
	rtnl_link_put(link);
	return lo;
}

/**
 * netlink_route_main_unicast() - Is the route a unicast route of the main table?
 * @r:		Route
 * @af:		Wanted family
 *
 * Return: true if it is
 */
static bool netlink_route_main_unicast(struct rtnl_route *r, int af)
{
	return rtnl_route_get_family(r) == af &&
	       rtnl_route_get_table(r) == RT_TABLE_MAIN &&
	       rtnl_route_get_type(r) == RTN_UNICAST;
}

/**
 * netlink_default_route() - Find the preferred default route of a family
 * @nc:		Snapshot
 * @af:		AF_INET or AF_INET6
 * @oif:	Only consider next hops through this interface, 0 for any
 *		non-loopback one
 * @ifindex:	Result: interface of the chosen next hop
 * @gw:		Result: its gateway, left alone if it has none
 * @have_gw:	Result: whether @gw was set
 *
 * Among default routes of the main table, the lowest metric wins (the
 * first one dumped on ties), and within a multipath route the next hop
 * with the highest weight.
 *
 * Return: true if a default route was found
 */
static bool netlink_default_route(const struct netlink_caches *nc, int af,
				  int oif, int *ifindex, union netlink_ip *gw,
				  bool *have_gw)
{
	struct rtnl_nexthop *best_nh = NULL;
	uint32_t best_prio = 0;
	struct nl_object *o;

	for (o = nl_cache_get_first(nc->routes); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		struct rtnl_nexthop *pick = NULL;
		struct nl_addr *dst;
		int i, n;

		if (!netlink_route_main_unicast(r, af))
			continue;
		dst = rtnl_route_get_dst(r);
		if (dst && nl_addr_get_prefixlen(dst))
			continue;
		if (best_nh && rtnl_route_get_priority(r) >= best_prio)
			continue;

		n = rtnl_route_get_nnexthops(r);
		for (i = 0; i < n; i++) {
			struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, i);
			int idx = rtnl_route_nh_get_ifindex(nh);

			if (oif ? idx != oif : netlink_is_loopback(nc, idx))
				continue;
			if (!pick || rtnl_route_nh_get_weight(nh) >
				     rtnl_route_nh_get_weight(pick))
				pick = nh;
		}
		if (pick) {
			best_nh = pick;
			best_prio = rtnl_route_get_priority(r);
		}
	}

	if (!best_nh)
		return false;

	*ifindex = rtnl_route_nh_get_ifindex(best_nh);
	*have_gw = false;
	if (rtnl_route_nh_get_gateway(best_nh)) {
		struct nl_addr *a = rtnl_route_nh_get_gateway(best_nh);

		if (nl_addr_get_len(a) == netlink_af_len(af)) {
			memcpy(gw, nl_addr_get_binary_addr(a), netlink_af_len(af));
			*have_gw = true;
		}
	}
	return true;
}

/**
 * netlink_first_routed_link() - Lowest-index non-loopback link with a route
 * @nc:		Snapshot
 * @af:		Address family of the routes
 *
 * Return: interface index, or 0 if no link has a route of @af
 */
static int netlink_first_routed_link(const struct netlink_caches *nc, int af)
{
	struct nl_object *o;
	int best = 0;

	for (o = nl_cache_get_first(nc->routes); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		int i, n;

		if (!netlink_route_main_unicast(r, af))
			continue;
		n = rtnl_route_get_nnexthops(r);
		for (i = 0; i < n; i++) {
			int idx = rtnl_route_nh_get_ifindex(
					rtnl_route_nexthop_n(r, i));

			if (idx > 0 && (!best || idx < best) &&
			    !netlink_is_loopback(nc, idx))
				best = idx;
		}
	}
	return best;
}

/**
 * netlink_addr_usable() - Could the guest take over this host address?
 * @a:		Address object
 * @af:		Wanted family
 *
 * IPv4: anything but host scope (127.0.0.0/8).  IPv6: global scope, not
 * tentative, failed DAD, deprecated or temporary (RFC 8981) addresses.
 *
 * Return: true if usable
 */
static bool netlink_addr_usable(struct rtnl_addr *a, int af)
{
	unsigned bad = IFA_F_TENTATIVE | IFA_F_DADFAILED | IFA_F_DEPRECATED |
		       IFA_F_TEMPORARY;

	if (!netlink_addr_local(a, af))
		return false;
	if (af == AF_INET)
		return rtnl_addr_get_scope(a) != RT_SCOPE_HOST;
	return rtnl_addr_get_scope(a) == RT_SCOPE_UNIVERSE &&
	       !(rtnl_addr_get_flags(a) & bad);
}

/**
 * netlink_find_addr() - Address of an interface for the guest, or its prefix
 * @nc:		Snapshot
 * @af:		AF_INET or AF_INET6
 * @ifindex:	Interface
 * @match:	If not NULL, only this address (to learn its prefix length)
 * @addr:	Result: address, network order (if @match is NULL)
 * @prefix_len:	Result: its prefix length
 *
 * Return: true if an address was found
 */
static bool netlink_find_addr(const struct netlink_caches *nc, int af,
			      int ifindex, const void *match, void *addr,
			      int *prefix_len)
{
	struct nl_object *o;

	for (o = nl_cache_get_first(nc->addrs); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		const void *bin;

		if (rtnl_addr_get_ifindex(a) != ifindex ||
		    !netlink_addr_usable(a, af))
			continue;
		bin = nl_addr_get_binary_addr(rtnl_addr_get_local(a));
		if (match && memcmp(match, bin, netlink_af_len(af)))
			continue;
		if (!match)
			memcpy(addr, bin, netlink_af_len(af));
		*prefix_len = rtnl_addr_get_prefixlen(a);
		return true;
	}
	return false;
}

/**
 * netlink_route_skip() - Why a host route is not copied into the namespace
 * @af:		AF_INET or AF_INET6
 * @table:	Routing table (RTA_TABLE / rtm_table)
 * @type:	Route type (rtm_type, RTN_*)
 * @protocol:	Who installed it (rtm_protocol, RTPROT_*)
 * @dst:	Destination, network order (4 or 16 bytes), NULL for none
 * @dst_len:	Prefix length of @dst, bits (0: default route)
 *
 * Copied are unicast routes of the main table that aren't default routes,
 * weren't made by the kernel (RTPROT_KERNEL: the prefix routes of
 * addresses, which the copied addresses bring along, and fe80::/64), and
 * don't lead to link-local (169.254.0.0/16, RFC 3927; fe80::/10, RFC 4291)
 * or multicast (224.0.0.0/4, RFC 5771; ff00::/8, RFC 4291) destinations.
 *
 * Return: NULL if the route is copied, else the reason, for a debug line
 */
VISIBLE_IF_UNIT
const char *netlink_route_skip(int af, unsigned table, unsigned type,
			       unsigned protocol, const void *dst,
			       unsigned dst_len)
{
	static const uint8_t ll4[4] = { 169, 254 }, mc4[4] = { 224 };
	static const uint8_t ll6[16] = { 0xfe, 0x80 }, mc6[16] = { 0xff };
	bool v4 = af == AF_INET;

	if (!netlink_af_len(af))
		return "not IPv4 or IPv6";
	if (table != RT_TABLE_MAIN)
		return "not in the main table";
	if (type != RTN_UNICAST)
		return "not unicast";
	if (protocol == RTPROT_KERNEL)
		return "made by the kernel";
	if (!dst || !dst_len)
		return "default route";
	if (dst_len > netlink_af_len(af) * 8)
		return "bad prefix length";
	if (dst_len >= (v4 ? 16U : 10U) &&
	    netlink_prefix_covers(af, v4 ? ll4 : ll6, v4 ? 16 : 10, dst))
		return "link-local destination";
	if (dst_len >= (v4 ? 4U : 8U) &&
	    netlink_prefix_covers(af, v4 ? mc4 : mc6, v4 ? 4 : 8, dst))
		return "multicast destination";
	return NULL;
}

/**
 * netlink_tpl_addrs() - Record the global addresses of the template interface
 * @nc:		Snapshot
 * @af:		AF_INET or AF_INET6
 * @ifindex:	Template interface
 * @tpl:	Filled: @addrs and @addr_count
 *
 * As netlink_find_addr() chooses (netlink_addr_usable()), and only global scope:
 * no IPv4 link-local (scope link) addresses either.  Beyond
 * CONF_TPL_ADDRS_MAX, addresses are left out with a debug line.
 */
static void netlink_tpl_addrs(const struct netlink_caches *nc, int af,
			      int ifindex, struct conf_tpl *tpl)
{
	struct nl_object *o;

	for (o = nl_cache_get_first(nc->addrs); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		char buf[INET6_ADDRSTRLEN];
		struct netlink_addr *ca;

		if (rtnl_addr_get_ifindex(a) != ifindex ||
		    !netlink_addr_usable(a, af) ||
		    rtnl_addr_get_scope(a) != RT_SCOPE_UNIVERSE)
			continue;
		if (tpl->addr_count >= CONF_TPL_ADDRS_MAX) {
			inet_ntop(af, netlink_addr_local(a, af), buf, sizeof(buf));
			debug("--config-net: address %s/%d not copied: more "
			      "than %d", buf, rtnl_addr_get_prefixlen(a),
			      CONF_TPL_ADDRS_MAX);
			continue;
		}
		ca = &tpl->addrs[tpl->addr_count++];
		memcpy(&ca->addr, netlink_addr_local(a, af), netlink_af_len(af));
		ca->prefix_len = rtnl_addr_get_prefixlen(a);
	}
}

/**
 * netlink_tpl_routes() - Record the routes through the template interface
 * @nc:		Snapshot
 * @af:		AF_INET or AF_INET6
 * @ifindex:	Template interface
 * @tpl:	Filled: @routes and @route_count
 *
 * Routes netlink_route_skip() accepts, with a next hop through @ifindex (of a
 * multipath route, the first such one).  Skipped routes and those beyond
 * CONF_TPL_ROUTES_MAX get a debug line.
 */
static void netlink_tpl_routes(const struct netlink_caches *nc, int af,
			       int ifindex, struct conf_tpl *tpl)
{
	size_t alen = netlink_af_len(af);
	struct nl_object *o;

	for (o = nl_cache_get_first(nc->routes); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		struct rtnl_nexthop *pick = NULL;
		char d[INET6_ADDRSTRLEN] = "?";
		struct nl_addr *dst, *gw;
		const void *dbin = NULL;
		struct netlink_route *cr;
		unsigned dlen = 0;
		const char *why;
		int i, n;

		if (rtnl_route_get_family(r) != af)
			continue;
		n = rtnl_route_get_nnexthops(r);
		for (i = 0; i < n && !pick; i++) {
			struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, i);

			if (rtnl_route_nh_get_ifindex(nh) == ifindex)
				pick = nh;
		}
		if (!pick)
			continue;	/* not a route of the template */

		dst = rtnl_route_get_dst(r);
		if (dst && nl_addr_get_len(dst) == alen) {
			dbin = nl_addr_get_binary_addr(dst);
			dlen = nl_addr_get_prefixlen(dst);
			inet_ntop(af, dbin, d, sizeof(d));
		}
		why = netlink_route_skip(af, rtnl_route_get_table(r),
					 rtnl_route_get_type(r),
					 rtnl_route_get_protocol(r), dbin,
					 dlen);
		if (!why && tpl->route_count >= CONF_TPL_ROUTES_MAX)
			why = "too many routes";
		if (why) {
			/* default route, local table: no noise */
			if (dlen && rtnl_route_get_table(r) == RT_TABLE_MAIN)
				debug("--config-net: route to %s/%u not "
				      "copied: %s", d, dlen, why);
			continue;
		}

		cr = &tpl->routes[tpl->route_count++];
		memset(cr, 0, sizeof(*cr));
		memcpy(&cr->dst, dbin, alen);
		cr->prefix_len = (int)dlen;
		cr->metric = rtnl_route_get_priority(r);
		gw = rtnl_route_nh_get_gateway(pick);
		if (gw && nl_addr_get_len(gw) == alen)
			memcpy(&cr->gw, nl_addr_get_binary_addr(gw), alen);
	}
}

/**
 * struct netlink_pick - What netlink_host_defaults() chose for one family
 * @ifindex:	Template interface, 0 if none
 * @why:	How it was chosen, for the log line
 * @usable:	The family can be used (template with an address, or -a)
 */
struct netlink_pick {
	int ifindex;
	const char *why;
	bool usable;
};

/**
 * netlink_pick_template() - Choose the template interface of a family
 * @nc:		Snapshot
 * @af:		AF_INET or AF_INET6
 * @ifname:	Given interface name (-i, --outbound-if4/6), or ""; set to
 *		the chosen interface's name
 * @p:		Result
 *
 * Return: 0, or -ENODEV if @ifname is given and doesn't exist
 */
static int netlink_pick_template(const struct netlink_caches *nc, int af,
				 char *ifname, struct netlink_pick *p)
{
	struct rtnl_link *link;
	union netlink_ip gw;
	bool have_gw;

	p->ifindex = 0;
	if (ifname[0]) {
		link = rtnl_link_get_by_name(nc->links, ifname);
		if (!link)
			return -ENODEV;
		p->ifindex = rtnl_link_get_ifindex(link);
		rtnl_link_put(link);
		p->why = "given";
		return 0;
	}

	if (netlink_default_route(nc, af, 0, &p->ifindex, &gw, &have_gw)) {
		p->why = "default route";
	} else {
		p->ifindex = netlink_first_routed_link(nc, af);
		p->why = "first interface with a route";
	}

	if (p->ifindex) {
		link = rtnl_link_get(nc->links, p->ifindex);
		if (!link) {
			p->ifindex = 0;
			return 0;
		}
		snprintf(ifname, IFNAMSIZ, "%s", rtnl_link_get_name(link));
		rtnl_link_put(link);
	}
	return 0;
}

/**
 * struct netlink_fam - The fields of one family's configuration that
 *		   netlink_defaults() fills: a view on struct conf_ip4 or conf_ip6
 * @af:		AF_INET or AF_INET6
 * @ifname:	.ifname_out, IFNAMSIZ bytes
 * @addr:	.addr, network order (4 or 16 bytes)
 * @prefix_len:	.prefix_len (< 0 if not given)
 * @gw:		.gw, network order (4 or 16 bytes)
 * @routed:	.routed
 */
struct netlink_fam {
	int af;
	char *ifname;
	void *addr;
	int *prefix_len;
	void *gw;
	bool *routed;
};

/**
 * netlink_defaults() - Fill one family's defaults from its template interface
 * @nc:		Snapshot
 * @v:		The family's configuration (given values are kept)
 * @p:		Result of the choice
 *
 * Return: 0, or -ENODEV for a given interface that doesn't exist
 */
static int netlink_defaults(const struct netlink_caches *nc,
			    const struct netlink_fam *v, struct netlink_pick *p)
{
	bool given = !netlink_ip_unspec(v->af, v->addr);
	union netlink_ip gw;
	bool have_gw;
	int idx, rc;

	*v->routed = false;
	rc = netlink_pick_template(nc, v->af, v->ifname, p);
	if (rc || !p->ifindex) {
		p->usable = given;
		return rc;
	}

	if (!given) {
		int plen;

		if (netlink_find_addr(nc, v->af, p->ifindex, NULL, v->addr,
				      &plen) && *v->prefix_len < 0)
			*v->prefix_len = plen;
	} else if (*v->prefix_len < 0) {
		netlink_find_addr(nc, v->af, p->ifindex, v->addr, NULL,
				  v->prefix_len);
	}

	*v->routed = netlink_default_route(nc, v->af, p->ifindex, &idx, &gw,
					   &have_gw);
	if (netlink_ip_unspec(v->af, v->gw) && *v->routed && have_gw)
		memcpy(v->gw, &gw, netlink_af_len(v->af));

	p->usable = !netlink_ip_unspec(v->af, v->addr);
	return 0;
}

/**
 * netlink_describe() - Append one family's choice to the info line
 * @buf:	Line buffer
 * @len:	Size of @buf
 * @n:		Characters used so far, updated
 * @af:		AF_INET or AF_INET6
 * @enabled:	Family enabled at the end
 * @prefix:	Interface and reason to print first, or NULL
 * @addr:	Address, network order
 * @plen:	Prefix length
 * @gw:		Gateway, network order
 */
static void netlink_describe(char *buf, size_t len, size_t *n, int af,
			     bool enabled, const char *prefix, const void *addr,
			     int plen, const void *gw)
{
	char a[INET6_ADDRSTRLEN + 8] = "no address", g[INET6_ADDRSTRLEN];
	const char *fam = af == AF_INET ? "IPv4" : "IPv6";
	int r;

	if (*n >= len)
		return;
	if (!enabled) {
		r = snprintf(buf + *n, len - *n, "%s%s disabled",
			     *n ? "; " : "", fam);
	} else {
		if (!netlink_ip_unspec(af, addr)) {
			inet_ntop(af, addr, a, INET6_ADDRSTRLEN);
			snprintf(a + strlen(a), 8, "/%d", plen);
		}
		if (!netlink_ip_unspec(af, gw))
			inet_ntop(af, gw, g, sizeof(g));
		else
			snprintf(g, sizeof(g), "no gateway");
		r = snprintf(buf + *n, len - *n, "%s%s%s%s %s via %s",
			     *n ? "; " : "", fam, prefix ? " " : "",
			     prefix ? prefix : "", a, g);
	}
	if (r > 0)
		*n += (size_t)r;
}

/**
 * netlink_pick_str() - "IFNAME (reason)" or "none (reason)" for the info line
 * @buf:	Output buffer
 * @len:	Size of @buf
 * @ifname:	Template interface, "" for none
 * @why:	Reason
 *
 * Return: @buf
 */
static const char *netlink_pick_str(char *buf, size_t len, const char *ifname,
				    const char *why)
{
	snprintf(buf, len, "%s (%s)", ifname[0] ? ifname : "none",
		 why ? why : "not found");
	return buf;
}

/**
 * netlink_prefix_by_class() - Classful prefix length of an IPv4 address
 * @a:		Address, network order
 *
 * RFC 791 classes (RFC 4632 section 1 for the history): A /8, B /16,
 * C /24; anything else /32.
 *
 * Return: prefix length
 */
static int netlink_prefix_by_class(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	if (!(h & 0x80000000U))
		return 8;
	if ((h & 0xc0000000U) == 0x80000000U)
		return 16;
	if ((h & 0xe0000000U) == 0xc0000000U)
		return 24;
	return 32;
}

static char netlink_summary[640];

static int netlink_defaults_from(struct conf *c,
				 const struct netlink_caches *nc);

/**
 * netlink_host_summary() - What netlink_host_defaults() chose, and why
 *
 * The caller logs it once the options are known to be consistent, so that
 * a refused option is the only line printed.
 *
 * Return: "template interface: ..." line, "" before netlink_host_defaults()
 */
const char *netlink_host_summary(void)
{
	return netlink_summary;
}

/**
 * netlink_host_defaults() - Fill addresses, prefix lengths and gateways
 * @c:		Configuration: given values are kept.  Reads @ip4/@ip6
 *		.enabled, .ifname_out (-i, --outbound-if4/6), .addr (0 or
 *		:: if not given), .prefix_len (< 0 if not given), .gw
 *
 * For each enabled family, the template interface is the given one, else
 * the interface of the default route (lowest metric), else the first
 * non-loopback interface with a route of that family.  Unless given, the
 * guest gets its first usable address (IPv6: global, not temporary,
 * tentative or deprecated) with the prefix length, and the gateway of the
 * default route through it.  The MTU is not copied.
 *
 * A family without such an address (and without -a) is disabled if the
 * other family is usable.  If no enabled family is, local mode is used:
 * IPv4 169.254.2.1/16 via 169.254.2.2, IPv6 with no address (the guest's
 * link-local one is learnt) via fe80::1; @local_mode is set.  Finally
 * @ip6.our_ll is the IPv6 gateway if that is link-local, else fe80::1.
 * One line, for netlink_host_summary(), tells what was chosen and why.
 *
 * For pasta --config-net, @ip4.tpl and @ip6.tpl get the template's global
 * addresses (unless -a for that family, or --no-copy-addrs) and its routes
 * that netlink_route_skip() accepts (unless -g for that family, or
 * --no-copy-routes); otherwise, and in local mode, they are left empty.
 *
 * Return: 0 on success, -ENODEV if a given interface doesn't exist, or
 *	   -errno if the namespace can't be read
 */
int netlink_host_defaults(struct conf *c)
{
	struct netlink_caches nc = { 0 };
	int rc;

	rc = netlink_dump(&nc);
	if (!rc)
		rc = netlink_defaults_from(c, &nc);
	netlink_caches_free(&nc);
	return rc;
}

/**
 * netlink_defaults_from() - netlink_host_defaults() on a given snapshot
 * @c:		Configuration, as for netlink_host_defaults()
 * @nc:		Links, addresses and routes (a one-off dump, or the caches
 *		of netlink_watch_open())
 *
 * Return: 0, or -ENODEV if a given interface doesn't exist
 */
static int netlink_defaults_from(struct conf *c,
				 const struct netlink_caches *nc)
{
	const struct netlink_fam v4 = { AF_INET, c->ip4.ifname_out, &c->ip4.addr,
				   &c->ip4.prefix_len, &c->ip4.gw,
				   &c->ip4.routed };
	const struct netlink_fam v6 = { AF_INET6, c->ip6.ifname_out, &c->ip6.addr,
				   &c->ip6.prefix_len, &c->ip6.gw,
				   &c->ip6.routed };
	bool copy, addrs4, addrs6, routes4, routes6;
	struct netlink_pick p4 = { 0 }, p6 = { 0 };
	char line[640], fams[448], pick[96];
	size_t n = 0;
	int rc = 0;

	/* -a and -g imply --no-copy-addrs and --no-copy-routes, per family */
	copy = c->mode == MODE_PASTA && c->config_net;
	addrs4 = copy && !c->no_copy_addrs && !c->ip4.addr.s_addr;
	addrs6 = copy && !c->no_copy_addrs &&
		 IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr);
	routes4 = copy && !c->no_copy_routes && !c->ip4.gw.s_addr;
	routes6 = copy && !c->no_copy_routes &&
		  IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw);

	if (c->ip4.enabled)
		rc = netlink_defaults(nc, &v4, &p4);
	if (!rc && c->ip6.enabled)
		rc = netlink_defaults(nc, &v6, &p6);
	if (rc)
		return rc;

	if ((c->ip4.enabled && p4.usable) || (c->ip6.enabled && p6.usable)) {
		if (c->ip4.enabled && !p4.usable)
			c->ip4.enabled = false;
		if (c->ip6.enabled && !p6.usable)
			c->ip6.enabled = false;
	} else {
		c->local_mode = true;
		if (c->ip4.enabled) {
			c->ip4.ifname_out[0] = '\0';
			c->ip4.addr.s_addr = htonl(CONF_LL4_ADDR);
			if (c->ip4.prefix_len < 0)
				c->ip4.prefix_len = CONF_LL4_PREFIX_LEN;
			if (!c->ip4.gw.s_addr)
				c->ip4.gw.s_addr = htonl(CONF_LL4_GW);
			p4.why = "local mode";
		}
		if (c->ip6.enabled) {
			c->ip6.ifname_out[0] = '\0';
			if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw))
				inet_pton(AF_INET6, "fe80::1", &c->ip6.gw);
			p6.why = "local mode";
		}
	}

	memset(&c->ip4.tpl, 0, sizeof(c->ip4.tpl));
	memset(&c->ip6.tpl, 0, sizeof(c->ip6.tpl));
	if (!c->local_mode && c->ip4.enabled && p4.ifindex) {
		if (addrs4)
			netlink_tpl_addrs(nc, AF_INET, p4.ifindex, &c->ip4.tpl);
		if (routes4)
			netlink_tpl_routes(nc, AF_INET, p4.ifindex, &c->ip4.tpl);
	}
	if (!c->local_mode && c->ip6.enabled && p6.ifindex) {
		if (addrs6)
			netlink_tpl_addrs(nc, AF_INET6, p6.ifindex, &c->ip6.tpl);
		if (routes6)
			netlink_tpl_routes(nc, AF_INET6, p6.ifindex, &c->ip6.tpl);
	}

	if (c->ip4.enabled && !p4.ifindex)
		c->ip4.ifname_out[0] = '\0';
	if (c->ip6.enabled && !p6.ifindex)
		c->ip6.ifname_out[0] = '\0';

	if (IN6_IS_ADDR_LINKLOCAL(&c->ip6.gw))
		c->ip6.our_ll = c->ip6.gw;
	else
		inet_pton(AF_INET6, "fe80::1", &c->ip6.our_ll);

	if (c->ip4.enabled && c->ip4.prefix_len < 0)
		c->ip4.prefix_len = netlink_prefix_by_class(c->ip4.addr);
	if (c->ip6.enabled && c->ip6.prefix_len < 0)
		c->ip6.prefix_len = 64;

	if (!p4.ifindex && !c->local_mode)
		p4.why = NULL;
	if (!p6.ifindex && !c->local_mode)
		p6.why = NULL;
	if (c->ip4.enabled && c->ip6.enabled && p4.why && p6.why &&
	    !strcmp(c->ip4.ifname_out, c->ip6.ifname_out)) {
		/* same interface for both families: name it once */
		char why[64];

		if (strcmp(p4.why, p6.why))
			snprintf(why, sizeof(why), "IPv4 %s, IPv6 %s", p4.why,
				 p6.why);
		else
			snprintf(why, sizeof(why), "%s", p4.why);
		netlink_pick_str(pick, sizeof(pick), c->ip4.ifname_out, why);
		netlink_describe(fams, sizeof(fams), &n, AF_INET, true, NULL,
				 &c->ip4.addr, c->ip4.prefix_len, &c->ip4.gw);
		netlink_describe(fams, sizeof(fams), &n, AF_INET6, true, NULL,
				 &c->ip6.addr, c->ip6.prefix_len, &c->ip6.gw);
		snprintf(line, sizeof(line), "template interface: %s, %s",
			 pick, fams);
	} else {
		netlink_pick_str(pick, sizeof(pick), c->ip4.ifname_out, p4.why);
		netlink_describe(fams, sizeof(fams), &n, AF_INET,
				 c->ip4.enabled, pick, &c->ip4.addr,
				 c->ip4.prefix_len, &c->ip4.gw);
		netlink_pick_str(pick, sizeof(pick), c->ip6.ifname_out, p6.why);
		netlink_describe(fams, sizeof(fams), &n, AF_INET6,
				 c->ip6.enabled, pick, &c->ip6.addr,
				 c->ip6.prefix_len, &c->ip6.gw);
		snprintf(line, sizeof(line), "template interface: %s", fams);
	}
	snprintf(netlink_summary, sizeof(netlink_summary), "%s", line);
	return 0;
}

/**
 * netlink_watch_derive() - netlink_host_defaults() on the watched caches
 * @c:		Configuration, as for netlink_host_defaults()
 *
 * Links, addresses and routes from netlink_watch_snapshot() (the routes
 * dumped again).
 *
 * Return: 0, -EBADF without netlink_watch_open(), or as
 *	   netlink_host_defaults()
 */
int netlink_watch_derive(struct conf *c)
{
	const struct netlink_caches *nc;
	int rc;

	rc = netlink_watch_snapshot(&nc);
	if (rc)
		return rc;
	return netlink_defaults_from(c, nc);
}
