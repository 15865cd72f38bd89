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

#include "../conf/log.h"
#include "../conf/util.h"
#include "frame.h"

#define TRACE_ETH_HLEN	14
#define TRACE_TCP_FIN	0x01
#define TRACE_TCP_SYN	0x02
#define TRACE_TCP_RST	0x04
#define TRACE_TCP_PSH	0x08
#define TRACE_TCP_ACK	0x10
#define TRACE_TCP_URG	0x20

/**
 * frame_trace_tcp_flags() - Format TCP flags as letters, as tcpdump does
 * @flags:	Flags byte of the TCP header (offset 13)
 * @buf:	Output, at least 8 bytes
 *
 * Return: @buf, "." for none
 */
static const char *frame_trace_tcp_flags(uint8_t flags, char *buf)
{
	static const struct { uint8_t bit; char c; } f[] = {
		{ TRACE_TCP_SYN, 'S' }, { TRACE_TCP_FIN, 'F' },
		{ TRACE_TCP_RST, 'R' }, { TRACE_TCP_PSH, 'P' },
		{ TRACE_TCP_URG, 'U' }, { TRACE_TCP_ACK, '.' },
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
	char fl[8];

	switch (proto) {
	case IPPROTO_TCP:
		if (l4_avail < 20)
			break;
		log_msg(LOG_TRACE, false,
			"%s: TCP %s:%u > %s:%u len %zu flags %s seq %u ack %u win %u",
			dir, s, get_be16(l4), d, get_be16(l4 + 2), len,
			frame_trace_tcp_flags(l4[13], fl), get_be32(l4 + 4),
			get_be32(l4 + 8), get_be16(l4 + 14));
		return;
	case IPPROTO_UDP:
		if (l4_avail < 8)
			break;
		log_msg(LOG_TRACE, false, "%s: UDP %s:%u > %s:%u len %zu",
			dir, s, get_be16(l4), d, get_be16(l4 + 2), len);
		return;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: {
		const char *name = proto == IPPROTO_ICMP ? "ICMP" : "ICMPv6";

		if (l4_avail < 8)
			break;
		/* Echo request/reply: 8/0 (RFC 792), 128/129 (RFC 4443) */
		if ((proto == IPPROTO_ICMP && (l4[0] == 8 || l4[0] == 0)) ||
		    (proto == IPPROTO_ICMPV6 && (l4[0] == 128 || l4[0] == 129)))
			log_msg(LOG_TRACE, false,
				"%s: %s %s > %s len %zu type %u code %u id %u seq %u",
				dir, name, s, d, len, l4[0], l4[1],
				get_be16(l4 + 4), get_be16(l4 + 6));
		else
			log_msg(LOG_TRACE, false,
				"%s: %s %s > %s len %zu type %u code %u", dir,
				name, s, d, len, l4[0], l4[1]);
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
	const uint8_t *l3 = l2 + TRACE_ETH_HLEN;
	uint16_t type;

	if (avail < TRACE_ETH_HLEN) {
		log_msg(LOG_TRACE, false, "%s: short frame, %zu bytes", dir,
			len);
		return;
	}
	type = get_be16(l2 + 12);
	avail -= TRACE_ETH_HLEN;

	switch (type) {
	case ETH_P_ARP:
		if (avail < 28)
			break;
		inet_ntop(AF_INET, l3 + 14, s, sizeof(s));
		inet_ntop(AF_INET, l3 + 24, d, sizeof(d));
		log_msg(LOG_TRACE, false, "%s: ARP %s %s > %s len %zu", dir,
			get_be16(l3 + 6) == 1 ? "request" : "reply", s, d, len);
		return;
	case ETH_P_IP: {
		size_t ihl;

		if (avail < 20 || (l3[0] >> 4) != 4)
			break;
		ihl = (size_t)(l3[0] & 0x0f) * 4;
		inet_ntop(AF_INET, l3 + 12, s, sizeof(s));
		inet_ntop(AF_INET, l3 + 16, d, sizeof(d));
		frame_trace_l4(dir, l3[9], s, d, l3 + ihl,
			       avail > ihl ? avail - ihl : 0, len);
		return;
	}
	case ETH_P_IPV6:
		if (avail < 40 || (l3[0] >> 4) != 6)
			break;
		inet_ntop(AF_INET6, l3 + 8, s, sizeof(s));
		inet_ntop(AF_INET6, l3 + 24, d, sizeof(d));
		frame_trace_l4(dir, l3[6], s, d, l3 + 40, avail - 40, len);
		return;
	}
	log_msg(LOG_TRACE, false, "%s: EtherType 0x%04x len %zu", dir, type,
		len);
}
