// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/csum_test.c - Tests for tap/csum.c
 *
 * Expected values: the worked example of RFC 1071 section 3, and
 * checksums that tshark verified ("[correct]") or computed ("should be")
 * on frames captured from real kernels (captured_frames.h).
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/inany.h"
#include "../../tap/csum.h"
#include "../../tap/csum_impl.h"
#include "captured_frames.h"

/**
 * be16_bytes() - Store a checksum as computed and compare with two bytes
 * @c:		Checksum from csum() (in network order when stored)
 * @hi:		Expected first byte on the wire
 * @lo:		Expected second byte
 */
static void be16_bytes(uint16_t c, uint8_t hi, uint8_t lo)
{
	uint8_t b[2];

	memcpy(b, &c, 2);
	ck_assert_uint_eq(b[0], hi);
	ck_assert_uint_eq(b[1], lo);
}

/* RFC 1071 section 3: the one's complement sum of 00 01 f2 03 f4 f5 f6 f7
 * is 0xddf2, so the checksum field is ~0xddf2 = 0x220d
 */
START_TEST(test_csum_rfc1071_example)
{
	static const uint8_t b[] = {
		0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7
	};

	be16_bytes(csum(b, sizeof(b), 0), 0x22, 0x0d);
	be16_bytes(csum_fold(csum_unfolded(b, sizeof(b), 0)), 0x22, 0x0d);
}
END_TEST

/* RFC 1071 section 3: the sum may be computed in parts and added */
START_TEST(test_csum_rfc1071_example_in_parts)
{
	static const uint8_t b[] = {
		0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7
	};
	uint32_t s = csum_unfolded(b, 4, 0);

	be16_bytes(csum(b + 4, 4, s), 0x22, 0x0d);
}
END_TEST

/* RFC 1071 section 2(B): the sum doesn't depend on how the data is split,
 * odd-length pieces included (the next piece starts mid-word)
 */
START_TEST(test_csum_iov_rfc1071_example_split)
{
	static const uint8_t b[] = {
		0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7
	};
	struct iovec v[3] = {
		{ UNCONST(void *, b), 3 }, { UNCONST(void *, b + 3), 2 },
		{ UNCONST(void *, b + 5), 3 },
	};
	struct iovec w[3] = {
		{ UNCONST(void *, b), 1 }, { UNCONST(void *, b + 1), 5 },
		{ UNCONST(void *, b + 6), 2 },
	};
	struct iovec x[1] = { { UNCONST(void *, b), 8 } };

	be16_bytes(csum_fold(csum_iov(v, 3, 0)), 0x22, 0x0d);
	be16_bytes(csum_fold(csum_iov(w, 3, 0)), 0x22, 0x0d);
	be16_bytes(csum_fold(csum_iov(x, 1, 0)), 0x22, 0x0d);
}
END_TEST

/* RFC 1071 section 4.1: a left-over byte is the high byte of a word
 * padded with zero: sum(01) = 0x0100, checksum 0xfeff
 */
START_TEST(test_csum_odd_length_pads_low_byte)
{
	static const uint8_t b[] = { 0x01 };

	be16_bytes(csum(b, 1, 0), 0xfe, 0xff);
}
END_TEST

/* Longer than the 16-byte inner loop: the RFC 1071 example 8 times.  By
 * hand: 8 * 0xddf2 = 0x6ef90, end-around carry 0xef90 + 0x6 = 0xef96,
 * complement 0x1069
 */
START_TEST(test_csum_long_buffer_matches_hand_sum)
{
	uint8_t b[64];
	int i;

	for (i = 0; i < 8; i++) {
		static const uint8_t ex[] = {
			0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7
		};

		memcpy(b + i * 8, ex, 8);
	}
	be16_bytes(csum(b, sizeof(b), 0), 0x10, 0x69);
}
END_TEST

/* Decode of ping.pcap frame 3: "Header Checksum: 0x216b [correct]" */
START_TEST(test_csum_captured_ip4_header)
{
	uint8_t ip[20];

	memcpy(ip, cap_icmp4_echo + 14, 20);
	ck_assert_uint_eq(ip[10], 0x21);
	ck_assert_uint_eq(ip[11], 0x6b);
	ip[10] = ip[11] = 0;
	be16_bytes(csum(ip, 20, 0), 0x21, 0x6b);

	/* Summing a correct header, checksum included, gives zero */
	ck_assert_uint_eq(csum(cap_icmp4_echo + 14, 20, 0), 0);
}
END_TEST

/* dhcp_udhcpc.pcap frame 1, tshark -V -O udp: "Checksum: 0xc2a0
 * [correct]" for 0.0.0.0 -> 255.255.255.255, UDP length 308
 */
START_TEST(test_csum_captured_udp4_pseudo)
{
	const uint8_t *udp = cap_dhcp_discover_udhcpc + 34;
	struct in_addr s, d;
	uint8_t b[308];

	ck_assert_uint_eq(sizeof(cap_dhcp_discover_udhcpc), 34 + 308);
	memcpy(b, udp, sizeof(b));
	b[6] = b[7] = 0;
	inet_pton(AF_INET, "0.0.0.0", &s);
	inet_pton(AF_INET, "255.255.255.255", &d);
	be16_bytes(csum(b, sizeof(b), csum_pseudo4(s, d, 17, sizeof(b))),
		   0xc2, 0xa0);
}
END_TEST

/* l4.pcap frame 1 carries a partial checksum (Linux CHECKSUM_PARTIAL:
 * the field holds the folded pseudo-header sum); tshark says the full
 * one "should be 0x3eef"
 */
START_TEST(test_csum_captured_tcp4_partial_and_full)
{
	const uint8_t *tcp = cap_tcp4_syn + 34;
	struct in_addr s, d;
	uint8_t b[40];
	uint16_t c;

	memcpy(b, tcp, sizeof(b));
	b[16] = b[17] = 0;
	memcpy(&s, cap_tcp4_syn + 26, 4);
	memcpy(&d, cap_tcp4_syn + 30, 4);
	be16_bytes(csum(b, sizeof(b), csum_pseudo4(s, d, 6, sizeof(b))),
		   0x3e, 0xef);

	/* The partial value 0x7841 is the pseudo-header sum, not inverted */
	c = (uint16_t)~csum_fold(csum_pseudo4(s, d, 6, sizeof(b)));
	be16_bytes(c, 0x78, 0x41);
}
END_TEST

/* ping.pcap frame 5 (NS): "Checksum: 0x9759 [correct]", ICMPv6 length 32,
 * 2001:db8::15 -> ff02::1:ff00:1
 */
START_TEST(test_csum_captured_icmp6_pseudo)
{
	const uint8_t *ip6 = cap_ns_global + 14;
	struct in6_addr s, d;
	uint8_t b[32];

	memcpy(b, ip6 + 40, sizeof(b));
	b[2] = b[3] = 0;
	memcpy(&s, ip6 + 8, 16);
	memcpy(&d, ip6 + 24, 16);
	be16_bytes(csum(b, sizeof(b), csum_pseudo6(&s, &d, 58, sizeof(b))),
		   0x97, 0x59);
}
END_TEST

/* ping.pcap frame 7 (echo request, 64 bytes): "Checksum: 0x3952
 * [correct]"; csum_pseudo() with IPv6 addresses takes the IPv6 path
 */
START_TEST(test_csum_captured_icmp6_echo_inany)
{
	const uint8_t *ip6 = cap_icmp6_echo + 14;
	union inany s, d;
	uint8_t b[64];

	memcpy(b, ip6 + 40, sizeof(b));
	b[2] = b[3] = 0;
	memcpy(&s.a6, ip6 + 8, 16);
	memcpy(&d.a6, ip6 + 24, 16);
	be16_bytes(csum(b, sizeof(b), csum_pseudo(&s, &d, 58, sizeof(b))),
		   0x39, 0x52);
}
END_TEST

/* csum_pseudo() with IPv4-mapped addresses takes the IPv4 path: same
 * result as the UDP test above
 */
START_TEST(test_csum_pseudo_inany_v4)
{
	struct in_addr s4, d4;
	union inany s, d;
	uint8_t b[308];

	memcpy(b, cap_dhcp_discover_udhcpc + 34, sizeof(b));
	b[6] = b[7] = 0;
	inet_pton(AF_INET, "0.0.0.0", &s4);
	inet_pton(AF_INET, "255.255.255.255", &d4);
	inany_from_v4(&s, s4);
	inany_from_v4(&d, d4);
	be16_bytes(csum(b, sizeof(b), csum_pseudo(&s, &d, 17, sizeof(b))),
		   0xc2, 0xa0);
}
END_TEST

/**
 * ref_fold() - Textbook RFC 1071 section 4.1 sum: 16-bit words in memory
 *		order, a zero pad byte for an odd length, carries folded
 * @p:		Data
 * @len:	Bytes
 * @init:	Unfolded start value
 *
 * Return: folded 16-bit sum, not complemented, in native word order
 */
static uint16_t ref_fold(const uint8_t *p, size_t len, uint32_t init)
{
	uint64_t sum = init;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		uint16_t w;

		memcpy(&w, p + i, 2);
		sum += w;
	}
	if (len & 1) {
		uint8_t last[2] = { p[len - 1], 0 };
		uint16_t w;

		memcpy(&w, last, 2);
		sum += w;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The vector variant returns what the scalar one does, and both fold to the
 * RFC 1071 sum, on random data at every length up to 4 KiB plus large
 * ones, every start offset modulo 64 and random initial sums
 */
START_TEST(test_csum_variants_random)
{
	static uint8_t buf[65536 + 128];
	static const size_t big[] = { 8191, 9000, 16384, 65535, 65536 };
	unsigned seed = 20;
	size_t i, len, off;

	srand(seed);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();

	for (len = 0; len <= 4096 + sizeof(big) / sizeof(big[0]); len++) {
		size_t l = len <= 4096 ? len : big[len - 4097];

		for (off = 0; off < 64; off += (l > 1024 ? 7 : 1)) {
			uint32_t init = (uint32_t)rand(), sc, d;
			const uint8_t *p = buf + off;

			sc = csum_unfolded_scalar(p, l, init);
			d = csum_unfolded(p, l, init);
			ck_assert_uint_eq(d, sc);
#ifdef CSUM_HAVE_AVX2
			if (__builtin_cpu_supports("avx2"))
				ck_assert_uint_eq(csum_unfolded_avx2(p, l, init), sc);
#endif
			ck_assert_uint_eq((uint16_t)~csum_fold(sc),
					  ref_fold(p, l, init));
		}
	}
}
END_TEST

/* All ones: each 64-bit lane gets its largest words, the sum of 65536
 * bytes of 0xff folds to 0xffff (RFC 1071: -0 in one's complement)
 */
START_TEST(test_csum_variants_all_ones)
{
	static uint8_t buf[65536];

	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(csum_unfolded(buf, sizeof(buf), 0),
			  csum_unfolded_scalar(buf, sizeof(buf), 0));
	ck_assert_uint_eq((uint16_t)~csum_fold(csum_unfolded(buf, sizeof(buf), 0)),
			  0xffff);
}
END_TEST

/**
 * csum_suite() - All checksum tests
 *
 * Return: the suite
 */
static Suite *csum_suite(void)
{
	Suite *s = suite_create("csum");
	TCase *tc;

	tc = tcase_create("rfc1071");
	tcase_add_test(tc, test_csum_rfc1071_example);
	tcase_add_test(tc, test_csum_rfc1071_example_in_parts);
	tcase_add_test(tc, test_csum_iov_rfc1071_example_split);
	tcase_add_test(tc, test_csum_odd_length_pads_low_byte);
	tcase_add_test(tc, test_csum_long_buffer_matches_hand_sum);
	suite_add_tcase(s, tc);

	tc = tcase_create("captured");
	tcase_add_test(tc, test_csum_captured_ip4_header);
	tcase_add_test(tc, test_csum_captured_udp4_pseudo);
	tcase_add_test(tc, test_csum_captured_tcp4_partial_and_full);
	tcase_add_test(tc, test_csum_captured_icmp6_pseudo);
	tcase_add_test(tc, test_csum_captured_icmp6_echo_inany);
	tcase_add_test(tc, test_csum_pseudo_inany_v4);
	suite_add_tcase(s, tc);

	tc = tcase_create("variants");
	tcase_add_test(tc, test_csum_variants_random);
	tcase_add_test(tc, test_csum_variants_all_ones);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(csum_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
