// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/frame_build.c - Ethernet, IPv4 and IPv6 header builders
 *
 * Used for every frame we send to the guest: replies of the local services,
 * and TCP, UDP and ICMP frames of the flows.  Headers are written in place
 * at the start of a frame slot; the caller fills the L4 part.
 */
#include <net/ethernet.h>
#include <string.h>

#include "csum.h"
#include "frame.h"

/**
 * eth_hdr_fill() - Write an Ethernet II header
 * @p:		Frame start, at least 14 bytes
 * @dst:	Destination MAC
 * @src:	Source MAC
 * @ethertype:	EtherType, host order
 *
 * Return: 14
 */
size_t eth_hdr_fill(uint8_t *p, const uint8_t *dst, const uint8_t *src,
		    uint16_t ethertype)
{
	memcpy(p, dst, ETH_ALEN_);
	memcpy(p + ETH_ALEN_, src, ETH_ALEN_);
	put_be16(p + 12, ethertype);
	return ETH_HLEN_;
}

/**
 * ip4_hdr_fill() - Write a 20-byte IPv4 header (RFC 791), DF set, checksummed
 * @p:		Header start
 * @src:	Source address, network order
 * @dst:	Destination address, network order
 * @proto:	Protocol field
 * @l4_len:	Payload length, bytes (total length = 20 + @l4_len <= 65535)
 * @ttl:	Time to live
 *
 * Return: 20
 */
size_t ip4_hdr_fill(uint8_t *p, struct in_addr src, struct in_addr dst,
		    uint8_t proto, size_t l4_len, uint8_t ttl)
{
	uint16_t c;

	p[0] = 0x45;			/* version 4, IHL 5 */
	p[1] = 0;			/* DSCP/ECN */
	put_be16(p + 2, (uint16_t)(20 + l4_len));
	put_be16(p + 4, 0);		/* identification: DF set, unused */
	put_be16(p + 6, 0x4000);	/* DF */
	p[8] = ttl;
	p[9] = proto;
	put_be16(p + 10, 0);
	memcpy(p + 12, &src, 4);
	memcpy(p + 16, &dst, 4);
	c = csum(p, 20, 0);
	memcpy(p + 10, &c, 2);
	return 20;
}

/**
 * ip6_hdr_fill() - Write a 40-byte IPv6 header (RFC 8200 section 3)
 * @p:		Header start
 * @src:	Source address
 * @dst:	Destination address
 * @proto:	Next header
 * @l4_len:	Payload length, bytes (<= 65535)
 * @hop_limit:	Hop limit
 *
 * Return: 40
 */
size_t ip6_hdr_fill(uint8_t *p, const struct in6_addr *src,
		    const struct in6_addr *dst, uint8_t proto, size_t l4_len,
		    uint8_t hop_limit)
{
	put_be32(p, 0x60000000);	/* version 6, class 0, flow label 0 */
	put_be16(p + 4, (uint16_t)l4_len);
	p[6] = proto;
	p[7] = hop_limit;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	return 40;
}

/**
 * l3_hdr_len() - IP header length we write for an address family
 * @addr:	Any address of the family (IPv4-mapped means IPv4)
 *
 * Return: 20 or 40
 */
size_t l3_hdr_len(const union inany *addr)
{
	return inany_v4(addr) ? 20 : 40;
}

/**
 * l3_hdr_fill() - Write an IPv4 or IPv6 header, family taken from @src
 * @p:		Header start
 * @src:	Source address (IPv4-mapped for IPv4)
 * @dst:	Destination address, same family
 * @proto:	L4 protocol
 * @l4_len:	L4 header plus payload, bytes
 *
 * TTL and hop limit are 64 (the Linux default, ip-sysctl.rst ip_default_ttl).
 *
 * Return: 20 or 40
 */
size_t l3_hdr_fill(uint8_t *p, const union inany *src, const union inany *dst,
		   uint8_t proto, size_t l4_len)
{
	const struct in_addr *s4 = inany_v4(src);

	if (s4)
		return ip4_hdr_fill(p, *s4, *inany_v4(dst), proto, l4_len, 64);
	return ip6_hdr_fill(p, &src->a6, &dst->a6, proto, l4_len, 64);
}
