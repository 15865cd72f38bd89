// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/vu_log_test.c - Tests for tap/vu_log.c: the dirty-page bitmap
 *
 * Expected bits come from QEMU's docs/interop/vhost-user.rst, "Migration":
 * VHOST_LOG_PAGE is 0x1000, and a write at guest physical address addr
 * sets bit (page % 8) of byte (page / 8) of the log, page = addr / 0x1000.
 * So a write at 0x1fff..0x2000 marks pages 1 and 2, log[0] = 0x06, and
 * page 13 is bit 5 of log[1] (0x20).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/vu_log.h"

static uint8_t bitmap[64];
static struct vu_log l;

/**
 * setup() - An empty log of sizeof(bitmap) bytes (2 MiB of guest memory)
 */
static void setup(void)
{
	memset(bitmap, 0, sizeof(bitmap));
	l.bitmap = bitmap;
	l.size = sizeof(bitmap);
	l.missed = 0;
}

/**
 * bits_set() - Count the bits set in the whole log
 *
 * Return: count
 */
static unsigned bits_set(void)
{
	unsigned i, n = 0;

	for (i = 0; i < sizeof(bitmap); i++)
		n += (unsigned)__builtin_popcount(bitmap[i]);
	return n;
}

START_TEST(test_log_first_byte)
{
	ck_assert_int_eq(vu_log_gpa(&l, 0, 1), 0);
	ck_assert_uint_eq(bitmap[0], 0x01);
	ck_assert_uint_eq(bits_set(), 1);
}
END_TEST

START_TEST(test_log_last_byte_of_page)
{
	ck_assert_int_eq(vu_log_gpa(&l, 0xfff, 1), 0);	/* still page 0 */
	ck_assert_uint_eq(bitmap[0], 0x01);
	ck_assert_uint_eq(bits_set(), 1);
}
END_TEST

START_TEST(test_log_spans_page_boundary)
{
	ck_assert_int_eq(vu_log_gpa(&l, 0x1fff, 2), 0);	/* pages 1 and 2 */
	ck_assert_uint_eq(bitmap[0], 0x06);
	ck_assert_uint_eq(bits_set(), 2);
}
END_TEST

START_TEST(test_log_spans_byte_boundary)
{
	/* 0x7ff0 + 0x2020 - 1 = 0xa00f: pages 7, 8, 9, 10 */
	ck_assert_int_eq(vu_log_gpa(&l, 0x7ff0, 0x2020), 0);
	ck_assert_uint_eq(bitmap[0], 0x80);
	ck_assert_uint_eq(bitmap[1], 0x07);
	ck_assert_uint_eq(bits_set(), 4);
}
END_TEST

START_TEST(test_log_page_13)
{
	ck_assert_int_eq(vu_log_gpa(&l, 13 * 0x1000 + 0x800, 0x10), 0);
	ck_assert_uint_eq(bitmap[1], 0x20);
	ck_assert_uint_eq(bits_set(), 1);
}
END_TEST

START_TEST(test_log_zero_length)
{
	ck_assert_int_eq(vu_log_gpa(&l, 0x5000, 0), 0);
	ck_assert_uint_eq(bits_set(), 0);
}
END_TEST

START_TEST(test_log_no_bitmap)
{
	struct vu_log none = { 0 };

	ck_assert_int_eq(vu_log_gpa(&none, 0, 100), 0);
	ck_assert_uint_eq(none.missed, 0);
}
END_TEST

START_TEST(test_log_last_page_of_log)
{
	/* 64 bytes: pages 0..511; the last byte of page 511 */
	ck_assert_int_eq(vu_log_gpa(&l, 512 * 0x1000 - 1, 1), 0);
	ck_assert_uint_eq(bitmap[63], 0x80);
	ck_assert_uint_eq(l.missed, 0);
}
END_TEST

START_TEST(test_log_beyond_log)
{
	/* Pages 511 and 512: the first is marked, the second is beyond */
	ck_assert_int_eq(vu_log_gpa(&l, 512 * 0x1000 - 1, 2), -ERANGE);
	ck_assert_uint_eq(bitmap[63], 0x80);
	ck_assert_uint_eq(bits_set(), 1);
	ck_assert_uint_eq(l.missed, 1);
	ck_assert_int_eq(vu_log_gpa(&l, 1ULL << 40, 1), -ERANGE);
	ck_assert_uint_eq(bits_set(), 1);
	ck_assert_uint_eq(l.missed, 2);
}
END_TEST

START_TEST(test_log_wraps)
{
	ck_assert_int_eq(vu_log_gpa(&l, UINT64_MAX - 10, 20), -ERANGE);
	ck_assert_uint_eq(bits_set(), 0);
}
END_TEST

/* Two regions: A at guest 0x10000 (0x3000 bytes), B at guest 0x40000
 * (0x2000 bytes), mapped here back to back in one buffer
 */
static uint8_t host[0x5000];

/**
 * two_regions() - Fill a memory table with regions A and B
 * @m:		Table
 */
static void two_regions(struct vu_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->n = 2;
	m->r[0].gpa = 0x10000;
	m->r[0].size = 0x3000;
	m->r[0].host = host;
	m->r[1].gpa = 0x40000;
	m->r[1].size = 0x2000;
	m->r[1].host = host + 0x3000;
}

START_TEST(test_log_host_region_end)
{
	struct vu_mem m;

	two_regions(&m);
	/* Last two bytes of A: guest 0x12ffe, page 0x12: byte 2, bit 2 */
	ck_assert_int_eq(vu_log_host(&l, &m, host + 0x2ffe, 2), 0);
	ck_assert_uint_eq(bitmap[2], 0x04);
	ck_assert_uint_eq(bits_set(), 1);
	/* Last byte of B: guest 0x41fff, page 0x41: byte 8, bit 1 */
	ck_assert_int_eq(vu_log_host(&l, &m, host + 0x4fff, 1), 0);
	ck_assert_uint_eq(bitmap[8], 0x02);
	ck_assert_uint_eq(bits_set(), 2);
}
END_TEST

START_TEST(test_log_host_across_regions)
{
	struct vu_mem m;

	two_regions(&m);
	/* Contiguous here, not in the guest: guest 0x12fff (page 0x12)
	 * then 0x40000 (page 0x40: byte 8, bit 0)
	 */
	ck_assert_int_eq(vu_log_host(&l, &m, host + 0x2fff, 2), 0);
	ck_assert_uint_eq(bitmap[2], 0x04);
	ck_assert_uint_eq(bitmap[8], 0x01);
	ck_assert_uint_eq(bits_set(), 2);
}
END_TEST

START_TEST(test_log_host_outside)
{
	static uint8_t elsewhere[16];
	struct vu_mem m;

	two_regions(&m);
	ck_assert_int_eq(vu_log_host(&l, &m, elsewhere, 1), -EFAULT);
	ck_assert_uint_eq(bits_set(), 0);
	ck_assert_uint_eq(l.missed, 1);
	/* Runs off the end of B */
	ck_assert_int_eq(vu_log_host(&l, &m, host + 0x4fff, 2), -EFAULT);
	ck_assert_uint_eq(bitmap[8], 0x02);
}
END_TEST

START_TEST(test_log_iov_prefix)
{
	struct vu_mem m;
	struct iovec iov[2];

	two_regions(&m);
	iov[0].iov_base = host + 0x0ff0;	/* guest 0x10ff0: page 0x10 */
	iov[0].iov_len = 0x10;
	iov[1].iov_base = host + 0x3000;	/* guest 0x40000: page 0x40 */
	iov[1].iov_len = 0x2000;
	/* 0x10 + 0x1001 bytes: the second piece reaches page 0x41 */
	ck_assert_int_eq(vu_log_iov(&l, &m, iov, 2, 0x10 + 0x1001), 0);
	ck_assert_uint_eq(bitmap[2], 0x01);
	ck_assert_uint_eq(bitmap[8], 0x03);
	ck_assert_uint_eq(bits_set(), 3);
}
END_TEST

START_TEST(test_log_iov_only_written)
{
	struct vu_mem m;
	struct iovec iov[2];

	two_regions(&m);
	iov[0].iov_base = host;			/* guest 0x10000 */
	iov[0].iov_len = 0x100;
	iov[1].iov_base = host + 0x3000;
	iov[1].iov_len = 0x100;
	ck_assert_int_eq(vu_log_iov(&l, &m, iov, 2, 0x80), 0);
	ck_assert_uint_eq(bitmap[2], 0x01);	/* page 0x10 only */
	ck_assert_uint_eq(bits_set(), 1);
}
END_TEST

static Suite *vu_log_suite(void)
{
	Suite *s = suite_create("vu_log");
	TCase *tc = tcase_create("bitmap");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_log_first_byte);
	tcase_add_test(tc, test_log_last_byte_of_page);
	tcase_add_test(tc, test_log_spans_page_boundary);
	tcase_add_test(tc, test_log_spans_byte_boundary);
	tcase_add_test(tc, test_log_page_13);
	tcase_add_test(tc, test_log_zero_length);
	tcase_add_test(tc, test_log_no_bitmap);
	tcase_add_test(tc, test_log_last_page_of_log);
	tcase_add_test(tc, test_log_beyond_log);
	tcase_add_test(tc, test_log_wraps);
	tcase_add_test(tc, test_log_host_region_end);
	tcase_add_test(tc, test_log_host_across_regions);
	tcase_add_test(tc, test_log_host_outside);
	tcase_add_test(tc, test_log_iov_prefix);
	tcase_add_test(tc, test_log_iov_only_written);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vu_log_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
