// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/udp_gso_test.c - Tests for the size rules and control data of
 *			      passt/udp_gso.c
 *
 * Expected values: how Linux cuts a UDP super-datagram (gso_size bytes per
 * datagram, the last one what is left: __udp_gso_segment(), and the
 * selftest tools/testing/selftests/net/udpgso.c, whose cases "1 MSS + 1"
 * and "2 MSS" are 2 datagrams each); the cmsg numbers of udp(7) and
 * include/uapi/linux/udp.h (SOL_UDP 17, UDP_SEGMENT 103 carrying a
 * uint16_t, UDP_GRO 104 carrying an int); virtio 1.2 5.1.6.2.1 for
 * gso_size of a guest's frame; RFC 791 and RFC 768 for 1472 = 1500 - 28.
 */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../passt/udp_internal.h"

/* udpgso.c "1 MSS + 1": 2 datagrams, the second of 1 byte */
START_TEST(test_udp_gso_segs_mss_plus_one_is_two)
{
	ck_assert_uint_eq(udp_gso_segs(1473, 1472), 2);
}
END_TEST

/* udpgso.c "2 MSS": exactly 2, no empty third */
START_TEST(test_udp_gso_segs_two_mss_is_two)
{
	ck_assert_uint_eq(udp_gso_segs(2944, 1472), 2);
}
END_TEST

/* 5 x 1000 + 500: six datagrams, the last shorter */
START_TEST(test_udp_gso_segs_shorter_last_counts)
{
	ck_assert_uint_eq(udp_gso_segs(5500, 1000), 6);
}
END_TEST

/* No gso_size, or a payload not longer than it: one datagram */
START_TEST(test_udp_gso_segs_one_datagram)
{
	ck_assert_uint_eq(udp_gso_segs(1400, 0), 1);
	ck_assert_uint_eq(udp_gso_segs(1400, 1400), 1);
	ck_assert_uint_eq(udp_gso_segs(0, 1400), 1);
}
END_TEST

/* virtio 1.2 5.1.6.2.1: a GSO type needs a gso_size */
START_TEST(test_udp_gso_in_check_size_zero_refused)
{
	ck_assert_int_eq(udp_gso_in_check(3000, 0, 1472), -EINVAL);
}
END_TEST

/* Segments beyond the guest's MTU (1500: 1472 bytes of payload) can't
 * have been sent by its stack
 */
START_TEST(test_udp_gso_in_check_segment_beyond_mtu_refused)
{
	ck_assert_int_eq(udp_gso_in_check(6000, 1473, 1472), -EMSGSIZE);
	ck_assert_int_eq(udp_gso_in_check(5888, 1472, 1472), 4);
}
END_TEST

/* 128 segments (UDP_MAX_SEGMENTS of recent kernels) pass, 129 don't */
START_TEST(test_udp_gso_in_check_segment_count)
{
	ck_assert_int_eq(udp_gso_in_check(128 * 100, 100, 1472), 128);
	ck_assert_int_eq(udp_gso_in_check(128 * 100 + 1, 100, 1472), -E2BIG);
}
END_TEST

/* A frame no longer than gso_size is one datagram, whatever the MTU */
START_TEST(test_udp_gso_in_check_short_frame_is_one)
{
	ck_assert_int_eq(udp_gso_in_check(1000, 1400, 1472), 1);
}
END_TEST

/* udp(7): SOL_UDP (17) / UDP_GRO (104), an int holding gso_size */
START_TEST(test_udp_gro_size_reads_cmsg)
{
	union { uint8_t b[CMSG_SPACE(sizeof(struct in_pktinfo)) +
			  CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } u;
	struct msghdr mh = { .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm;
	int v = 1400;

	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_IP;		/* IP_PKTINFO first */
	cm->cmsg_type = IP_PKTINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	cm = CMSG_NXTHDR(&mh, cm);
	cm->cmsg_level = 17;
	cm->cmsg_type = 104;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &v, sizeof(v));
	ck_assert_uint_eq(udp_gro_size(&mh), 1400);
}
END_TEST

START_TEST(test_udp_gro_size_none_is_zero)
{
	struct msghdr mh = { 0 };

	ck_assert_uint_eq(udp_gro_size(&mh), 0);
}
END_TEST

/* udp(7): SOL_UDP (17) / UDP_SEGMENT (103), a uint16_t, after what is
 * there already
 */
START_TEST(test_udp_gso_cmsg_layout)
{
	union { uint8_t b[64]; struct cmsghdr a; } u;
	struct cmsghdr cm;
	uint16_t seg;
	size_t l;

	memset(&u, 0xaa, sizeof(u));
	l = udp_gso_cmsg(u.b, CMSG_SPACE(sizeof(struct in_pktinfo)), 8000);
	ck_assert_uint_eq(l, CMSG_SPACE(sizeof(struct in_pktinfo)) +
			     CMSG_SPACE(2));
	memcpy(&cm, u.b + CMSG_SPACE(sizeof(struct in_pktinfo)), sizeof(cm));
	ck_assert_int_eq(cm.cmsg_level, 17);
	ck_assert_int_eq(cm.cmsg_type, 103);
	ck_assert_uint_eq(cm.cmsg_len, CMSG_LEN(2));
	memcpy(&seg, u.b + CMSG_SPACE(sizeof(struct in_pktinfo)) +
		     CMSG_LEN(0), sizeof(seg));
	ck_assert_uint_eq(seg, 8000);
	ck_assert_uint_eq(u.b[0], 0xaa);	/* what was there, untouched */
}
END_TEST

/**
 * udp_gso_suite() - Test suite of passt/udp_gso.c
 *
 * Return: suite
 */
static Suite *udp_gso_suite(void)
{
	Suite *s = suite_create("udp_gso");
	TCase *tc;

	tc = tcase_create("segs");
	tcase_add_test(tc, test_udp_gso_segs_mss_plus_one_is_two);
	tcase_add_test(tc, test_udp_gso_segs_two_mss_is_two);
	tcase_add_test(tc, test_udp_gso_segs_shorter_last_counts);
	tcase_add_test(tc, test_udp_gso_segs_one_datagram);
	suite_add_tcase(s, tc);

	tc = tcase_create("in_check");
	tcase_add_test(tc, test_udp_gso_in_check_size_zero_refused);
	tcase_add_test(tc, test_udp_gso_in_check_segment_beyond_mtu_refused);
	tcase_add_test(tc, test_udp_gso_in_check_segment_count);
	tcase_add_test(tc, test_udp_gso_in_check_short_frame_is_one);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmsg");
	tcase_add_test(tc, test_udp_gro_size_reads_cmsg);
	tcase_add_test(tc, test_udp_gro_size_none_is_zero);
	tcase_add_test(tc, test_udp_gso_cmsg_layout);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(udp_gso_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
