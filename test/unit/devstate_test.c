// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/devstate_test.c - Tests for tap/devstate.c: the state stream
 *
 * The expected bytes are written by hand from upstream passt's stream
 * (migrate.c, flow.c, serialise.c in upstream's tree, read for the facts):
 * a packed header {be64 magic 0xB1BB1D1B0BB1D1B0, be32 version 2, be32
 * compat_version 2}, then {in6_addr addr6, in6_addr addr6_ll, in_addr
 * addr4, u8 mac[6]} as they are in memory (network order), then a be32
 * flow count.  The loader is fed every truncation of a valid stream and
 * garbage of every length up to twice a stream: it must refuse without
 * reading past what it was given (run under ASan in make check).
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../tap/devstate.h"

/* 2001:db8::2, fe80::1, 198.51.100.2, MAC 52:54:00:12:34:56, no flows */
static const uint8_t v2[DEVSTATE_V2_LEN] = {
	0xb1, 0xbb, 0x1d, 0x1b, 0x0b, 0xb1, 0xd1, 0xb0,	/* magic */
	0x00, 0x00, 0x00, 0x02,				/* version */
	0x00, 0x00, 0x00, 0x02,				/* compat_version */
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	198, 51, 100, 2,
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
	0x00, 0x00, 0x00, 0x00,				/* flow count */
};

/**
 * sample() - The state @v2 holds
 * @s:		Filled
 */
static void sample(struct devstate *s)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memset(s, 0, sizeof(*s));
	inet_pton(AF_INET6, "2001:db8::2", &s->addr6);
	inet_pton(AF_INET6, "fe80::1", &s->addr6_ll);
	inet_pton(AF_INET, "198.51.100.2", &s->addr4);
	memcpy(s->mac, mac, 6);
}

START_TEST(test_encode_layout)
{
	uint8_t buf[128];
	struct devstate s;

	sample(&s);
	ck_assert_uint_eq(devstate_encode(&s, buf, sizeof(buf)), 62);
	ck_assert_mem_eq(buf, v2, sizeof(v2));
}
END_TEST

START_TEST(test_encode_refuses)
{
	uint8_t buf[128];
	struct devstate s;

	sample(&s);
	ck_assert_uint_eq(devstate_encode(&s, buf, 61), 0);
	s.nflows = 1;
	ck_assert_uint_eq(devstate_encode(&s, buf, sizeof(buf)), 0);
}
END_TEST

START_TEST(test_round_trip)
{
	struct devstate s, r;
	uint8_t buf[128];
	uint32_t ver;
	size_t n;

	sample(&s);
	n = devstate_encode(&s, buf, sizeof(buf));
	ck_assert_int_eq(devstate_parse(buf, n, true, &r, &ver), 0);
	ck_assert_uint_eq(ver, 2);
	ck_assert_mem_eq(&r.addr6, &s.addr6, 16);
	ck_assert_mem_eq(&r.addr6_ll, &s.addr6_ll, 16);
	ck_assert_uint_eq(r.addr4.s_addr, s.addr4.s_addr);
	ck_assert_mem_eq(r.mac, s.mac, 6);
	ck_assert_uint_eq(r.nflows, 0);
}
END_TEST

/* With flows, what follows the count to the end of the stream is their
 * section (upstream's flow.c writes the records right after the count)
 */
START_TEST(test_flows_section)
{
	uint8_t b[sizeof(v2) + 10], enc[sizeof(b)];
	struct devstate r, s;
	uint32_t ver;

	memcpy(b, v2, sizeof(v2));
	b[61] = 2;				/* two TCP flows */
	memset(b + sizeof(v2), 0xab, 10);
	ck_assert_int_eq(devstate_parse(b, sizeof(b), false, &r, &ver),
			 -DEVSTATE_E_MORE);
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver), 0);
	ck_assert_uint_eq(r.nflows, 2);
	ck_assert_ptr_eq(r.flows, b + 62);
	ck_assert_uint_eq(r.flows_len, 10);

	sample(&s);
	s.nflows = 2;
	s.flows = b + 62;
	s.flows_len = 10;
	ck_assert_uint_eq(devstate_encode(&s, enc, sizeof(enc) - 1), 0);
	ck_assert_uint_eq(devstate_encode(&s, enc, sizeof(enc)), sizeof(b));
	ck_assert_mem_eq(enc, b, sizeof(b));
}
END_TEST

START_TEST(test_parse_upstream_unknown_mac)
{
	uint8_t b[sizeof(v2)];
	struct devstate r;
	uint32_t ver;

	memcpy(b, v2, sizeof(b));
	memset(b + 52, 0xff, 6);		/* broadcast: not known */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver), 0);
	memset(b + 16, 0, 32);			/* no IPv6 seen */
	memset(b + 48, 0, 4);			/* no IPv4 seen */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver), 0);
}
END_TEST

START_TEST(test_parse_versions)
{
	uint8_t b[sizeof(v2)];
	struct devstate r;
	uint32_t ver;

	memcpy(b, v2, sizeof(b));
	b[11] = 3;				/* version 3, compat 2: ok */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver), 0);
	ck_assert_uint_eq(ver, 3);
	b[15] = 3;				/* 3, compat 3: not ours */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_UNSUPPORTED);
	b[11] = 1;
	b[15] = 1;				/* v1: never supported */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_UNSUPPORTED);
	b[11] = 0;				/* version 0 */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_VERSION);
	b[11] = 2;
	b[15] = 5;				/* compat above version */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_VERSION);
	b[8] = 0x80;				/* 2^31 + 2, compat 5: huge */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_UNSUPPORTED);
}
END_TEST

START_TEST(test_parse_bad_fields)
{
	uint8_t b[sizeof(v2) + 1];
	struct devstate r;
	uint32_t ver;

	memcpy(b, v2, sizeof(v2));
	b[0] ^= 1;
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_MAGIC);
	memcpy(b, v2, sizeof(v2));
	b[52] = 0x01;				/* multicast MAC */
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_MAC);
	memcpy(b, v2, sizeof(v2));
	b[48] = 224;				/* 224.51.100.2 */
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_ADDR);
	memcpy(b, v2, sizeof(v2));
	b[16] = 0xff;				/* ff01:db8::2 */
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_ADDR);
	memcpy(b, v2, sizeof(v2));
	b[32] = 0x20;				/* "link-local" 2080::1 */
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_ADDR);
	memcpy(b, v2, sizeof(v2));
	b[61] = 1;				/* one TCP flow */
	ck_assert_int_eq(devstate_parse(b, sizeof(v2), true, &r, &ver),
			 -DEVSTATE_E_FLOWS);
	memcpy(b, v2, sizeof(v2));
	b[sizeof(v2)] = 0;			/* one byte too many */
	ck_assert_int_eq(devstate_parse(b, sizeof(b), true, &r, &ver),
			 -DEVSTATE_E_TRAILING);
	ck_assert_int_eq(devstate_parse(b, sizeof(b), false, &r, &ver),
			 -DEVSTATE_E_TRAILING);
}
END_TEST

START_TEST(test_parse_every_truncation)
{
	struct devstate r;
	uint32_t ver;
	size_t n;

	for (n = 0; n < sizeof(v2); n++) {
		uint8_t *b = malloc(n ? n : 1);	/* exact size: ASan sees */

		memcpy(b, v2, n);
		ck_assert_int_eq(devstate_parse(b, n, true, &r, &ver),
				 -DEVSTATE_E_TRUNCATED);
		ck_assert_int_eq(devstate_parse(b, n, false, &r, &ver),
				 -DEVSTATE_E_MORE);
		free(b);
	}
}
END_TEST

START_TEST(test_parse_garbage)
{
	unsigned seed = 1, i;

	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)rand_r(&seed) % (2 * sizeof(v2) + 1);
		uint8_t *b = malloc(n ? n : 1);
		struct devstate r;
		uint32_t ver;
		size_t k;
		int rc;

		/* Half start with a valid header, so that later fields get
		 * exercised too
		 */
		for (k = 0; k < n; k++)
			b[k] = (uint8_t)rand_r(&seed);
		if (i & 1)
			memcpy(b, v2, MIN(n, (size_t)DEVSTATE_HDR_LEN));
		rc = devstate_parse(b, n, i & 2, &r, &ver);
		ck_assert_int_le(rc, 0);
		ck_assert_int_gt(rc, -DEVSTATE_E_COUNT);
		if (!rc && !r.nflows)
			ck_assert_uint_eq(n, sizeof(v2));
		if (!rc && r.nflows) {	/* the section: the rest, in bounds */
			ck_assert_ptr_eq(r.flows, b + sizeof(v2));
			ck_assert_uint_eq(r.flows_len, n - sizeof(v2));
			ck_assert_uint_gt(r.flows_len, 0);
		}
		free(b);
	}
}
END_TEST

static Suite *devstate_suite(void)
{
	Suite *s = suite_create("devstate");
	TCase *tc = tcase_create("stream");

	tcase_add_test(tc, test_encode_layout);
	tcase_add_test(tc, test_encode_refuses);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_flows_section);
	tcase_add_test(tc, test_parse_upstream_unknown_mac);
	tcase_add_test(tc, test_parse_versions);
	tcase_add_test(tc, test_parse_bad_fields);
	tcase_add_test(tc, test_parse_every_truncation);
	tcase_add_test(tc, test_parse_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(devstate_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
