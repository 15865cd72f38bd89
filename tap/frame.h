/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/frame.h - Parsed view of one Ethernet frame from the guest
 *
 * frame_parse() checks every length field against the bytes actually
 * received before anything else looks at the frame, so handlers may trust
 * the offsets and lengths in struct frame.
 */
#ifndef TAP_FRAME_H
#define TAP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/inany.h"
#include "../lib/util.h"

/* Why a frame was dropped: index into the drop counters */
enum frame_drop {
	FD_OK = 0,
	FD_SHORT_ETH,		/* shorter than an Ethernet header */
	FD_ETHERTYPE,		/* not ARP, IPv4 or IPv6 (VLAN tags included) */
	FD_SHORT_ARP,		/* ARP shorter than 28 bytes or not Eth/IPv4 */
	FD_SHORT_IP,		/* shorter than the fixed IP header */
	FD_IP_VERSION,		/* version field doesn't match the EtherType */
	FD_IP_HLEN,		/* IPv4 IHL < 5 or beyond the frame */
	FD_IP_LEN,		/* IP total/payload length beyond the frame */
	FD_IP_CSUM,		/* IPv4 header checksum wrong */
	FD_IP_FRAG,		/* IPv4 fragment or IPv6 Fragment header */
	FD_IP_ADDR,		/* multicast/broadcast/loopback/unspecified source */
	FD_EXTHDR,		/* IPv6 extension header chain malformed or too long */
	FD_SHORT_L4,		/* L4 header truncated (TCP data offset, UDP length) */
	FD_L4_LEN,		/* UDP length field doesn't match the IP payload */
	FD_COUNT
};

extern const char *const frame_drop_str[FD_COUNT];

/**
 * struct frame - Offsets and fields of a validated frame
 * @l2:		Start of the Ethernet header
 * @l2_len:	Frame length as received, bytes (trailing padding included)
 * @ethertype:	EtherType, host order (ETH_P_ARP, ETH_P_IP, ETH_P_IPV6)
 * @af:		AF_INET or AF_INET6 for IP frames, 0 for ARP
 * @l3:		Start of the IP header (or ARP payload)
 * @l3_len:	IP packet length from its header (total length for IPv4,
 *		40 + payload length for IPv6), bytes; <= @l2_len - 14
 * @l3_hlen:	IP header length including IPv6 extension headers, bytes
 * @src:	Source address (IPv4-mapped for IPv4)
 * @dst:	Destination address
 * @proto:	L4 protocol (IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
 *		IPPROTO_ICMPV6, or another value the handlers ignore)
 * @ttl:	IPv4 TTL or IPv6 hop limit
 * @l4:		Start of the L4 header
 * @l4_len:	Bytes from @l4 to the end of the IP packet (not the frame)
 * @l4_hlen:	TCP header length incl. options (data offset * 4), 8 for UDP,
 *		8 for ICMP/ICMPv6, 0 for others
 * @sport:	TCP/UDP source port, ICMP/ICMPv6 echo identifier; host order
 * @dport:	TCP/UDP destination port, 0 for ICMP; host order
 * @payload:	@l4 + @l4_hlen
 * @payload_len: @l4_len - @l4_hlen, bytes
 * @gso_size:	UDP super-frame from a tap device (virtio_net_hdr gso_type
 *		VIRTIO_NET_HDR_GSO_UDP_L4): payload bytes of each datagram it
 *		holds, the last one possibly shorter; 0 for one datagram.  Set
 *		by the caller of frame_parse(), which leaves it 0
 *
 * For ARP frames: @af is 0, @l3 is the ARP payload, @l3_len and @l3_hlen
 * are 28, @src and @dst hold the sender and target protocol addresses
 * (IPv4-mapped), and @l4 and @payload are NULL with zero lengths.
 */
struct frame {
	const uint8_t *l2;
	size_t l2_len;
	uint16_t ethertype;
	int af;
	const uint8_t *l3;
	size_t l3_len;
	size_t l3_hlen;
	union inany src;
	union inany dst;
	uint8_t proto;
	uint8_t ttl;
	const uint8_t *l4;
	size_t l4_len;
	size_t l4_hlen;
	uint16_t sport;
	uint16_t dport;
	const uint8_t *payload;
	size_t payload_len;
	uint16_t gso_size;
};

int frame_parse(const uint8_t *buf, size_t len, struct frame *f);

#define FRAME_FRAG_WARN_MS	(60 * 1000)	/* between fragment warnings */
void frame_frag_warn(int64_t now, uint64_t total);
void frame_trace(const char *dir, const uint8_t *l2, size_t avail,
		 size_t len);

/* ETH_ZLEN (linux/if_ether.h, 60): the shortest Ethernet frame without
 * FCS (IEEE 802.3 clause 3.2.8); frame_pad() pads shorter ones with zeros
 */
size_t frame_pad(uint8_t *l2, size_t len);

/* Builders: fill headers in place, return the header length written */
size_t frame_eth_fill(uint8_t *p, const uint8_t *dst, const uint8_t *src,
		      uint16_t ethertype);
size_t frame_ip4_fill(uint8_t *p, struct in_addr src, struct in_addr dst,
		      uint8_t proto, size_t l4_len, uint8_t ttl);
size_t frame_ip6_fill(uint8_t *p, const struct in6_addr *src,
		      const struct in6_addr *dst, uint8_t proto, size_t l4_len,
		      uint8_t hop_limit);
size_t frame_l3_fill(uint8_t *p, const union inany *src, const union inany *dst,
		     uint8_t proto, size_t l4_len);
void frame_udp_fill(uint8_t *uh, const union inany *src, uint16_t sport,
		    const union inany *dst, uint16_t dport, size_t plen,
		    bool partial);

/* ICMP/ICMPv6 error header: type, code, checksum, 4 unused bytes */
#define ICMP_ERR_HLEN	8

size_t frame_icmp_err_len(bool v4, size_t qlen);
size_t frame_icmp_err_fill(uint8_t *l2, const uint8_t *mac_dst,
			   const uint8_t *mac_src, const union inany *src,
			   const union inany *dst, uint8_t type, uint8_t code,
			   uint32_t info,
			   const uint8_t *quote, size_t qlen);

#endif /* TAP_FRAME_H */
