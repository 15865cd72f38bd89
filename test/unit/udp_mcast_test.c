// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/udp_mcast_test.c - Tests for the address rules of
 * passt/udp_mcast.c
 *
 * Expected values: the IPv4 multicast to Ethernet mapping of RFC 1112
 * section 6.4 (01-00-5E and the low 23 bits: 224.0.0.251 ->
 * 01:00:5e:00:00:fb, and 239.255.255.250 -> 01:00:5e:7f:ff:fa, where bit
 * 24 of the group is dropped), the IPv6 mapping of RFC 2464 section 7
 * (33-33 and the last four bytes: ff02::1:ff00:1 -> 33:33:ff:00:00:01,
 * ff05::c -> 33:33:00:00:00:0c), the broadcast addresses of RFC 919 and
 * RFC 922 (fake_conf.h: 203.0.113.15/24, so 203.0.113.255), and the
 * multicast scopes of RFC 4291 section 2.7 (1 interface-local, 2
 * link-local, 5 site-local, 8 organisation-local, e global).
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/inany.h"
#include "../../passt/udp_mcast.h"
#include "fake_conf.h"
#include "fake_parse.h"

static struct conf c;

/**
 * setup() - Fresh configuration for each test
 */
static void setup(void)
{
	fake_conf_init(&c);
}

/**
 * mac_is() - Assert the Ethernet destination for an IP destination
 * @ip:		IP destination, text
 * @want:	Expected MAC, text "xx:xx:xx:xx:xx:xx", or NULL for none
 */
static void mac_is(const char *ip, const char *want)
{
	union inany a = addr(ip);
	uint8_t mac[6], w[6];
	bool got = udp_mcast_mac(&c, &a, mac);

	if (!want) {
		ck_assert_msg(!got, "%s: unexpected group MAC", ip);
		return;
	}
	ck_assert_msg(got, "%s: no group MAC", ip);
	ck_assert_int_eq(sscanf(want, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &w[0],
				&w[1], &w[2], &w[3], &w[4], &w[5]), 6);
	ck_assert_mem_eq(mac, w, 6);
}

/**
 * verdict() - udp_mcast_classify() for a guest datagram
 * @dst:	Destination, text
 * @dport:	Destination port
 *
 * Return: 1 (group or broadcast), 0 (unicast), -1 (refused)
 */
static int verdict(const char *dst, uint16_t dport)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.dst = addr(dst);
	f.src = addr(strchr(dst, ':') ? "2001:db8::15" : "203.0.113.15");
	f.af = strchr(dst, ':') ? AF_INET6 : AF_INET;
	f.proto = IPPROTO_UDP;
	f.sport = 40000;
	f.dport = dport;
	return udp_mcast_classify(&c, &f);
}

/* RFC 1112 6.4 */
START_TEST(test_udp_mcast_mac_ipv4)
{
	mac_is("224.0.0.251", "01:00:5e:00:00:fb");
	mac_is("239.255.255.250", "01:00:5e:7f:ff:fa");
	mac_is("224.128.0.1", "01:00:5e:00:00:01");	/* bit 24 dropped */
}
END_TEST

/* RFC 2464 7 */
START_TEST(test_udp_mcast_mac_ipv6)
{
	mac_is("ff02::1:ff00:1", "33:33:ff:00:00:01");
	mac_is("ff05::c", "33:33:00:00:00:0c");
	mac_is("ff02::fb", "33:33:00:00:00:fb");
}
END_TEST

/* RFC 919 (limited), RFC 922 (directed to our subnet); unicast: none */
START_TEST(test_udp_mcast_mac_broadcast_and_unicast)
{
	mac_is("255.255.255.255", "ff:ff:ff:ff:ff:ff");
	mac_is("203.0.113.255", "ff:ff:ff:ff:ff:ff");
	mac_is("203.0.113.254", NULL);
	mac_is("198.51.100.255", NULL);		/* not our subnet */
	mac_is("203.0.113.15", NULL);
	mac_is("2001:db8::15", NULL);
}
END_TEST

/* Groups and broadcasts are sent; IPv6 scopes 0-2 stay; no endpoint */
START_TEST(test_udp_mcast_classify)
{
	ck_assert_int_eq(verdict("239.255.255.250", 1900), 1);
	ck_assert_int_eq(verdict("224.0.0.251", 5353), 1);
	ck_assert_int_eq(verdict("255.255.255.255", 67), 1);
	ck_assert_int_eq(verdict("203.0.113.255", 9), 1);
	ck_assert_int_eq(verdict("ff05::c", 1900), 1);
	ck_assert_int_eq(verdict("ff08::c", 1900), 1);
	ck_assert_int_eq(verdict("ff0e::101", 123), 1);
	ck_assert_int_eq(verdict("ff02::fb", 5353), -1);
	ck_assert_int_eq(verdict("ff01::1", 9), -1);
	ck_assert_int_eq(verdict("ff00::1", 9), -1);
	ck_assert_int_eq(verdict("ff12::c", 9), -1);	/* transient, link */
	ck_assert_int_eq(verdict("0.0.0.0", 53), -1);
	ck_assert_int_eq(verdict("::", 53), -1);
	ck_assert_int_eq(verdict("198.51.100.2", 0), -1);
	ck_assert_int_eq(verdict("198.51.100.2", 53), 0);
	ck_assert_int_eq(verdict("2001:db8::1", 53), 0);
	ck_assert_uint_eq(udp_mcast_stats.refused, 7);
}
END_TEST

/**
 * udp_mcast_suite() - Test suite
 *
 * Return: suite
 */
static Suite *udp_mcast_suite(void)
{
	Suite *s = suite_create("udp_mcast");
	TCase *tc = tcase_create("udp_mcast");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_udp_mcast_mac_ipv4);
	tcase_add_test(tc, test_udp_mcast_mac_ipv6);
	tcase_add_test(tc, test_udp_mcast_mac_broadcast_and_unicast);
	tcase_add_test(tc, test_udp_mcast_classify);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: 0 if all tests passed
 */
int main(void)
{
	SRunner *sr = srunner_create(udp_mcast_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
