// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/flow_test.c - Flow table: capacity, free list, tuple hash
 * (passt/flow.c).  Behaviour required by the TCP issue: a full table
 * refuses new flows and leaves the others untouched; lookups find exactly
 * the flows that are in the table, also after deletions in the middle of
 * probe runs.  The flow layer's walks (issue 17): eviction takes the flow
 * idle the longest, however recently (issue 31: a burst of queries must
 * not be refused while an evictable flow exists); one timer pass reaches
 * every flow once and asks for the earliest deadline; the drain counts
 * what stays open.  Fake operations stand in for a protocol's.  The
 * lifecycle (issue 28): the transitions flow.h documents are the only
 * ones flow_set_state() takes; anything else aborts (ASSERT()).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "../../lib/inany.h"
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
	flow_activate(fl, FLOW_TCP);
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

	flow_activate(b, FLOW_TCP);
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
		flow_activate(fl, FLOW_UDP);
		fl->udp.last_active_ms = (int64_t)i * 10;
		flow_lru_touch(fl);
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
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_NEW);
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

/* Eviction follows the order of use (flow_lru_touch()), not the index:
 * flow 0 used again goes last, a freed flow is no candidate
 */
START_TEST(test_flow_evict_lru_order)
{
	union flow *fl;

	fill_fake();
	fctx.now = 1000;
	flow_lru_touch(flow_at(0));
	flow_free(flow_at(1));
	flow_free_flush();
	fl = flow_alloc(&fctx);		/* takes the free entry 1 */
	ck_assert_uint_eq(flow_idx(fl), 1);
	flow_activate(fl, FLOW_UDP);
	flow_lru_touch(fl);
	ck_assert_uint_eq(fake_evicted, ~0U);
	ck_assert_ptr_nonnull(flow_alloc(&fctx));
	ck_assert_uint_eq(fake_evicted, 2);	/* 0 and 1 were used since */
	flow_free_flush();
	ck_assert_ptr_nonnull(flow_alloc(&fctx));
	ck_assert_uint_eq(fake_evicted, 3);
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

/* The lifecycle of flow.h: FREE -> NEW -> ACTIVE -> DEAD -> FREE, and
 * NEW -> DEAD for a caller that gives up; every other pair is refused,
 * a state to itself too
 */
START_TEST(test_flow_state_table)
{
	static const bool ok[FLOW_STATE_COUNT][FLOW_STATE_COUNT] = {
		[FLOW_STATE_FREE][FLOW_STATE_NEW] = true,
		[FLOW_STATE_NEW][FLOW_STATE_ACTIVE] = true,
		[FLOW_STATE_NEW][FLOW_STATE_DEAD] = true,
		[FLOW_STATE_ACTIVE][FLOW_STATE_DEAD] = true,
		[FLOW_STATE_DEAD][FLOW_STATE_FREE] = true,
	};
	unsigned from, to, n = 0;

	for (from = 0; from < FLOW_STATE_COUNT; from++) {
		for (to = 0; to < FLOW_STATE_COUNT; to++) {
			ck_assert_msg(flow_state_allowed(from, to) ==
				      ok[from][to], "%s -> %s",
				      flow_state_str[from], flow_state_str[to]);
			n += ok[from][to];
		}
	}
	ck_assert_uint_eq(n, 5);
	ck_assert(!flow_state_allowed(FLOW_STATE_COUNT, FLOW_STATE_FREE));
}
END_TEST

/* One entry through the whole cycle, with the walks and the hash */
START_TEST(test_flow_state_cycle)
{
	union flow *fl = flow_alloc(NULL);
	struct flow_key k;

	ck_assert_uint_eq(fl->f.state, FLOW_STATE_NEW);
	ck_assert_uint_eq(fl->f.type, FLOW_NONE);
	flow_activate(fl, FLOW_TCP);
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_ACTIVE);
	key(&fl->f.key, 7);
	ck_assert_int_eq(flow_hash_add(fl), 0);
	flow_free(fl);
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_DEAD);
	ck_assert_uint_eq(fl->f.type, FLOW_NONE);
	key(&k, 7);
	ck_assert_ptr_null(flow_lookup(&k));
	flow_free(fl);			/* second close in the batch: no-op */
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_DEAD);
	ck_assert_uint_eq(flow_count(), 0);
	flow_free_flush();
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_FREE);

	fl = flow_alloc(NULL);		/* NEW -> DEAD: given up half-way */
	flow_free(fl);
	ck_assert_uint_eq(fl->f.state, FLOW_STATE_DEAD);
	flow_free_flush();
	ck_assert_uint_eq(flow_count(), 0);
}
END_TEST

/* Refused transitions abort: a second flow_activate() (ACTIVE -> ACTIVE) */
START_TEST(test_flow_activate_twice_aborts)
{
	union flow *fl = flow_alloc(NULL);

	flow_activate(fl, FLOW_TCP);
	fl->f.type = FLOW_NONE;		/* only the state catches it now */
	flow_activate(fl, FLOW_UDP);
}
END_TEST

/* flow_free() of an entry back on the free stack (FREE -> DEAD) */
START_TEST(test_flow_free_of_free_aborts)
{
	union flow *fl = flow_alloc(NULL);

	flow_free(fl);
	flow_free_flush();
	flow_free(fl);
}
END_TEST

/* A walk that meets a typed entry which isn't ACTIVE */
START_TEST(test_flow_walk_typed_not_active_aborts)
{
	union flow *fl;

	fill_fake();
	fl = flow_at(3);
	fl->f.state = FLOW_STATE_NEW;	/* as if typed behind the setter */
	flow_timer(&fctx);
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
	tcase_add_test(tc, test_flow_evict_lru_order);
	tcase_add_test(tc, test_flow_timer_one_pass);
	tcase_add_test(tc, test_flow_drain_counts_open);
	suite_add_tcase(s, tc);

	tc = tcase_create("lifecycle");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_flow_state_table);
	tcase_add_test(tc, test_flow_state_cycle);
	tcase_add_test_raise_signal(tc, test_flow_activate_twice_aborts,
				    SIGABRT);
	tcase_add_test_raise_signal(tc, test_flow_free_of_free_aborts,
				    SIGABRT);
	tcase_add_test_raise_signal(tc, test_flow_walk_typed_not_active_aborts,
				    SIGABRT);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
