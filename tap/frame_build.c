// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/frame_build.c - Ethernet, IPv4 and IPv6 header builders
 *
 * Used for every frame we send to the guest: replies of the local services,
 * TCP, UDP and ICMP frames of the flows, and ICMP/ICMPv6 errors quoting a
 * guest packet (icmp_err_fill()).  Headers are written in place
 * at the start of a frame slot; the caller fills the L4 part.
 */
#include <net/ethernet.h>
#include <netinet/in.h>
#include <string.h>

#include "csum.h"
#include "frame.h"

/**
 * frame_pad() - Zero-pad a frame to the Ethernet minimum
 * @l2:		Frame start, with room for ETH_ZLEN_ bytes
 * @len:	Frame length, bytes
 *
 * A frame shorter than 60 bytes (ARP replies, bare TCP ACKs, small UDP
 * datagrams and echo replies) is a runt on a real link (IEEE 802.3, clause
 * 4.2.3.3: the MAC pads it), and some virtual NICs and guest drivers drop
 * it.  The pad follows the IP packet, outside its total length, so no L3 or
 * L4 length or checksum changes: receivers trim to the IP length (RFC 894).
 *
 * Return: new frame length, bytes: MAX(@len, ETH_ZLEN_)
 */
size_t frame_pad(uint8_t *l2, size_t len)
{
	if (len >= ETH_ZLEN_)
		return len;
	memset(l2 + len, 0, ETH_ZLEN_ - len);
	return ETH_ZLEN_;
}

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

/**
 * icmp_err_quote_max() - Bytes of the offending packet an ICMP error quotes
 * @v4:		ICMP (IPv4) rather than ICMPv6
 * @qlen:	Bytes the caller offers, bytes
 *
 * The whole error fits the minimum MTU of the family: 576 bytes for IPv4
 * (RFC 1812 4.3.2.3), 1280 for IPv6 (RFC 4443 2.4 (c)).
 *
 * Return: @qlen, capped so that the error fits
 */
static size_t icmp_err_quote_max(bool v4, size_t qlen)
{
	size_t l3 = v4 ? 20 : 40;

	return MIN(qlen, (v4 ? 576U : 1280U) - l3 - ICMP_ERR_HLEN);
}

/**
 * icmp_err_len() - Length of the frame icmp_err_fill() builds
 * @v4:		ICMP (IPv4) rather than ICMPv6
 * @qlen:	Bytes of the offending packet offered for the quote
 *
 * Return: bytes: Ethernet, IP header, 8 bytes of ICMP header, quote
 */
size_t icmp_err_len(bool v4, size_t qlen)
{
	return ETH_HLEN_ + (v4 ? 20 : 40) + ICMP_ERR_HLEN +
	       icmp_err_quote_max(v4, qlen);
}

/**
 * icmp_err_fill() - Build an ICMP or ICMPv6 error about a guest's packet
 * @l2:		Frame buffer, icmp_err_len(@v4, @qlen) bytes
 * @mac_dst:	Guest MAC
 * @mac_src:	Our MAC
 * @src:	Source of the error (the router that reports it), network
 *		order, IPv4-mapped for ICMP
 * @dst:	The guest's address (source of the offending packet), same
 *		family
 * @type:	ICMP type (3: destination unreachable, RFC 792) or ICMPv6
 *		type (1: destination unreachable, RFC 4443 3.1)
 * @code:	Code of @type
 * @info:	Second word of the ICMP header, host order: the next-hop MTU
 *		for fragmentation needed (type 3 code 4, RFC 1191 4: low 16
 *		bits), the MTU for packet too big (type 2, RFC 4443 3.2);
 *		0 otherwise
 * @quote:	Start of the offending packet: its IP header, then at least
 *		8 bytes of its data (RFC 792; RFC 1122 3.2.2)
 * @qlen:	Bytes at @quote; what doesn't fit the minimum MTU is left
 *		out (RFC 4443 2.4 (c))
 *
 * The ICMP header is type, code, checksum and a 32-bit word: @info,
 * which is zero ("unused") except where it carries an MTU.  The ICMP
 * checksum covers the message only; the ICMPv6 checksum also covers the
 * IPv6 pseudo-header (RFC 4443 2.3).
 *
 * Return: frame length
 */
size_t icmp_err_fill(uint8_t *l2, const uint8_t *mac_dst,
		     const uint8_t *mac_src, const union inany *src,
		     const union inany *dst, uint8_t type, uint8_t code,
		     uint32_t info, const uint8_t *quote, size_t qlen)
{
	bool v4 = inany_v4(dst);
	uint32_t info_be;
	size_t l3, mlen;
	uint32_t sum;
	uint8_t *ih;
	uint16_t ck;

	qlen = icmp_err_quote_max(v4, qlen);
	mlen = ICMP_ERR_HLEN + qlen;
	eth_hdr_fill(l2, mac_dst, mac_src, v4 ? 0x0800 : 0x86dd);
	l3 = l3_hdr_fill(l2 + ETH_HLEN_, src, dst,
			 v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, mlen);
	ih = l2 + ETH_HLEN_ + l3;
	memset(ih, 0, ICMP_ERR_HLEN);
	ih[0] = type;
	ih[1] = code;
	info_be = htonl(v4 ? info & 0xffff : info);
	memcpy(ih + 4, &info_be, sizeof(info_be));
	memcpy(ih + ICMP_ERR_HLEN, quote, qlen);

	sum = v4 ? 0 : csum_pseudo(src, dst, IPPROTO_ICMPV6, mlen);
	ck = csum(ih, mlen, sum);
	memcpy(ih + 2, &ck, 2);
	return ETH_HLEN_ + l3 + mlen;
}
