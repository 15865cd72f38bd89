// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp_frame.c - UDP frames to the guest: size rules, headers, and the
 *		       ICMP errors that quote a guest's datagram
 *
 * Pure functions on buffers, no sockets and no context: passt/udp.c and
 * passt/udp_mcast.c build their frames with them, and the unit tests check
 * them against the RFCs (test/unit/udp_test.c).  Declared in
 * udp_internal.h.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/socket.h>

#include "../lib/eth.h"
#include "../lib/inany.h"
#include "../conf/conf.h"
#include "../tap/csum.h"
#include "../tap/frame.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "udp_internal.h"
#include "udp_mcast.h"

static size_t udp_icmp_err_fill(uint8_t *l2, const uint8_t *mac_dst,
				const uint8_t *mac_src,
				const struct flow_key *k, size_t dlen,
				const union inany *src, uint8_t type,
				uint8_t code, uint32_t info);

/**
 * udp_payload_max() - Largest UDP payload that fits one frame to the guest
 * @mtu:	MTU of the guest link: bytes of IP packet
 * @v4:		IPv4 (20-byte header) rather than IPv6 (40 bytes)
 *
 * The IPv4 total length and the IPv6 payload length are 16-bit fields
 * (RFC 791, RFC 8200), so 65,507 and 65,527 bytes are the limits whatever
 * the MTU.
 *
 * Return: payload bytes, 0 if not even a header fits
 */
size_t udp_payload_max(int mtu, bool v4)
{
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN;
	size_t lim = v4 ? IP_MAXPACKET - IP4_HLEN - UDP_HLEN :
			  IP_MAXPACKET - UDP_HLEN;

	if (mtu <= 0 || (size_t)mtu <= l3 + UDP_HLEN)
		return 0;
	return MIN((size_t)mtu - l3 - UDP_HLEN, lim);
}

/**
 * udp_uso_joins() - May a datagram join the run of one UDP super-frame?
 * @same:	It belongs to the run's flow, to the guest's unicast address
 * @n:		Datagrams in the run, at least one
 * @seg:	Payload length of the run's first datagram, bytes
 * @last:	Payload length of the run's last datagram, bytes
 * @bytes:	Payload bytes of the run so far
 * @len:	Payload length of the datagram, bytes
 * @v4:		IPv4 rather than IPv6
 *
 * The namespace's kernel cuts a super-frame into datagrams of gso_size
 * bytes, the last one with what is left (Linux __udp_gso_segment()), at
 * most TAP_GSO_SEGS_MAX of them: so a run is datagrams of one size and
 * possibly one shorter last one, and one of length 0 can't be cut out.
 * The super-frame is one IP packet: its payload must fit the 16-bit IPv4
 * total length or IPv6 payload length (RFC 791, RFC 8200), and the frame
 * FRAME_MAX, whatever the guest's MTU: udp_payload_max() of a 65,535-byte
 * link, 65,507 bytes for IPv4, 65,487 for IPv6.  A run that grew past it
 * could only go out one frame per datagram.
 *
 * Return: true if it joins, false if the run must be sent first
 */
bool udp_uso_joins(bool same, unsigned n, size_t seg, size_t last,
		   size_t bytes, size_t len, bool v4)
{
	return same && n < TAP_GSO_SEGS_MAX && len && len <= seg &&
	       last == seg &&
	       bytes + len <= udp_payload_max(FRAME_MAX - ETH_HLEN, v4);
}

/**
 * udp_icmp_unreach_len() - Length of the frame udp_icmp_unreach_fill() builds
 * @v4:		IPv4 rather than IPv6
 *
 * Return: bytes: Ethernet, IP, 8 bytes of ICMP header, quoted IP and UDP
 *	   headers (70 for IPv4, 110 for IPv6)
 */
size_t udp_icmp_unreach_len(bool v4)
{
	return frame_icmp_err_len(v4, (v4 ? IP4_HLEN : IP6_HLEN) + UDP_HLEN);
}

/**
 * udp_icmp_unreach_fill() - Build a port unreachable error about a datagram
 * @l2:		Frame buffer, udp_icmp_unreach_len() bytes
 * @mac_dst:	Guest MAC
 * @mac_src:	Our MAC
 * @k:		Guest-side tuple of the datagram: the error goes from
 *		@k->faddr to @k->gaddr
 * @dlen:	Payload length of the datagram, bytes (for the quoted UDP
 *		length field)
 *
 * IPv4: ICMP type 3 (destination unreachable) code 3 (port unreachable),
 * four unused zero bytes, then the datagram's IP header and first 8 bytes
 * of its data, which is its UDP header (RFC 792).  IPv6: ICMPv6 type 1 code
 * 4 (port unreachable), likewise (RFC 4443 3.1), checksum over the
 * pseudo-header (RFC 4443 2.3).  The IP and UDP headers are rebuilt from
 * @k (frame_icmp_err_fill() does the rest); the quoted UDP checksum is zero:
 * the payload isn't quoted, and receivers match the error by addresses and
 * ports only.
 *
 * Return: frame length
 */
size_t udp_icmp_unreach_fill(uint8_t *l2, const uint8_t *mac_dst,
			     const uint8_t *mac_src, const struct flow_key *k,
			     size_t dlen)
{
	bool v4 = inany_v4(&k->gaddr);

	return udp_icmp_err_fill(l2, mac_dst, mac_src, k, dlen, &k->faddr,
				 v4 ? ICMP_DEST_UNREACH : ICMP6_DST_UNREACH,
				 v4 ? ICMP_PORT_UNREACH :
				      ICMP6_DST_UNREACH_NOPORT, 0);
}

/**
 * udp_icmp_quote() - The IP and UDP headers of a guest's datagram, to quote
 * @q:		Buffer, UDP_QUOTE_MAX bytes
 * @k:		Guest-side key of the flow (the datagram's tuple)
 * @dlen:	Payload length of the datagram, bytes
 *
 * Rebuilt from @k: IPv4 (RFC 791) or IPv6 (RFC 8200) header from
 * @k->gaddr to @k->faddr, then the UDP header (RFC 768) with a zero
 * checksum (the payload isn't quoted; receivers match by addresses and
 * ports, RFC 792, RFC 4443 3.1).
 *
 * Return: bytes written: 28 for IPv4, 48 for IPv6
 */
size_t udp_icmp_quote(uint8_t *q, const struct flow_key *k, size_t dlen)
{
	struct udphdr uh = {
		.source	= htons(k->gport),
		.dest	= htons(k->fport),
		.len	= htons((uint16_t)(UDP_HLEN + dlen)),
		.check	= 0,
	};
	size_t l3;

	l3 = frame_l3_fill(q, &k->gaddr, &k->faddr, IPPROTO_UDP,
			   UDP_HLEN + dlen);
	hdr_store(q + l3, &uh);
	return l3 + UDP_HLEN;
}

/**
 * udp_icmp_err_fill() - ICMP or ICMPv6 error about the guest's datagram
 * @l2:		Frame buffer, udp_icmp_unreach_len() bytes
 * @mac_dst:	Guest MAC
 * @mac_src:	Our MAC
 * @k:		Guest-side key of the flow (the quoted datagram's tuple)
 * @dlen:	Payload length of the quoted datagram, bytes
 * @src:	Source of the error as the guest sees it (the router that
 *		sent it, or the destination)
 * @type:	ICMP (RFC 792) or ICMPv6 (RFC 4443) type
 * @code:	Code
 * @info:	MTU for fragmentation needed or packet too big, else 0
 *		(frame_icmp_err_fill())
 *
 * Return: frame length
 */
static size_t udp_icmp_err_fill(uint8_t *l2, const uint8_t *mac_dst,
				const uint8_t *mac_src, const struct flow_key *k,
				size_t dlen, const union inany *src, uint8_t type,
				uint8_t code, uint32_t info)
{
	uint8_t q[UDP_QUOTE_MAX];
	size_t qlen = udp_icmp_quote(q, k, dlen);

	return frame_icmp_err_fill(l2, mac_dst, mac_src, src, &k->gaddr, type,
				   code, info, q, qlen);
}

/**
 * udp_frame_fill() - Write Ethernet, IP and UDP headers of a frame to the guest
 * @c:		Configuration (MACs)
 * @l2:		Frame start; @plen bytes of payload are already after the
 *		Ethernet, IP (20 or 40 bytes) and UDP headers
 * @k:		Guest-side tuple: from @k->faddr:fport to @k->gaddr:gport;
 *		@k->gaddr may be a group or broadcast address (the Ethernet
 *		destination is then the matching one, udp_mcast_mac())
 * @plen:	Payload length, bytes
 * @partial:	Leave the UDP checksum to the tap device
 *
 * Return: frame length
 */
size_t udp_frame_fill(const struct conf *c, uint8_t *l2,
		      const struct flow_key *k, size_t plen, bool partial)
{
	bool v4 = inany_v4(&k->gaddr);
	uint8_t gmac[ETH_ALEN];
	size_t l3;

	if (udp_mcast_mac(c, &k->gaddr, gmac))
		frame_eth_fill(l2, gmac, c->mac_our,
			       v4 ? ETH_P_IP : ETH_P_IPV6);
	else
		frame_eth_fill(l2, tap_guest_mac_dst(),
			       c->mac_our, v4 ? ETH_P_IP : ETH_P_IPV6);
	l3 = frame_l3_fill(l2 + ETH_HLEN, &k->faddr, &k->gaddr, IPPROTO_UDP,
			   UDP_HLEN + plen);
	frame_udp_fill(l2 + ETH_HLEN + l3, &k->faddr, k->fport, &k->gaddr,
		       k->gport, plen, partial);
	return ETH_HLEN + l3 + UDP_HLEN + plen;
}

/**
 * udp_pktinfo_parse() - Addresses of a received datagram, from its control
 *			 data (IP_PKTINFO, IPV6_PKTINFO)
 * @mh:		Received message
 * @local:	Result, or NULL: the local address to answer from (IPv4:
 *		ipi_spec_dst, ip(7); IPv6: ipi6_addr, ipv6(7))
 * @hdr_dst:	Result, or NULL: the header's destination address (IPv4:
 *		ipi_addr, which differs from ipi_spec_dst for a group or a
 *		broadcast; IPv6: ipi6_addr)
 * @ifindex:	Result, or NULL: interface it came in on, 0 if unknown
 *
 * Addresses are left unspecified if the control data is missing.
 */
void udp_pktinfo_parse(struct msghdr *mh, union inany *local,
		       union inany *hdr_dst, unsigned *ifindex)
{
	struct cmsghdr *cm;

	if (local)
		memset(local, 0, sizeof(*local));
	if (hdr_dst)
		memset(hdr_dst, 0, sizeof(*hdr_dst));
	if (ifindex)
		*ifindex = 0;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			if (local)
				inany_from_v4(local, pi.ipi_spec_dst);
			if (hdr_dst)
				inany_from_v4(hdr_dst, pi.ipi_addr);
			if (ifindex)
				*ifindex = (unsigned)pi.ipi_ifindex;
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
			   cm->cmsg_type == IPV6_PKTINFO &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi6;

			memcpy(&pi6, CMSG_DATA(cm), sizeof(pi6));
			if (local)
				local->a6 = pi6.ipi6_addr;
			if (hdr_dst)
				hdr_dst->a6 = pi6.ipi6_addr;
			if (ifindex)
				*ifindex = pi6.ipi6_ifindex;
		}
	}
}
