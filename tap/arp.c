// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/arp.c - Answer ARP requests from the guest (RFC 826)
 *
 * The guest sits on a point-to-point link where we stand in for every other
 * host, so any request for an IPv4 address other than the guest's own is
 * answered with our MAC address.  Requests are not answered when:
 *
 * - the target is the guest's address (c->ip4.addr): the guest is checking
 *   for a conflict, and an answer would make it give up its address;
 * - the sender address is 0.0.0.0: an ARP probe (RFC 5227 section 2.1.1)
 *   for an address the guest wants to use, which must see no answer;
 * - sender and target address are equal: a gratuitous ARP or an
 *   announcement (RFC 5227 section 2.3), not a question;
 * - the target is not a unicast address (0.0.0.0, 127/8, multicast,
 *   255.255.255.255): no host owns it (RFC 1122 section 3.3.6).
 *
 * arp_probe() asks the guest for its own address when a front-end attaches
 * (passt): a guest that kept its configuration across our restart may send
 * nothing, and frames to the broadcast address don't reach its TCP (Linux
 * drops segments not addressed to its MAC); its answer tells us the MAC.
 */
#include <linux/if_ether.h>
#include <string.h>

#include "hdr.h"
#include "services.h"

/* Ethernet + ARP for Ethernet/IPv4 (struct ether_arp) */
#define ARP_FRAME_LEN	(ETH_HLEN + sizeof(struct ether_arp))

/**
 * arp_fill() - Write an ARP packet for Ethernet and IPv4 (RFC 826)
 * @p:		Start of the ARP packet, after the Ethernet header, any
 *		alignment, sizeof(struct ether_arp) bytes
 * @op:		ARPOP_REQUEST or ARPOP_REPLY, host order
 * @sha:	Sender hardware address, ETH_ALEN bytes
 * @spa:	Sender protocol address, network order
 * @tha:	Target hardware address, ETH_ALEN bytes
 * @tpa:	Target protocol address, network order
 */
static void arp_fill(uint8_t *p, uint16_t op, const uint8_t *sha,
		     struct in_addr spa, const uint8_t *tha,
		     struct in_addr tpa)
{
	struct ether_arp a = {
		.arp_hrd = htons(ARPHRD_ETHER),
		.arp_pro = htons(ETH_P_IP),
		.arp_hln = ETH_ALEN,
		.arp_pln = sizeof(struct in_addr),
		.arp_op	 = htons(op),
	};

	memcpy(a.arp_sha, sha, sizeof(a.arp_sha));
	memcpy(a.arp_spa, &spa, sizeof(a.arp_spa));
	memcpy(a.arp_tha, tha, sizeof(a.arp_tha));
	memcpy(a.arp_tpa, &tpa, sizeof(a.arp_tpa));
	hdr_store(p, &a);
}

/**
 * arp_probe() - Write an ARP request for the guest's address
 * @c:		Configuration: our MAC, the gateway address as sender
 * @tpa:	Address asked for (the guest's), network order
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * A broadcast request (RFC 826) from the gateway address: the owner of
 * @tpa answers with a unicast reply from its MAC address.
 *
 * Return: frame length (42), or 0 without IPv4, gateway or room
 */
size_t arp_probe(const struct conf *c, struct in_addr tpa, uint8_t *out,
		 size_t cap)
{
	static const uint8_t bcast[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	static const uint8_t unknown[ETH_ALEN];

	if (!c->ip4.enabled || !c->ip4.gw.s_addr || !tpa.s_addr ||
	    cap < ARP_FRAME_LEN)
		return 0;
	frame_eth_fill(out, bcast, c->mac_our, ETH_P_ARP);
	arp_fill(out + ETH_HLEN, ARPOP_REQUEST, c->mac_our, c->ip4.gw,
		 unknown, tpa);
	return ARP_FRAME_LEN;
}

/**
 * arp_target_ok() - Do we answer for this target protocol address?
 * @c:		Configuration
 * @spa:	Sender protocol address, network order
 * @tpa:	Target protocol address, network order
 *
 * Return: true if a reply is due
 */
static bool arp_target_ok(const struct conf *c, struct in_addr spa,
			  struct in_addr tpa)
{
	uint32_t t = ntohl(tpa.s_addr);

	if (tpa.s_addr == c->ip4.addr.s_addr)
		return false;
	if (spa.s_addr == INADDR_ANY || spa.s_addr == tpa.s_addr)
		return false;
	if (t == INADDR_ANY || t == INADDR_BROADCAST || IN_MULTICAST(t) ||
	    (t >> IN_CLASSA_NSHIFT) == IN_LOOPBACKNET)
		return false;
	return true;
}

/**
 * arp_handle() - Answer an ARP request from the guest
 * @c:		Configuration (reads ip4.enabled, ip4.addr, mac_our)
 * @f:		Frame validated by frame_parse()
 * @out:	Buffer for the reply frame, starting with the Ethernet header
 * @cap:	Size of @out, bytes (a reply needs 42)
 *
 * The reply goes to the sender hardware address of the request, from
 * c->mac_our, and says that the target protocol address is at c->mac_our.
 * Frames that are not ARP requests are ignored.  Updates svc_stats.arp_req
 * for each request seen and svc_stats.arp_reply for each reply written.
 *
 * Context: main loop; no allocation
 * Return: length of the reply written to @out (42), or 0 for no reply
 */
size_t arp_handle(const struct conf *c, const struct frame *f,
		  uint8_t *out, size_t cap)
{
	struct in_addr spa, tpa;
	struct ether_arp a;

	if (f->ethertype != ETH_P_ARP || !f->l3 || f->l3_len < sizeof(a))
		return 0;
	hdr_load(&a, f->l3);
	if (ntohs(a.arp_op) != ARPOP_REQUEST)
		return 0;

	svc_count(SVC_COUNT_ARP_REQ);
	if (!c->ip4.enabled || cap < ARP_FRAME_LEN)
		return 0;

	memcpy(&spa, a.arp_spa, sizeof(spa));
	memcpy(&tpa, a.arp_tpa, sizeof(tpa));
	if (!arp_target_ok(c, spa, tpa))
		return 0;

	/* We own the target: sender is us with the address asked for,
	 * target the requester
	 */
	frame_eth_fill(out, a.arp_sha, c->mac_our, ETH_P_ARP);
	arp_fill(out + ETH_HLEN, ARPOP_REPLY, c->mac_our, tpa, a.arp_sha, spa);

	svc_count(SVC_COUNT_ARP_REPLY);
	return ARP_FRAME_LEN;
}
