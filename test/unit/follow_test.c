// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/follow_test.c - Following the host: coalescing of change
 * notifications, derivation again with the start-up rules, the change
 * lines (conf/follow.c), and reading resolv.conf from an open file
 * (conf/resolv.c, resolv_read_fd())
 *
 * Sources: passt.1 (FOLLOWING THE HOST: a value given on the command line
 * never changes; the gateway stands for the host unless --map-host-loopback
 * or --no-map-gw; loopback name servers are reached through the mapped
 * address; --dns-host defaults to the first name server), resolv.conf(5).
 * The host is a stub that plays netlink_host_defaults(): it fills what is
 * unset with the "host's" values of the test.  Addresses are documentation
 * ranges (RFC 5737).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../conf/follow.h"
#include "fake_parse.h"
#include "fake_tmp.h"

static struct conf cur, next;
static struct resolv_conf r;
static struct in_addr host_addr, host_gw;	/* what the stub host has */
static bool host_routed;	/* ... and whether it has a default route */
static bool host_fails;

/**
 * host_stub() - Stand-in for netlink_watch_derive(): fill what is unset
 * @c:		Configuration
 *
 * Return: 0, or -ENODEV if @host_fails
 */
static int host_stub(struct conf *c)
{
	if (host_fails)
		return -ENODEV;
	if (!host_addr.s_addr) {	/* no address: the family is unusable */
		c->ip4.enabled = false;
		return 0;
	}
	snprintf(c->ip4.ifname_out, IFNAMSIZ, "h0");
	if (!c->ip4.addr.s_addr)
		c->ip4.addr = host_addr;
	if (c->ip4.prefix_len < 0)
		c->ip4.prefix_len = 24;
	if (!c->ip4.gw.s_addr)
		c->ip4.gw = host_gw;
	c->ip4.routed = host_routed;
	return 0;
}

/**
 * start() - A daemon as started with nothing given, on 198.51.100.1/24 via
 *	     198.51.100.2, resolv.conf naming 127.0.0.1
 */
static void start(void)
{
	memset(&cur, 0, sizeof(cur));
	memset(&next, 0, sizeof(next));
	memset(&r, 0, sizeof(r));
	host_fails = false;
	cur.ip4.enabled = true;
	cur.ip4.prefix_len = -1;
	cur.given.ip4 = cur.ip4;
	cur.given.ip6.prefix_len = -1;
	host_addr = a4("198.51.100.1");
	host_gw = a4("198.51.100.2");
	host_routed = true;
	r.ns4[0] = a4("127.0.0.1");
	r.ns4_count = 1;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	cur = next;
	ck_assert_a4(cur.ip4.addr, "198.51.100.1");
	ck_assert_a4(cur.ip4.map_host_loopback, "198.51.100.2");
	ck_assert_a4(cur.ip4.dns_fwd, "198.51.100.2");
}

START_TEST(test_settle_quiet_period)
{
	struct follow_settle s = { 0 };

	ck_assert(follow_settle_due(&s) == INT64_MAX);
	ck_assert(!follow_settle_take(&s, 1000));
	follow_settle_event(&s, 1000);
	ck_assert(follow_settle_due(&s) == 1000 + FOLLOW_QUIET_MS);
	ck_assert(!follow_settle_take(&s, 1000 + FOLLOW_QUIET_MS - 1));
	ck_assert(follow_settle_take(&s, 1000 + FOLLOW_QUIET_MS));
	ck_assert(!follow_settle_take(&s, 1000 + FOLLOW_QUIET_MS + 1));
	ck_assert(!s.pending);
}
END_TEST

/* A burst: each message pushes the action back, once */
START_TEST(test_settle_burst_once)
{
	struct follow_settle s = { 0 };
	int64_t t;
	int taken = 0;

	for (t = 0; t < 10 * 50; t += 50) {
		follow_settle_event(&s, t);
		taken += follow_settle_take(&s, t);
	}
	ck_assert_int_eq(taken, 0);
	ck_assert(follow_settle_due(&s) == 450 + FOLLOW_QUIET_MS);
	for (; t < 2000; t += 10)
		taken += follow_settle_take(&s, t);
	ck_assert_int_eq(taken, 1);
}
END_TEST

/* A flood that never pauses still gets acted on, at the cap */
START_TEST(test_settle_flood_capped)
{
	struct follow_settle s = { 0 };
	int64_t t, first_take = -1;

	for (t = 0; t < 10000; t += 20) {
		follow_settle_event(&s, t);
		if (follow_settle_take(&s, t) && first_take < 0)
			first_take = t;
	}
	ck_assert(first_take == FOLLOW_MAX_WAIT_MS);
}
END_TEST

START_TEST(test_derive_follows_host)
{
	start();
	host_addr = a4("203.0.113.1");
	host_gw = a4("203.0.113.2");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "203.0.113.1");
	ck_assert_int_eq(next.ip4.prefix_len, 24);
	ck_assert_a4(next.ip4.gw, "203.0.113.2");
	/* the gateway stands for the host, and for its loopback resolver */
	ck_assert_a4(next.ip4.map_host_loopback, "203.0.113.2");
	ck_assert_uint_eq(next.ip4.dns_count, 1);
	ck_assert_a4(next.ip4.dns[0], "203.0.113.2");
	ck_assert_a4(next.ip4.dns_fwd, "203.0.113.2");
	ck_assert_a4(next.ip4.dns_host, "127.0.0.1");
}
END_TEST

START_TEST(test_derive_resolv_follows)
{
	start();
	r.ns4[0] = a4("127.0.0.2");
	r.ns4[1] = a4("192.0.2.53");
	r.ns4_count = 2;
	snprintf(r.search[0], CONF_SEARCH_LEN, "example.org");
	r.search_count = 1;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.dns_host, "127.0.0.2");
	ck_assert_uint_eq(next.ip4.dns_count, 2);
	ck_assert_a4(next.ip4.dns[0], "198.51.100.2");
	ck_assert_a4(next.ip4.dns[1], "192.0.2.53");
	ck_assert_uint_eq(next.search_count, 1);
	ck_assert_str_eq(next.search[0], "example.org");

	/* the name server line goes: no forwarding target, no list */
	r.ns4_count = 0;
	r.search_count = 0;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_uint_eq(next.ip4.dns_count, 0);
	ck_assert_uint_eq(next.search_count, 0);
}
END_TEST

/* -a, -g, --map-host-loopback, -D, --dns-host and -S never change */
START_TEST(test_derive_given_values_stay)
{
	start();
	cur.given.ip4.addr = cur.ip4.addr = a4("192.0.2.10");
	cur.given.ip4.prefix_len = cur.ip4.prefix_len = 28;
	cur.given.ip4.gw = cur.ip4.gw = a4("192.0.2.1");
	cur.given.mhl4 = true;
	cur.given.ip4.map_host_loopback = cur.ip4.map_host_loopback =
		a4("192.0.2.99");
	cur.given.dns = true;
	cur.given.ip4.dns[0] = cur.ip4.dns[0] = a4("192.0.2.53");
	cur.given.ip4.dns_count = cur.ip4.dns_count = 1;
	cur.given.ip4.dns_host = cur.ip4.dns_host = a4("192.0.2.54");
	cur.given.search = true;
	snprintf(cur.search[0], CONF_SEARCH_LEN, "given.example");
	cur.search_count = 1;

	host_addr = a4("203.0.113.1");
	host_gw = a4("203.0.113.2");
	r.ns4[0] = a4("203.0.113.53");
	snprintf(r.search[0], CONF_SEARCH_LEN, "host.example");
	r.search_count = 1;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "192.0.2.10");
	ck_assert_int_eq(next.ip4.prefix_len, 28);
	ck_assert_a4(next.ip4.gw, "192.0.2.1");
	ck_assert_a4(next.ip4.map_host_loopback, "192.0.2.99");
	ck_assert_uint_eq(next.ip4.dns_count, 1);
	ck_assert_a4(next.ip4.dns[0], "192.0.2.53");
	ck_assert_a4(next.ip4.dns_host, "192.0.2.54");
	ck_assert_str_eq(next.search[0], "given.example");
	ck_assert_uint_eq(next.search_count, 1);
	ck_assert_uint_eq(follow_diff(&cur, &next, NULL), 0);
}
END_TEST

/* --no-map-gw: the gateway doesn't stand for the host, before or after */
START_TEST(test_derive_no_map_gw)
{
	start();
	cur.no_map_gw = true;
	cur.ip4.map_host_loopback.s_addr = 0;
	host_gw = a4("203.0.113.2");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.gw, "203.0.113.2");
	ck_assert_uint_eq(next.ip4.map_host_loopback.s_addr, 0);
}
END_TEST

/* No address for a while, or no answer: the guest keeps its picture */
START_TEST(test_derive_no_address_keeps)
{
	start();
	host_addr.s_addr = 0;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert(next.ip4.enabled);
	ck_assert_a4(next.ip4.addr, "198.51.100.1");
	ck_assert_a4(next.ip4.gw, "198.51.100.2");

	host_fails = true;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), -ENODEV);
	ck_assert(next.ip4.enabled);
	ck_assert_a4(next.ip4.addr, "198.51.100.1");
}
END_TEST

/* The host's default route goes, its address stays (a link between two
 * networks, a Wi-Fi reconnecting: passt.1, FOLLOWING THE HOST): the guest
 * keeps its gateway, and the gateway keeps meaning the host and its
 * loopback name server, even if the address changes meanwhile; once a
 * default route is back, the new values.  A host that had no default
 * route at start is followed as before.
 */
START_TEST(test_derive_default_route_lost_keeps)
{
	start();
	host_routed = false;
	host_gw.s_addr = 0;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "198.51.100.1");
	ck_assert_a4(next.ip4.gw, "198.51.100.2");
	ck_assert_a4(next.ip4.map_host_loopback, "198.51.100.2");
	ck_assert_a4(next.ip4.dns_fwd, "198.51.100.2");
	ck_assert_uint_eq(next.ip4.dns_count, 1);
	ck_assert_uint_eq(follow_diff(&cur, &next, NULL), 0);

	host_addr = a4("203.0.113.1");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "198.51.100.1");
	ck_assert_uint_eq(follow_diff(&cur, &next, NULL), 0);

	host_routed = true;
	host_gw = a4("203.0.113.2");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "203.0.113.1");
	ck_assert_a4(next.ip4.gw, "203.0.113.2");
	ck_assert_a4(next.ip4.dns_fwd, "203.0.113.2");

	cur.ip4.routed = false;		/* none at start: followed */
	host_routed = false;
	host_gw.s_addr = 0;
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "203.0.113.1");
	ck_assert_uint_eq(next.ip4.gw.s_addr, 0);
}
END_TEST

/* A family disabled at start stays disabled; local mode stays */
START_TEST(test_derive_state_stays)
{
	start();
	ck_assert(!next.ip6.enabled);
	cur.local_mode = true;
	host_addr = a4("203.0.113.1");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	ck_assert_a4(next.ip4.addr, "198.51.100.1");
	ck_assert(!next.ip6.enabled);
}
END_TEST

static char lines[8][512];
static unsigned nlines;

/**
 * line_rec() - Record a change line
 * @msg:	Line
 */
static void line_rec(const char *msg)
{
	if (nlines < 8)
		snprintf(lines[nlines++], sizeof(lines[0]), "%s", msg);
}

START_TEST(test_diff_lines)
{
	start();
	host_addr = a4("203.0.113.1");
	host_gw = a4("203.0.113.2");
	ck_assert_int_eq(follow_derive(&cur, &next, &r, host_stub), 0);
	nlines = 0;
	/* address, gateway, name server list (the mapped gateway); the
	 * mapped address follows the gateway: no line of its own
	 */
	ck_assert_uint_eq(follow_diff(&cur, &next, line_rec), 3);
	ck_assert_str_eq(lines[0], "host changed: IPv4 address "
			 "198.51.100.1/24 -> 203.0.113.1/24");
	ck_assert_str_eq(lines[1], "host changed: IPv4 gateway "
			 "198.51.100.2 -> 203.0.113.2");
	ck_assert_str_eq(lines[2], "host changed: IPv4 name servers for the "
			 "guest 198.51.100.2 -> 203.0.113.2");
	ck_assert_uint_eq(follow_diff(&next, &next, line_rec), 0);
}
END_TEST

/* Copied addresses: the guest's own address changing is the address line
 * only; another address going is a line of its own; a route too
 */
START_TEST(test_diff_copied_addresses_and_routes)
{
	start();
	cur.ip4.tpl.addrs[0].addr.a4 = a4("198.51.100.1");
	cur.ip4.tpl.addrs[0].prefix_len = 24;
	cur.ip4.tpl.addr_count = 1;
	next = cur;
	next.ip4.addr = a4("203.0.113.1");
	next.ip4.tpl.addrs[0].addr.a4 = a4("203.0.113.1");
	nlines = 0;
	ck_assert_uint_eq(follow_diff(&cur, &next, line_rec), 1);
	ck_assert_str_eq(lines[0], "host changed: IPv4 address "
			 "198.51.100.1/24 -> 203.0.113.1/24");

	cur.ip4.tpl.addrs[1].addr.a4 = a4("198.51.100.4");
	cur.ip4.tpl.addrs[1].prefix_len = 24;
	cur.ip4.tpl.addr_count = 2;
	next.ip4.tpl.routes[0].dst.a4 = a4("192.0.2.0");
	next.ip4.tpl.routes[0].prefix_len = 24;
	next.ip4.tpl.route_count = 1;
	nlines = 0;
	ck_assert_uint_eq(follow_diff(&cur, &next, line_rec), 3);
	ck_assert_str_eq(lines[1], "host changed: IPv4 addresses copied to "
			 "the namespace: 2 -> 1");
	ck_assert_str_eq(lines[2], "host changed: IPv4 routes copied to the "
			 "namespace: 0 -> 1");
}
END_TEST

static char tmpdir[64];

/* Garbage, NUL bytes and a huge file: bounded, no crash */
START_TEST(test_resolv_read_fd_garbage_and_huge)
{
	char path[128], *big;
	size_t i, len = 3 * RESOLV_READ_MAX;
	int fd;

	tmp_dir_make(tmpdir, sizeof(tmpdir), "follow_test");
	snprintf(path, sizeof(path), "%s/resolv.conf", tmpdir);
	big = malloc(len + 1);
	ck_assert_ptr_nonnull(big);
	for (i = 0; i < len; i++)
		big[i] = (char)(i * 7919 % 251);	/* NULs included */
	big[len] = '\0';
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, big, len), (ssize_t)len);
	ck_assert_int_eq(resolv_read_fd(fd, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 0);

	/* valid lines first, then more than the limit: only the first
	 * RESOLV_READ_MAX bytes count, a line cut there is dropped
	 */
	memset(big, ' ', len);
	memcpy(big, "nameserver 192.0.2.1\n", 21);
	memcpy(big + RESOLV_READ_MAX - 12, "\nnameserver 192.0.2.2\n", 22);
	memcpy(big + len - 22, "\nnameserver 192.0.2.3\n", 22);
	ck_assert_int_eq(pwrite(fd, big, len, 0), (ssize_t)len);
	ck_assert_int_eq(resolv_read_fd(fd, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 1);
	ck_assert_a4(r.ns4[0], "192.0.2.1");
	free(big);
	close(fd);
	tmp_dir_remove(tmpdir);
}
END_TEST

/**
 * follow_suite() - Test cases
 *
 * Return: the suite
 */
static Suite *follow_suite(void)
{
	Suite *s = suite_create("follow");
	TCase *tc = tcase_create("settle");

	tcase_add_test(tc, test_settle_quiet_period);
	tcase_add_test(tc, test_settle_burst_once);
	tcase_add_test(tc, test_settle_flood_capped);
	suite_add_tcase(s, tc);

	tc = tcase_create("derive");
	tcase_add_test(tc, test_derive_follows_host);
	tcase_add_test(tc, test_derive_resolv_follows);
	tcase_add_test(tc, test_derive_given_values_stay);
	tcase_add_test(tc, test_derive_no_map_gw);
	tcase_add_test(tc, test_derive_no_address_keeps);
	tcase_add_test(tc, test_derive_default_route_lost_keeps);
	tcase_add_test(tc, test_derive_state_stays);
	tcase_add_test(tc, test_diff_lines);
	tcase_add_test(tc, test_diff_copied_addresses_and_routes);
	suite_add_tcase(s, tc);

	tc = tcase_create("resolv");
	tcase_add_test(tc, test_resolv_read_fd_garbage_and_huge);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite, CK_ENV chooses the verbosity
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(follow_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
