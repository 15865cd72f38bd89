// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/icmp_test.c - Tests for passt/icmp.c's errno to ICMP mapping
 *
 * Expected codes: RFC 792 (destination unreachable, type 3: 0 net
 * unreachable, 1 host unreachable), RFC 1812 5.2.7.1 (13 communication
 * administratively prohibited), RFC 4443 3.1 (type 1: 0 no route to
 * destination, 1 communication with destination administratively
 * prohibited, 3 address unreachable).  Protocol unreachable (ICMP code 2)
 * for ENOPROTOOPT, which a router's protocol unreachable gives a TCP
 * connect() (the kernel's icmp_err_convert[]); ICMPv6 has no such code.
 *
 * Which errors from a host socket's queue are relayed: RFC 792 (3
 * destination unreachable, 11 time exceeded, 12 parameter problem, 4 source
 * quench, 5 redirect), RFC 1191 (3/4 carries the next-hop MTU), RFC 4443
 * (1 destination unreachable, 2 packet too big, 3 time exceeded, 4
 * parameter problem), ip(7) for SO_EE_ORIGIN_*.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <linux/errqueue.h>

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
	ck_assert_int_eq(code_of(true, ENOPROTOOPT, 3), 2);
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
	ck_assert(!icmp_unreach_code(false, ENOPROTOOPT, &t, &c));
	ck_assert(!icmp_unreach_code(true, EPROTO, &t, &c));
}
END_TEST

/**
 * relay() - icmp_err_relayable() for an error of the given origin and type
 * @origin:	SO_EE_ORIGIN_*
 * @type:	ICMP or ICMPv6 type
 * @code:	Code
 * @info:	ee_info (MTU for 3/4 and ICMPv6 2)
 * @v4:		IPv4 flow
 * @mtu:	Result: MTU to relay
 *
 * Return: icmp_err_relayable()'s verdict
 */
static bool relay(uint8_t origin, uint8_t type, uint8_t code, uint32_t info,
		  bool v4, uint32_t *mtu)
{
	struct sock_extended_err ee = { .ee_origin = origin, .ee_type = type,
					.ee_code = code, .ee_info = info };

	return icmp_err_relayable(&ee, v4, mtu);
}

START_TEST(test_icmp_err_relayable_ipv4)
{
	uint32_t mtu;
	int code;

	for (code = 0; code <= 15; code++) {
		ck_assert(relay(SO_EE_ORIGIN_ICMP, 3, (uint8_t)code, 1280, true,
				&mtu));
		ck_assert_uint_eq(mtu, code == 4 ? 1280 : 0);
	}
	ck_assert(relay(SO_EE_ORIGIN_ICMP, 11, 0, 0, true, &mtu));
	ck_assert(relay(SO_EE_ORIGIN_ICMP, 11, 1, 0, true, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP, 12, 0, 20, true, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP, 4, 0, 0, true, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP, 5, 1, 0, true, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_LOCAL, 0, 0, 1500, true, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP6, 1, 0, 0, true, &mtu));
}
END_TEST

START_TEST(test_icmp_err_relayable_ipv6)
{
	uint32_t mtu;
	int code;

	for (code = 0; code <= 7; code++) {
		ck_assert(relay(SO_EE_ORIGIN_ICMP6, 1, (uint8_t)code, 0, false,
				&mtu));
		ck_assert_uint_eq(mtu, 0);
	}
	ck_assert(relay(SO_EE_ORIGIN_ICMP6, 2, 0, 1280, false, &mtu));
	ck_assert_uint_eq(mtu, 1280);
	ck_assert(relay(SO_EE_ORIGIN_ICMP6, 3, 0, 0, false, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP6, 4, 1, 6, false, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_LOCAL, 2, 0, 1280, false, &mtu));
	ck_assert(!relay(SO_EE_ORIGIN_ICMP, 3, 1, 0, false, &mtu));
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
	tc = tcase_create("err_relayable");
	tcase_add_test(tc, test_icmp_err_relayable_ipv4);
	tcase_add_test(tc, test_icmp_err_relayable_ipv6);
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
