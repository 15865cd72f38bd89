// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/icmp_test.c - Tests for passt/icmp.c's errno to ICMP mapping
 *
 * Expected codes: RFC 792 (destination unreachable, type 3: 0 net
 * unreachable, 1 host unreachable), RFC 1812 5.2.7.1 (13 communication
 * administratively prohibited), RFC 4443 3.1 (type 1: 0 no route to
 * destination, 1 communication with destination administratively
 * prohibited, 3 address unreachable).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "../../passt/icmp.h"

/**
 * code_of() - Type and code icmp_unreach_code() gives, checked to exist
 * @v4:		ICMP rather than ICMPv6
 * @err:	errno
 * @type:	Expected type
 *
 * Return: the code
 */
static int code_of(bool v4, int err, uint8_t type)
{
	uint8_t t = 0, c = 0;

	ck_assert(icmp_unreach_code(v4, err, &t, &c));
	ck_assert_uint_eq(t, type);
	return c;
}

START_TEST(test_icmp_unreach_code_ipv4)
{
	ck_assert_int_eq(code_of(true, ENETUNREACH, 3), 0);
	ck_assert_int_eq(code_of(true, EHOSTUNREACH, 3), 1);
	ck_assert_int_eq(code_of(true, EACCES, 3), 13);
	ck_assert_int_eq(code_of(true, EPERM, 3), 13);
}
END_TEST

START_TEST(test_icmp_unreach_code_ipv6)
{
	ck_assert_int_eq(code_of(false, ENETUNREACH, 1), 0);
	ck_assert_int_eq(code_of(false, EHOSTUNREACH, 1), 3);
	ck_assert_int_eq(code_of(false, EACCES, 1), 1);
	ck_assert_int_eq(code_of(false, EPERM, 1), 1);
}
END_TEST

/* A refusal is the peer's RST, a timeout no answer at all: no ICMP */
START_TEST(test_icmp_unreach_code_others_none)
{
	uint8_t t, c;

	ck_assert(!icmp_unreach_code(true, ECONNREFUSED, &t, &c));
	ck_assert(!icmp_unreach_code(false, ECONNREFUSED, &t, &c));
	ck_assert(!icmp_unreach_code(true, ETIMEDOUT, &t, &c));
	ck_assert(!icmp_unreach_code(false, EADDRNOTAVAIL, &t, &c));
}
END_TEST

static Suite *icmp_suite(void)
{
	Suite *s = suite_create("icmp");
	TCase *tc = tcase_create("unreach_code");

	tcase_add_test(tc, test_icmp_unreach_code_ipv4);
	tcase_add_test(tc, test_icmp_unreach_code_ipv6);
	tcase_add_test(tc, test_icmp_unreach_code_others_none);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(icmp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
