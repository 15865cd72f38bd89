/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_mcast.h - UDP multicast and broadcast, both ways
 */
#ifndef PASST_UDP_MCAST_H
#define PASST_UDP_MCAST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../lib/inany.h"
#include "../lib/util.h"
#include "../tap/frame.h"
#include "udp_flow.h"

struct ctx;
struct conf;

/**
 * struct udp_mcast_stats - Counters of the multicast and broadcast paths
 * @flows:	Flows opened for guest datagrams to a group or broadcast
 * @refused:	Guest datagrams dropped: unspecified destination or port,
 *		or an IPv6 group of interface-local or link-local scope
 * @to_guest:	Datagrams to a group or broadcast address delivered to the
 *		guest as such
 * @own:	Our own datagrams heard back (broadcast loops locally)
 */
struct udp_mcast_stats {
	uint64_t flows;
	uint64_t refused;
	uint64_t to_guest;
	uint64_t own;
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct udp_mcast_stats udp_mcast_stats;
#endif

int udp_mcast_classify(const struct conf *c, const struct frame *f);
bool udp_mcast_mac(const struct conf *c, const union inany *dst,
		   uint8_t *mac);
int udp_mcast_sock(struct ctx *ctx, const union inany *dst, uint16_t sport,
		   uint16_t *bound);
void udp_mcast_ttl(struct udp_flow *uf, int ttl);
void udp_mcast_sock_to_tap(struct ctx *ctx, struct udp_flow *uf);
int udp_mcast_rx_dst(struct ctx *ctx, struct msghdr *mh,
		     const struct sockaddr_storage *name, uint16_t dport,
		     union inany *dst);
int udp_mcast_join(int s, const union inany *group, const char *ifname);
void udp_mcast_stats_log(void);

#endif /* PASST_UDP_MCAST_H */
