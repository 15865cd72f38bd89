// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/svc_stats.c - Counters of the local services (ARP, DHCP, NDP, DHCPv6)
 *
 * One instance for the whole process, owned by this file: the handlers in
 * arp.c, dhcp.c, ndp.c and dhcpv6.c add to it through svc_count(), --stats
 * output reads it (svc_stats_print()), and only the unit tests see it.
 * The main loop is single threaded, so plain increments are enough.
 */
#include <stddef.h>
#include <stdint.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "services.h"

VISIBLE_IF_UNIT struct svc_stats svc_stats;

/* Where each counter of enum svc_count is in struct svc_stats */
static const size_t svc_count_off[] = {
	[SVC_COUNT_ARP_REQ]		= offsetof(struct svc_stats, arp_req),
	[SVC_COUNT_ARP_REPLY]		= offsetof(struct svc_stats, arp_reply),
	[SVC_COUNT_DHCP_REQ]		= offsetof(struct svc_stats, dhcp_req),
	[SVC_COUNT_DHCP_REPLY]		= offsetof(struct svc_stats, dhcp_reply),
	[SVC_COUNT_DHCP_NAK]		= offsetof(struct svc_stats, dhcp_nak),
	[SVC_COUNT_DHCP_BAD]		= offsetof(struct svc_stats, dhcp_bad),
	[SVC_COUNT_DHCP_FQDN_SKIPPED]	= offsetof(struct svc_stats, dhcp_fqdn_skipped),
	[SVC_COUNT_NDP_RS]		= offsetof(struct svc_stats, ndp_rs),
	[SVC_COUNT_NDP_NS]		= offsetof(struct svc_stats, ndp_ns),
	[SVC_COUNT_NDP_RA]		= offsetof(struct svc_stats, ndp_ra),
	[SVC_COUNT_NDP_NA]		= offsetof(struct svc_stats, ndp_na),
	[SVC_COUNT_NDP_BAD]		= offsetof(struct svc_stats, ndp_bad),
	[SVC_COUNT_DHCPV6_REQ]		= offsetof(struct svc_stats, dhcpv6_req),
	[SVC_COUNT_DHCPV6_REPLY]	= offsetof(struct svc_stats, dhcpv6_reply),
	[SVC_COUNT_DHCPV6_BAD]		= offsetof(struct svc_stats, dhcpv6_bad),
	[SVC_COUNT_DHCPV6_FQDN_SKIPPED]	= offsetof(struct svc_stats, dhcpv6_fqdn_skipped),
};

/**
 * svc_count() - Count one event of a local service
 * @what:	Which counter of struct svc_stats
 *
 * Context: main loop (single threaded: plain increments)
 */
void svc_count(enum svc_count what)
{
	uint64_t *c;

	if ((size_t)what >= ARRAY_SIZE(svc_count_off))
		return;
	c = (uint64_t *)((uint8_t *)&svc_stats + svc_count_off[what]);
	(*c)++;
}

/**
 * svc_stats_print() - Print the counters of the local services (--stats,
 *		       SIGUSR1): requests and replies, malformed requests
 */
void svc_stats_print(void)
{
	info_always("stats: ARP %lu/%lu, DHCP %lu/%lu (NAK %lu, bad %lu, FQDN skipped %lu), NDP RS %lu NS %lu RA %lu NA %lu (bad %lu), DHCPv6 %lu/%lu (bad %lu, FQDN skipped %lu)",
		    svc_stats.arp_req, svc_stats.arp_reply, svc_stats.dhcp_req,
		    svc_stats.dhcp_reply, svc_stats.dhcp_nak, svc_stats.dhcp_bad,
		    svc_stats.dhcp_fqdn_skipped,
		    svc_stats.ndp_rs, svc_stats.ndp_ns, svc_stats.ndp_ra,
		    svc_stats.ndp_na, svc_stats.ndp_bad, svc_stats.dhcpv6_req,
		    svc_stats.dhcpv6_reply, svc_stats.dhcpv6_bad,
		    svc_stats.dhcpv6_fqdn_skipped);
}
