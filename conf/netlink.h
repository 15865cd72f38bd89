/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/netlink.h - Routes, addresses and links through libnl-route-3
 *
 * Every function opens its own NETLINK_ROUTE socket, so it acts on the
 * network namespace the calling thread is in at the time of the call
 * (pasta calls the configuration helpers after setns() into the target).
 * All return 0 (or a non-negative value where stated) or -errno.
 */
#ifndef CONF_NETLINK_H
#define CONF_NETLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "conf.h"

int netlink_host_defaults(struct conf *c);
const char *netlink_host_summary(void);

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
/**
 * struct netlink_sync_set - Addresses and routes we made a link have
 * @addrs:	Addresses
 * @na:		Entries in @addrs
 * @routes:	Routes (a zero prefix length: the default route)
 * @nr:		Entries in @routes
 */
struct netlink_sync_set {
	const struct conf_addr *addrs;
	unsigned na;
	const struct conf_route *routes;
	unsigned nr;
};

int netlink_sync(int ifindex, int af, const struct conf_addr *addrs,
		 unsigned na, const struct conf_route *routes, unsigned nr,
		 const struct netlink_sync_set *old);
int netlink_watch_open(void);
int netlink_watch_read(void);
int netlink_watch_derive(struct conf *c);
bool netlink_watch_has_addr(int af, const void *addr);
int netlink_addr_wait_ll(int ifindex, struct in6_addr *ll, int timeout_ms);

#endif /* CONF_NETLINK_H */
