// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/svc_stats.c - Counters of the local services (ARP, DHCP, NDP, DHCPv6)
 *
 * One instance for the whole process, written by the handlers in arp.c,
 * dhcp.c, ndp.c and dhcpv6.c and read by --stats output.  The main loop is
 * single threaded, so plain increments are enough.
 */
#include "../conf/log.h"
#include "services.h"

struct svc_stats svc_stats;

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
