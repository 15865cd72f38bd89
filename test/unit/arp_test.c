// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/arp_test.c - Tests for tap/arp.c (arp_handle())
 *
 * Requests are real ones from busybox arping (captured_frames.h).  The
 * expected reply is the one the Linux kernel sent for the same request in
 * the same capture (cap_arp_reply_linux): same MACs and addresses, so our
 * reply must match it byte for byte.  Field offsets are those of RFC 826.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/services.h"
#include "captured_frames.h"
#include "fake_conf.h"
#include "fake_svc.h"

static struct conf c;

/**
 * setup() - Fresh configuration and counters for each test
 */
static void setup(void)
{
	svc_setup(&c, NULL, 0);
}

/**
 * handle() - Parse a captured frame and pass it to arp_handle()
 * @frame:	Frame
 * @len:	Its length
 * @out:	Reply buffer
 * @cap:	Its size
 *
 * Return: arp_handle() result (a reply goes through check_reply_csums()
 *	   too, which for ARP checks that it's at least an Ethernet header)
 */
static size_t handle(const uint8_t *frame, size_t len, uint8_t *out,
		     size_t cap)
{
	return svc_run(arp_handle, &c, frame, len, out, cap);
}

/* arp.pcap frames 3 and 4: "Who has 203.0.113.2? Tell 203.0.113.15" and the
 * Linux answer "203.0.113.2 is at 9a:55:9a:55:9a:55" (our MAC here)
 */
START_TEST(test_arp_handle_request_matches_linux_reply)
{
	uint8_t out[64];
	size_t n;

	n = handle(cap_arp_request, sizeof(cap_arp_request), out, sizeof(out));
	ck_assert_uint_eq(n, sizeof(cap_arp_reply_linux));
	ck_assert_mem_eq(out, cap_arp_reply_linux, n);
	ck_assert_uint_eq(svc_stats.arp_req, 1);
	ck_assert_uint_eq(svc_stats.arp_reply, 1);
}
END_TEST

/* arp_probe(): RFC 826 request, broadcast, "who has 203.0.113.15 (the
 * guest)? tell 203.0.113.2 (the gateway)", from our MAC; none without IPv4
 */
START_TEST(test_arp_probe_request_fields)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t hdr[8] = { 0, 1, 0x08, 0, 6, 4, 0, 1 };
	uint8_t out[64], a[4];
	struct in_addr t;
	size_t n;

	inet_pton(AF_INET, "203.0.113.15", &t);
	n = arp_probe(&c, t, out, sizeof(out));
	ck_assert_uint_eq(n, 42);
	ck_assert_mem_eq(out, bcast, 6);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	ck_assert_uint_eq(out[12], 0x08);
	ck_assert_uint_eq(out[13], 0x06);
	ck_assert_mem_eq(out + 14, hdr, 8);
	ck_assert_mem_eq(out + 14 + 8, c.mac_our, 6);
	inet_pton(AF_INET, "203.0.113.2", a);
	ck_assert_mem_eq(out + 14 + 14, a, 4);
	inet_pton(AF_INET, "203.0.113.15", a);
	ck_assert_mem_eq(out + 14 + 24, a, 4);

	ck_assert_uint_eq(arp_probe(&c, t, out, 41), 0);
	c.ip4.enabled = false;
	ck_assert_uint_eq(arp_probe(&c, t, out, sizeof(out)), 0);
}
END_TEST

/* RFC 826 reply fields for a target no host has configured (198.51.100.1,
 * RFC 5737 documentation address): we answer for every address
 */
START_TEST(test_arp_handle_any_target_answered)
{
	static const uint8_t tgt[4] = { 198, 51, 100, 1 };
	uint8_t b[sizeof(cap_arp_request)], out[64];
	size_t n;

	memcpy(b, cap_arp_request, sizeof(b));
	memcpy(b + 14 + 24, tgt, 4);
	n = handle(b, sizeof(b), out, sizeof(out));
	ck_assert_uint_eq(n, 42);
	/* Ethernet: to the requester, from us, ARP */
	ck_assert_mem_eq(out, cap_arp_request + 6, 6);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	ck_assert_uint_eq(out[12], 0x08);
	ck_assert_uint_eq(out[13], 0x06);
	/* hrd 1, pro 0x0800, hln 6, pln 4, op 2 (reply) */
	ck_assert_uint_eq(out[14], 0);
	ck_assert_uint_eq(out[15], 1);
	ck_assert_uint_eq(out[16], 0x08);
	ck_assert_uint_eq(out[17], 0x00);
	ck_assert_uint_eq(out[18], 6);
	ck_assert_uint_eq(out[19], 4);
	ck_assert_uint_eq(out[20], 0);
	ck_assert_uint_eq(out[21], 2);
	/* sha = our MAC, spa = asked address, tha/tpa = requester */
	ck_assert_mem_eq(out + 22, c.mac_our, 6);
	ck_assert_mem_eq(out + 28, tgt, 4);
	ck_assert_mem_eq(out + 32, cap_arp_request + 22, 6);
	ck_assert_mem_eq(out + 38, cap_arp_request + 28, 4);
}
END_TEST

/* The guest asks for its own address: it is checking for a conflict */
START_TEST(test_arp_handle_guest_address_ignored)
{
	uint8_t out[64];

	inet_pton(AF_INET, "203.0.113.2", &c.ip4.addr);
	ck_assert_uint_eq(handle(cap_arp_request, sizeof(cap_arp_request),
				 out, sizeof(out)), 0);
	ck_assert_uint_eq(svc_stats.arp_req, 1);
	ck_assert_uint_eq(svc_stats.arp_reply, 0);
}
END_TEST

/* arp.pcap frame 1, an ARP probe (sender 0.0.0.0): RFC 5227 2.1.1 */
START_TEST(test_arp_handle_probe_ignored)
{
	uint8_t out[64];

	/* Even for another address than the guest's */
	inet_pton(AF_INET, "203.0.113.99", &c.ip4.addr);
	ck_assert_uint_eq(handle(cap_arp_probe, sizeof(cap_arp_probe), out,
				 sizeof(out)), 0);
}
END_TEST

/* arp.pcap frame 2, gratuitous ARP (sender = target = 203.0.113.15):
 * RFC 5227 2.3 announcement, nothing to answer
 */
START_TEST(test_arp_handle_gratuitous_ignored)
{
	uint8_t out[64];

	inet_pton(AF_INET, "203.0.113.99", &c.ip4.addr);
	ck_assert_uint_eq(handle(cap_arp_gratuitous,
				 sizeof(cap_arp_gratuitous), out,
				 sizeof(out)), 0);
}
END_TEST

/* Targets that are not unicast host addresses */
START_TEST(test_arp_handle_non_unicast_target_ignored)
{
	static const char *const tgt[] = {
		"0.0.0.0", "255.255.255.255", "224.0.0.1", "127.0.0.1"
	};
	uint8_t b[sizeof(cap_arp_request)], out[64];
	size_t i;

	for (i = 0; i < sizeof(tgt) / sizeof(tgt[0]); i++) {
		memcpy(b, cap_arp_request, sizeof(b));
		inet_pton(AF_INET, tgt[i], b + 14 + 24);
		ck_assert_msg(handle(b, sizeof(b), out, sizeof(out)) == 0,
			      "answered for %s", tgt[i]);
	}
}
END_TEST

/* arp.pcap frame 4 is a reply (op 2): not a question */
START_TEST(test_arp_handle_reply_ignored)
{
	uint8_t out[64];

	ck_assert_uint_eq(handle(cap_arp_reply_linux,
				 sizeof(cap_arp_reply_linux), out,
				 sizeof(out)), 0);
	ck_assert_uint_eq(svc_stats.arp_req, 0);
}
END_TEST

START_TEST(test_arp_handle_not_arp_ignored)
{
	uint8_t out[64];

	ck_assert_uint_eq(handle(cap_icmp4_echo, sizeof(cap_icmp4_echo), out,
				 sizeof(out)), 0);
	ck_assert_uint_eq(svc_stats.arp_req, 0);
}
END_TEST

START_TEST(test_arp_handle_ipv4_disabled_ignored)
{
	uint8_t out[64];

	c.ip4.enabled = false;
	ck_assert_uint_eq(handle(cap_arp_request, sizeof(cap_arp_request),
				 out, sizeof(out)), 0);
}
END_TEST

/* A reply is 42 bytes: with 41 bytes of room nothing is written */
START_TEST(test_arp_handle_small_buffer_untouched)
{
	uint8_t out[64];

	memset(out, 0xaa, sizeof(out));
	ck_assert_uint_eq(handle(cap_arp_request, sizeof(cap_arp_request),
				 out, 41), 0);
	ck_assert_uint_eq(out[0], 0xaa);
	ck_assert_uint_eq(out[41], 0xaa);
}
END_TEST

START_TEST(test_arp_handle_damaged_frames_safe)
{
	svc_robustness(arp_handle, &c, cap_arp_request,
		       sizeof(cap_arp_request), 3000);
	svc_robustness(arp_handle, &c, cap_arp_probe, sizeof(cap_arp_probe),
		       1000);
}
END_TEST

/**
 * arp_suite() - All ARP tests
 *
 * Return: the suite
 */
static Suite *arp_suite(void)
{
	Suite *s = suite_create("arp");
	TCase *tc;

	tc = tcase_create("reply");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_arp_handle_request_matches_linux_reply);
	tcase_add_test(tc, test_arp_probe_request_fields);
	tcase_add_test(tc, test_arp_handle_any_target_answered);
	suite_add_tcase(s, tc);

	tc = tcase_create("ignore");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_arp_handle_guest_address_ignored);
	tcase_add_test(tc, test_arp_handle_probe_ignored);
	tcase_add_test(tc, test_arp_handle_gratuitous_ignored);
	tcase_add_test(tc, test_arp_handle_non_unicast_target_ignored);
	tcase_add_test(tc, test_arp_handle_reply_ignored);
	tcase_add_test(tc, test_arp_handle_not_arp_ignored);
	tcase_add_test(tc, test_arp_handle_ipv4_disabled_ignored);
	tcase_add_test(tc, test_arp_handle_small_buffer_untouched);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_arp_handle_damaged_frames_safe);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(arp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
