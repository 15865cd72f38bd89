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

#include "services.h"

/* ARP operation codes (RFC 826, IANA "Operation Codes") */
#define ARP_OP_REQUEST	1
#define ARP_OP_REPLY	2

/* Ethernet + ARP for Ethernet/IPv4 */
#define ARP_FRAME_LEN	(ETH_HLEN_ + 28)

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
	static const uint8_t bcast[ETH_ALEN_] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t *r;

	if (!c->ip4.enabled || !c->ip4.gw.s_addr || !tpa.s_addr ||
	    cap < ARP_FRAME_LEN)
		return 0;
	eth_hdr_fill(out, bcast, c->mac_our, ETH_P_ARP);
	r = out + ETH_HLEN_;
	put_be16(r, 1);			/* hrd: Ethernet */
	put_be16(r + 2, ETH_P_IP);	/* pro: IPv4 */
	r[4] = ETH_ALEN_;
	r[5] = 4;
	put_be16(r + 6, ARP_OP_REQUEST);
	memcpy(r + 8, c->mac_our, ETH_ALEN_);	/* sha */
	memcpy(r + 14, &c->ip4.gw, 4);		/* spa */
	memset(r + 18, 0, ETH_ALEN_);		/* tha: unknown */
	memcpy(r + 24, &tpa, 4);		/* tpa */
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
	    (t >> 24) == 127)
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
	const uint8_t *a;
	uint8_t *r;

	if (f->ethertype != ETH_P_ARP || !f->l3 || f->l3_len < 28)
		return 0;
	a = f->l3;
	if (get_be16(a + 6) != ARP_OP_REQUEST)
		return 0;

	svc_stats.arp_req++;
	if (!c->ip4.enabled || cap < ARP_FRAME_LEN)
		return 0;

	/* RFC 826 packet layout: sha at 8, spa at 14, tha at 18, tpa at 24 */
	memcpy(&spa, a + 14, 4);
	memcpy(&tpa, a + 24, 4);
	if (!arp_target_ok(c, spa, tpa))
		return 0;

	eth_hdr_fill(out, a + 8, c->mac_our, ETH_P_ARP);
	r = out + ETH_HLEN_;
	put_be16(r, 1);			/* hrd: Ethernet */
	put_be16(r + 2, ETH_P_IP);	/* pro: IPv4 */
	r[4] = ETH_ALEN_;
	r[5] = 4;
	put_be16(r + 6, ARP_OP_REPLY);
	memcpy(r + 8, c->mac_our, ETH_ALEN_);	/* sha: we own the target */
	memcpy(r + 14, &tpa, 4);		/* spa: the address asked for */
	memcpy(r + 18, a + 8, ETH_ALEN_);	/* tha: requester's MAC */
	memcpy(r + 24, &spa, 4);		/* tpa: requester's address */

	svc_stats.arp_reply++;
	return ARP_FRAME_LEN;
}
