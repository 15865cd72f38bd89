// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_seq_test.c - Sequence number comparisons (passt/tcp_seq.h)
 *
 * RFC 9293 3.4: sequence numbers live in 0..2^32-1 and all arithmetic is
 * modulo 2^32; RFC 1982 3.2 defines "less than" for such serial numbers as
 * (i1 < i2 and i2 - i1 < 2^31) or (i1 > i2 and i1 - i2 > 2^31).
 */
#include <check.h>
#include <stdlib.h>

#include "../../passt/tcp_seq.h"

START_TEST(test_seq_lt_plain)
{
	ck_assert(seq_lt(1000, 2000));
	ck_assert(!seq_lt(2000, 1000));
	ck_assert(!seq_lt(1000, 1000));
}
END_TEST

/* RFC 1982 3.2, second case: 0xfffffff0 comes before 0x10 after the wrap */
START_TEST(test_seq_lt_across_wrap)
{
	ck_assert(seq_lt(0xfffffff0U, 0x10U));
	ck_assert(seq_gt(0x10U, 0xfffffff0U));
	ck_assert(seq_le(0xffffffffU, 0U));
	ck_assert(seq_ge(0U, 0xffffffffU));
}
END_TEST

/* Distance just under 2^31 still orders; RFC 1982 leaves exactly 2^31
 * undefined, so we only check the defined neighbours
 */
START_TEST(test_seq_lt_half_space)
{
	ck_assert(seq_lt(0U, 0x7fffffffU));
	ck_assert(seq_lt(0x80000001U, 0U));
}
END_TEST

START_TEST(test_seq_diff_signed)
{
	ck_assert_int_eq(seq_diff(5, 0xfffffffbU), 10);
	ck_assert_int_eq(seq_diff(0xfffffffbU, 5), -10);
}
END_TEST

/* RFC 9293 3.10.7.4 acceptability: RCV.NXT =< SEG.SEQ < RCV.NXT+RCV.WND,
 * also across the wrap
 */
START_TEST(test_seq_in_window_wrap)
{
	ck_assert(seq_in(0xfffffff0U, 0xfffffff0U, 0x10U));
	ck_assert(seq_in(0x0fU, 0xfffffff0U, 0x10U));
	ck_assert(!seq_in(0x10U, 0xfffffff0U, 0x10U));
	ck_assert(!seq_in(0xffffffefU, 0xfffffff0U, 0x10U));
	ck_assert(!seq_in(100U, 100U, 100U));	/* zero window: nothing */
}
END_TEST

static Suite *tcp_seq_suite(void)
{
	Suite *s = suite_create("tcp_seq");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, test_seq_lt_plain);
	tcase_add_test(tc, test_seq_lt_across_wrap);
	tcase_add_test(tc, test_seq_lt_half_space);
	tcase_add_test(tc, test_seq_diff_signed);
	tcase_add_test(tc, test_seq_in_window_wrap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tcp_seq_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
