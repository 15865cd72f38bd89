/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/netlink.h - Links, addresses and routes through libnl-route-3
 *
 * General route netlink operations (rtnetlink(7)) that know nothing of
 * passt's configuration: find a link, bring it up, set its MTU, queue
 * length or MAC, add an address or a route, wait for DAD to end on a
 * link-local address, make a link's addresses and routes a given set,
 * take a snapshot of the links, addresses and routes of a namespace, and
 * keep one up to date from notifications (the "watch").
 *
 * Every operation opens its own NETLINK_ROUTE socket, so it acts on the
 * network namespace the calling thread is in at the time of the call.
 * All return 0 (or a non-negative value where stated) or -errno.
 */
#ifndef LIB_NETLINK_H
#define LIB_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct nl_cache;
struct rtnl_addr;

/**
 * union netlink_ip - IPv4 or IPv6 address, network order
 * @a4:		IPv4 view (the first 4 bytes)
 * @a6:		IPv6 view
 */
union netlink_ip {
	struct in_addr a4;
	struct in6_addr a6;
};

/**
 * struct netlink_addr - An address of a link, with its prefix length
 * @addr:	Address, network order
 * @prefix_len:	Its prefix length, bits
 */
struct netlink_addr {
	union netlink_ip addr;
	int prefix_len;
};

/**
 * struct netlink_route - A unicast route of the main table through a link
 * @dst:	Destination network, network order
 * @gw:		Gateway, network order; all zeroes for a route without
 *		one (on-link destination)
 * @prefix_len:	Prefix length of @dst, bits (0: the default route)
 * @metric:	Route priority (RTA_PRIORITY), lower wins
 */
struct netlink_route {
	union netlink_ip dst;
	union netlink_ip gw;
	int prefix_len;
	uint32_t metric;
};

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

size_t netlink_af_len(int af);
bool netlink_prefix_covers(int af, const void *pfx, unsigned len,
			   const void *addr);
const void *netlink_addr_local(struct rtnl_addr *a, int af);
int netlink_dump(struct netlink_caches *nc);
void netlink_caches_free(struct netlink_caches *nc);

int netlink_ifindex(const char *ifname);
int netlink_link_up(int ifindex);
int netlink_link_set_mtu(int ifindex, int mtu);
int netlink_link_set_txqlen(int ifindex, unsigned qlen);
int netlink_link_set_mac(int ifindex, const uint8_t *mac);
int netlink_link_get_mac(int ifindex, uint8_t *mac);
int netlink_addr_add(int ifindex, int af, const void *addr, int prefix_len);
int netlink_route_add_default(int ifindex, int af, const void *gw);
int netlink_route_add(int ifindex, int af, const void *dst, int prefix_len,
		      const void *gw, uint32_t metric);
int netlink_addr_wait_ll(int ifindex, struct in6_addr *ll, int timeout_ms);

/**
 * struct netlink_sync_set - Addresses and routes we made a link have
 * @addrs:	Addresses
 * @na:		Entries in @addrs
 * @routes:	Routes (a zero prefix length: the default route)
 * @nr:		Entries in @routes
 */
struct netlink_sync_set {
	const struct netlink_addr *addrs;
	unsigned na;
	const struct netlink_route *routes;
	unsigned nr;
};

int netlink_sync(int ifindex, int af, const struct netlink_addr *addrs,
		 unsigned na, const struct netlink_route *routes, unsigned nr,
		 const struct netlink_sync_set *old);

int netlink_watch_open(void);
int netlink_watch_read(void);
int netlink_watch_snapshot(const struct netlink_caches **nc);
bool netlink_watch_has_addr(int af, const void *addr);

#endif /* LIB_NETLINK_H */
