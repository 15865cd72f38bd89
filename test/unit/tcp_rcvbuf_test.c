// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_rcvbuf_test.c - Window asked for the host socket after a
 * period of receiving (passt/tcp_rcvbuf.c, tcp_rcvbuf_target())
 *
 * The values follow the kernel's receive-buffer right-sizing as its
 * commits describe it (net/ipv4/tcp_input.c, tcp_rcvbuf_grow(), Linux 6.18:
 * "DRS is always one RTT late": twice the bytes read in the last RTT;
 * "slow start: allow the sender to double its rate": plus twice that
 * window times the relative growth since the RTT before).  A sender that
 * doubles per round therefore gets 6 times a round's bytes, one that holds
 * its rate 2 times.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../passt/tcp_rcvbuf.h"

/* Doubling: 2 * 100000 + 2 * (2 * 100000) * (100000 - 50000) / 50000 */
START_TEST(test_target_doubling)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(100000, 50000), 600000);
	ck_assert_uint_eq(tcp_rcvbuf_target(8948 * 20, 8948 * 10),
			  6 * 8948 * 20);
}
END_TEST

/* Steady rate: twice a round, no slow-start term */
START_TEST(test_target_steady)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(1000000, 1000000), 2000000);
}
END_TEST

/* Growth by a quarter: 2T + 4T * 0.25 = 3T */
START_TEST(test_target_quarter)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(500000, 400000), 1500000);
}
END_TEST

/* Less than the round before: never more than twice what was taken */
START_TEST(test_target_slower)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(300000, 900000), 600000);
}
END_TEST

/* First period, nothing to compare with: as a doubling from half of it
 * would give at most (6T), we ask 4T
 */
START_TEST(test_target_first)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(65536, 0), 262144);
}
END_TEST

/* No overflow: 32-bit counts near their top still give a capped window */
START_TEST(test_target_capped)
{
	ck_assert_uint_eq(tcp_rcvbuf_target(UINT32_MAX, 1), TCP_RCVBUF_MAX);
	ck_assert_uint_eq(tcp_rcvbuf_target(UINT32_MAX, 0), TCP_RCVBUF_MAX);
	ck_assert_uint_eq(tcp_rcvbuf_target(0, 0), 0);
}
END_TEST

static Suite *tcp_rcvbuf_suite(void)
{
	Suite *s = suite_create("tcp_rcvbuf");
	TCase *tc = tcase_create("target");

	tcase_add_test(tc, test_target_doubling);
	tcase_add_test(tc, test_target_steady);
	tcase_add_test(tc, test_target_quarter);
	tcase_add_test(tc, test_target_slower);
	tcase_add_test(tc, test_target_first);
	tcase_add_test(tc, test_target_capped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tcp_rcvbuf_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
