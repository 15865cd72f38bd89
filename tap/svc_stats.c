// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/svc_stats.c - Counters of the local services (ARP, DHCP, NDP, DHCPv6)
 *
 * One instance for the whole process, written by the handlers in arp.c,
 * dhcp.c, ndp.c and dhcpv6.c and read by --stats output.  The main loop is
 * single threaded, so plain increments are enough.
 */
#include "services.h"

struct svc_stats svc_stats;
