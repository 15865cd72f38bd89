// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/frame_test.c - Tests for tap/frame.c (frame_parse())
 *
 * Inputs are frames captured from real clients (captured_frames.h, with
 * their tshark decodes), some of them changed in one field to make them
 * invalid; each change is described where it is made.  Expected values
 * come from the decodes and from the header layouts of RFC 791, RFC 8200,
 * RFC 4302, RFC 768 and RFC 9293.
 */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../lib/inany.h"
#include "../../tap/frame.h"
#include "../../tap/hdr.h"
#include "captured_frames.h"
#include "fake_parse.h"
#include "fake_svc.h"

/* Where headers start in the test frames: no IP options, no extension
 * headers unless a test adds them
 */
#define L3		ETH_HLEN
#define L4_IP4		(ETH_HLEN + sizeof(struct iphdr))
#define L4_IP6		(ETH_HLEN + sizeof(struct ip6_hdr))

/**
 * ip4_poke_ihl() - Set the IHL field of the IPv4 header of a frame
 * @b:		Frame
 * @ihl:	IHL, 32-bit words
 */
static void ip4_poke_ihl(uint8_t *b, unsigned ihl)
{
	struct iphdr ip;

	memcpy(&ip, b + L3, sizeof(ip));
	ip.ihl = ihl & 0xf;
	memcpy(b + L3, &ip, sizeof(ip));
}

/**
 * tcp_poke_doff() - Set the Data Offset of a TCP header
 * @th:		TCP header
 * @doff:	Data Offset, 32-bit words
 */
static void tcp_poke_doff(uint8_t *th, unsigned doff)
{
	struct tcphdr t;

	memcpy(&t, th, sizeof(t));
	t.doff = doff & 0xf;
	memcpy(th, &t, sizeof(t));
}

/**
 * ip6_build() - Synthetic IPv6 frame from the RFC 8200 layout
 * @b:		Buffer, at least 54 + @plen bytes
 * @nh:		Next Header of the IPv6 header
 * @plen:	Payload length (bytes after the 40-byte header), all zero
 *
 * Source 2001:db8::15, destination 2001:db8::1, hop limit 64, MACs of the
 * captures.  The payload is left for the caller to fill.
 *
 * Return: frame length
 */
static size_t ip6_build(uint8_t *b, uint8_t nh, size_t plen)
{
	static const uint8_t hdr[54] = {
		0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55,
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x86, 0xdd,
		0x60, 0, 0, 0, 0, 0, 0, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x15,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	};

	memcpy(b, hdr, sizeof(hdr));
	memset(b + L4_IP6, 0, plen);
	hdr_put16(b + L3, struct ip6_hdr, ip6_plen, plen);
	hdr_put8(b + L3, struct ip6_hdr, ip6_nxt, nh);
	return L4_IP6 + plen;
}

/**
 * udp_fill() - Write an 8-byte UDP header with a matching length field
 * @p:		Header start
 * @len:	UDP length (header + data)
 */
static void udp_fill(uint8_t *p, uint16_t len)
{
	hdr_put16(p, struct udphdr, source, 40000);
	hdr_put16(p, struct udphdr, dest, 5353);
	hdr_put16(p, struct udphdr, len, len);
	hdr_put16(p, struct udphdr, check, 0);
}

/* --- Ethernet ------------------------------------------------------ */

START_TEST(test_frame_parse_short_eth_dropped)
{
	struct frame f;
	size_t len;

	for (len = 0; len < 14; len++)
		ck_assert_int_eq(frame_parse(cap_arp_request, len, &f),
				 -FD_SHORT_ETH);
	ck_assert_int_eq(frame_parse(NULL, 0, &f), -FD_SHORT_ETH);
}
END_TEST

/* IEEE 802.1Q: TPID 0x8100 where the EtherType was, then a 2-byte TCI.
 * Made from cap_arp_request by inserting a tag with VLAN ID 5.
 */
START_TEST(test_frame_parse_vlan_tag_dropped)
{
	uint8_t b[sizeof(cap_arp_request) + 4];
	struct frame f;

	memcpy(b, cap_arp_request, offsetof(struct ethhdr, h_proto));
	hdr_put16(b, struct ethhdr, h_proto, ETH_P_8021Q);
	put_be16(b + sizeof(struct ethhdr), 5);		/* TCI: VLAN 5 */
	memcpy(b + ETH_HLEN + 2,
	       cap_arp_request + offsetof(struct ethhdr, h_proto),
	       sizeof(cap_arp_request) - offsetof(struct ethhdr, h_proto));
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), -FD_ETHERTYPE);
	ck_assert_uint_eq(f.ethertype, 0x8100);
}
END_TEST

START_TEST(test_frame_drop_str_all_named)
{
	int i;

	for (i = 0; i < FD_COUNT; i++)
		ck_assert_ptr_nonnull(frame_drop_str[i]);
}
END_TEST

/* --- ARP ----------------------------------------------------------- */

/* Decode: request, sender 203.0.113.15, target 203.0.113.2 */
START_TEST(test_frame_parse_arp_request_fields)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_arp_request, sizeof(cap_arp_request),
				     &f), 0);
	ck_assert_uint_eq(f.ethertype, 0x0806);
	ck_assert_int_eq(f.af, 0);
	ck_assert_ptr_eq(f.l2, cap_arp_request);
	ck_assert_uint_eq(f.l2_len, 42);
	ck_assert_ptr_eq(f.l3, cap_arp_request + 14);
	ck_assert_uint_eq(f.l3_len, 28);
	{
		union inany s = addr("203.0.113.15"), d = addr("203.0.113.2");

		ck_assert(inany_equals(&f.src, &s));
		ck_assert(inany_equals(&f.dst, &d));
	}
	ck_assert_ptr_null(f.l4);
	ck_assert_uint_eq(f.l4_len, 0);
}
END_TEST

/* A probe (RFC 5227 2.1.1) has sender 0.0.0.0 and is still valid ARP */
START_TEST(test_frame_parse_arp_probe_accepted)
{
	union inany zero = addr("0.0.0.0");
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_arp_probe, sizeof(cap_arp_probe),
				     &f), 0);
	ck_assert(inany_equals(&f.src, &zero));
}
END_TEST

/* RFC 826 for Ethernet/IPv4 is 28 bytes after the Ethernet header */
START_TEST(test_frame_parse_arp_short_dropped)
{
	struct frame f;
	size_t len;

	for (len = 14; len < 42; len++)
		ck_assert_int_eq(frame_parse(cap_arp_request, len, &f),
				 -FD_SHORT_ARP);
}
END_TEST

/* Ethernet frames are padded to 60 bytes (IEEE 802.3 minimum 64 with
 * FCS); the padding after the 28 ARP bytes must be accepted
 */
START_TEST(test_frame_parse_arp_padded_accepted)
{
	uint8_t b[60] = { 0 };
	struct frame f;

	memcpy(b, cap_arp_request, sizeof(cap_arp_request));
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert_uint_eq(f.l2_len, 60);
	ck_assert_uint_eq(f.l3_len, 28);
}
END_TEST

/* Hardware type 6 (IEEE 802) or protocol size 16: not Ethernet/IPv4 */
START_TEST(test_frame_parse_arp_not_eth_ip4_dropped)
{
	uint8_t b[sizeof(cap_arp_request)];
	struct frame f;

	memcpy(b, cap_arp_request, sizeof(b));
	hdr_put16(b + L3, struct arphdr, ar_hrd, ARPHRD_IEEE802);
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), -FD_SHORT_ARP);

	memcpy(b, cap_arp_request, sizeof(b));
	hdr_put8(b + L3, struct arphdr, ar_pln, 16);
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), -FD_SHORT_ARP);
}
END_TEST

/* --- IPv4 ---------------------------------------------------------- */

/* Decode: total length 84, TTL 64, ICMP, echo request id 0x2c71 */
START_TEST(test_frame_parse_icmp4_echo_fields)
{
	union inany s = addr("203.0.113.15"), d = addr("203.0.113.2");
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_icmp4_echo, sizeof(cap_icmp4_echo),
				     &f), 0);
	ck_assert_uint_eq(f.ethertype, 0x0800);
	ck_assert_int_eq(f.af, AF_INET);
	ck_assert_uint_eq(f.l3_len, 84);
	ck_assert_uint_eq(f.l3_hlen, 20);
	ck_assert(inany_equals(&f.src, &s));
	ck_assert(inany_equals(&f.dst, &d));
	ck_assert_uint_eq(f.proto, IPPROTO_ICMP);
	ck_assert_uint_eq(f.ttl, 64);
	ck_assert_ptr_eq(f.l4, cap_icmp4_echo + 34);
	ck_assert_uint_eq(f.l4_len, 64);
	ck_assert_uint_eq(f.l4_hlen, 8);
	ck_assert_uint_eq(f.sport, 0x2c71);
	ck_assert_uint_eq(f.dport, 0);
	ck_assert_ptr_eq(f.payload, cap_icmp4_echo + 42);
	ck_assert_uint_eq(f.payload_len, 56);
}
END_TEST

/* Decode: header length 40 (options), ports 41730 -> 80.  The capture
 * carries a partial checksum ("maybe caused by TCP checksum offload"):
 * frame_parse() must not reject it
 */
START_TEST(test_frame_parse_tcp4_syn_partial_csum_accepted)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_tcp4_syn, sizeof(cap_tcp4_syn), &f),
			 0);
	ck_assert_uint_eq(f.proto, IPPROTO_TCP);
	ck_assert_uint_eq(f.l3_len, 60);
	ck_assert_uint_eq(f.l4_len, 40);
	ck_assert_uint_eq(f.l4_hlen, 40);
	ck_assert_uint_eq(f.sport, 41730);
	ck_assert_uint_eq(f.dport, 80);
	ck_assert_uint_eq(f.payload_len, 0);
}
END_TEST

/* Decode: UDP 40000 -> 5353, length 14, 6 bytes of payload */
START_TEST(test_frame_parse_udp4_fields)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_udp4, sizeof(cap_udp4), &f), 0);
	ck_assert_uint_eq(f.proto, IPPROTO_UDP);
	ck_assert_uint_eq(f.l3_len, 34);
	ck_assert_uint_eq(f.l4_len, 14);
	ck_assert_uint_eq(f.l4_hlen, 8);
	ck_assert_uint_eq(f.sport, 40000);
	ck_assert_uint_eq(f.dport, 5353);
	ck_assert_uint_eq(f.payload_len, 6);
	ck_assert_mem_eq(f.payload, "hello\n", 6);
}
END_TEST

/* RFC 894: short frames are padded; total length (34) says where the IP
 * packet ends, not the frame length (60)
 */
START_TEST(test_frame_parse_ip4_padding_ignored)
{
	uint8_t b[60] = { 0 };
	struct frame f;

	memcpy(b, cap_udp4, sizeof(cap_udp4));
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert_uint_eq(f.l2_len, 60);
	ck_assert_uint_eq(f.l3_len, 34);
	ck_assert_uint_eq(f.l4_len, 14);
	ck_assert_uint_eq(f.payload_len, 6);
}
END_TEST

/* Decode: header length 24 with a Router Alert option, IGMP (2), total
 * length 40: L4 starts after the option
 */
START_TEST(test_frame_parse_ip4_options_skipped)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_igmp_ra, sizeof(cap_igmp_ra), &f), 0);
	ck_assert_uint_eq(f.l3_hlen, 24);
	ck_assert_uint_eq(f.proto, 2);
	ck_assert_uint_eq(f.ttl, 1);
	ck_assert_ptr_eq(f.l4, cap_igmp_ra + 14 + 24);
	ck_assert_uint_eq(f.l4_len, 16);
	ck_assert_uint_eq(f.l4_hlen, 0);
	ck_assert_uint_eq(f.payload_len, 16);
	ck_assert_uint_eq(f.l4[0], 0x22);	/* IGMPv3 Membership Report */
}
END_TEST

START_TEST(test_frame_parse_ip4_short_header_dropped)
{
	struct frame f;
	size_t len;

	for (len = 14; len < 34; len++)
		ck_assert_int_eq(frame_parse(cap_icmp4_echo, len, &f),
				 -FD_SHORT_IP);
}
END_TEST

/**
 * icmp4_with_src() - cap_icmp4_echo with another source address
 * @b:		Buffer of sizeof(cap_icmp4_echo)
 * @src:	Source address text
 */
static void icmp4_with_src(uint8_t *b, const char *src)
{
	memcpy(b, cap_icmp4_echo, sizeof(cap_icmp4_echo));
	ck_assert_int_eq(inet_pton(AF_INET, src,
				   HDR_AT_W(b + L3, struct iphdr, saddr)), 1);
	ref_ip4_csum_fix(b + L3);
}

/* RFC 1122 3.2.1.3: a source may not be multicast, broadcast or
 * loopback, and 0.0.0.0 only while the host learns its address
 */
START_TEST(test_frame_parse_ip4_bad_source_dropped)
{
	static const char *const bad[] = {
		"224.0.0.1", "239.255.255.250", "255.255.255.255",
		"127.0.0.1", "127.1.2.3", "0.0.0.0",
	};
	uint8_t b[sizeof(cap_icmp4_echo)];
	struct frame f;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		icmp4_with_src(b, bad[i]);
		ck_assert_msg(frame_parse(b, sizeof(b), &f) == -FD_IP_ADDR,
			      "source %s accepted", bad[i]);
	}
}
END_TEST

/* Decode: 0.0.0.0 -> 255.255.255.255, UDP 68 -> 67 (RFC 2131 4.1) */
START_TEST(test_frame_parse_ip4_unspec_source_dhcp_accepted)
{
	union inany zero = addr("0.0.0.0");
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_dhcp_discover_udhcpc,
				     sizeof(cap_dhcp_discover_udhcpc), &f), 0);
	ck_assert(inany_equals(&f.src, &zero));
	ck_assert_uint_eq(f.sport, 68);
	ck_assert_uint_eq(f.dport, 67);
	ck_assert_uint_eq(f.payload_len, 300);
}
END_TEST

/* RFC 792: only echo (8) and echo reply (0) have an identifier; type 13
 * (timestamp) gets sport 0
 */
START_TEST(test_frame_parse_icmp_non_echo_no_id)
{
	uint8_t b[sizeof(cap_icmp4_echo)];
	struct frame f;

	memcpy(b, cap_icmp4_echo, sizeof(b));
	hdr_put8(b + L4_IP4, struct icmphdr, type, ICMP_TIMESTAMP);
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert_uint_eq(f.sport, 0);
	ck_assert_uint_eq(f.l4_hlen, 8);
}
END_TEST

/* --- IPv6 ---------------------------------------------------------- */

/* Decode: payload length 64, hop limit 64, echo request id 0x2c72 */
START_TEST(test_frame_parse_icmp6_echo_fields)
{
	union inany s = addr("2001:db8::15"), d = addr("2001:db8::1");
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_icmp6_echo, sizeof(cap_icmp6_echo),
				     &f), 0);
	ck_assert_uint_eq(f.ethertype, 0x86dd);
	ck_assert_int_eq(f.af, AF_INET6);
	ck_assert_uint_eq(f.l3_len, 104);
	ck_assert_uint_eq(f.l3_hlen, 40);
	ck_assert(inany_equals(&f.src, &s));
	ck_assert(inany_equals(&f.dst, &d));
	ck_assert_uint_eq(f.proto, IPPROTO_ICMPV6);
	ck_assert_uint_eq(f.ttl, 64);
	ck_assert_ptr_eq(f.l4, cap_icmp6_echo + 54);
	ck_assert_uint_eq(f.l4_len, 64);
	ck_assert_uint_eq(f.l4_hlen, 8);
	ck_assert_uint_eq(f.sport, 0x2c72);
	ck_assert_uint_eq(f.dport, 0);
	ck_assert_uint_eq(f.payload_len, 56);
}
END_TEST

/* Decode: ports 39034 -> 80, header 40 bytes, partial checksum */
START_TEST(test_frame_parse_tcp6_syn_fields)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_tcp6_syn, sizeof(cap_tcp6_syn), &f),
			 0);
	ck_assert_uint_eq(f.proto, IPPROTO_TCP);
	ck_assert_uint_eq(f.l4_len, 40);
	ck_assert_uint_eq(f.l4_hlen, 40);
	ck_assert_uint_eq(f.sport, 39034);
	ck_assert_uint_eq(f.dport, 80);
}
END_TEST

START_TEST(test_frame_parse_udp6_fields)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_udp6, sizeof(cap_udp6), &f), 0);
	ck_assert_uint_eq(f.proto, IPPROTO_UDP);
	ck_assert_uint_eq(f.l4_len, 14);
	ck_assert_uint_eq(f.sport, 40000);
	ck_assert_uint_eq(f.dport, 5353);
	ck_assert_uint_eq(f.payload_len, 6);
}
END_TEST

/* Decode: :: -> ff02::16, Hop-by-Hop (8 bytes, Router Alert), then
 * ICMPv6 type 143 (MLDv2 report); payload length 36
 */
START_TEST(test_frame_parse_mld_hbh_unspec_source_accepted)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_mld_unspec, sizeof(cap_mld_unspec),
				     &f), 0);
	ck_assert(inany_is_unspecified(&f.src));
	ck_assert_uint_eq(f.l3_len, 76);
	ck_assert_uint_eq(f.l3_hlen, 48);
	ck_assert_uint_eq(f.proto, IPPROTO_ICMPV6);
	ck_assert_uint_eq(f.l4_len, 28);
	ck_assert_uint_eq(f.l4[0], 143);
}
END_TEST

/* Decode: DAD probe, :: -> ff02::1:ff12:3456, NS (135) */
START_TEST(test_frame_parse_dad_ns_accepted)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_dad_ns, sizeof(cap_dad_ns), &f), 0);
	ck_assert(inany_is_unspecified(&f.src));
	ck_assert_uint_eq(f.l4[0], 135);
	ck_assert_uint_eq(f.ttl, 255);
}
END_TEST

START_TEST(test_frame_parse_ip6_short_header_dropped)
{
	struct frame f;
	size_t len;

	for (len = 14; len < 54; len++)
		ck_assert_int_eq(frame_parse(cap_icmp6_echo, len, &f),
				 -FD_SHORT_IP);
}
END_TEST

START_TEST(test_frame_parse_ip6_padding_ignored)
{
	uint8_t b[sizeof(cap_udp6) + 10] = { 0 };
	struct frame f;

	memcpy(b, cap_udp6, sizeof(cap_udp6));
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert_uint_eq(f.l3_len, 54);
	ck_assert_uint_eq(f.l4_len, 14);
}
END_TEST

/**
 * icmp6_with_addrs() - cap_icmp6_echo with other addresses
 * @b:		Buffer of sizeof(cap_icmp6_echo)
 * @src:	Source address text
 * @dst:	Destination address text
 */
static void icmp6_with_addrs(uint8_t *b, const char *src, const char *dst)
{
	memcpy(b, cap_icmp6_echo, sizeof(cap_icmp6_echo));
	ck_assert_int_eq(inet_pton(AF_INET6, src,
				   HDR_AT_W(b + L3, struct ip6_hdr, ip6_src)), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, dst,
				   HDR_AT_W(b + L3, struct ip6_hdr, ip6_dst)), 1);
}

/* RFC 4291 2.7: multicast never as source; 2.5.3: ::1 never on a link;
 * 2.5.5.2: IPv4-mapped addresses are not used in IPv6 headers
 */
START_TEST(test_frame_parse_ip6_bad_addresses_dropped)
{
	static const char *const bad[][2] = {
		{ "ff02::1", "2001:db8::1" },
		{ "ff05::2", "2001:db8::1" },
		{ "::1", "2001:db8::1" },
		{ "::ffff:203.0.113.15", "2001:db8::1" },
		{ "2001:db8::15", "::ffff:203.0.113.2" },
	};
	uint8_t b[sizeof(cap_icmp6_echo)];
	struct frame f;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		icmp6_with_addrs(b, bad[i][0], bad[i][1]);
		ck_assert_msg(frame_parse(b, sizeof(b), &f) == -FD_IP_ADDR,
			      "%s -> %s accepted", bad[i][0], bad[i][1]);
	}
}
END_TEST

/* :: is allowed with ICMPv6 (see the DAD test) but not with UDP */
START_TEST(test_frame_parse_ip6_unspec_source_udp_dropped)
{
	uint8_t b[sizeof(cap_udp6)];
	struct frame f;

	memcpy(b, cap_udp6, sizeof(b));
	memset(HDR_AT_W(b + L3, struct ip6_hdr, ip6_src), 0,
	       sizeof(struct in6_addr));
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), -FD_IP_ADDR);
}
END_TEST

/* RFC 8200 4.3: Hdr Ext Len counts 8-octet units beyond the first 8.
 * Destination Options with length 1 (16 bytes), then UDP with 4 bytes
 */
START_TEST(test_frame_parse_ip6_dstopts_walked)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_DSTOPTS, 16 + 12);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_nxt, IPPROTO_UDP);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_len, 1);
	udp_fill(b + L4_IP6 + 16, 12);
	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(f.l3_hlen, 56);
	ck_assert_uint_eq(f.proto, IPPROTO_UDP);
	ck_assert_uint_eq(f.l4_len, 12);
	ck_assert_uint_eq(f.payload_len, 4);
	ck_assert_uint_eq(f.dport, 5353);
}
END_TEST

/* RFC 4302 2.2: AH Payload Len is in 4-octet units minus 2, so 4 means
 * 24 bytes (12 fixed plus a 12-byte ICV)
 */
START_TEST(test_frame_parse_ip6_ah_length_units)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_AH, 24 + 8);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_nxt, IPPROTO_UDP);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_len, 4);
	udp_fill(b + L4_IP6 + 24, 8);
	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(f.l3_hlen, 64);
	ck_assert_uint_eq(f.proto, IPPROTO_UDP);
	ck_assert_uint_eq(f.l4_len, 8);
}
END_TEST

/* Routing header (43), then Hop-by-Hop: RFC 8200 4.1 allows Hop-by-Hop
 * only right after the IPv6 header
 */
START_TEST(test_frame_parse_ip6_hbh_not_first_dropped)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_ROUTING, 8 + 8 + 8);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_nxt, IPPROTO_HOPOPTS);
	hdr_put8(b + L4_IP6 + 8, struct ip6_ext, ip6e_nxt, IPPROTO_UDP);
	udp_fill(b + L4_IP6 + 16, 8);
	ck_assert_int_eq(frame_parse(b, len, &f), -FD_EXTHDR);
}
END_TEST

/* Eight Destination Options headers are walked, nine are too many */
START_TEST(test_frame_parse_ip6_exthdr_chain_limit)
{
	uint8_t b[256];
	struct frame f;
	size_t len, i;

	len = ip6_build(b, IPPROTO_DSTOPTS, 8 * 8 + 8);
	for (i = 0; i < 8; i++)
		hdr_put8(b + L4_IP6 + i * 8, struct ip6_ext, ip6e_nxt,
			 i == 7 ? IPPROTO_UDP : IPPROTO_DSTOPTS);
	udp_fill(b + L4_IP6 + 64, 8);
	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(f.l3_hlen, 40 + 64);
	ck_assert_uint_eq(f.proto, IPPROTO_UDP);

	len = ip6_build(b, IPPROTO_DSTOPTS, 9 * 8 + 8);
	for (i = 0; i < 9; i++)
		hdr_put8(b + L4_IP6 + i * 8, struct ip6_ext, ip6e_nxt,
			 i == 8 ? IPPROTO_UDP : IPPROTO_DSTOPTS);
	udp_fill(b + L4_IP6 + 72, 8);
	ck_assert_int_eq(frame_parse(b, len, &f), -FD_EXTHDR);
}
END_TEST

/* Destination Options claiming 16 bytes in an 8-byte payload */
START_TEST(test_frame_parse_ip6_exthdr_beyond_payload_dropped)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_DSTOPTS, 8);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_nxt, IPPROTO_UDP);
	hdr_put8(b + L4_IP6, struct ip6_ext, ip6e_len, 1);
	ck_assert_int_eq(frame_parse(b, len, &f), -FD_EXTHDR);

	/* Fewer than the 8 bytes every extension header has */
	len = ip6_build(b, IPPROTO_HOPOPTS, 4);
	ck_assert_int_eq(frame_parse(b, len, &f), -FD_EXTHDR);
}
END_TEST

/* RFC 8200 4.7: No Next Header (59); bytes after it are ignored */
START_TEST(test_frame_parse_ip6_no_next_header_empty_l4)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_NONE, 16);
	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(f.proto, 59);
	ck_assert_uint_eq(f.l3_len, 56);
	ck_assert_uint_eq(f.l4_len, 0);
	ck_assert_uint_eq(f.payload_len, 0);
}
END_TEST

/* ICMP (1) inside IPv6 is not ICMPv6: passed as an opaque protocol */
START_TEST(test_frame_parse_ip6_icmp4_proto_opaque)
{
	uint8_t b[256];
	struct frame f;
	size_t len;

	len = ip6_build(b, IPPROTO_ICMP, 4);
	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(f.proto, IPPROTO_ICMP);
	ck_assert_uint_eq(f.l4_hlen, 0);
	ck_assert_uint_eq(f.payload_len, 4);
}
END_TEST

/* --- One field changed: dropped ------------------------------------- */

/**
 * tcp4_poke_doff() - Set the Data Offset of the TCP header of a frame
 * @b:		IPv4 frame without options
 * @doff:	Data Offset, 32-bit words
 */
static void tcp4_poke_doff(uint8_t *b, unsigned doff)
{
	tcp_poke_doff(b + L4_IP4, doff);
}

/**
 * struct drop_case - A captured frame, cut or changed in one field, that
 *		      frame_parse() drops
 * @what:	The change, and why it is invalid
 * @cap:	Captured frame (captured_frames.h)
 * @len:	Bytes of it given to frame_parse()
 * @at:		Offset of the field changed (POKE()), with @size
 * @size:	Its size: 1 or 2 bytes (network order), 0 if none
 * @val:	New value of the field, or of the bit field @poke sets
 * @poke:	Setter of a bit field, NULL if none
 * @csum:	The IPv4 header checksum is fixed after the change
 * @why:	Drop reason frame_parse() returns, negated
 */
struct drop_case {
	const char *what;
	const uint8_t *cap;
	size_t len;
	size_t at, size;
	unsigned val;
	void (*poke)(uint8_t *b, unsigned val);
	bool csum;
	enum frame_drop why;
};

#define CAP(x)		.cap = (x), .len = sizeof(x)
#define CUT(x, l)	.cap = (x), .len = (l)
#define POKE(base, type, field, v)					\
	.at = (base) + offsetof(struct type, field),			\
	.size = sizeof(((struct type *)0)->field), .val = (v)

static const struct drop_case drop_cases[] = {
	{ "0x88cc is LLDP (IEEE 802.1AB): a valid EtherType we don't handle",
	  CAP(cap_arp_request), POKE(0, ethhdr, h_proto, ETH_P_LLDP),
	  .why = FD_ETHERTYPE },
	{ "Decode: fragment offset 2960, MF clear: the last of three "
	  "fragments", CAP(cap_ip4_last_frag), .why = FD_IP_FRAG },
	{ "RFC 791: flags bit 2 is More Fragments: offset 0 and MF set is a "
	  "first fragment", CAP(cap_ip4_last_frag),
	  POKE(L3, iphdr, frag_off, IP_MF), .csum = true,
	  .why = FD_IP_FRAG },
	{ "TTL changed without fixing the checksum", CAP(cap_icmp4_echo),
	  POKE(L3, iphdr, ttl, 63), .why = FD_IP_CSUM },
	{ "RFC 791: IHL counts 32-bit words, minimum 5", CAP(cap_icmp4_echo),
	  .poke = ip4_poke_ihl, .val = 4, .why = FD_IP_HLEN },
	{ "IHL 15 (60 bytes) in a 34-byte IP packet", CAP(cap_udp4),
	  .poke = ip4_poke_ihl, .val = 15, .why = FD_IP_HLEN },
	{ "IPv4 total length beyond the frame",
	  CUT(cap_icmp4_echo, sizeof(cap_icmp4_echo) - 1), .why = FD_IP_LEN },
	{ "Total length 19: smaller than the 20-byte header it includes",
	  CAP(cap_icmp4_echo), POKE(L3, iphdr, tot_len, 19), .csum = true,
	  .why = FD_IP_LEN },
	{ "An IPv6 packet behind EtherType 0x0800", CAP(cap_icmp6_echo),
	  POKE(0, ethhdr, h_proto, ETH_P_IP), .why = FD_IP_VERSION },
	{ "DISCOVER from 0.0.0.0 to port 68 instead of 67",
	  CAP(cap_dhcp_discover_udhcpc), POKE(L4_IP4, udphdr, dest, 68),
	  .why = FD_IP_ADDR },
	{ "RFC 768: Length covers header and data; 13 where 14 are there",
	  CAP(cap_udp4), POKE(L4_IP4, udphdr, len, 13), .why = FD_L4_LEN },
	{ "RFC 768: Length covers header and data; 15 where 14 are there",
	  CAP(cap_udp4), POKE(L4_IP4, udphdr, len, 15), .why = FD_L4_LEN },
	{ "Total length 27 leaves 7 bytes for UDP, one less than its header",
	  CUT(cap_udp4, ETH_HLEN + 27), POKE(L3, iphdr, tot_len, 27),
	  .csum = true, .why = FD_SHORT_L4 },
	{ "RFC 9293 3.1: Data Offset 4 (16 bytes) is below the minimum of 5",
	  CAP(cap_tcp4_syn), .poke = tcp4_poke_doff, .val = 4,
	  .why = FD_SHORT_L4 },
	{ "RFC 9293 3.1: Data Offset 15 (60 bytes) is beyond the 40 bytes of "
	  "segment", CAP(cap_tcp4_syn), .poke = tcp4_poke_doff, .val = 15,
	  .why = FD_SHORT_L4 },
	{ "Total length 20 + 19: a TCP header needs 20 bytes",
	  CUT(cap_tcp4_syn, ETH_HLEN + 39), POKE(L3, iphdr, tot_len, 39),
	  .csum = true, .why = FD_SHORT_L4 },
	{ "Total length 20 + 7: ICMP needs type, code, checksum and 4 bytes",
	  CUT(cap_icmp4_echo, ETH_HLEN + 27), POKE(L3, iphdr, tot_len, 27),
	  .csum = true, .why = FD_SHORT_L4 },
	{ "Decode: Fragment Header (44), offset 2896, M clear",
	  CAP(cap_ip6_last_frag), .why = FD_IP_FRAG },
	{ "IPv6 payload length beyond the frame",
	  CUT(cap_icmp6_echo, sizeof(cap_icmp6_echo) - 1), .why = FD_IP_LEN },
	{ "An IPv4 packet behind EtherType 0x86dd", CAP(cap_icmp4_echo),
	  POKE(0, ethhdr, h_proto, ETH_P_IPV6), .why = FD_IP_VERSION },
};

#undef CAP
#undef CUT
#undef POKE

/* One row of drop_cases[] (loop test: _i is the row) */
START_TEST(test_frame_parse_one_field_dropped)
{
	const struct drop_case *d = &drop_cases[_i];
	uint8_t b[2048];
	struct frame f;

	ck_assert_uint_le(d->len, sizeof(b));
	memcpy(b, d->cap, d->len);
	if (d->size == 1)
		b[d->at] = (uint8_t)d->val;
	else if (d->size == 2)
		put_be16(b + d->at, (uint16_t)d->val);
	if (d->poke)
		d->poke(b, d->val);
	if (d->csum)
		ref_ip4_csum_fix(b + L3);
	ck_assert_msg(frame_parse(b, d->len, &f) == -(int)d->why,
		      "%s: not dropped as %s", d->what, frame_drop_str[d->why]);
}
END_TEST

/* --- Robustness ---------------------------------------------------- */

static const struct {
	const uint8_t *p;
	size_t len;
} all_frames[] = {
#define F(x) { x, sizeof(x) }
	F(cap_arp_probe), F(cap_arp_gratuitous), F(cap_arp_request),
	F(cap_icmp4_echo), F(cap_icmp6_echo), F(cap_ip4_last_frag),
	F(cap_ip6_last_frag), F(cap_ns_global), F(cap_tcp4_syn),
	F(cap_tcp6_syn), F(cap_udp4), F(cap_udp6), F(cap_igmp_ra),
	F(cap_mld_unspec), F(cap_dad_ns), F(cap_rs_slla), F(cap_rs),
	F(cap_ns_gw_ll), F(cap_dhcp_discover_udhcpc),
	F(cap_dhcp_request_udhcpc), F(cap_dhcp_discover_dhclient),
	F(cap_dhcp_request_dhclient), F(cap_dhcpv6_solicit),
	F(cap_dhcpv6_solicit_rapid),
	F(cap_dhcpv6_inforeq), F(cap_dhcpv6_request), F(cap_dhcpv6_release),
#undef F
};

/**
 * check_within() - Every offset of a parsed frame lies within the buffer
 * @b:		Buffer passed to frame_parse()
 * @len:	Its length
 * @f:		Result of a successful parse
 */
static void check_within(const uint8_t *b, size_t len, const struct frame *f)
{
	const uint8_t *end = b + len;

	ck_assert_ptr_eq(f->l2, b);
	ck_assert_uint_eq(f->l2_len, len);
	ck_assert(f->l3 >= b + L3 && f->l3 + f->l3_len <= end);
	ck_assert_uint_le(f->l3_hlen, f->l3_len);
	if (!f->l4)
		return;
	ck_assert(f->l4 == f->l3 + f->l3_hlen);
	ck_assert(f->l4 + f->l4_len <= f->l3 + f->l3_len);
	ck_assert_uint_le(f->l4_hlen, f->l4_len);
	ck_assert(f->payload == f->l4 + f->l4_hlen);
	ck_assert_uint_eq(f->payload_len, f->l4_len - f->l4_hlen);
}

/* Every prefix of every captured frame, each in a heap buffer of exactly
 * that size (so that ASan sees any read past the end): an error or a
 * parse whose offsets stay inside the buffer
 */
START_TEST(test_frame_parse_every_truncation_safe)
{
	size_t i, len;

	for (i = 0; i < sizeof(all_frames) / sizeof(all_frames[0]); i++) {
		for (len = 0; len <= all_frames[i].len; len++) {
			uint8_t *b = malloc(len ? len : 1);
			struct frame f;
			int ret;

			ck_assert_ptr_nonnull(b);
			memcpy(b, all_frames[i].p, len);
			ret = frame_parse(b, len, &f);
			ck_assert_int_le(ret, 0);
			ck_assert_int_gt(ret, -FD_COUNT);
			if (!ret)
				check_within(b, len, &f);
			free(b);
		}
		/* The full frame parses */
		{
			struct frame f;
			int ret = frame_parse(all_frames[i].p,
					      all_frames[i].len, &f);

			ck_assert(ret == 0 || ret == -FD_IP_FRAG);
		}
	}
}
END_TEST

/* Random byte changes in the first 96 bytes (headers) of every captured
 * frame, fixed seed: same invariants
 */
START_TEST(test_frame_parse_mutations_safe)
{
	unsigned seed = 1, n;
	size_t i;

	for (i = 0; i < sizeof(all_frames) / sizeof(all_frames[0]); i++) {
		for (n = 0; n < 2000; n++) {
			size_t len = all_frames[i].len, k;
			uint8_t *b = malloc(len);
			struct frame f;
			int ret;

			ck_assert_ptr_nonnull(b);
			memcpy(b, all_frames[i].p, len);
			for (k = 0; k < 1 + n % 4; k++) {
				seed = seed * 1103515245 + 12345;
				b[(seed >> 8) % MIN(len, 96)] =
					(uint8_t)(seed >> 20);
			}
			if (n % 3 == 0)	/* keep the checksum right */
				if (hdr_get16(b, struct ethhdr, h_proto) ==
				    ETH_P_IP && len >= L4_IP4 &&
				    (b[L3] & 0x0f) >= 5 &&	/* IHL */
				    L3 + (size_t)(b[L3] & 0x0f) * 4 <= len)
					ref_ip4_csum_fix(b + L3);
			ret = frame_parse(b, len, &f);
			ck_assert_int_le(ret, 0);
			ck_assert_int_gt(ret, -FD_COUNT);
			if (!ret)
				check_within(b, len, &f);
			free(b);
		}
	}
}
END_TEST

/**
 * frame_suite() - All frame_parse() tests
 *
 * Return: the suite
 */
static Suite *frame_suite(void)
{
	Suite *s = suite_create("frame");
	TCase *tc;

	tc = tcase_create("ethernet");
	tcase_add_test(tc, test_frame_parse_short_eth_dropped);
	tcase_add_test(tc, test_frame_parse_vlan_tag_dropped);
	tcase_add_test(tc, test_frame_drop_str_all_named);
	suite_add_tcase(s, tc);

	tc = tcase_create("arp");
	tcase_add_test(tc, test_frame_parse_arp_request_fields);
	tcase_add_test(tc, test_frame_parse_arp_probe_accepted);
	tcase_add_test(tc, test_frame_parse_arp_short_dropped);
	tcase_add_test(tc, test_frame_parse_arp_padded_accepted);
	tcase_add_test(tc, test_frame_parse_arp_not_eth_ip4_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("ipv4");
	tcase_add_test(tc, test_frame_parse_icmp4_echo_fields);
	tcase_add_test(tc, test_frame_parse_tcp4_syn_partial_csum_accepted);
	tcase_add_test(tc, test_frame_parse_udp4_fields);
	tcase_add_test(tc, test_frame_parse_ip4_padding_ignored);
	tcase_add_test(tc, test_frame_parse_ip4_options_skipped);
	tcase_add_test(tc, test_frame_parse_ip4_short_header_dropped);
	tcase_add_test(tc, test_frame_parse_ip4_bad_source_dropped);
	tcase_add_test(tc, test_frame_parse_ip4_unspec_source_dhcp_accepted);
	suite_add_tcase(s, tc);

	tc = tcase_create("l4");
	tcase_add_test(tc, test_frame_parse_icmp_non_echo_no_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("ipv6");
	tcase_add_test(tc, test_frame_parse_icmp6_echo_fields);
	tcase_add_test(tc, test_frame_parse_tcp6_syn_fields);
	tcase_add_test(tc, test_frame_parse_udp6_fields);
	tcase_add_test(tc, test_frame_parse_mld_hbh_unspec_source_accepted);
	tcase_add_test(tc, test_frame_parse_dad_ns_accepted);
	tcase_add_test(tc, test_frame_parse_ip6_short_header_dropped);
	tcase_add_test(tc, test_frame_parse_ip6_padding_ignored);
	tcase_add_test(tc, test_frame_parse_ip6_bad_addresses_dropped);
	tcase_add_test(tc, test_frame_parse_ip6_unspec_source_udp_dropped);
	tcase_add_test(tc, test_frame_parse_ip6_dstopts_walked);
	tcase_add_test(tc, test_frame_parse_ip6_ah_length_units);
	tcase_add_test(tc, test_frame_parse_ip6_hbh_not_first_dropped);
	tcase_add_test(tc, test_frame_parse_ip6_exthdr_chain_limit);
	tcase_add_test(tc, test_frame_parse_ip6_exthdr_beyond_payload_dropped);
	tcase_add_test(tc, test_frame_parse_ip6_no_next_header_empty_l4);
	tcase_add_test(tc, test_frame_parse_ip6_icmp4_proto_opaque);
	suite_add_tcase(s, tc);

	tc = tcase_create("one field");
	tcase_add_loop_test(tc, test_frame_parse_one_field_dropped, 0,
			    ARRAY_SIZE(drop_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_frame_parse_every_truncation_safe);
	tcase_add_test(tc, test_frame_parse_mutations_safe);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(frame_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
