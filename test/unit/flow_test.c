// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/flow_test.c - Flow table: capacity, free list, tuple hash
 * (passt/flow.c).  Behaviour required by the TCP issue: a full table
 * refuses new flows and leaves the others untouched; lookups find exactly
 * the flows that are in the table, also after deletions in the middle of
 * probe runs.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "../../passt/flow_table.h"

#define FLOWS	64

static void key(struct flow_key *k, unsigned i)
{
	union inany g, f;
	struct in_addr a = { htonl(0xcb007100 | (i & 0xff)) };	/* 203.0.113.x */
	struct in_addr b = { htonl(0xc6336402) };		/* 198.51.100.2 */

	inany_from_v4(&g, a);
	inany_from_v4(&f, b);
	flow_key_fill(k, IPPROTO_TCP, &g, (uint16_t)(10000 + i), &f, 80);
}

static union flow *add(unsigned i)
{
	union flow *fl = flow_alloc(NULL);

	ck_assert_ptr_nonnull(fl);
	fl->f.type = FLOW_TCP;
	key(&fl->f.key, i);
	ck_assert_int_eq(flow_hash_add(fl), 0);
	return fl;
}

static void setup(void)
{
	ck_assert_int_eq(flow_init(FLOWS), 0);
}

START_TEST(test_flow_alloc_until_full)
{
	unsigned i;

	for (i = 0; i < FLOWS; i++)
		add(i);
	ck_assert_uint_eq(flow_count(), FLOWS);
	ck_assert_ptr_null(flow_alloc(NULL));
}
END_TEST

START_TEST(test_flow_lookup_finds_each)
{
	union flow *fl[FLOWS];
	struct flow_key k;
	unsigned i;

	for (i = 0; i < FLOWS; i++)
		fl[i] = add(i);
	for (i = 0; i < FLOWS; i++) {
		key(&k, i);
		ck_assert_ptr_eq(flow_lookup(&k), fl[i]);
	}
	key(&k, FLOWS + 1);
	ck_assert_ptr_null(flow_lookup(&k));
}
END_TEST

START_TEST(test_flow_free_keeps_others)
{
	union flow *fl[FLOWS];
	struct flow_key k;
	unsigned i;

	for (i = 0; i < FLOWS; i++)
		fl[i] = add(i);
	for (i = 0; i < FLOWS; i += 2)
		flow_free(fl[i]);
	for (i = 0; i < FLOWS; i++) {
		key(&k, i);
		if (i % 2)
			ck_assert_ptr_eq(flow_lookup(&k), fl[i]);
		else
			ck_assert_ptr_null(flow_lookup(&k));
	}
	ck_assert_uint_eq(flow_count(), FLOWS / 2);
	/* Freed entries are reused, after the batch they were freed in */
	ck_assert_ptr_null(flow_alloc(NULL));
	flow_free_flush();
	for (i = 0; i < FLOWS / 2; i++)
		add(FLOWS + i);
	ck_assert_ptr_null(flow_alloc(NULL));
}
END_TEST

START_TEST(test_flow_hash_rejects_duplicate)
{
	union flow *a = add(1), *b = flow_alloc(NULL);

	b->f.type = FLOW_TCP;
	key(&b->f.key, 1);
	ck_assert_int_eq(flow_hash_add(b), -EEXIST);
	ck_assert_ptr_eq(flow_lookup(&a->f.key), a);
}
END_TEST

/* Random insert/delete churn against a shadow list */
START_TEST(test_flow_churn)
{
	union flow *live[4096] = { 0 };
	struct flow_key k;
	unsigned i, r = 12345;

	for (i = 0; i < 20000; i++) {
		unsigned id;

		r = r * 1103515245 + 12345;
		id = (r >> 8) % 256;
		if (live[id]) {
			flow_free(live[id]);
			flow_free_flush();
			live[id] = NULL;
		} else if (flow_count() < FLOWS) {
			live[id] = add(id);
		}
		if (!(i % 97)) {
			unsigned j;

			for (j = 0; j < 256; j++) {
				key(&k, j);
				ck_assert_ptr_eq(flow_lookup(&k), live[j]);
			}
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flow");
	TCase *tc = tcase_create("table");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_flow_alloc_until_full);
	tcase_add_test(tc, test_flow_lookup_finds_each);
	tcase_add_test(tc, test_flow_free_keeps_others);
	tcase_add_test(tc, test_flow_hash_rejects_duplicate);
	tcase_add_test(tc, test_flow_churn);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
