// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fwd_test.c - Tests for the destination translation of passt/fwd.c
 *
 * Expected values: the rules of passt.1 ("ADDRESS MAPPING", --dns-forward,
 * --dns-host), which follow upstream passt's documented behaviour: port 53
 * of the --dns-forward address goes to the --dns-host name server, the
 * --map-host-loopback address means the host's loopback, anything else is
 * used as is, multicast and unspecified destinations are refused.  Port
 * 853: RFC 7858 (DNS over TLS).
 * Configuration: test/unit/fake_conf.c (guest 203.0.113.15, gateway
 * 203.0.113.2, DNS 203.0.113.3; 2001:db8::15, gateway fe80::1, DNS
 * 2001:db8::3).  -o and --outbound-if4/6: passt.1, which says they apply
 * to what the guest starts; the host's loopback is exempt (upstream passt
 * does the same: a loopback socket can't use another source).
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/inany.h"
#include "../../passt/fwd.h"
#include "fake_conf.h"
#include "fake_parse.h"

static struct conf c;

/**
 * check_map() - Translate @dst:@dport and compare with the expectation
 * @dst:	Destination as the guest sends it
 * @dport:	Its port
 * @want:	Expected host-side address
 * @wport:	Expected host-side port
 */
static void check_map(const char *dst, uint16_t dport, const char *want,
		      uint16_t wport)
{
	union inany d = addr(dst), h, w = addr(want);
	uint16_t hport = 0;

	ck_assert(fwd_nat_to_host_port(&c, &d, dport, &h, &hport));
	ck_assert_msg(inany_equals(&h, &w), "%s:%u", dst, dport);
	ck_assert_uint_eq(hport, wport);
}

/**
 * setup() - Fixture: the fake configuration, gateway mapped to loopback,
 *	     DNS forwarding from the offered servers to documentation hosts
 */
static void setup(void)
{
	fake_conf_init(&c);
	c.ip4.map_host_loopback = c.ip4.gw;
	inet_pton(AF_INET, "203.0.113.3", &c.ip4.dns_fwd);
	inet_pton(AF_INET, "203.0.113.53", &c.ip4.dns_host);
	c.ip6.map_host_loopback = c.ip6.gw;
	inet_pton(AF_INET6, "2001:db8::3", &c.ip6.dns_fwd);
	inet_pton(AF_INET6, "2001:db8:53::1", &c.ip6.dns_host);
}

/* --dns-forward: "DNS traffic (port 53) is sent to the --dns-host" */
START_TEST(test_fwd_dns_forward_port_53_goes_to_dns_host)
{
	check_map("203.0.113.3", 53, "203.0.113.53", 53);
	check_map("2001:db8::3", 53, "2001:db8:53::1", 53);
}
END_TEST

/* Port 853 (DNS over TLS, RFC 7858 3.1; DNS over DTLS/QUIC on UDP, RFC
 * 8094, RFC 9250) of the --dns-forward address goes to the same port of
 * the --dns-host name server, as port 53 does
 */
START_TEST(test_fwd_dns_forward_port_853_goes_to_dns_host)
{
	check_map("203.0.113.3", 853, "203.0.113.53", 853);
	check_map("2001:db8::3", 853, "2001:db8:53::1", 853);
}
END_TEST

/* Only ports 53 and 853 are DNS: other ports of that address are used as
 * is
 */
START_TEST(test_fwd_dns_forward_other_ports_untouched)
{
	check_map("203.0.113.3", 5353, "203.0.113.3", 5353);
	check_map("2001:db8::3", 8853, "2001:db8::3", 8853);
	check_map("2001:db8::3", 443, "2001:db8::3", 443);
}
END_TEST

/* passt.1 --dns-forward: with no name server of the query's family, the
 * other family's one gets it (podman's 169.254.1.1 with only ::1 in the
 * host's resolv.conf)
 */
START_TEST(test_fwd_dns_forward_other_family_host)
{
	c.ip4.dns_host.s_addr = 0;
	check_map("203.0.113.3", 53, "2001:db8:53::1", 53);
	check_map("203.0.113.3", 853, "2001:db8:53::1", 853);
	check_map("2001:db8::3", 53, "2001:db8:53::1", 53);

	inet_pton(AF_INET, "203.0.113.53", &c.ip4.dns_host);
	memset(&c.ip6.dns_host, 0, sizeof(c.ip6.dns_host));
	check_map("2001:db8::3", 53, "203.0.113.53", 53);
	check_map("203.0.113.3", 53, "203.0.113.53", 53);
}
END_TEST

/* Port 53 of other addresses is not DNS forwarding */
START_TEST(test_fwd_dns_other_address_untouched)
{
	check_map("203.0.113.1", 53, "203.0.113.1", 53);
	check_map("2001:db8::99", 53, "2001:db8::99", 53);
}
END_TEST

/* Without --dns-host there's nowhere to forward to: normal rules */
START_TEST(test_fwd_dns_forward_without_host_untouched)
{
	c.ip4.dns_host.s_addr = 0;
	memset(&c.ip6.dns_host, 0, sizeof(c.ip6.dns_host));
	check_map("203.0.113.3", 53, "203.0.113.3", 53);
	check_map("2001:db8::3", 53, "2001:db8::3", 53);
}
END_TEST

/* The default when resolv.conf has a loopback server (passt.1, NAME
 * SERVERS): forwarding address = gateway, host = 127.0.0.1
 */
START_TEST(test_fwd_dns_forward_gateway_to_loopback_server)
{
	c.ip4.dns_fwd = c.ip4.gw;
	inet_pton(AF_INET, "127.0.0.53", &c.ip4.dns_host);
	check_map("203.0.113.2", 53, "127.0.0.53", 53);
	check_map("203.0.113.2", 80, "127.0.0.1", 80);
}
END_TEST

/* ADDRESS MAPPING: the --map-host-loopback address is the host loopback */
START_TEST(test_fwd_map_host_loopback_any_port)
{
	check_map("203.0.113.2", 8080, "127.0.0.1", 8080);
	check_map("fe80::1", 8080, "::1", 8080);
}
END_TEST

/* Multicast and unspecified destinations are refused */
START_TEST(test_fwd_multicast_and_unspecified_refused)
{
	union inany h, m4 = addr("224.0.0.251"), m6 = addr("ff02::fb");
	union inany u4 = addr("0.0.0.0"), u6 = addr("::");
	uint16_t p;

	ck_assert(!fwd_nat_to_host_port(&c, &m4, 5353, &h, &p));
	ck_assert(!fwd_nat_to_host_port(&c, &m6, 5353, &h, &p));
	ck_assert(!fwd_nat_to_host_port(&c, &u4, 53, &h, &p));
	ck_assert(!fwd_nat_to_host_port(&c, &u6, 53, &h, &p));
}
END_TEST

/* RFC 1122 3.2.1.3 (g), RFC 4291 2.5.3: loopback addresses never come
 * from outside a host; one from the guest is refused, not sent to the
 * host's loopback
 */
START_TEST(test_fwd_loopback_destination_refused)
{
	union inany h, l4 = addr("127.0.0.1"), l6 = addr("::1");
	union inany l4b = addr("127.1.2.3");
	uint16_t p;

	ck_assert(!fwd_nat_to_host_port(&c, &l4, 8080, &h, &p));
	ck_assert(!fwd_nat_to_host_port(&c, &l4b, 53, &h, &p));
	ck_assert(!fwd_nat_to_host_port(&c, &l6, 8080, &h, &p));
}
END_TEST

/* -o and --outbound-if4/6: "Bind sockets for connections and flows the
 * guest starts to this source address" / "to interface NAME" (passt.1),
 * per family
 */
START_TEST(test_fwd_outbound_address_and_interface_per_family)
{
	union inany h4 = addr("198.51.100.3"), h6 = addr("2001:db8:1::3"), b;
	const char *ifname;

	c.ip4.addr_out = a4("198.51.100.4");
	c.ip6.addr_out = a6("2001:db8:1::4");
	strcpy(c.ip4.ifname_bind, "eth4");
	strcpy(c.ip6.ifname_bind, "eth6");

	ck_assert(fwd_outbound(&c, &h4, &b, &ifname));
	ck_assert_a4(*inany_v4(&b), "198.51.100.4");
	ck_assert_str_eq(ifname, "eth4");

	ck_assert(fwd_outbound(&c, &h6, &b, &ifname));
	ck_assert_a6(b.a6, "2001:db8:1::4");
	ck_assert_str_eq(ifname, "eth6");
}
END_TEST

/* Without -o: no address to bind, the interface still applies */
START_TEST(test_fwd_outbound_interface_only)
{
	union inany h6 = addr("2001:db8:1::3"), b;
	const char *ifname;

	strcpy(c.ip6.ifname_bind, "eth6");
	ck_assert(!fwd_outbound(&c, &h6, &b, &ifname));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&b.a6));
	ck_assert_str_eq(ifname, "eth6");
}
END_TEST

/* The host's loopback (the --map-host-loopback address) can't be reached
 * from another address or interface: neither applies
 */
START_TEST(test_fwd_outbound_not_for_loopback)
{
	union inany l4 = addr("127.0.0.1"), l6 = addr("::1"), b;
	const char *ifname;

	c.ip4.addr_out = a4("198.51.100.4");
	c.ip6.addr_out = a6("2001:db8:1::4");
	strcpy(c.ip4.ifname_bind, "eth4");
	strcpy(c.ip6.ifname_bind, "eth6");
	ck_assert(!fwd_outbound(&c, &l4, &b, &ifname));
	ck_assert_str_eq(ifname, "");
	ck_assert(!fwd_outbound(&c, &l6, &b, &ifname));
	ck_assert_str_eq(ifname, "");
}
END_TEST

/**
 * fwd_suite() - Test cases of fwd_nat_to_host_port()
 *
 * Return: suite
 */
static Suite *fwd_suite(void)
{
	Suite *s = suite_create("fwd");
	TCase *tc = tcase_create("nat_to_host_port");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_fwd_dns_forward_port_53_goes_to_dns_host);
	tcase_add_test(tc, test_fwd_dns_forward_port_853_goes_to_dns_host);
	tcase_add_test(tc, test_fwd_dns_forward_other_family_host);
	tcase_add_test(tc, test_fwd_dns_forward_other_ports_untouched);
	tcase_add_test(tc, test_fwd_dns_other_address_untouched);
	tcase_add_test(tc, test_fwd_dns_forward_without_host_untouched);
	tcase_add_test(tc, test_fwd_dns_forward_gateway_to_loopback_server);
	tcase_add_test(tc, test_fwd_map_host_loopback_any_port);
	tcase_add_test(tc, test_fwd_multicast_and_unspecified_refused);
	tcase_add_test(tc, test_fwd_loopback_destination_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("outbound");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_fwd_outbound_address_and_interface_per_family);
	tcase_add_test(tc, test_fwd_outbound_interface_only);
	tcase_add_test(tc, test_fwd_outbound_not_for_loopback);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fwd_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
