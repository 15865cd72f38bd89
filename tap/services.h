/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/services.h - Local L2/L3 services answered without any host socket
 *
 * ARP (RFC 826), DHCPv4 (RFC 2131/2132), NDP (RFC 4861, RDNSS/DNSSL RFC 8106)
 * and DHCPv6 (RFC 8415).  Each handler gets one validated frame from the
 * guest and writes at most one reply frame, starting with its Ethernet
 * header, into @out.
 */
#ifndef TAP_SERVICES_H
#define TAP_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "../conf/conf.h"
#include "frame.h"

/* Counters of the local services (requests seen, replies sent, rejects):
 * svc_stats.c owns them, the services add to them through svc_count()
 */
struct svc_stats {
	uint64_t arp_req, arp_reply;
	uint64_t dhcp_req, dhcp_reply, dhcp_nak, dhcp_bad, dhcp_fqdn_skipped;
	uint64_t ndp_rs, ndp_ns, ndp_ra, ndp_na, ndp_bad;
	uint64_t dhcpv6_req, dhcpv6_reply, dhcpv6_bad, dhcpv6_fqdn_skipped;
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct svc_stats svc_stats;
#endif

/**
 * enum svc_count - Counters of struct svc_stats, one per field, for
 *		    svc_count()
 */
enum svc_count {
	SVC_COUNT_ARP_REQ,
	SVC_COUNT_ARP_REPLY,
	SVC_COUNT_DHCP_REQ,
	SVC_COUNT_DHCP_REPLY,
	SVC_COUNT_DHCP_NAK,
	SVC_COUNT_DHCP_BAD,
	SVC_COUNT_DHCP_FQDN_SKIPPED,
	SVC_COUNT_NDP_RS,
	SVC_COUNT_NDP_NS,
	SVC_COUNT_NDP_RA,
	SVC_COUNT_NDP_NA,
	SVC_COUNT_NDP_BAD,
	SVC_COUNT_DHCPV6_REQ,
	SVC_COUNT_DHCPV6_REPLY,
	SVC_COUNT_DHCPV6_BAD,
	SVC_COUNT_DHCPV6_FQDN_SKIPPED,
};

void svc_count(enum svc_count what);
void svc_stats_print(void);

/* Unsolicited Router Advertisements: the daemon sends one with ndp_ra() at
 * start and then at least every NDP_RA_INTERVAL_MAX_S seconds (the largest
 * MaxRtrAdvInterval of RFC 4861 section 6.2.1).  Lifetimes in the RA are
 * derived from it: see tap/ndp.c.
 */
#define NDP_RA_INTERVAL_MAX_S	1800

/* Our unsolicited RA schedule (RFC 4861 sections 6.2.1, 6.2.4, 10): every
 * NDP_RA_MIN_MS..NDP_RA_MAX_MS, uniformly random, the first
 * NDP_RA_INITIAL ones after a guest attaches at most NDP_RA_INITIAL_MAX_MS
 * apart, and never two multicast RAs within NDP_RA_MIN_DELAY_MS
 */
#define NDP_RA_MAX_MS		(600 * 1000)	/* MaxRtrAdvInterval */
#define NDP_RA_MIN_MS		(200 * 1000)	/* 0.33 * Max, rounded */
#define NDP_RA_INITIAL		3	/* MAX_INITIAL_RTR_ADVERTISEMENTS */
#define NDP_RA_INITIAL_MAX_MS	(16 * 1000)	/* MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define NDP_RA_MIN_DELAY_MS	(3 * 1000)	/* MIN_DELAY_BETWEEN_RAS */

void ndp_ra_restart(void);
void ndp_ra_prefix_gone(const struct in6_addr *old, int plen);
size_t ndp_ra_timer(const struct conf *c, int64_t now, uint8_t *out,
		    size_t cap);

size_t arp_probe(const struct conf *c, struct in_addr tpa, uint8_t *out,
		 size_t cap);
size_t ndp_ns_probe(const struct conf *c, const struct in6_addr *target,
		    uint8_t *out, size_t cap);
size_t arp_handle(const struct conf *c, const struct frame *f,
		  uint8_t *out, size_t cap);
size_t dhcp_handle(const struct conf *c, const struct frame *f,
		   uint8_t *out, size_t cap);
size_t ndp_handle(const struct conf *c, const struct frame *f,
		  uint8_t *out, size_t cap);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
size_t ndp_ra(const struct conf *c, uint8_t *out, size_t cap);
#endif
bool ndp_guest_addr(const struct frame *f, struct in6_addr *addr);
size_t dhcpv6_handle(const struct conf *c, const struct frame *f,
		     uint8_t *out, size_t cap);

#endif /* TAP_SERVICES_H */
