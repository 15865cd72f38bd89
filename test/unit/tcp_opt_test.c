// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_opt_test.c - TCP option parsing and our SYN options
 * (passt/tcp_opt.c), against RFC 9293 3.2 and RFC 7323
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../passt/tcp_opt.h"

/* Options of a SYN sent by Linux 6.18 (captured with tcpdump; decode by
 * tshark -V):
 *   Maximum segment size: 1460 bytes   02 04 05 b4
 *   SACK permitted                     04 02
 *   Timestamps: TSval 4084410712, TSecr 0
 *                                      08 0a f3 73 29 58 00 00 00 00
 *   No-Operation (NOP)                 01
 *   Window scale: 10 (multiply by 1024) 03 03 0a
 */
static const uint8_t linux_syn_opts[] = {
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0xf3, 0x73,
	0x29, 0x58, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x03, 0x0a,
};

START_TEST(test_tcp_opt_parse_linux_syn)
{
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(linux_syn_opts, sizeof(linux_syn_opts),
				       &o), 0);
	ck_assert_uint_eq(o.mss, 1460);
	ck_assert_int_eq(o.ws, 10);
	ck_assert(o.sack_perm);
	ck_assert(o.ts);
}
END_TEST

START_TEST(test_tcp_opt_parse_empty)
{
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(NULL, 0, &o), 0);
	ck_assert_uint_eq(o.mss, 0);
	ck_assert_int_eq(o.ws, -1);
}
END_TEST

/* RFC 7323 2.3: a shift above 14 is used as 14 */
START_TEST(test_tcp_opt_parse_ws_clamped)
{
	static const uint8_t opt[] = { 0x03, 0x03, 0x0f, 0x00 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), 0);
	ck_assert_int_eq(o.ws, 14);
}
END_TEST

/* RFC 9293 3.2: unknown options are skipped using their length */
START_TEST(test_tcp_opt_parse_unknown_skipped)
{
	static const uint8_t opt[] = { 0xfd, 0x06, 0xde, 0xad, 0xbe, 0xef,
				       0x02, 0x04, 0x23, 0x28 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), 0);
	ck_assert_uint_eq(o.mss, 9000);
}
END_TEST

/* RFC 9293 3.2: End of Option List ends the list, what follows is padding */
START_TEST(test_tcp_opt_parse_eol_stops)
{
	static const uint8_t opt[] = { 0x00, 0x02, 0x04, 0x05, 0xb4 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), 0);
	ck_assert_uint_eq(o.mss, 0);
}
END_TEST

START_TEST(test_tcp_opt_parse_length_below_two)
{
	static const uint8_t opt[] = { 0xfd, 0x01, 0x00, 0x00 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), -EINVAL);
}
END_TEST

START_TEST(test_tcp_opt_parse_length_past_end)
{
	static const uint8_t opt[] = { 0x02, 0x04, 0x05 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), -EINVAL);
}
END_TEST

START_TEST(test_tcp_opt_parse_kind_without_length)
{
	static const uint8_t opt[] = { 0x01, 0x01, 0x02 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), -EINVAL);
}
END_TEST

/* RFC 9293 3.2: the MSS option has length 4 */
START_TEST(test_tcp_opt_parse_mss_bad_length)
{
	static const uint8_t opt[] = { 0x02, 0x03, 0x05, 0x00 };
	struct tcp_opts o;

	ck_assert_int_eq(tcp_opt_parse(opt, sizeof(opt), &o), -EINVAL);
}
END_TEST

/* Every truncation of a valid list is either parsed or rejected, never
 * read past (run under ASan with exact-size copies)
 */
START_TEST(test_tcp_opt_parse_truncations)
{
	size_t n;

	for (n = 0; n <= sizeof(linux_syn_opts); n++) {
		uint8_t *b = malloc(n ? n : 1);
		struct tcp_opts o;
		int r;

		memcpy(b, linux_syn_opts, n);
		r = tcp_opt_parse(b, n, &o);
		ck_assert(r == 0 || r == -EINVAL);
		free(b);
	}
}
END_TEST

/* Our SYN-ACK options: MSS (kind 2, length 4), NOP, window scale (kind 3,
 * length 3), 8 bytes, 4-byte aligned (RFC 9293 3.2, RFC 7323 2.2)
 */
START_TEST(test_tcp_opt_syn_fill_layout)
{
	static const uint8_t want[] = { 0x02, 0x04, 0xff, 0xc4,
					0x01, 0x03, 0x03, 0x08 };
	uint8_t p[8];

	ck_assert_uint_eq(tcp_opt_syn_fill(p, 65476, 8), 8);
	ck_assert_mem_eq(p, want, sizeof(want));
}
END_TEST

/* RFC 7323 1.3: no window scale in a SYN-ACK if the SYN had none */
START_TEST(test_tcp_opt_syn_fill_no_ws)
{
	static const uint8_t want[] = { 0x02, 0x04, 0x05, 0xb4,
					0x01, 0x01, 0x01, 0x01 };
	uint8_t p[8];

	ck_assert_uint_eq(tcp_opt_syn_fill(p, 1460, -1), 8);
	ck_assert_mem_eq(p, want, sizeof(want));
}
END_TEST

static Suite *tcp_opt_suite(void)
{
	Suite *s = suite_create("tcp_opt");
	TCase *p = tcase_create("parse"), *f = tcase_create("syn_fill");

	tcase_add_test(p, test_tcp_opt_parse_linux_syn);
	tcase_add_test(p, test_tcp_opt_parse_empty);
	tcase_add_test(p, test_tcp_opt_parse_ws_clamped);
	tcase_add_test(p, test_tcp_opt_parse_unknown_skipped);
	tcase_add_test(p, test_tcp_opt_parse_eol_stops);
	tcase_add_test(p, test_tcp_opt_parse_length_below_two);
	tcase_add_test(p, test_tcp_opt_parse_length_past_end);
	tcase_add_test(p, test_tcp_opt_parse_kind_without_length);
	tcase_add_test(p, test_tcp_opt_parse_mss_bad_length);
	tcase_add_test(p, test_tcp_opt_parse_truncations);
	tcase_add_test(f, test_tcp_opt_syn_fill_layout);
	tcase_add_test(f, test_tcp_opt_syn_fill_no_ws);
	suite_add_tcase(s, p);
	suite_add_tcase(s, f);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tcp_opt_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
