// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/frame_build_test.c - Tests for tap/frame_build.c's ICMP errors
 *
 * frame_icmp_err_fill() builds the destination unreachable a router sends
 * about a guest's packet.  Expected frames were assembled by hand from RFC 792
 * (type 3, code, checksum, 4 unused bytes, IP header + 8 bytes of the
 * original), RFC 4443 3.1 and 2.3 (type 1, code, checksum over the
 * pseudo-header), RFC 1191 4 and RFC 4443 3.2 (the MTU in the second word
 * of fragmentation needed and packet too big) and RFC 791 / RFC 8200 for the outer headers (our
 * conventions there: TTL/hop limit 64, DF, identification 0), and decoded
 * with tshark 4 ("[correct]" on every checksum it checks); the decodes are
 * pasted above each frame.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/inany.h"
#include "../../tap/frame.h"
#include "fake_parse.h"
#include "rfc1071.h"

static const uint8_t mac_guest[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
static const uint8_t mac_our[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* The guest's SYN, IPv4 header and TCP header without options:
 * 198.51.100.1:40000 -> 203.0.113.9:80, ID 0x1c46, DF, TTL 64, header
 * checksum 0xb84b [correct], seq 0x01020304, SYN, window 64240
 */
static const uint8_t syn4[40] = {
	0x45, 0x00, 0x00, 0x28, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06,
	0xb8, 0x4b, 0xc6, 0x33, 0x64, 0x01, 0xcb, 0x00, 0x71, 0x09,
	0x9c, 0x40, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00,
	0x00, 0x00, 0x50, 0x02, 0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00,
};

/* Ethernet II, Src: 52:54:00:12:34:56, Dst: 9a:55:9a:55:9a:55
 * Internet Protocol Version 4, Src: 198.51.100.2, Dst: 198.51.100.1
 *     Total Length: 68, Flags: 0x2, Don't fragment, TTL 64, Protocol ICMP
 *     Header Checksum: 0xe64e [correct]
 * Internet Control Message Protocol
 *     Type: 3 (Destination unreachable)
 *     Code: 1 (Host unreachable)
 *     Checksum: 0x1175 [correct]
 *     Internet Protocol Version 4, Src: 198.51.100.1, Dst: 203.0.113.9
 *     Transmission Control Protocol, Src Port: 40000, Dst Port: 80,
 *     Seq: 16909060, Flags: 0x002 (SYN)
 */
static const uint8_t err4[82] = {
	0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55, 0x52, 0x54, 0x00, 0x12,
	0x34, 0x56, 0x08, 0x00, 0x45, 0x00, 0x00, 0x44, 0x00, 0x00,
	0x40, 0x00, 0x40, 0x01, 0xe6, 0x4e, 0xc6, 0x33, 0x64, 0x02,
	0xc6, 0x33, 0x64, 0x01, 0x03, 0x01, 0x11, 0x75, 0x00, 0x00,
	0x00, 0x00, 0x45, 0x00, 0x00, 0x28, 0x1c, 0x46, 0x40, 0x00,
	0x40, 0x06, 0xb8, 0x4b, 0xc6, 0x33, 0x64, 0x01, 0xcb, 0x00,
	0x71, 0x09, 0x9c, 0x40, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x50, 0x02, 0xfa, 0xf0, 0x00, 0x00,
	0x00, 0x00,
};

/* The guest's SYN, IPv6: 2001:db8:1::1:40000 -> 2001:db8:90::9:80, hop
 * limit 64, same TCP header as syn4
 */
static const uint8_t syn6[60] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x14, 0x06, 0x40, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x90,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
	0x9c, 0x40, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00,
	0x00, 0x00, 0x50, 0x02, 0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00,
};

/* Internet Protocol Version 6, Src: 2001:db8:1::2, Dst: 2001:db8:1::1
 *     Payload Length: 68, Next Header: ICMPv6 (58), Hop Limit: 64
 * Internet Control Message Protocol v6
 *     Type: Destination Unreachable (1)
 *     Code: 3 (Address unreachable)
 *     Checksum: 0xf51b [correct]
 *     Internet Protocol Version 6, Src: 2001:db8:1::1, Dst: 2001:db8:90::9
 *     Transmission Control Protocol, Src Port: 40000, Dst Port: 80
 */
static const uint8_t err6[122] = {
	0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55, 0x52, 0x54, 0x00, 0x12,
	0x34, 0x56, 0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x44,
	0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x01, 0x03, 0xf5, 0x1b, 0x00, 0x00,
	0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x14, 0x06, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x09, 0x9c, 0x40, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x50, 0x02, 0xfa, 0xf0, 0x00, 0x00,
	0x00, 0x00,
};

START_TEST(test_icmp_err_fill_ipv4_host_unreachable_bytes)
{
	union inany src = addr("198.51.100.2"), dst = addr("198.51.100.1");
	uint8_t l2[sizeof(err4) + 16];
	size_t len;

	memset(l2, 0xee, sizeof(l2));
	ck_assert_uint_eq(frame_icmp_err_len(true, sizeof(syn4)), sizeof(err4));
	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 3, 1, 0,
				  syn4, sizeof(syn4));
	ck_assert_uint_eq(len, sizeof(err4));
	ck_assert_mem_eq(l2, err4, sizeof(err4));
	ck_assert_uint_eq(l2[sizeof(err4)], 0xee);	/* nothing beyond */
}
END_TEST

START_TEST(test_icmp_err_fill_ipv6_address_unreachable_bytes)
{
	union inany src = addr("2001:db8:1::2"), dst = addr("2001:db8:1::1");
	uint8_t l2[sizeof(err6) + 16];
	size_t len;

	memset(l2, 0xee, sizeof(l2));
	ck_assert_uint_eq(frame_icmp_err_len(false, sizeof(syn6)), sizeof(err6));
	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 1, 3, 0,
				  syn6, sizeof(syn6));
	ck_assert_uint_eq(len, sizeof(err6));
	ck_assert_mem_eq(l2, err6, sizeof(err6));
	ck_assert_uint_eq(l2[sizeof(err6)], 0xee);
}
END_TEST

/* RFC 1812 4.3.2.3: an ICMP error is at most 576 bytes of IP datagram */
START_TEST(test_icmp_err_fill_ipv4_quote_capped_at_576)
{
	union inany src = addr("198.51.100.2"), dst = addr("198.51.100.1");
	static uint8_t big[1500], l2[14 + 1500];
	size_t len;

	memset(big, 0xab, sizeof(big));
	ck_assert_uint_eq(frame_icmp_err_len(true, sizeof(big)), 14 + 576);
	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 3, 13, 0,
				  big, sizeof(big));
	ck_assert_uint_eq(len, 14 + 576);
	ck_assert_uint_eq(l2[16], 0x02);	/* total length 576 = 0x240 */
	ck_assert_uint_eq(l2[17], 0x40);
	ck_assert_uint_eq(l2[14 + 20 + 1], 13);
	ck_assert_uint_eq(l2[14 + 575], 0xab);
}
END_TEST

/* RFC 4443 2.4 (c): the error must not exceed the minimum IPv6 MTU, 1280 */
START_TEST(test_icmp_err_fill_ipv6_quote_capped_at_1280)
{
	union inany src = addr("2001:db8:1::2"), dst = addr("2001:db8:1::1");
	static uint8_t big[1500], l2[14 + 1500];
	size_t len;

	memset(big, 0xab, sizeof(big));
	ck_assert_uint_eq(frame_icmp_err_len(false, sizeof(big)), 14 + 1280);
	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 1, 1, 0,
				  big, sizeof(big));
	ck_assert_uint_eq(len, 14 + 1280);
	ck_assert_uint_eq(l2[18], 0x04);	/* payload length 1240 = 0x4d8 */
	ck_assert_uint_eq(l2[19], 0xd8);
	ck_assert_uint_eq(l2[14 + 1279], 0xab);
}
END_TEST

/* RFC 1191 4: fragmentation needed (type 3 code 4) carries the next-hop
 * MTU in the low 16 bits of the second word, the high 16 bits unused
 */
START_TEST(test_icmp_err_fill_ipv4_frag_needed_mtu)
{
	union inany src = addr("198.51.100.2"), dst = addr("198.51.100.1");
	uint8_t l2[sizeof(err4) + 16];
	const uint8_t *ih = l2 + 14 + 20;
	size_t len;

	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 3, 4, 1280,
				  syn4, sizeof(syn4));
	ck_assert_uint_eq(len, sizeof(err4));
	ck_assert_uint_eq(ih[0], 3);
	ck_assert_uint_eq(ih[1], 4);
	ck_assert_uint_eq(ih[4], 0);
	ck_assert_uint_eq(ih[5], 0);
	ck_assert_uint_eq(ih[6], 0x05);		/* 1280 = 0x0500 */
	ck_assert_uint_eq(ih[7], 0x00);
	ck_assert_uint_eq(sum16(ih, len - 14 - 20, 0), 0xffff);
	ck_assert_mem_eq(ih + 8, syn4, 28);	/* IP header + 8 bytes */
}
END_TEST

/* RFC 4443 3.2: packet too big (type 2 code 0), the MTU in the second
 * word, checksum over the pseudo-header (2.3)
 */
START_TEST(test_icmp_err_fill_ipv6_packet_too_big_mtu)
{
	union inany src = addr("2001:db8:1::2"), dst = addr("2001:db8:1::1");
	uint8_t l2[sizeof(err6) + 16];
	const uint8_t *ih = l2 + 14 + 40;
	uint8_t pseudo[40] = { 0 };
	size_t len, mlen;

	len = frame_icmp_err_fill(l2, mac_guest, mac_our, &src, &dst, 2, 0, 1280,
				  syn6, sizeof(syn6));
	ck_assert_uint_eq(len, sizeof(err6));
	mlen = len - 14 - 40;
	ck_assert_uint_eq(ih[0], 2);
	ck_assert_uint_eq(ih[1], 0);
	ck_assert_uint_eq(ih[4], 0);
	ck_assert_uint_eq(ih[5], 0);
	ck_assert_uint_eq(ih[6], 0x05);
	ck_assert_uint_eq(ih[7], 0x00);
	memcpy(pseudo, l2 + 14 + 8, 32);	/* source, destination */
	pseudo[34] = (uint8_t)(mlen >> 8);
	pseudo[35] = (uint8_t)mlen;
	pseudo[39] = 58;			/* next header: ICMPv6 */
	ck_assert_uint_eq(sum16(ih, mlen, sum16(pseudo, 40, 0)), 0xffff);
}
END_TEST

static Suite *frame_build_suite(void)
{
	Suite *s = suite_create("frame_build");
	TCase *tc = tcase_create("frame_icmp_err_fill");

	tcase_add_test(tc, test_icmp_err_fill_ipv4_host_unreachable_bytes);
	tcase_add_test(tc, test_icmp_err_fill_ipv6_address_unreachable_bytes);
	tcase_add_test(tc, test_icmp_err_fill_ipv4_quote_capped_at_576);
	tcase_add_test(tc, test_icmp_err_fill_ipv6_quote_capped_at_1280);
	tcase_add_test(tc, test_icmp_err_fill_ipv4_frag_needed_mtu);
	tcase_add_test(tc, test_icmp_err_fill_ipv6_packet_too_big_mtu);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(frame_build_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
