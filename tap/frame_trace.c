// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/frame_trace.c - One --trace line per frame to or from the guest
 *
 * Callers check log_trace_on first (one branch per frame when tracing is
 * off), so nothing here runs, and no string is formatted, without --trace.
 * The decoder is lenient and bounds-checked rather than validating: frames
 * we send may hold only their headers in the first buffer (the payload
 * follows in other iovecs), so it reads what is there and prints the
 * length of the whole frame as given.  IPv6 extension headers are not
 * walked: the protocol then shows as the first Next Header value.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "frame.h"
#include "hdr.h"


/**
 * frame_trace_tcp_flags() - Format TCP flags as letters, as tcpdump does
 * @flags:	th_flags of the TCP header (TH_* bits, netinet/tcp.h)
 * @buf:	Output, at least 8 bytes
 *
 * Return: @buf, "." for none
 */
static const char *frame_trace_tcp_flags(uint8_t flags, char *buf)
{
	static const struct { uint8_t bit; char c; } f[] = {
		{ TH_SYN, 'S' }, { TH_FIN, 'F' }, { TH_RST, 'R' },
		{ TH_PUSH, 'P' }, { TH_URG, 'U' }, { TH_ACK, '.' },
	};
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(f); i++)
		if (flags & f[i].bit)
			buf[n++] = f[i].c;
	if (!n)
		buf[n++] = '-';
	buf[n] = '\0';
	return buf;
}

/**
 * frame_trace_l4() - Trace line for an IP packet, by protocol
 * @dir:	"from tap" or "to tap"
 * @proto:	IP protocol number, or IPv6 Next Header
 * @s:		Source address, formatted
 * @d:		Destination address, formatted
 * @l4:		Start of the L4 header
 * @l4_avail:	Bytes readable from @l4 (may be the header only)
 * @len:	Length of the whole frame, bytes
 */
static void frame_trace_l4(const char *dir, uint8_t proto, const char *s,
			   const char *d, const uint8_t *l4, size_t l4_avail,
			   size_t len)
{
	struct icmp6_hdr ih;	/* same 8 bytes as struct icmphdr */
	struct tcphdr th;
	struct udphdr uh;
	char fl[8];

	switch (proto) {
	case IPPROTO_TCP:
		if (l4_avail < sizeof(th))
			break;
		hdr_load(&th, l4);
		log_msg(LOG_TRACE, false,
			"%s: TCP %s:%u > %s:%u len %zu flags %s seq %u ack %u win %u",
			dir, s, ntohs(th.source), d, ntohs(th.dest), len,
			frame_trace_tcp_flags(th.th_flags, fl), ntohl(th.seq),
			ntohl(th.ack_seq), ntohs(th.window));
		return;
	case IPPROTO_UDP:
		if (l4_avail < sizeof(uh))
			break;
		hdr_load(&uh, l4);
		log_msg(LOG_TRACE, false, "%s: UDP %s:%u > %s:%u len %zu",
			dir, s, ntohs(uh.source), d, ntohs(uh.dest), len);
		return;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: {
		const char *name = proto == IPPROTO_ICMP ? "ICMP" : "ICMPv6";

		if (l4_avail < sizeof(ih))
			break;
		hdr_load(&ih, l4);
		/* Echo request/reply (RFC 792, RFC 4443 4.1, 4.2) */
		if ((proto == IPPROTO_ICMP && (ih.icmp6_type == ICMP_ECHO ||
					       ih.icmp6_type == ICMP_ECHOREPLY)) ||
		    (proto == IPPROTO_ICMPV6 &&
		     (ih.icmp6_type == ICMP6_ECHO_REQUEST ||
		      ih.icmp6_type == ICMP6_ECHO_REPLY)))
			log_msg(LOG_TRACE, false,
				"%s: %s %s > %s len %zu type %u code %u id %u seq %u",
				dir, name, s, d, len, ih.icmp6_type,
				ih.icmp6_code, ntohs(ih.icmp6_id),
				ntohs(ih.icmp6_seq));
		else
			log_msg(LOG_TRACE, false,
				"%s: %s %s > %s len %zu type %u code %u", dir,
				name, s, d, len, ih.icmp6_type, ih.icmp6_code);
		return;
	}
	}
	log_msg(LOG_TRACE, false, "%s: IP protocol %u %s > %s len %zu", dir,
		proto, s, d, len);
}

/**
 * frame_trace() - Log one frame at trace level: protocol, addresses, ports,
 *		   length, and TCP flags, sequence, acknowledgement, window
 * @dir:	"from tap" or "to tap"
 * @l2:		Start of the Ethernet header
 * @avail:	Bytes readable from @l2 (all headers at least, for a full
 *		line)
 * @len:	Length of the whole frame, bytes
 *
 * Context: main loop, only if log_trace_on
 */
void frame_trace(const char *dir, const uint8_t *l2, size_t avail, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const uint8_t *l3 = l2 + ETH_HLEN;
	uint16_t type;

	if (avail < ETH_HLEN) {
		log_msg(LOG_TRACE, false, "%s: short frame, %zu bytes", dir,
			len);
		return;
	}
	type = hdr_get16(l2, struct ethhdr, h_proto);
	avail -= ETH_HLEN;

	switch (type) {
	case ETH_P_ARP: {
		struct ether_arp a;

		if (avail < sizeof(a))
			break;
		hdr_load(&a, l3);
		inet_ntop(AF_INET, a.arp_spa, s, sizeof(s));
		inet_ntop(AF_INET, a.arp_tpa, d, sizeof(d));
		log_msg(LOG_TRACE, false, "%s: ARP %s %s > %s len %zu", dir,
			ntohs(a.arp_op) == ARPOP_REQUEST ? "request" : "reply",
			s, d, len);
		return;
	}
	case ETH_P_IP: {
		struct iphdr ip;
		size_t ihl;

		if (avail < sizeof(ip))
			break;
		hdr_load(&ip, l3);
		if (ip.version != IP4_VERSION)
			break;
		ihl = (size_t)ip.ihl * HDR_WORD;
		inet_ntop(AF_INET, &ip.saddr, s, sizeof(s));
		inet_ntop(AF_INET, &ip.daddr, d, sizeof(d));
		frame_trace_l4(dir, ip.protocol, s, d, l3 + ihl,
			       avail > ihl ? avail - ihl : 0, len);
		return;
	}
	case ETH_P_IPV6: {
		struct ip6_hdr ip6;

		if (avail < sizeof(ip6))
			break;
		hdr_load(&ip6, l3);
		if (ip6.ip6_vfc >> 4 != IP6_VERSION)
			break;
		inet_ntop(AF_INET6, &ip6.ip6_src, s, sizeof(s));
		inet_ntop(AF_INET6, &ip6.ip6_dst, d, sizeof(d));
		frame_trace_l4(dir, ip6.ip6_nxt, s, d, l3 + sizeof(ip6),
			       avail - sizeof(ip6), len);
		return;
	}
	}
	log_msg(LOG_TRACE, false, "%s: EtherType 0x%04x len %zu", dir, type,
		len);
}
