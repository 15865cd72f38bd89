// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/flow_test.c - Flow table: capacity, free list, tuple hash
 * (passt/flow.c).  Behaviour required by the TCP issue: a full table
 * refuses new flows and leaves the others untouched; lookups find exactly
 * the flows that are in the table, also after deletions in the middle of
 * probe runs.  The flow layer's walks (issue 17): eviction takes the flow
 * idle the longest, however recently (issue 31: a burst of queries must
 * not be refused while an evictable flow exists); one timer pass reaches
 * every flow once and asks for the earliest deadline; the drain counts
 * what stays open.  Fake operations stand in for a protocol's.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "../../passt/epoll_ref.h"
#include "../../passt/flow_table.h"
#include "../../passt/passt.h"

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

static struct ctx fctx;
static unsigned fake_evicted = ~0U, fake_timer_calls, fake_tick_calls;

static int64_t fake_idle_since(const union flow *flow)
{
	return flow->udp.last_active_ms;
}

static void fake_evict(struct ctx *ctx, union flow *flow)
{
	(void)ctx;
	fake_evicted = flow_idx(flow);
	flow_free(flow);
}

static int64_t fake_timer(struct ctx *ctx, union flow *flow)
{
	fake_timer_calls++;
	return ctx->now + 100 + flow_idx(flow);
}

static void fake_tick(struct ctx *ctx)
{
	(void)ctx;
	fake_tick_calls++;
}

static bool fake_drain(struct ctx *ctx, union flow *flow, bool abort)
{
	(void)ctx;
	(void)abort;
	return flow_idx(flow) % 2;	/* odd ones stay open */
}

static const struct flow_ops fake_ops = {
	.name		= "fake",
	.timer		= fake_timer,
	.tick		= fake_tick,
	.idle_since	= fake_idle_since,
	.evict		= fake_evict,
	.drain		= fake_drain,
};

/* Fill the table with FLOW_UDP flows run by fake_ops; flow i was last
 * active at i * 10 ms
 */
static void fill_fake(void)
{
	unsigned i;

	flow_ops_register(FLOW_UDP, &fake_ops);
	for (i = 0; i < FLOWS; i++) {
		union flow *fl = flow_alloc(NULL);

		ck_assert_ptr_nonnull(fl);
		fl->f.type = FLOW_UDP;
		fl->udp.last_active_ms = (int64_t)i * 10;
	}
	fctx.timer_next = INT64_MAX;
	fake_evicted = ~0U;
	fake_timer_calls = fake_tick_calls = 0;
}

START_TEST(test_flow_evict_oldest_idle)
{
	union flow *fl;

	fill_fake();
	fctx.now = 5000;
	fl = flow_alloc(&fctx);
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fake_evicted, 0);	/* last active at 0 ms */
	ck_assert_uint_eq(flow_idx(fl), 0);
	ck_assert_uint_eq(fl->f.type, FLOW_NONE);
	ck_assert_uint_eq(flow_stats.evicted, 1);
}
END_TEST

START_TEST(test_flow_evict_however_recent)
{
	fill_fake();
	/* The oldest was active 0 ms ago: it goes all the same, the one
	 * least recently used (fill_fake(): flow i active at i * 10 ms)
	 */
	fctx.now = 0;
	ck_assert_ptr_nonnull(flow_alloc(&fctx));
	ck_assert_uint_eq(fake_evicted, 0);
	fake_evicted = ~0U;
	/* Full again; without a context, never */
	fctx.now = 100000;
	ck_assert_ptr_null(flow_alloc(NULL));
	ck_assert_uint_eq(fake_evicted, ~0U);
}
END_TEST

START_TEST(test_flow_timer_one_pass)
{
	fill_fake();
	fctx.now = 1000;
	flow_timer(&fctx);
	ck_assert_uint_eq(fake_tick_calls, 1);
	ck_assert_uint_eq(fake_timer_calls, FLOWS);
	ck_assert_int_eq(fctx.timer_next, 1100);	/* flow 0's deadline */
}
END_TEST

START_TEST(test_flow_drain_counts_open)
{
	fill_fake();
	ck_assert_uint_eq(flow_drain(&fctx, false), FLOWS / 2);
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
	tcase_add_test(tc, test_flow_evict_oldest_idle);
	tcase_add_test(tc, test_flow_evict_however_recent);
	tcase_add_test(tc, test_flow_timer_one_pass);
	tcase_add_test(tc, test_flow_drain_counts_open);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
