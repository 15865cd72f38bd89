// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/dns_name_test.c - Tests for tap/dns_name.c
 *
 * Expected encodings are written out by hand from RFC 1035 section 3.1
 * (length-prefixed labels, a zero root label), section 2.3.4 (labels of
 * at most 63 octets, names of at most 255) and section 4.1.4 (pointers:
 * two octets, top bits 11, offset from the start of the list), and the
 * example of RFC 3397 section 3.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/dns_name.h"

static const uint8_t example_org[] = {
	7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0
};

START_TEST(test_dns_name_encode_labels)
{
	uint8_t b[64];

	ck_assert_int_eq(dns_name_encode("example.org", b, sizeof(b)), 13);
	ck_assert_mem_eq(b, example_org, 13);
}
END_TEST

/* A fully qualified name with its root dot encodes the same */
START_TEST(test_dns_name_encode_trailing_dot)
{
	uint8_t b[64];

	ck_assert_int_eq(dns_name_encode("example.org.", b, sizeof(b)), 13);
	ck_assert_mem_eq(b, example_org, 13);
}
END_TEST

START_TEST(test_dns_name_encode_invalid)
{
	char l64[80];
	uint8_t b[300];

	ck_assert_int_eq(dns_name_encode("", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(dns_name_encode(".", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(dns_name_encode("a..b", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(dns_name_encode(".a", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(dns_name_encode("a.b..", b, sizeof(b)), -EINVAL);
	ck_assert_int_eq(dns_name_encode(NULL, b, sizeof(b)), -EINVAL);

	memset(l64, 'x', 64);
	l64[64] = 0;
	ck_assert_int_eq(dns_name_encode(l64, b, sizeof(b)), -EINVAL);
	l64[63] = 0;
	ck_assert_int_eq(dns_name_encode(l64, b, sizeof(b)), 65);
	ck_assert_uint_eq(b[0], 63);
}
END_TEST

/* Labels of 63, 63, 63 and 61 octets: 64 + 64 + 64 + 62 + 1 = 255, the
 * limit; one more octet in the last label makes 256
 */
START_TEST(test_dns_name_encode_255_limit)
{
	char n[300];
	uint8_t b[300];

	memset(n, 'x', 253);
	n[63] = n[127] = n[191] = '.';
	n[253] = 0;
	ck_assert_int_eq(dns_name_encode(n, b, sizeof(b)), 255);
	n[253] = 'x';
	n[254] = 0;
	ck_assert_int_eq(dns_name_encode(n, b, sizeof(b)), -EINVAL);
}
END_TEST

START_TEST(test_dns_name_encode_no_room)
{
	uint8_t b[13];

	ck_assert_int_eq(dns_name_encode("example.org", b, 12), -ENOSPC);
	ck_assert_int_eq(dns_name_encode("example.org", b, 13), 13);
}
END_TEST

/* RFC 3397 section 3 */
START_TEST(test_dns_name_list_rfc3397_example)
{
	static const char names[2][CONF_SEARCH_LEN] = {
		"eng.apple.com.", "marketing.apple.com."
	};
	static const uint8_t ex[] = {
		3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm',
		0, 9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g', 0xc0, 0x04
	};
	uint8_t b[128];

	ck_assert_uint_eq(dns_name_list_encode(names, 2, true, b, sizeof(b)),
			  sizeof(ex));
	ck_assert_mem_eq(b, ex, sizeof(ex));
}
END_TEST

/* Uncompressed (RFC 8106 5.2, RFC 8415 10): plain concatenation */
START_TEST(test_dns_name_list_uncompressed)
{
	static const char names[2][CONF_SEARCH_LEN] = {
		"eng.apple.com", "marketing.apple.com"
	};
	static const uint8_t ex[] = {
		3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm',
		0, 9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g',
		5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0
	};
	uint8_t b[128];

	ck_assert_uint_eq(dns_name_list_encode(names, 2, false, b, sizeof(b)),
			  sizeof(ex));
	ck_assert_mem_eq(b, ex, sizeof(ex));
}
END_TEST

/* A name that is a suffix of an earlier one, a repeated name, and a
 * suffix reached through an earlier pointer
 */
START_TEST(test_dns_name_list_compression_cases)
{
	static const char names[4][CONF_SEARCH_LEN] = {
		"a.example.org", "example.org", "a.example.org",
		"b.a.example.org"
	};
	static const uint8_t ex[] = {
		1, 'a', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g',
		0,			/* a.example.org at 0 */
		0xc0, 0x02,		/* example.org -> offset 2 */
		0xc0, 0x00,		/* a.example.org -> offset 0 */
		1, 'b', 0xc0, 0x00	/* b + a.example.org */
	};
	uint8_t b[128];

	ck_assert_uint_eq(dns_name_list_encode(names, 4, true, b, sizeof(b)),
			  sizeof(ex));
	ck_assert_mem_eq(b, ex, sizeof(ex));
}
END_TEST

/* Invalid names are skipped; the list stops at the first name that
 * doesn't fit, never cut inside it
 */
START_TEST(test_dns_name_list_skip_and_cut)
{
	static const char names[3][CONF_SEARCH_LEN] = {
		"bad..name", "example.org", "other.example.net"
	};
	uint8_t b[128];

	ck_assert_uint_eq(dns_name_list_encode(names, 3, false, b, 13 + 18),
			  13);
	ck_assert_mem_eq(b, example_org, 13);
	ck_assert_uint_eq(dns_name_list_encode(names, 3, false, b, 12), 0);
	ck_assert_uint_eq(dns_name_list_encode(names, 3, false, b, 13 + 19),
			  13 + 19);
}
END_TEST

/**
 * dns_name_suite() - All name encoding tests
 *
 * Return: the suite
 */
static Suite *dns_name_suite(void)
{
	Suite *s = suite_create("dns_name");
	TCase *tc;

	tc = tcase_create("encode");
	tcase_add_test(tc, test_dns_name_encode_labels);
	tcase_add_test(tc, test_dns_name_encode_trailing_dot);
	tcase_add_test(tc, test_dns_name_encode_invalid);
	tcase_add_test(tc, test_dns_name_encode_255_limit);
	tcase_add_test(tc, test_dns_name_encode_no_room);
	suite_add_tcase(s, tc);

	tc = tcase_create("list");
	tcase_add_test(tc, test_dns_name_list_rfc3397_example);
	tcase_add_test(tc, test_dns_name_list_uncompressed);
	tcase_add_test(tc, test_dns_name_list_compression_cases);
	tcase_add_test(tc, test_dns_name_list_skip_and_cut);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dns_name_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
