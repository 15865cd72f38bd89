// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/netlink.c - Host defaults and namespace set-up through libnl-route-3
 *
 * netlink_host_defaults() looks at the routes, links and addresses of the
 * current namespace once, from three libnl caches, and picks for each
 * address family a "template" interface whose address, prefix length and
 * default gateway the guest gets; for pasta --config-net it also records
 * the template's other global addresses and its routes (fixed-size lists
 * in struct conf).  The rest are small helpers that pasta uses after
 * entering the target namespace: find a link, bring it up, set its MTU or
 * MAC, add an address or a route, wait for the kernel to finish DAD on a
 * link-local address.
 *
 * Each call opens and closes its own NETLINK_ROUTE socket: a netlink socket
 * belongs to the namespace it was created in, and callers move between
 * namespaces.  libnl's negative NLE_* codes are turned into -errno.
 */
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include "../lib/log.h"
#include "netlink.h"
#include "netlink_internal.h"
#include "../lib/visible.h"

/**
 * union netlink_ip - IPv4 or IPv6 address, network order
 * @a4:		IPv4 view
 * @a6:		IPv6 view
 */
union netlink_ip {
	struct in_addr a4;
	struct in6_addr a6;
};

/**
 * netlink_errno() - Translate a libnl error code to -errno
 * @nlerr:	Return value of a libnl function (negative NLE_* code)
 *
 * Return: matching -errno, -EIO for codes without an obvious one
 */
static int netlink_errno(int nlerr)
{
	static const int map[] = {
		[NLE_INTR] = EINTR,		[NLE_BAD_SOCK] = EBADF,
		[NLE_AGAIN] = EAGAIN,		[NLE_NOMEM] = ENOMEM,
		[NLE_EXIST] = EEXIST,		[NLE_INVAL] = EINVAL,
		[NLE_RANGE] = ERANGE,		[NLE_MSGSIZE] = EMSGSIZE,
		[NLE_OPNOTSUPP] = EOPNOTSUPP,	[NLE_AF_NOSUPPORT] = EAFNOSUPPORT,
		[NLE_OBJ_NOTFOUND] = ENOENT,	[NLE_NOADDR] = EADDRNOTAVAIL,
		[NLE_BUSY] = EBUSY,		[NLE_NOACCESS] = EACCES,
		[NLE_PERM] = EPERM,		[NLE_NODEV] = ENODEV,
		[NLE_IMMUTABLE] = EPERM,	[NLE_DUMP_INTR] = EINTR,
	};
	int e = nlerr < 0 ? -nlerr : nlerr;

	if (e > 0 && (size_t)e < ARRAY_SIZE(map) && map[e])
		return -map[e];
	return -EIO;
}

/**
 * netlink_open() - Open a NETLINK_ROUTE socket in the current namespace
 * @sk:		Result, to be released with nl_socket_free()
 *
 * Return: 0, -ENOMEM, or -errno from the connection
 */
static int netlink_open(struct nl_sock **sk)
{
	int rc;

	*sk = nl_socket_alloc();
	if (!*sk)
		return -ENOMEM;
	rc = nl_connect(*sk, NETLINK_ROUTE);
	if (rc < 0) {
		nl_socket_free(*sk);
		*sk = NULL;
		return netlink_errno(rc);
	}
	return 0;
}

/**
 * netlink_af_len() - Address length of a family
 * @af:		AF_INET or AF_INET6
 *
 * Return: 4 or 16, or 0 for other families
 */
static size_t netlink_af_len(int af)
{
	if (af == AF_INET)
		return sizeof(struct in_addr);
	if (af == AF_INET6)
		return sizeof(struct in6_addr);
	return 0;
}

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
 * netlink_prefix_covers() - Is @addr within @pfx/@len?
 * @af:		Address family of both
 * @pfx:	Network (any address inside it), network order
 * @len:	Prefix length, bits
 * @addr:	Address to check
 *
 * Return: true if the first @len bits are equal
 */
static bool netlink_prefix_covers(int af, const void *pfx, unsigned len,
				  const void *addr)
{
	const uint8_t *a = pfx, *b = addr;
	unsigned bytes = len / 8, bits = len % 8;

	if (len > netlink_af_len(af) * 8)
		return false;
	if (memcmp(a, b, bytes))
		return false;
	if (bits) {
		uint8_t mask = (uint8_t)(0xff << (8 - bits));

		return (a[bytes] & mask) == (b[bytes] & mask);
	}
	return true;
}

/**
 * struct netlink_caches - Snapshot of links, addresses and routes
 * @links:	Link cache
 * @addrs:	Address cache
 * @routes:	Route cache (all tables)
 */
struct netlink_caches {
	struct nl_cache *links;
	struct nl_cache *addrs;
	struct nl_cache *routes;
};

/**
 * netlink_caches_free() - Release a snapshot
 * @nc:		Snapshot, members may be NULL
 */
static void netlink_caches_free(struct netlink_caches *nc)
{
	if (nc->links)
		nl_cache_free(nc->links);
	if (nc->addrs)
		nl_cache_free(nc->addrs);
	if (nc->routes)
		nl_cache_free(nc->routes);
}

/**
 * netlink_caches_fill() - Dump links, addresses and routes
 * @sk:		Connected socket
 * @nc:		Snapshot to fill, zeroed by the caller
 *
 * Return: 0 or -errno (members filled so far are left for netlink_caches_free())
 */
static int netlink_caches_fill(struct nl_sock *sk, struct netlink_caches *nc)
{
	int rc;

	rc = rtnl_link_alloc_cache(sk, AF_UNSPEC, &nc->links);
	if (!rc)
		rc = rtnl_addr_alloc_cache(sk, &nc->addrs);
	if (!rc)
		rc = rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &nc->routes);
	return rc < 0 ? netlink_errno(rc) : 0;
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
 * netlink_addr_local() - Local address of an address object of one family
 * @a:		Address object
 * @af:		AF_INET or AF_INET6
 *
 * Return: the address, network order (4 or 16 bytes), or NULL if @a is of
 *	   another family or has no local address of the family's length
 */
static const void *netlink_addr_local(struct rtnl_addr *a, int af)
{
	struct nl_addr *l = rtnl_addr_get_local(a);

	if (rtnl_addr_get_family(a) != af || !l ||
	    nl_addr_get_len(l) != netlink_af_len(af))
		return NULL;
	return nl_addr_get_binary_addr(l);
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
		struct conf_addr *ca;

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
		struct conf_route *cr;
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
	struct nl_sock *sk;
	int rc;

	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = netlink_caches_fill(sk, &nc);
	if (!rc)
		rc = netlink_defaults_from(c, &nc);
	netlink_caches_free(&nc);
	nl_socket_free(sk);
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
 * netlink_link_fetch() - Read one link from the kernel
 * @sk:		Route netlink socket
 * @ifindex:	Interface index, or 0 to look the link up by @ifname
 * @ifname:	Interface name if @ifindex is 0, else NULL
 * @link:	Set on success, for rtnl_link_put()
 *
 * Return: 0, -ENODEV if there is no such link, or -errno
 */
static int netlink_link_fetch(struct nl_sock *sk, int ifindex,
			      const char *ifname, struct rtnl_link **link)
{
	int rc = rtnl_link_get_kernel(sk, ifindex, ifname, link);

	if (rc >= 0)
		return 0;
	rc = netlink_errno(rc);
	return rc == -ENOENT ? -ENODEV : rc;
}

/**
 * netlink_ifindex() - Index of a network interface
 * @ifname:	Interface name
 *
 * Return: index (> 0), -EINVAL for an empty or too long name, -ENODEV if
 *	   there is no such interface, or -errno
 */
int netlink_ifindex(const char *ifname)
{
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	int rc;

	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = netlink_link_fetch(sk, 0, ifname, &link);
	if (!rc) {
		rc = rtnl_link_get_ifindex(link);
		rtnl_link_put(link);
	}
	nl_socket_free(sk);
	return rc;
}

/**
 * enum netlink_link_op - Change requested from netlink_link_change()
 * @NL_LINK_UP:		Set IFF_UP
 * @NL_LINK_MTU:	Set the MTU
 * @NL_LINK_MAC:	Set the hardware address
 * @NL_LINK_TXQLEN:	Set the transmit queue length (IFLA_TXQLEN)
 */
enum netlink_link_op {
	NL_LINK_UP,
	NL_LINK_MTU,
	NL_LINK_MAC,
	NL_LINK_TXQLEN,
};

/**
 * netlink_link_change() - Apply one change to a link
 * @ifindex:	Interface index
 * @op:		What to change
 * @val:	New MTU (bytes) for NL_LINK_MTU, queue length (packets) for
 *		NL_LINK_TXQLEN
 * @mac:	New MAC address (6 bytes), for NL_LINK_MAC
 *
 * Return: 0 or -errno (-ENODEV if there is no such link)
 */
static int netlink_link_change(int ifindex, enum netlink_link_op op, int val,
			       const uint8_t *mac)
{
	struct rtnl_link *orig = NULL, *change = NULL;
	struct nl_addr *lladdr = NULL;
	struct nl_sock *sk;
	int rc;

	if (ifindex <= 0)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;

	rc = netlink_link_fetch(sk, ifindex, NULL, &orig);
	if (rc)
		goto out;
	change = rtnl_link_alloc();
	if (!change) {
		rc = -ENOMEM;
		goto out;
	}

	switch (op) {
	case NL_LINK_UP:
		rtnl_link_set_flags(change, IFF_UP);
		break;
	case NL_LINK_MTU:
		rtnl_link_set_mtu(change, (unsigned)val);
		break;
	case NL_LINK_TXQLEN:
		rtnl_link_set_txqlen(change, (unsigned)val);
		break;
	case NL_LINK_MAC:
		lladdr = nl_addr_build(AF_LLC, mac, ETH_ALEN);
		if (!lladdr) {
			rc = -ENOMEM;
			goto out;
		}
		rtnl_link_set_addr(change, lladdr);
		break;
	}

	rc = rtnl_link_change(sk, orig, change, 0);
	rc = rc < 0 ? netlink_errno(rc) : 0;
out:
	if (lladdr)
		nl_addr_put(lladdr);
	if (change)
		rtnl_link_put(change);
	if (orig)
		rtnl_link_put(orig);
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_link_up() - Bring a link up (IFF_UP)
 * @ifindex:	Interface index
 *
 * Return: 0 or -errno
 */
int netlink_link_up(int ifindex)
{
	return netlink_link_change(ifindex, NL_LINK_UP, 0, NULL);
}

/**
 * netlink_link_set_txqlen() - Set the transmit queue length of a link
 * @ifindex:	Interface index
 * @qlen:	Packets (for a tun device: the size of its ring of frames
 *		waiting for read(), drivers/net/tun.c)
 *
 * Return: 0 or -errno
 */
int netlink_link_set_txqlen(int ifindex, unsigned qlen)
{
	if (qlen > INT_MAX)
		return -EINVAL;
	return netlink_link_change(ifindex, NL_LINK_TXQLEN, (int)qlen, NULL);
}

/**
 * netlink_link_set_mtu() - Set the MTU of a link
 * @ifindex:	Interface index
 * @mtu:	MTU, bytes; the kernel checks it against the device's limits
 *
 * Return: 0, -EINVAL for a non-positive @mtu or one the device refuses,
 *	   or -errno
 */
int netlink_link_set_mtu(int ifindex, int mtu)
{
	if (mtu <= 0)
		return -EINVAL;
	return netlink_link_change(ifindex, NL_LINK_MTU, mtu, NULL);
}

/**
 * netlink_link_set_mac() - Set the hardware address of a link
 * @ifindex:	Interface index
 * @mac:	6-byte MAC address
 *
 * Return: 0, -EINVAL for a NULL @mac, or -errno (e.g. -EADDRNOTAVAIL for
 *	   a multicast address)
 */
int netlink_link_set_mac(int ifindex, const uint8_t *mac)
{
	if (!mac)
		return -EINVAL;
	return netlink_link_change(ifindex, NL_LINK_MAC, 0, mac);
}

/**
 * netlink_link_get_mac() - Read the hardware address of a link
 * @ifindex:	Interface index
 * @mac:	Output, 6 bytes
 *
 * Return: 0, -EOPNOTSUPP if the link has no 6-byte hardware address (a
 *	   tun device, loopback has one of zeros), -ENODEV, or -errno
 */
int netlink_link_get_mac(int ifindex, uint8_t *mac)
{
	struct rtnl_link *link = NULL;
	struct nl_addr *a;
	struct nl_sock *sk;
	int rc;

	if (ifindex <= 0 || !mac)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = netlink_link_fetch(sk, ifindex, NULL, &link);
	if (rc)
		goto out;
	a = rtnl_link_get_addr(link);
	if (!a || nl_addr_get_len(a) != ETH_ALEN) {
		rc = -EOPNOTSUPP;
	} else {
		memcpy(mac, nl_addr_get_binary_addr(a), ETH_ALEN);
		rc = 0;
	}
	rtnl_link_put(link);
out:
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_addr_add() - Add an address to a link
 * @ifindex:	Interface index
 * @af:		AF_INET or AF_INET6
 * @addr:	Address, network order (4 or 16 bytes)
 * @prefix_len:	Prefix length, 0-32 or 0-128
 *
 * IPv6 addresses are added with IFA_F_NODAD: the only other node on a tap
 * link is us, and a tentative address can't be used for a while.
 *
 * Return: 0, -EINVAL for a bad family or prefix length, -EEXIST if the
 *	   address is already there, or -errno
 */
int netlink_addr_add(int ifindex, int af, const void *addr, int prefix_len)
{
	struct rtnl_addr *a = NULL;
	struct nl_addr *local;
	struct nl_sock *sk;
	size_t alen = netlink_af_len(af);
	int rc;

	if (!alen || !addr || ifindex <= 0 || prefix_len < 0 ||
	    (size_t)prefix_len > alen * 8)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;

	a = rtnl_addr_alloc();
	local = nl_addr_build(af, addr, alen);
	if (!a || !local) {
		rc = -ENOMEM;
		goto out;
	}
	nl_addr_set_prefixlen(local, prefix_len);
	rtnl_addr_set_ifindex(a, ifindex);
	rtnl_addr_set_family(a, af);
	rc = rtnl_addr_set_local(a, local);
	if (rc < 0) {
		rc = netlink_errno(rc);
		goto out;
	}
	rtnl_addr_set_prefixlen(a, prefix_len);
	if (af == AF_INET6)
		rtnl_addr_set_flags(a, IFA_F_NODAD);

	rc = rtnl_addr_add(sk, a, NLM_F_EXCL);
	rc = rc < 0 ? netlink_errno(rc) : 0;
out:
	if (local)
		nl_addr_put(local);
	if (a)
		rtnl_addr_put(a);
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_gw_needs_onlink() - Is a gateway outside every prefix of a link?
 * @sk:		Connected socket
 * @ifindex:	Interface index
 * @af:		Family of @gw
 * @gw:		Gateway, network order
 * @onlink:	Result: true if no address of the link covers @gw
 *
 * Return: 0 or -errno
 */
static int netlink_gw_needs_onlink(struct nl_sock *sk, int ifindex, int af,
				   const void *gw, bool *onlink)
{
	struct nl_cache *addrs;
	struct nl_object *o;
	int rc;

	rc = rtnl_addr_alloc_cache(sk, &addrs);
	if (rc < 0)
		return netlink_errno(rc);

	*onlink = true;
	for (o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		const void *l = netlink_addr_local(a, af);

		if (rtnl_addr_get_ifindex(a) != ifindex || !l)
			continue;
		if (netlink_prefix_covers(af, l,
					  (unsigned)rtnl_addr_get_prefixlen(a),
					  gw)) {
			*onlink = false;
			break;
		}
	}
	nl_cache_free(addrs);
	return 0;
}

/**
 * netlink_route_add_do() - Add a unicast route of the main table through a link
 * @ifindex:	Output interface
 * @af:		AF_INET or AF_INET6
 * @dst:	Destination, network order, or NULL for the default route
 * @prefix_len:	Prefix length of @dst, bits (ignored without @dst)
 * @gw:		Gateway, network order, or NULL for a device route
 * @set_metric:	Set @metric as priority; else the kernel's default
 * @metric:	Priority (RTA_PRIORITY)
 *
 * If no address of the link covers @gw, the next hop gets RTNH_F_ONLINK,
 * so that a gateway outside the guest's prefix (or a link-local one before
 * the link-local address exists) is accepted: pasta answers for every
 * address on the link.
 *
 * Return: 0, -EINVAL for a bad family, index or prefix length, -EEXIST if
 *	   the route exists already, or -errno
 */
static int netlink_route_add_do(int ifindex, int af, const void *dst,
				int prefix_len, const void *gw, bool set_metric,
				uint32_t metric)
{
	static const uint8_t zero[16];
	struct rtnl_nexthop *nh = NULL;
	struct nl_addr *dsta = NULL, *gwa = NULL;
	struct rtnl_route *r = NULL;
	size_t alen = netlink_af_len(af);
	struct nl_sock *sk;
	bool onlink = false;
	int rc;

	if (!alen || ifindex <= 0)
		return -EINVAL;
	if (!dst) {
		dst = zero;
		prefix_len = 0;
	}
	if (prefix_len < 0 || (size_t)prefix_len > alen * 8)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;

	if (gw) {
		rc = netlink_gw_needs_onlink(sk, ifindex, af, gw, &onlink);
		if (rc)
			goto out;
	}

	r = rtnl_route_alloc();
	nh = rtnl_route_nh_alloc();
	dsta = nl_addr_build(af, dst, alen);
	if (gw)
		gwa = nl_addr_build(af, gw, alen);
	if (!r || !nh || !dsta || (gw && !gwa)) {
		rc = -ENOMEM;
		goto out;
	}
	nl_addr_set_prefixlen(dsta, prefix_len);

	rtnl_route_set_family(r, (uint8_t)af);
	rtnl_route_set_table(r, RT_TABLE_MAIN);
	rtnl_route_set_protocol(r, RTPROT_BOOT);
	rtnl_route_set_type(r, RTN_UNICAST);
	rtnl_route_set_scope(r, gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK);
	if (set_metric)
		rtnl_route_set_priority(r, metric);
	rc = rtnl_route_set_dst(r, dsta);
	if (rc < 0) {
		rc = netlink_errno(rc);
		goto out;
	}

	rtnl_route_nh_set_ifindex(nh, ifindex);
	if (gwa)
		rtnl_route_nh_set_gateway(nh, gwa);
	if (onlink)
		rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
	rtnl_route_add_nexthop(r, nh);
	nh = NULL;	/* owned by the route now */

	rc = rtnl_route_add(sk, r, NLM_F_EXCL);
	rc = rc < 0 ? netlink_errno(rc) : 0;
out:
	if (nh)
		rtnl_route_nh_free(nh);
	if (gwa)
		nl_addr_put(gwa);
	if (dsta)
		nl_addr_put(dsta);
	if (r)
		rtnl_route_put(r);
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_route_add_default() - Add a default route through a link
 * @ifindex:	Output interface (needed for link-local IPv6 gateways)
 * @af:		AF_INET or AF_INET6
 * @gw:		Gateway, network order, or NULL for a device route
 *
 * The kernel's default metric; RTNH_F_ONLINK as for netlink_route_add().
 *
 * Return: 0, -EINVAL for a bad family or index, -EEXIST if a default route
 *	   exists already, or -errno
 */
int netlink_route_add_default(int ifindex, int af, const void *gw)
{
	return netlink_route_add_do(ifindex, af, NULL, 0, gw, false, 0);
}

/**
 * netlink_route_add() - Add a route to a network through a link
 * @ifindex:	Output interface
 * @af:		AF_INET or AF_INET6
 * @dst:	Destination network, network order (4 or 16 bytes)
 * @prefix_len:	Its prefix length, 0-32 or 0-128
 * @gw:		Gateway, network order, or NULL for a route to a network
 *		on the link
 * @metric:	Priority (RTA_PRIORITY; for IPv6, 0 means the kernel's 1024)
 *
 * Main table, unicast, protocol "boot".  If no address of the link covers
 * @gw, the next hop gets RTNH_F_ONLINK: the host reached @gw on its link,
 * and on the tap link pasta answers for every address.
 *
 * Return: 0, -EINVAL for a bad family, index, prefix length or a NULL
 *	   @dst, -EEXIST if the route exists already, or -errno
 */
int netlink_route_add(int ifindex, int af, const void *dst, int prefix_len,
		      const void *gw, uint32_t metric)
{
	if (!dst)
		return -EINVAL;
	return netlink_route_add_do(ifindex, af, dst, prefix_len, gw, true, metric);
}

/**
 * netlink_find_ll() - Find a usable link-local IPv6 address of a link
 * @sk:		Connected socket
 * @ifindex:	Interface index
 * @ll:		Result
 *
 * Return: 1 if found, 0 if not (yet), -errno on failure
 */
static int netlink_find_ll(struct nl_sock *sk, int ifindex, struct in6_addr *ll)
{
	unsigned bad = IFA_F_TENTATIVE | IFA_F_DADFAILED;
	struct nl_cache *addrs;
	struct nl_object *o;
	int rc, found = 0;

	rc = rtnl_addr_alloc_cache(sk, &addrs);
	if (rc < 0)
		return netlink_errno(rc);

	for (o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		const void *l = netlink_addr_local(a, AF_INET6);

		if (rtnl_addr_get_ifindex(a) != ifindex || !l ||
		    (rtnl_addr_get_flags(a) & bad))
			continue;
		if (!IN6_IS_ADDR_LINKLOCAL(l))
			continue;
		memcpy(ll, l, sizeof(*ll));
		found = 1;
		break;
	}
	nl_cache_free(addrs);
	return found;
}

/**
 * netlink_addr_wait_ll() - Wait until a link has a non-tentative link-local address
 * @ifindex:	Interface index
 * @ll:		Result: the address
 * @timeout_ms:	How long to wait at most, ms (0: look once)
 *
 * Polls every 10 ms: DAD (RFC 4862 5.4) usually takes about one second
 * (net.ipv6.conf.*.dad_transmits times retrans_time).
 *
 * Return: 0, -ETIMEDOUT if no such address appeared in time, -ENODEV if
 *	   the link doesn't exist, -EINVAL for bad arguments, or -errno
 */
int netlink_addr_wait_ll(int ifindex, struct in6_addr *ll, int timeout_ms)
{
	struct rtnl_link *link = NULL;
	int64_t deadline;
	struct nl_sock *sk;
	int rc;

	if (ifindex <= 0 || !ll || timeout_ms < 0)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;

	rc = netlink_link_fetch(sk, ifindex, NULL, &link);
	if (rc)
		goto out;
	rtnl_link_put(link);

	deadline = now_ms() + timeout_ms;
	for (;;) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		rc = netlink_find_ll(sk, ifindex, ll);
		if (rc) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		if (now_ms() >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		nanosleep(&ts, NULL);
	}
out:
	nl_socket_free(sk);
	return rc;
}

/* Host-side watch (netlink_watch_open()): libnl's cache manager keeps
 * the three caches up to date from RTNLGRP_* notifications
 */
#define NETLINK_WATCH_DRAIN_TRIES	64	/* reads after an overrun */

static struct nl_cache_mngr *netlink_watch_mngr;
static struct netlink_caches netlink_watch_nc;
static unsigned netlink_watch_changes;

/**
 * netlink_watch_change() - libnl cache manager callback: an object changed
 * @cache:	Cache it is in (unused)
 * @obj:	Object (unused)
 * @action:	NL_ACT_NEW, NL_ACT_DEL, NL_ACT_CHANGE (unused)
 * @data:	Unused
 */
static void netlink_watch_change(struct nl_cache *cache, struct nl_object *obj,
				 int action, void *data)
{
	(void)cache;
	(void)obj;
	(void)action;
	(void)data;
	netlink_watch_changes++;
}

/**
 * netlink_watch_open() - Follow links, addresses and routes of this namespace
 *
 * Allocates a libnl cache manager (its notification socket joins the link,
 * IPv4/IPv6 address and route groups, rtnetlink(7)) and fills its caches
 * with a dump.  The receive buffer is made large (1 MiB, if allowed) so
 * that a burst of changes rarely overruns it.  Two descriptors stay open:
 * the notification socket and the manager's own for dumps.
 *
 * Context: set-up, in the host's network namespace, before isolation (the
 * sockets must be made there and then).
 * Return: the notification socket (non-blocking) to poll for input, or
 *	   -errno
 */
int netlink_watch_open(void)
{
	static const char *const names[] = { "route/link", "route/addr",
					     "route/route" };
	struct nl_cache **caches[] = { &netlink_watch_nc.links,
				       &netlink_watch_nc.addrs,
				       &netlink_watch_nc.routes };
	struct nl_sock *sk;
	unsigned i;
	int rc;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	rc = nl_cache_mngr_alloc(sk, NETLINK_ROUTE, NL_AUTO_PROVIDE,
				 &netlink_watch_mngr);
	if (rc < 0) {
		nl_socket_free(sk);
		return netlink_errno(rc);
	}
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		rc = nl_cache_mngr_add(netlink_watch_mngr, names[i],
				       netlink_watch_change, NULL, caches[i]);
		if (rc < 0)
			return netlink_errno(rc);
	}
	return nl_cache_mngr_get_fd(netlink_watch_mngr);
}

/**
 * netlink_watch_read() - Take in the notifications that arrived
 *
 * An overrun (ENOBUFS: the kernel dropped notifications, netlink(7))
 * drains the queue, then refills the three caches with a dump, through a
 * socket opened for that
 * and closed again (the host's namespace is ours: no privilege needed),
 * and counts as a change.
 *
 * #syscalls recvmsg sendmsg sendto socket bind getsockname setsockopt close
 * Return: number of objects added, removed or changed (0: nothing that
 *	   matters), or -errno if even the refill failed
 */
int netlink_watch_read(void)
{
	struct nl_cache *caches[] = { netlink_watch_nc.links,
				      netlink_watch_nc.addrs,
				      netlink_watch_nc.routes };
	struct nl_sock *sk;
	unsigned i;
	int rc;

	if (!netlink_watch_mngr)
		return -EBADF;
	netlink_watch_changes = 0;
	rc = nl_cache_mngr_data_ready(netlink_watch_mngr);
	if (rc >= 0)
		return (int)MIN(netlink_watch_changes, (unsigned)INT_MAX);

	debug("netlink notifications lost (%s): dumping again",
	      nl_geterror(rc));
	/* Drain the queue first: until it is empty, the kernel drops what
	 * comes next without reporting ENOBUFS again (the socket stays
	 * congested, netlink_overrun() in net/netlink/af_netlink.c), so a
	 * dump taken earlier could miss those changes
	 */
	for (i = 0; i < NETLINK_WATCH_DRAIN_TRIES; i++) {
		if (nl_cache_mngr_data_ready(netlink_watch_mngr) >= 0)
			break;
	}
	rc = netlink_open(&sk);
	if (rc)
		return rc;
	for (i = 0; i < ARRAY_SIZE(caches) && rc >= 0; i++)
		rc = nl_cache_refill(sk, caches[i]);
	nl_socket_free(sk);
	return rc < 0 ? netlink_errno(rc) : 1;
}

/**
 * netlink_watch_derive() - netlink_host_defaults() on the watched caches
 * @c:		Configuration, as for netlink_host_defaults()
 *
 * Links and addresses come from the caches netlink_watch_read() keeps;
 * routes are dumped again first, through a socket opened for that (see
 * the comment inside).
 *
 * #syscalls socket bind getsockname setsockopt sendmsg recvmsg close
 *
 * Return: 0, -EBADF without netlink_watch_open(), or as
 *	   netlink_host_defaults()
 */
int netlink_watch_derive(struct conf *c)
{
	struct nl_sock *sk;
	int rc;

	if (!netlink_watch_mngr)
		return -EBADF;

	/* Routes from a dump: libnl's cache merges the next hops of IPv6
	 * routes with the same key (IPv6 multipath routes come one next hop
	 * per message), and an IPv6 default route replaced on the host
	 * ("ip -6 route replace default via NEW") kept its old gateway in
	 * the cache (pasta_follow_host.sh)
	 */
	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = nl_cache_refill(sk, netlink_watch_nc.routes);
	nl_socket_free(sk);
	if (rc < 0)
		return netlink_errno(rc);
	return netlink_defaults_from(c, &netlink_watch_nc);
}

/**
 * netlink_sync_addr_wanted() - Is this address in the wanted list?
 * @a:		Address object from a dump
 * @af:		AF_INET or AF_INET6
 * @want:	Wanted addresses
 * @n:		Entries in @want
 *
 * Return: true if @a (address and prefix length) is one of @want
 */
static bool netlink_sync_addr_wanted(struct rtnl_addr *a, int af,
				     const struct conf_addr *want, unsigned n)
{
	struct nl_addr *l = rtnl_addr_get_local(a);
	unsigned i;

	if (!l || nl_addr_get_len(l) != netlink_af_len(af))
		return false;
	for (i = 0; i < n; i++) {
		if (!memcmp(nl_addr_get_binary_addr(l), &want[i].addr,
			    netlink_af_len(af)) &&
		    rtnl_addr_get_prefixlen(a) == want[i].prefix_len)
			return true;
	}
	return false;
}

/**
 * netlink_sync_route_wanted() - Is this route in the wanted list?
 * @r:		Route object from a dump
 * @af:		AF_INET or AF_INET6
 * @want:	Wanted routes (a zero prefix length: the default route)
 * @n:		Entries in @want
 *
 * Return: true if destination, prefix length and gateway match one
 */
static bool netlink_sync_route_wanted(struct rtnl_route *r, int af,
				      const struct conf_route *want, unsigned n)
{
	static const uint8_t zero[16];
	size_t alen = netlink_af_len(af);
	struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, 0);
	struct nl_addr *d = rtnl_route_get_dst(r);
	struct nl_addr *g = nh ? rtnl_route_nh_get_gateway(nh) : NULL;
	const void *db = d && nl_addr_get_len(d) == alen ?
			 nl_addr_get_binary_addr(d) : zero;
	const void *gb = g && nl_addr_get_len(g) == alen ?
			 nl_addr_get_binary_addr(g) : zero;
	int plen = d ? (int)nl_addr_get_prefixlen(d) : 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (want[i].prefix_len == plen &&
		    !memcmp(&want[i].dst, db, alen) &&
		    !memcmp(&want[i].gw, gb, alen))
			return true;
	}
	return false;
}

/**
 * netlink_sync() - Make a link's global addresses and routes the given ones
 * @ifindex:	Interface index, in the current namespace
 * @af:		AF_INET or AF_INET6
 * @addrs:	Wanted global addresses
 * @na:		Entries in @addrs
 * @routes:	Wanted routes through the link (a zero prefix length is the
 *		default route; an all-zero gateway, a route to the link)
 * @nr:		Entries in @routes
 * @old:	What we made the link have before (the previous call's
 *		@addrs and @routes, or the start-up configuration): only
 *		those may be removed
 *
 * Adds the missing addresses first (so that new gateways are reachable),
 * removes the routes we installed before that are not wanted any more,
 * adds the missing routes, on-link ones first, and removes the addresses
 * we added before that are not wanted any more.  Whatever else the link
 * has stays: the kernel's own prefix routes (RTPROT_KERNEL), routes of
 * other tables, link-local IPv6 addresses, and addresses and routes that
 * the user or a program in the namespace added (a container's own).
 *
 * Context: pasta's namespace configuration helper (passt/nsconf.c)
 * #syscalls:helper socket bind getsockname sendmsg recvmsg close
 * Return: number of changes made, or -errno if the link can't be read
 */
int netlink_sync(int ifindex, int af, const struct conf_addr *addrs,
		 unsigned na, const struct conf_route *routes, unsigned nr,
		 const struct netlink_sync_set *old)
{
	static const uint8_t zero[16];
	struct nl_cache *ac = NULL, *rc_ = NULL;
	size_t alen = netlink_af_len(af);
	struct nl_object *o;
	struct nl_sock *sk;
	unsigned i, pass;
	int rc, changes = 0;

	if (!alen || ifindex <= 0)
		return -EINVAL;
	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = rtnl_addr_alloc_cache(sk, &ac);
	if (rc >= 0)
		rc = rtnl_route_alloc_cache(sk, af, 0, &rc_);
	if (rc < 0) {
		rc = netlink_errno(rc);
		goto out;
	}

	for (i = 0; i < na; i++) {
		if (!netlink_addr_add(ifindex, af, &addrs[i].addr,
				      addrs[i].prefix_len))
			changes++;
	}

	for (o = nl_cache_get_first(rc_); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *r = (struct rtnl_route *)o;
		struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, 0);

		if ((int)rtnl_route_get_family(r) != af ||
		    rtnl_route_get_table(r) != RT_TABLE_MAIN ||
		    rtnl_route_get_protocol(r) == RTPROT_KERNEL ||
		    rtnl_route_get_type(r) != RTN_UNICAST || !nh ||
		    rtnl_route_nh_get_ifindex(nh) != ifindex)
			continue;
		if (netlink_sync_route_wanted(r, af, routes, nr) ||
		    !netlink_sync_route_wanted(r, af, old->routes, old->nr))
			continue;
		if (rtnl_route_delete(sk, r, 0) >= 0)
			changes++;
	}

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			const struct conf_route *w = &routes[i];
			bool has_gw = memcmp(&w->gw, zero, alen);

			if (has_gw != (pass == 1))
				continue;
			if (!w->prefix_len)
				rc = netlink_route_add_default(ifindex, af,
							       &w->gw);
			else
				rc = netlink_route_add(ifindex, af, &w->dst,
						       w->prefix_len,
						       has_gw ? &w->gw : NULL,
						       w->metric);
			if (!rc)
				changes++;
		}
	}

	for (o = nl_cache_get_first(ac); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;

		if (rtnl_addr_get_ifindex(a) != ifindex ||
		    rtnl_addr_get_family(a) != af ||
		    rtnl_addr_get_scope(a) != RT_SCOPE_UNIVERSE)
			continue;
		if (netlink_sync_addr_wanted(a, af, addrs, na) ||
		    !netlink_sync_addr_wanted(a, af, old->addrs, old->na))
			continue;
		if (rtnl_addr_delete(sk, a, 0) >= 0)
			changes++;
	}
	rc = changes;
out:
	if (ac)
		nl_cache_free(ac);
	if (rc_)
		nl_cache_free(rc_);
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_watch_has_addr() - Does the host have this address now?
 * @af:		AF_INET or AF_INET6
 * @addr:	Address, network order
 *
 * Looks in the watched address cache (no system call).
 *
 * Return: true if a link of the host has @addr, or if nothing is watched
 *	   (we can't tell)
 */
bool netlink_watch_has_addr(int af, const void *addr)
{
	size_t alen = netlink_af_len(af);
	struct nl_object *o;

	if (!netlink_watch_mngr || !alen)
		return true;
	for (o = nl_cache_get_first(netlink_watch_nc.addrs); o;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		struct nl_addr *l = rtnl_addr_get_local(a);

		if (rtnl_addr_get_family(a) == af && l &&
		    nl_addr_get_len(l) == alen &&
		    !memcmp(nl_addr_get_binary_addr(l), addr, alen))
			return true;
	}
	return false;
}
