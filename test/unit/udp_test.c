// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/udp_test.c - Tests for the frame builders of passt/udp.c
 *
 * Expected values: header sizes of RFC 768, RFC 791 and RFC 8200; the
 * checksums tshark computed ("should be") for UDP frames Linux sent, and
 * the partial checksums Linux itself left in them with checksum offload
 * (captured_frames.h, cap_udp4 and cap_udp6); the ICMP destination
 * unreachable layouts of RFC 792 and RFC 4443 3.1.  Checksums are verified
 * with a textbook RFC 1071 sum written here, not with tap/csum.c.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/inany.h"
#include "../../passt/udp_internal.h"
#include "../../tap/frame.h"
#include "captured_frames.h"
#include "fake_parse.h"
#include "rfc1071.h"

static const uint8_t mac_guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t mac_our[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };

/* RFC 791 (20-byte header) + RFC 768 (8 bytes): 1500 - 28 */
START_TEST(test_udp_payload_max_ethernet_ipv4)
{
	ck_assert_uint_eq(udp_payload_max(1500, true), 1472);
}
END_TEST

/* RFC 8200 (40-byte header) + RFC 768: 1500 - 48 */
START_TEST(test_udp_payload_max_ethernet_ipv6)
{
	ck_assert_uint_eq(udp_payload_max(1500, false), 1452);
}
END_TEST

/* pasta's default MTU, 65520 (passt.1) */
START_TEST(test_udp_payload_max_default_mtu)
{
	ck_assert_uint_eq(udp_payload_max(65520, true), 65492);
	ck_assert_uint_eq(udp_payload_max(65520, false), 65472);
}
END_TEST

/* 16-bit length fields: IPv4 total length 65535 - 28 = 65507 (udp(7)'s
 * limit), IPv6 payload length 65535 - 8 = 65527, whatever the MTU
 */
START_TEST(test_udp_payload_max_length_field_limits)
{
	ck_assert_uint_eq(udp_payload_max(100000, true), 65507);
	ck_assert_uint_eq(udp_payload_max(100000, false), 65527);
}
END_TEST

/* RFC 791's minimum MTU, 68: 40 bytes of UDP payload; 28 leaves none */
START_TEST(test_udp_payload_max_small_mtu)
{
	ck_assert_uint_eq(udp_payload_max(68, true), 40);
	ck_assert_uint_eq(udp_payload_max(28, true), 0);
	ck_assert_uint_eq(udp_payload_max(48, false), 0);
}
END_TEST

/* cap_udp4: 203.0.113.15:40000 -> 203.0.113.2:5353, "hello\n", length 14,
 * checksum tshark computed: 0x92b9
 */
START_TEST(test_udp_hdr_fill_ipv4_matches_capture)
{
	union inany src = addr("203.0.113.15"), dst = addr("203.0.113.2");
	uint8_t b[14];

	memcpy(b + 8, cap_udp4 + 42, 6);
	frame_udp_fill(b, &src, 40000, &dst, 5353, 6, false);
	ck_assert_uint_eq(b[0], 0x9c);
	ck_assert_uint_eq(b[1], 0x40);
	ck_assert_uint_eq(b[2], 0x14);
	ck_assert_uint_eq(b[3], 0xe9);
	ck_assert_uint_eq(b[4], 0x00);
	ck_assert_uint_eq(b[5], 0x0e);
	ck_assert_uint_eq(b[6], 0x92);
	ck_assert_uint_eq(b[7], 0xb9);
}
END_TEST

/* cap_udp6: 2001:db8::15:40000 -> 2001:db8::1:5353, checksum 0xaf44 */
START_TEST(test_udp_hdr_fill_ipv6_matches_capture)
{
	union inany src = addr("2001:db8::15"), dst = addr("2001:db8::1");
	uint8_t b[14];

	memcpy(b + 8, cap_udp6 + 62, 6);
	frame_udp_fill(b, &src, 40000, &dst, 5353, 6, false);
	ck_assert_mem_eq(b, cap_udp6 + 54, 6);
	ck_assert_uint_eq(b[6], 0xaf);
	ck_assert_uint_eq(b[7], 0x44);
}
END_TEST

/* With checksum offload Linux left the folded pseudo-header sum in the
 * field (tshark: "0x7832 incorrect"); a partial header must carry the
 * same value for the tap device to complete
 */
START_TEST(test_udp_hdr_fill_partial_is_pseudo_header_sum_ipv4)
{
	union inany src = addr("203.0.113.15"), dst = addr("203.0.113.2");
	uint8_t b[14];

	memcpy(b + 8, cap_udp4 + 42, 6);
	frame_udp_fill(b, &src, 40000, &dst, 5353, 6, true);
	ck_assert_mem_eq(b, cap_udp4 + 34, 8);
}
END_TEST

/* The same for IPv6 (tshark: "0x5ba7 incorrect") */
START_TEST(test_udp_hdr_fill_partial_is_pseudo_header_sum_ipv6)
{
	union inany src = addr("2001:db8::15"), dst = addr("2001:db8::1");
	uint8_t b[14];

	memcpy(b + 8, cap_udp6 + 62, 6);
	frame_udp_fill(b, &src, 40000, &dst, 5353, 6, true);
	ck_assert_mem_eq(b, cap_udp6 + 54, 8);
}
END_TEST

/* RFC 768: "If the computed checksum is zero, it is transmitted as all
 * ones".  The two payload bytes are chosen so that the pseudo-header
 * (RFC 768), the header and the payload sum to 0xffff
 */
START_TEST(test_udp_hdr_fill_zero_checksum_sent_as_ones)
{
	static const uint8_t ph_hdr[] = {
		0xcb, 0x00, 0x71, 0x0f, 0xcb, 0x00, 0x71, 0x02,	/* addresses */
		0x00, 0x11, 0x00, 0x0a,		/* protocol, UDP length 10 */
		0x9c, 0x40, 0x14, 0xe9, 0x00, 0x0a,	/* ports, length */
	};
	union inany src = addr("203.0.113.15"), dst = addr("203.0.113.2");
	uint16_t x = (uint16_t)(~sum16(ph_hdr, sizeof(ph_hdr), 0) & 0xffff);
	uint8_t b[10];

	b[8] = (uint8_t)(x >> 8);
	b[9] = (uint8_t)x;
	frame_udp_fill(b, &src, 40000, &dst, 5353, 2, false);
	ck_assert_uint_eq(b[6], 0xff);
	ck_assert_uint_eq(b[7], 0xff);
}
END_TEST

/* RFC 792: type 3 code 3, unused 32 bits zero, then the internet header
 * and 64 bits of the datagram; from the destination to the guest
 */
START_TEST(test_udp_icmp_unreach_ipv4_layout)
{
	struct flow_key k;
	union inany g = addr("203.0.113.15"), f = addr("203.0.113.2");
	uint8_t l2[200];
	const uint8_t *ip = l2 + 14, *ic = ip + 20, *q = ic + 8;
	size_t len;

	flow_key_fill(&k, IPPROTO_UDP, &g, 40000, &f, 5353);
	len = udp_icmp_unreach_fill(l2, mac_guest, mac_our, &k, 6);
	ck_assert_uint_eq(len, udp_icmp_unreach_len(true));
	ck_assert_uint_eq(len, 14 + 20 + 8 + 20 + 8);

	ck_assert_mem_eq(l2, mac_guest, 6);
	ck_assert_mem_eq(l2 + 6, mac_our, 6);
	ck_assert_uint_eq(l2[12], 0x08);
	ck_assert_uint_eq(l2[13], 0x00);

	ck_assert_uint_eq(ip[0], 0x45);
	ck_assert_uint_eq(ip[2] << 8 | ip[3], 56);
	ck_assert_uint_eq(ip[9], 1);			/* ICMP */
	ck_assert_mem_eq(ip + 12, cap_udp4 + 30, 4);	/* from 203.0.113.2 */
	ck_assert_mem_eq(ip + 16, cap_udp4 + 26, 4);	/* to 203.0.113.15 */
	ck_assert_uint_eq(sum16(ip, 20, 0), 0xffff);

	ck_assert_uint_eq(ic[0], 3);
	ck_assert_uint_eq(ic[1], 3);
	ck_assert_uint_eq(ic[4] | ic[5] | ic[6] | ic[7], 0);
	ck_assert_uint_eq(sum16(ic, 36, 0), 0xffff);

	/* Quoted: the guest's datagram as cap_udp4 shows it */
	ck_assert_uint_eq(q[0], 0x45);
	ck_assert_uint_eq(q[2] << 8 | q[3], 34);
	ck_assert_uint_eq(q[9], 17);
	ck_assert_mem_eq(q + 12, cap_udp4 + 26, 8);	/* addresses */
	ck_assert_mem_eq(q + 20, cap_udp4 + 34, 6);	/* ports, length */
}
END_TEST

/* RFC 4443 3.1: type 1 code 4 (port unreachable), unused 32 bits, the
 * invoking packet; checksum over the pseudo-header (2.3) with next header
 * 58
 */
START_TEST(test_udp_icmp_unreach_ipv6_layout)
{
	union inany g = addr("2001:db8::15"), f = addr("2001:db8::1");
	const uint8_t *ip, *ic, *q;
	struct flow_key k;
	uint8_t l2[200], ph[40] = { 0 };
	size_t len;

	flow_key_fill(&k, IPPROTO_UDP, &g, 40000, &f, 5353);
	len = udp_icmp_unreach_fill(l2, mac_guest, mac_our, &k, 6);
	ck_assert_uint_eq(len, udp_icmp_unreach_len(false));
	ck_assert_uint_eq(len, 14 + 40 + 8 + 40 + 8);
	ip = l2 + 14;
	ic = ip + 40;
	q = ic + 8;

	ck_assert_uint_eq(l2[12], 0x86);
	ck_assert_uint_eq(l2[13], 0xdd);
	ck_assert_uint_eq(ip[0] >> 4, 6);
	ck_assert_uint_eq(ip[4] << 8 | ip[5], 56);
	ck_assert_uint_eq(ip[6], 58);
	ck_assert_mem_eq(ip + 8, cap_udp6 + 38, 16);	/* from 2001:db8::1 */
	ck_assert_mem_eq(ip + 24, cap_udp6 + 22, 16);	/* to 2001:db8::15 */

	ck_assert_uint_eq(ic[0], 1);
	ck_assert_uint_eq(ic[1], 4);
	ck_assert_uint_eq(ic[4] | ic[5] | ic[6] | ic[7], 0);
	memcpy(ph, ip + 8, 32);
	ph[35] = 56;
	ph[39] = 58;
	ck_assert_uint_eq(sum16(ic, 56, sum16(ph, 40, 0)), 0xffff);

	ck_assert_uint_eq(q[0] >> 4, 6);
	ck_assert_uint_eq(q[4] << 8 | q[5], 14);
	ck_assert_uint_eq(q[6], 17);
	ck_assert_mem_eq(q + 8, cap_udp6 + 22, 32);	/* addresses */
	ck_assert_mem_eq(q + 40, cap_udp6 + 54, 6);	/* ports, length */
}
END_TEST

/* The G2 bench case: a remote sender's super-datagrams of 46 x 1400 bytes
 * (as many as fit its 64 KiB, udp(7) UDP_SEGMENT), read back to back.  A
 * 47th datagram would make an IPv4 packet of 20 + 8 + 65,800 bytes, past
 * RFC 791's 16-bit total length: the run must be sent first
 */
START_TEST(test_udp_uso_joins_ipv4_total_length)
{
	ck_assert(udp_uso_joins(true, 32, 1400, 1400, 32 * 1400, 1400, true));
	ck_assert(udp_uso_joins(true, 45, 1400, 1400, 45 * 1400, 1400, true));
	ck_assert(!udp_uso_joins(true, 46, 1400, 1400, 46 * 1400, 1400, true));
	/* 65,535 - 20 - 8 = 65,507 payload bytes exactly, then one more */
	ck_assert(udp_uso_joins(true, 63, 1039, 1039, 63 * 1039, 50, true));
	ck_assert(!udp_uso_joins(true, 63, 1039, 1039, 63 * 1039, 51, true));
}
END_TEST

/* IPv6: the super-frame is one packet of at most 65,535 bytes (Linux's
 * largest MTU, ETH_MAX_MTU, include/uapi/linux/if_ether.h), so 65,535 -
 * 40 - 8 = 65,487 payload bytes (RFC 8200's payload length alone would
 * allow 65,527)
 */
START_TEST(test_udp_uso_joins_ipv6_packet_size)
{
	ck_assert(udp_uso_joins(true, 63, 1039, 1039, 63 * 1039, 30, false));
	ck_assert(!udp_uso_joins(true, 63, 1039, 1039, 63 * 1039, 31, false));
	ck_assert(!udp_uso_joins(true, 46, 1400, 1400, 46 * 1400, 1400, false));
}
END_TEST

/* Linux __udp_gso_segment(): segments of gso_size, only the last shorter
 * and never empty; virtio 1.2 5.1.6.2.1; at most 64 segments to the tap
 * (TAP_GSO_SEGS_MAX: Linux UDP_MAX_SEGMENTS is 64 or 128, by version)
 */
START_TEST(test_udp_uso_joins_segment_rules)
{
	ck_assert(udp_uso_joins(true, 1, 1000, 1000, 1000, 1000, true));
	ck_assert(udp_uso_joins(true, 1, 1000, 1000, 1000, 999, true));
	ck_assert(!udp_uso_joins(false, 1, 1000, 1000, 1000, 1000, true));
	ck_assert(!udp_uso_joins(true, 1, 1000, 1000, 1000, 1001, true));
	ck_assert(!udp_uso_joins(true, 2, 1000, 999, 1999, 999, true));
	ck_assert(!udp_uso_joins(true, 1, 1000, 1000, 1000, 0, true));
	ck_assert(!udp_uso_joins(true, 64, 100, 100, 6400, 100, true));
}
END_TEST

/**
 * udp_suite() - Test cases of passt/udp.c helpers
 *
 * Return: suite
 */
static Suite *udp_suite(void)
{
	Suite *s = suite_create("udp");
	TCase *tc;

	tc = tcase_create("payload_max");
	tcase_add_test(tc, test_udp_payload_max_ethernet_ipv4);
	tcase_add_test(tc, test_udp_payload_max_ethernet_ipv6);
	tcase_add_test(tc, test_udp_payload_max_default_mtu);
	tcase_add_test(tc, test_udp_payload_max_length_field_limits);
	tcase_add_test(tc, test_udp_payload_max_small_mtu);
	suite_add_tcase(s, tc);

	tc = tcase_create("uso_joins");
	tcase_add_test(tc, test_udp_uso_joins_ipv4_total_length);
	tcase_add_test(tc, test_udp_uso_joins_ipv6_packet_size);
	tcase_add_test(tc, test_udp_uso_joins_segment_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("hdr_fill");
	tcase_add_test(tc, test_udp_hdr_fill_ipv4_matches_capture);
	tcase_add_test(tc, test_udp_hdr_fill_ipv6_matches_capture);
	tcase_add_test(tc, test_udp_hdr_fill_partial_is_pseudo_header_sum_ipv4);
	tcase_add_test(tc, test_udp_hdr_fill_partial_is_pseudo_header_sum_ipv6);
	tcase_add_test(tc, test_udp_hdr_fill_zero_checksum_sent_as_ones);
	suite_add_tcase(s, tc);

	tc = tcase_create("icmp_unreach");
	tcase_add_test(tc, test_udp_icmp_unreach_ipv4_layout);
	tcase_add_test(tc, test_udp_icmp_unreach_ipv6_layout);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(udp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
