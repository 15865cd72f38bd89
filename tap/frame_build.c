// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/frame_build.c - Ethernet, IPv4 and IPv6 header builders
 *
 * Used for every frame we send to the guest: replies of the local services,
 * TCP, UDP and ICMP frames of the flows, and ICMP/ICMPv6 errors quoting a
 * guest packet (frame_icmp_err_fill()).  Headers are written in place
 * at the start of a frame slot; the caller fills the L4 part.
 */
#include <net/ethernet.h>
#include <netinet/in.h>
#include <string.h>

#include "../lib/inany.h"
#include "csum.h"
#include "frame.h"
#include "hdr.h"


/**
 * frame_pad() - Zero-pad a frame to the Ethernet minimum
 * @l2:		Frame start, with room for ETH_ZLEN bytes
 * @len:	Frame length, bytes
 *
 * A frame shorter than 60 bytes (ARP replies, bare TCP ACKs, small UDP
 * datagrams and echo replies) is a runt on a real link (IEEE 802.3, clause
 * 4.2.3.3: the MAC pads it), and some virtual NICs and guest drivers drop
 * it.  The pad follows the IP packet, outside its total length, so no L3 or
 * L4 length or checksum changes: receivers trim to the IP length (RFC 894).
 *
 * Return: new frame length, bytes: MAX(@len, ETH_ZLEN)
 */
size_t frame_pad(uint8_t *l2, size_t len)
{
	if (len >= ETH_ZLEN)
		return len;
	memset(l2 + len, 0, ETH_ZLEN - len);
	return ETH_ZLEN;
}

/**
 * frame_eth_fill() - Write an Ethernet II header
 * @p:		Frame start, at least 14 bytes
 * @dst:	Destination MAC
 * @src:	Source MAC
 * @ethertype:	EtherType, host order
 *
 * Return: 14
 */
size_t frame_eth_fill(uint8_t *p, const uint8_t *dst, const uint8_t *src,
		      uint16_t ethertype)
{
	struct ethhdr eh;

	memcpy(eh.h_dest, dst, sizeof(eh.h_dest));
	memcpy(eh.h_source, src, sizeof(eh.h_source));
	eh.h_proto = htons(ethertype);
	hdr_store(p, &eh);
	return sizeof(eh);
}

/**
 * frame_ip4_fill() - Write a 20-byte IPv4 header (RFC 791), DF set, checksummed
 * @p:		Header start
 * @src:	Source address, network order
 * @dst:	Destination address, network order
 * @proto:	Protocol field
 * @l4_len:	Payload length, bytes (total length = 20 + @l4_len <= 65535)
 * @ttl:	Time to live
 *
 * Return: 20
 */
size_t frame_ip4_fill(uint8_t *p, struct in_addr src, struct in_addr dst,
		      uint8_t proto, size_t l4_len, uint8_t ttl)
{
	struct iphdr ip = {
		.version	= IP4_VERSION,
		.ihl		= IP4_IHL_MIN,
		.tos		= 0,
		.tot_len	= htons((uint16_t)(sizeof(ip) + l4_len)),
		.id		= 0,		/* DF set: unused */
		.frag_off	= htons(IP_DF),
		.ttl		= ttl,
		.protocol	= proto,
		.check		= 0,
		.saddr		= src.s_addr,
		.daddr		= dst.s_addr,
	};

	ip.check = csum(&ip, sizeof(ip), 0);
	hdr_store(p, &ip);
	return sizeof(ip);
}

/**
 * frame_ip6_fill() - Write a 40-byte IPv6 header (RFC 8200 section 3)
 * @p:		Header start
 * @src:	Source address
 * @dst:	Destination address
 * @proto:	Next header
 * @l4_len:	Payload length, bytes (<= 65535)
 * @hop_limit:	Hop limit
 *
 * Return: 40
 */
size_t frame_ip6_fill(uint8_t *p, const struct in6_addr *src,
		      const struct in6_addr *dst, uint8_t proto, size_t l4_len,
		      uint8_t hop_limit)
{
	struct ip6_hdr ip = {
		.ip6_src	= *src,
		.ip6_dst	= *dst,
	};

	/* Version 6, traffic class 0, flow label 0 */
	ip.ip6_flow = htonl((uint32_t)IP6_VERSION << 28);
	ip.ip6_plen = htons((uint16_t)l4_len);
	ip.ip6_nxt = proto;
	ip.ip6_hlim = hop_limit;
	hdr_store(p, &ip);
	return sizeof(ip);
}

/**
 * frame_l3_fill() - Write an IPv4 or IPv6 header, family taken from @src
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
size_t frame_l3_fill(uint8_t *p, const union inany *src, const union inany *dst,
		     uint8_t proto, size_t l4_len)
{
	const struct in_addr *s4 = inany_v4(src);

	if (s4)
		return frame_ip4_fill(p, *s4, *inany_v4(dst), proto, l4_len,
				      IP_TTL_DEFAULT);
	return frame_ip6_fill(p, &src->a6, &dst->a6, proto, l4_len,
			      IP_TTL_DEFAULT);
}

/**
 * frame_udp_fill() - Write a UDP header and its checksum (RFC 768)
 * @uh:		Header start; @plen bytes of payload follow it
 * @src:	Source address (IPv4-mapped for IPv4), for the pseudo-header
 * @sport:	Source port, host order
 * @dst:	Destination address, same family
 * @dport:	Destination port, host order
 * @plen:	Payload length, bytes (header + payload <= 65535)
 * @partial:	Leave only the pseudo-header sum in the checksum field, for
 *		the tap device to complete (VIRTIO_NET_HDR_F_NEEDS_CSUM)
 *
 * A computed checksum of zero goes out as 0xffff: zero means "no checksum"
 * for IPv4 (RFC 768) and is forbidden for IPv6 (RFC 8200 8.1).
 */
void frame_udp_fill(uint8_t *uh, const union inany *src, uint16_t sport,
		    const union inany *dst, uint16_t dport, size_t plen,
		    bool partial)
{
	size_t l4len = UDP_HLEN + plen;
	uint32_t sum = csum_pseudo(src, dst, IPPROTO_UDP, l4len);
	struct udphdr h = {
		.source	= htons(sport),
		.dest	= htons(dport),
		.len	= htons((uint16_t)l4len),
		.check	= 0,
	};
	uint16_t ck;

	hdr_store(uh, &h);
	if (partial) {
		ck = (uint16_t)~csum_fold(sum);
	} else {
		ck = csum(uh, l4len, sum);
		if (!ck)
			ck = (uint16_t)~0;	/* all ones: RFC 768 */
	}
	memcpy(uh + UDP_CSUM_OFF, &ck, sizeof(ck));
}

/**
 * frame_icmp_err_quote_max() - Bytes of the offending packet an error quotes
 * @v4:		ICMP (IPv4) rather than ICMPv6
 * @qlen:	Bytes the caller offers, bytes
 *
 * The whole error fits the minimum MTU of the family: 576 bytes for IPv4
 * (RFC 1812 4.3.2.3), 1280 for IPv6 (RFC 4443 2.4 (c)).
 *
 * Return: @qlen, capped so that the error fits
 */
static size_t frame_icmp_err_quote_max(bool v4, size_t qlen)
{
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN;

	return MIN(qlen, (v4 ? IP4_MIN_MTU : IP6_MIN_MTU) - l3 - ICMP_ERR_HLEN);
}

/**
 * frame_icmp_err_len() - Length of the frame frame_icmp_err_fill() builds
 * @v4:		ICMP (IPv4) rather than ICMPv6
 * @qlen:	Bytes of the offending packet offered for the quote
 *
 * Return: bytes: Ethernet, IP header, 8 bytes of ICMP header, quote
 */
size_t frame_icmp_err_len(bool v4, size_t qlen)
{
	return ETH_HLEN + (v4 ? IP4_HLEN : IP6_HLEN) + ICMP_ERR_HLEN +
	       frame_icmp_err_quote_max(v4, qlen);
}

/**
 * frame_icmp_err_fill() - Build an ICMP or ICMPv6 error about a guest's packet
 * @l2:		Frame buffer, frame_icmp_err_len(@v4, @qlen) bytes
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
size_t frame_icmp_err_fill(uint8_t *l2, const uint8_t *mac_dst,
			   const uint8_t *mac_src, const union inany *src,
			   const union inany *dst, uint8_t type, uint8_t code,
			   uint32_t info, const uint8_t *quote, size_t qlen)
{
	bool v4 = inany_v4(dst);
	struct icmp6_hdr ih = { .icmp6_type = type, .icmp6_code = code };
	size_t l3, mlen;
	uint32_t sum;
	uint8_t *msg;
	uint16_t ck;

	qlen = frame_icmp_err_quote_max(v4, qlen);
	mlen = ICMP_ERR_HLEN + qlen;
	frame_eth_fill(l2, mac_dst, mac_src, v4 ? ETH_P_IP : ETH_P_IPV6);
	l3 = frame_l3_fill(l2 + ETH_HLEN, src, dst,
			   v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, mlen);
	msg = l2 + ETH_HLEN + l3;
	/* The same 8 bytes for ICMP (struct icmphdr, RFC 792) and ICMPv6;
	 * ICMP's next-hop MTU is the low 16 bits of the word (RFC 1191 4)
	 */
	ih.icmp6_data32[0] = htonl(v4 ? info & 0xffff : info);
	hdr_store(msg, &ih);
	memcpy(msg + ICMP_ERR_HLEN, quote, qlen);

	sum = v4 ? 0 : csum_pseudo(src, dst, IPPROTO_ICMPV6, mlen);
	ck = csum(msg, mlen, sum);
	memcpy(msg + ICMP6_CSUM_OFF, &ck, sizeof(ck));
	return ETH_HLEN + l3 + mlen;
}
