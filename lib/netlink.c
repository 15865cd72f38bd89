// SPDX-License-Identifier: GPL-2.0-or-later
/* lib/netlink.c - Links, addresses and routes through libnl-route-3
 *
 * The general route netlink operations, knowing nothing of passt's
 * configuration: find a link, bring it up, set its MTU, queue length or
 * MAC, add an address or a route, wait for the kernel to finish DAD on a
 * link-local address (pasta uses these after entering the target
 * namespace); make a link's global addresses and routes a given set
 * (netlink_sync()); a one-off snapshot of the links, addresses and routes
 * of a namespace (netlink_dump()), and one that libnl's cache manager
 * keeps up to date from notifications (netlink_watch_open()).  What the
 * configuration takes from these snapshots is conf/host.c's business.
 *
 * Each call opens and closes its own NETLINK_ROUTE socket: a netlink socket
 * belongs to the namespace it was created in, and callers move between
 * namespaces.  libnl's negative NLE_* codes are turned into -errno.
 */
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include "log.h"
#include "netlink.h"
#include "util.h"

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
size_t netlink_af_len(int af)
{
	if (af == AF_INET)
		return sizeof(struct in_addr);
	if (af == AF_INET6)
		return sizeof(struct in6_addr);
	return 0;
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
bool netlink_prefix_covers(int af, const void *pfx, unsigned len,
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
 * netlink_caches_free() - Release a snapshot
 * @nc:		Snapshot, members may be NULL
 */
void netlink_caches_free(struct netlink_caches *nc)
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
 * netlink_dump() - Snapshot of the links, addresses and routes of this namespace
 * @nc:		Snapshot to fill, zeroed by the caller; released with
 *		netlink_caches_free(), also on failure
 *
 * One dump of each (RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE, all tables),
 * through a socket opened for it and closed again.
 *
 * Return: 0 or -errno
 */
int netlink_dump(struct netlink_caches *nc)
{
	struct nl_sock *sk;
	int rc;

	rc = netlink_open(&sk);
	if (rc)
		return rc;
	rc = netlink_caches_fill(sk, nc);
	nl_socket_free(sk);
	return rc;
}

/**
 * netlink_addr_local() - Local address of an address object of one family
 * @a:		Address object
 * @af:		AF_INET or AF_INET6
 *
 * Return: the address, network order (4 or 16 bytes), or NULL if @a is of
 *	   another family or has no local address of the family's length
 */
const void *netlink_addr_local(struct rtnl_addr *a, int af)
{
	struct nl_addr *l = rtnl_addr_get_local(a);

	if (rtnl_addr_get_family(a) != af || !l ||
	    nl_addr_get_len(l) != netlink_af_len(af))
		return NULL;
	return nl_addr_get_binary_addr(l);
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
 * netlink_watch_snapshot() - The watched links, addresses and routes
 * @nc:		Set to the caches netlink_watch_read() keeps (read only,
 *		valid until the next netlink_watch_read())
 *
 * Links and addresses are the cached ones; routes are dumped again first,
 * through a socket opened for that (see the comment inside).
 *
 * #syscalls socket bind getsockname setsockopt sendmsg recvmsg close
 *
 * Return: 0, -EBADF without netlink_watch_open(), or -errno if the routes
 *	   can't be dumped
 */
int netlink_watch_snapshot(const struct netlink_caches **nc)
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
	*nc = &netlink_watch_nc;
	return 0;
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
				     const struct netlink_addr *want, unsigned n)
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
				      const struct netlink_route *want, unsigned n)
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
int netlink_sync(int ifindex, int af, const struct netlink_addr *addrs,
		 unsigned na, const struct netlink_route *routes, unsigned nr,
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
			const struct netlink_route *w = &routes[i];
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
