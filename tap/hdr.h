/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/hdr.h - Typed, alignment-safe access to the headers of a frame
 *
 * Frames are read and written through the system's header structs (struct
 * ethhdr from linux/if_ether.h, struct iphdr, ip6_hdr, tcphdr, udphdr,
 * icmphdr, icmp6_hdr, arphdr/ether_arp and the nd_* structs from netinet/),
 * never by byte offset.  A frame may start at any address (the vhost-user
 * rings, a stream socket's buffer at any length prefix, the IP header two
 * bytes past a 4-aligned Ethernet header), so a header is never accessed
 * through a cast pointer: either the whole header is copied into a local
 * struct with hdr_load() / out with hdr_store(), or one field is read or
 * written in place by name with the hdr_get*() / hdr_put*() macros, which
 * use offsetof() and a byte-wise copy.  Multi-byte fields are returned and
 * taken in host order; the size of the named field is checked at compile
 * time.
 */
#ifndef TAP_HDR_H
#define TAP_HDR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/if_ether.h>
#include <net/if_arp.h>
#include <netinet/if_ether.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>

#include "../lib/util.h"

/* Fixed header lengths, bytes: the sizes of the structs */
#define IP4_HLEN	sizeof(struct iphdr)		/* 20, no options */
#define IP6_HLEN	sizeof(struct ip6_hdr)		/* 40 */
#define TCP_HLEN	sizeof(struct tcphdr)		/* 20, no options */
#define UDP_HLEN	sizeof(struct udphdr)		/* 8 */
#define ARP_ETH_IP4_LEN	sizeof(struct ether_arp)	/* 28 */

/* IPv4 version and the IHL of a header without options (RFC 791 3.1) */
#define IP4_VERSION	4
#define IP4_IHL_MIN	(IP4_HLEN / 4)
/* IPv6 version (RFC 8200 section 3), top four bits of ip6_vfc */
#define IP6_VERSION	6

/* TCP data offset and IPv4 IHL count 32-bit words */
#define HDR_WORD	4

/* Transport checksum field: offset from the start of the L4 header */
#define TCP_CSUM_OFF	offsetof(struct tcphdr, check)		/* 16 */
#define UDP_CSUM_OFF	offsetof(struct udphdr, check)		/* 6 */
#define ICMP_CSUM_OFF	offsetof(struct icmphdr, checksum)	/* 2 */
#define ICMP6_CSUM_OFF	offsetof(struct icmp6_hdr, icmp6_cksum)	/* 2 */

/* TTL and hop limit of what we send: the Linux default (ip-sysctl.rst,
 * ip_default_ttl, and the IPv6 hop_limit)
 */
#define IP_TTL_DEFAULT	64

/* Minimum MTU of each family, bytes */
#define IP4_MIN_MTU	576	/* RFC 1812 4.3.2.3 (and RFC 791) */
#define IP6_MIN_MTU	1280	/* RFC 8200 section 5 */

/* Well-known ports of the local services (IANA) */
#define DHCP_SERVER_PORT	67	/* RFC 2131 section 4.1 */
#define DHCP_CLIENT_PORT	68
#define DHCPV6_CLIENT_PORT	546	/* RFC 8415 section 7.2 */
#define DHCPV6_SERVER_PORT	547

/**
 * HDR_AT() - Address of a named field of a header at @p, any alignment
 * @p:		Start of the header in the frame
 * @type:	Header struct type, e.g. struct tcphdr
 * @field:	Member of @type
 */
#define HDR_AT(p, type, field)	((const uint8_t *)(p) + offsetof(type, field))
#define HDR_AT_W(p, type, field) ((uint8_t *)(p) + offsetof(type, field))

/* Compile-time check that @field of @type is @n bytes (0 in expressions) */
#define HDR_SIZE_IS(type, field, n)					\
	(0 * sizeof(char[sizeof(((type *)0)->field) == (n) ? 1 : -1]))

/**
 * hdr_get8() - Read a one-byte field by name
 * @p:		Start of the header
 * @type:	Header struct type
 * @field:	Member of @type, one byte
 */
#define hdr_get8(p, type, field)					\
	((uint8_t)(*HDR_AT(p, type, field) + HDR_SIZE_IS(type, field, 1)))

/**
 * hdr_get16() - Read a 16-bit network-order field by name, host order
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type, two bytes
 */
#define hdr_get16(p, type, field)					\
	((uint16_t)(get_be16(HDR_AT(p, type, field)) +			\
		    HDR_SIZE_IS(type, field, 2)))

/**
 * hdr_get32() - Read a 32-bit network-order field by name, host order
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type, four bytes
 */
#define hdr_get32(p, type, field)					\
	((uint32_t)(get_be32(HDR_AT(p, type, field)) +			\
		    HDR_SIZE_IS(type, field, 4)))

/**
 * hdr_put8() - Write a one-byte field by name
 * @p:		Start of the header
 * @type:	Header struct type
 * @field:	Member of @type, one byte
 * @v:		Value
 */
#define hdr_put8(p, type, field, v)					\
	(*(HDR_AT_W(p, type, field) + HDR_SIZE_IS(type, field, 1)) =	\
	 (uint8_t)(v))

/**
 * hdr_put16() - Write a 16-bit field by name, network order
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type, two bytes
 * @v:		Value, host order
 */
#define hdr_put16(p, type, field, v)					\
	put_be16(HDR_AT_W(p, type, field) + HDR_SIZE_IS(type, field, 2),	\
		 (uint16_t)(v))

/**
 * hdr_put32() - Write a 32-bit field by name, network order
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type, four bytes
 * @v:		Value, host order
 */
#define hdr_put32(p, type, field, v)					\
	put_be32(HDR_AT_W(p, type, field) + HDR_SIZE_IS(type, field, 4),	\
		 (uint32_t)(v))

/**
 * hdr_copy_out() - Copy a field (an address, a MAC) out of a header by name
 * @dst:	Destination, sizeof(field) bytes
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type
 */
#define hdr_copy_out(dst, p, type, field)				\
	memcpy((dst), HDR_AT(p, type, field), sizeof(((type *)0)->field))

/**
 * hdr_copy_in() - Copy bytes into a field of a header by name
 * @p:		Start of the header, any alignment
 * @type:	Header struct type
 * @field:	Member of @type
 * @src:	Source, sizeof(field) bytes
 */
#define hdr_copy_in(p, type, field, src)				\
	memcpy(HDR_AT_W(p, type, field), (src), sizeof(((type *)0)->field))

/**
 * hdr_load() - Copy a whole header out of a frame into a local struct
 * @h:		Pointer to the struct to fill
 * @p:		Start of the header in the frame, any alignment, at least
 *		sizeof(*@h) bytes readable
 */
#define hdr_load(h, p)		((void)memcpy((h), (p), sizeof(*(h))))

/**
 * hdr_store() - Copy a local header struct into a frame
 * @p:		Destination in the frame, any alignment
 * @h:		Pointer to the filled struct
 */
#define hdr_store(p, h)		((void)memcpy((p), (h), sizeof(*(h))))

#endif /* TAP_HDR_H */
