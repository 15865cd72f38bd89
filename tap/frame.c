// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/frame.c - Validate one Ethernet frame from the guest and index its headers
 *
 * DOC: Theory of Operation
 *
 * Every frame read from the tap device or the QEMU socket goes through
 * frame_parse() before anything else looks at it.  The parser never trusts
 * a length field: each one is checked against the bytes actually received,
 * and the result (struct frame) holds offsets and lengths that later code
 * may use without checking again.  It does not copy or allocate.
 *
 * What is accepted:
 *
 * - Ethernet II with EtherType ARP, IPv4 or IPv6.  802.1Q/802.1ad tags and
 *   any other EtherType are dropped: the guest link is a point-to-point
 *   link with no VLANs.
 * - ARP for Ethernet/IPv4 (RFC 826), at least 28 bytes.
 * - IPv4 (RFC 791) with IHL >= 5, options skipped, a correct header
 *   checksum (RFC 1071), total length <= bytes present (Ethernet padding
 *   after the packet is allowed, RFC 894).  Fragments are dropped (MF set or
 *   offset != 0): nothing downstream reassembles.
 * - IPv6 (RFC 8200) with payload length <= bytes present.  Hop-by-Hop
 *   (only first, RFC 8200 section 4.1), Routing, Destination Options and
 *   AH (RFC 4302, length in 4-byte units) are walked, at most
 *   FRAME_EXTHDR_MAX of them.  A Fragment header drops the frame, and No
 *   Next Header (59) ends the chain with an empty L4 part.
 * - Source address sanity: multicast, limited broadcast and loopback
 *   sources are dropped.  The unspecified source is allowed only where a
 *   host without an address must use it: IPv4 0.0.0.0 to UDP port 67
 *   (DHCP, RFC 2131 section 4.1) and IPv6 :: with ICMPv6 (DAD and MLD,
 *   RFC 4862 section 5.4.2, RFC 3810 section 5.2.13).  IPv4-mapped
 *   addresses (::ffff:0:0/96) in an IPv6 header are dropped as either source
 *   or destination (RFC 4291 section 2.5.5.2): union inany would read them
 *   as IPv4.
 * - L4: TCP needs 20 bytes and a data offset between 20 and the L4
 *   length; UDP needs 8 bytes and a length field equal to the L4 length;
 *   ICMP (in IPv4) and ICMPv6 (in IPv6) need 8 bytes.  Other protocols are
 *   passed with @l4_hlen 0.
 *
 * TCP, UDP and ICMP checksums are not verified: a tap device with checksum
 * offload may hand us CHECKSUM_PARTIAL frames whose L4 checksum field only
 * holds the pseudo-header sum, and a guest that sends a bad checksum can
 * only hurt its own traffic.  The IPv4 header checksum is always complete
 * (no offload computes it lazily), so that one is verified.
 */
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "csum.h"
#include "frame.h"
#include "hdr.h"

/* Longest IPv6 extension header chain we walk before giving up */
#define FRAME_EXTHDR_MAX	8

/* IPv6 extension headers (RFC 8200 4): Hdr Ext Len counts 8-octet units
 * after the first 8; AH's counts 4-octet units minus 2 (RFC 4302 2.2)
 */
#define IP6_EXT_UNIT		8
#define IP6_AH_UNIT		4
#define IP6_AH_LEN_BIAS		2

const char *const frame_drop_str[FD_COUNT] = {
	[FD_OK]		= "ok",
	[FD_SHORT_ETH]	= "short Ethernet header",
	[FD_ETHERTYPE]	= "unsupported EtherType",
	[FD_SHORT_ARP]	= "short or non-Ethernet/IPv4 ARP",
	[FD_SHORT_IP]	= "short IP header",
	[FD_IP_VERSION]	= "IP version mismatch",
	[FD_IP_HLEN]	= "bad IPv4 header length",
	[FD_IP_LEN]	= "IP length beyond frame",
	[FD_IP_CSUM]	= "bad IPv4 header checksum",
	[FD_IP_FRAG]	= "IP fragment",
	[FD_IP_ADDR]	= "bad source address",
	[FD_EXTHDR]	= "bad IPv6 extension headers",
	[FD_SHORT_L4]	= "short L4 header",
	[FD_L4_LEN]	= "UDP length mismatch",
};

/**
 * frame_parse_arp() - Validate an ARP payload (RFC 826) for Ethernet/IPv4
 * @f:		Frame being filled, @l3 set
 * @avail:	Bytes from @l3 to the end of the frame
 *
 * Sets @src and @dst to the sender and target protocol addresses.
 *
 * Return: 0, or -FD_SHORT_ARP
 */
static int frame_parse_arp(struct frame *f, size_t avail)
{
	struct ether_arp arp;
	struct in_addr spa, tpa;

	/* RFC 826: struct arphdr, then sender and target hardware and
	 * protocol addresses, for Ethernet and IPv4 (struct ether_arp)
	 */
	if (avail < sizeof(arp))
		return -FD_SHORT_ARP;
	hdr_load(&arp, f->l3);
	if (ntohs(arp.arp_hrd) != ARPHRD_ETHER ||
	    ntohs(arp.arp_pro) != ETH_P_IP ||
	    arp.arp_hln != ETH_ALEN || arp.arp_pln != sizeof(struct in_addr))
		return -FD_SHORT_ARP;

	memcpy(&spa, arp.arp_spa, sizeof(spa));
	memcpy(&tpa, arp.arp_tpa, sizeof(tpa));
	inany_from_v4(&f->src, spa);
	inany_from_v4(&f->dst, tpa);
	f->l3_len = sizeof(arp);
	f->l3_hlen = sizeof(arp);
	return 0;
}

/**
 * frame_parse_ip4() - Validate an IPv4 header (RFC 791)
 * @f:		Frame being filled, @l3 set
 * @avail:	Bytes from @l3 to the end of the frame
 *
 * Return: 0, or a negative enum frame_drop value
 */
static int frame_parse_ip4(struct frame *f, size_t avail)
{
	struct in_addr a;
	struct iphdr ip;
	size_t hlen, tot;

	if (avail < sizeof(ip))
		return -FD_SHORT_IP;
	hdr_load(&ip, f->l3);
	if (ip.version != IP4_VERSION)
		return -FD_IP_VERSION;

	hlen = (size_t)ip.ihl * HDR_WORD;
	if (hlen < sizeof(ip) || hlen > avail)
		return -FD_IP_HLEN;

	tot = ntohs(ip.tot_len);
	if (tot > avail || tot < hlen)
		return -FD_IP_LEN;

	/* RFC 1071: the sum over a correct header, checksum included, is
	 * all ones, so the complemented fold is zero
	 */
	if (csum(f->l3, hlen, 0))
		return -FD_IP_CSUM;

	/* More Fragments, or a fragment offset: not the whole datagram */
	if (ntohs(ip.frag_off) & (IP_MF | IP_OFFMASK))
		return -FD_IP_FRAG;

	a.s_addr = ip.saddr;
	inany_from_v4(&f->src, a);
	a.s_addr = ip.daddr;
	inany_from_v4(&f->dst, a);

	f->af = AF_INET;
	f->ttl = ip.ttl;
	f->proto = ip.protocol;
	f->l3_len = tot;
	f->l3_hlen = hlen;
	return 0;
}

/**
 * frame_parse_ip6() - Validate an IPv6 header (RFC 8200) and its extensions
 * @f:		Frame being filled, @l3 set
 * @avail:	Bytes from @l3 to the end of the frame
 *
 * Return: 0, or a negative enum frame_drop value
 */
static int frame_parse_ip6(struct frame *f, size_t avail)
{
	size_t off = sizeof(struct ip6_hdr), tot;
	struct ip6_hdr ip;
	unsigned n;
	uint8_t nh;

	if (avail < sizeof(ip))
		return -FD_SHORT_IP;
	hdr_load(&ip, f->l3);
	if (ip.ip6_vfc >> 4 != IP6_VERSION)
		return -FD_IP_VERSION;

	tot = sizeof(ip) + (size_t)ntohs(ip.ip6_plen);
	if (tot > avail)
		return -FD_IP_LEN;

	f->src.a6 = ip.ip6_src;
	f->dst.a6 = ip.ip6_dst;
	f->af = AF_INET6;
	f->ttl = ip.ip6_hlim;
	f->l3_len = tot;

	nh = ip.ip6_nxt;
	for (n = 0; ; n++) {
		struct ip6_ext ext;
		size_t hlen;

		switch (nh) {
		case IPPROTO_HOPOPTS:
			/* RFC 8200 4.1: only right after the IPv6 header */
			if (n)
				return -FD_EXTHDR;
			/* fall through */
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_AH:
			break;
		case IPPROTO_FRAGMENT:
			return -FD_IP_FRAG;
		default:
			goto done;
		}

		if (n >= FRAME_EXTHDR_MAX || tot - off < IP6_EXT_UNIT)
			return -FD_EXTHDR;

		hdr_load(&ext, f->l3 + off);
		if (nh == IPPROTO_AH)
			hlen = ((size_t)ext.ip6e_len + IP6_AH_LEN_BIAS) *
			       IP6_AH_UNIT;
		else
			hlen = ((size_t)ext.ip6e_len + 1) * IP6_EXT_UNIT;
		if (hlen > tot - off)
			return -FD_EXTHDR;

		nh = ext.ip6e_nxt;
		off += hlen;
	}
done:
	f->proto = nh;
	f->l3_hlen = off;
	return 0;
}

/**
 * frame_parse_l4() - Validate the L4 header and fill ports
 * @f:		Frame with L3 fields filled
 *
 * Return: 0, or -FD_SHORT_L4 or -FD_L4_LEN
 */
static int frame_parse_l4(struct frame *f)
{
	const uint8_t *l4 = f->l4;
	struct icmp6_hdr ih6;
	struct icmphdr ih;
	struct tcphdr th;
	struct udphdr uh;

	switch (f->proto) {
	case IPPROTO_TCP:
		/* RFC 9293 3.1: fixed header 20 bytes, Data Offset in words */
		if (f->l4_len < sizeof(th))
			return -FD_SHORT_L4;
		hdr_load(&th, l4);
		f->l4_hlen = (size_t)th.doff * HDR_WORD;
		if (f->l4_hlen < sizeof(th) || f->l4_hlen > f->l4_len)
			return -FD_SHORT_L4;
		f->sport = ntohs(th.source);
		f->dport = ntohs(th.dest);
		break;
	case IPPROTO_UDP:
		/* RFC 768: 8-byte header, Length covers header and data */
		if (f->l4_len < sizeof(uh))
			return -FD_SHORT_L4;
		hdr_load(&uh, l4);
		if (ntohs(uh.len) != f->l4_len)
			return -FD_L4_LEN;
		f->l4_hlen = sizeof(uh);
		f->sport = ntohs(uh.source);
		f->dport = ntohs(uh.dest);
		break;
	case IPPROTO_ICMP:
		/* ICMP in IPv6: not ours, pass as opaque */
		if (f->af != AF_INET)
			break;
		/* RFC 792: type, code, checksum, then 4 bytes of message
		 * body (identifier and sequence for echo)
		 */
		if (f->l4_len < sizeof(ih))
			return -FD_SHORT_L4;
		hdr_load(&ih, l4);
		f->l4_hlen = sizeof(ih);
		if (ih.type == ICMP_ECHO || ih.type == ICMP_ECHOREPLY)
			f->sport = ntohs(ih.un.echo.id);
		break;
	case IPPROTO_ICMPV6:
		/* ICMPv6 in IPv4: not ours, pass as opaque */
		if (f->af != AF_INET6)
			break;
		/* RFC 4443 2.1: the same 8 bytes as ICMP */
		if (f->l4_len < sizeof(ih6))
			return -FD_SHORT_L4;
		hdr_load(&ih6, l4);
		f->l4_hlen = sizeof(ih6);
		if (ih6.icmp6_type == ICMP6_ECHO_REQUEST ||
		    ih6.icmp6_type == ICMP6_ECHO_REPLY)
			f->sport = ntohs(ih6.icmp6_id);
		break;
	default:
		break;
	}

	f->payload = l4 + f->l4_hlen;
	f->payload_len = f->l4_len - f->l4_hlen;
	return 0;
}

/**
 * frame_src_ok() - Source (and IPv6 destination) address sanity
 * @f:		Frame with L3 and L4 fields filled
 *
 * Return: true if the addresses may appear in a frame from the guest
 */
static bool frame_src_ok(const struct frame *f)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (f->af == AF_INET) {
		uint32_t s = ntohl(f->src.v4.a4.s_addr);

		if (IN_MULTICAST(s) || s == INADDR_BROADCAST ||
		    (s >> IN_CLASSA_NSHIFT) == IN_LOOPBACKNET)
			return false;
		/* RFC 2131 4.1: a client without an address sends from 0 */
		if (s == INADDR_ANY)
			return f->proto == IPPROTO_UDP &&
			       f->dport == DHCP_SERVER_PORT;
		return true;
	}

	if (!memcmp(&f->src, v4mapped, sizeof(v4mapped)) ||
	    !memcmp(&f->dst, v4mapped, sizeof(v4mapped)))
		return false;
	if (IN6_IS_ADDR_MULTICAST(&f->src.a6) ||
	    IN6_IS_ADDR_LOOPBACK(&f->src.a6))
		return false;
	/* DAD (RFC 4862 5.4.2) and early MLD reports (RFC 3810 5.2.13) */
	if (IN6_IS_ADDR_UNSPECIFIED(&f->src.a6))
		return f->proto == IPPROTO_ICMPV6;
	return true;
}

/**
 * frame_parse() - Validate a frame from the guest and fill its parsed view
 * @buf:	Frame, starting with the Ethernet destination address
 * @len:	Bytes in @buf as received (padding included)
 * @f:		Result; fully written on success, zeroed except for @l2 and
 *		@l2_len (and whatever was parsed so far) on failure
 *
 * For ARP frames @af is 0, @l3 points to the ARP payload, @l3_len and
 * @l3_hlen are 28, @src and @dst hold the sender and target protocol
 * addresses (IPv4-mapped), and the L4 fields are NULL or 0.  For IP frames
 * see struct frame; for protocols other than TCP, UDP, ICMP-in-IPv4 and
 * ICMPv6-in-IPv6, @l4_hlen is 0 and @payload is @l4.
 *
 * Context: any; no allocation, reads only @buf[0..@len)
 * Return: 0 on success, or -(enum frame_drop) telling why the frame must be
 *	   dropped
 */
int frame_parse(const uint8_t *buf, size_t len, struct frame *f)
{
	size_t avail;
	int ret;

	memset(f, 0, sizeof(*f));
	f->l2 = buf;
	f->l2_len = len;

	if (!buf || len < ETH_HLEN)
		return -FD_SHORT_ETH;

	f->ethertype = hdr_get16(buf, struct ethhdr, h_proto);
	f->l3 = buf + ETH_HLEN;
	avail = len - ETH_HLEN;

	switch (f->ethertype) {
	case ETH_P_ARP:
		return frame_parse_arp(f, avail);
	case ETH_P_IP:
		ret = frame_parse_ip4(f, avail);
		break;
	case ETH_P_IPV6:
		ret = frame_parse_ip6(f, avail);
		break;
	default:
		return -FD_ETHERTYPE;
	}
	if (ret)
		return ret;

	f->l4 = f->l3 + f->l3_hlen;
	if (f->proto == IPPROTO_NONE && f->af == AF_INET6)
		f->l4_len = 0;		/* RFC 8200 4.7: ignore what follows */
	else
		f->l4_len = f->l3_len - f->l3_hlen;

	ret = frame_parse_l4(f);
	if (ret)
		return ret;

	if (!frame_src_ok(f))
		return -FD_IP_ADDR;

	return 0;
}

/**
 * frame_frag_warn() - Say that IP fragments from the guest are dropped
 * @now:	CLOCK_MONOTONIC time, ms
 * @total:	Fragments dropped so far, this one included
 *
 * Fragments are never reassembled (see the DOC block), and a guest sending
 * them sees its datagrams vanish: the first one is reported at once, later
 * ones at most once a minute, with the count, so a flood of them can't
 * flood the log.
 *
 * Context: main loop
 */
void frame_frag_warn(int64_t now, uint64_t total)
{
	static int64_t last = INT64_MIN;
	static uint64_t reported;

	if (last != INT64_MIN && now - last < FRAME_FRAG_WARN_MS)
		return;
	warn("dropped %llu IP fragment%s from the guest (%llu in all): "
	     "fragments are not reassembled, lower the guest's datagram "
	     "size or MTU", (unsigned long long)(total - reported),
	     total - reported == 1 ? "" : "s", (unsigned long long)total);
	last = now;
	reported = total;
}
