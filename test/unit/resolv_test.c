// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/resolv_test.c - resolv.conf reading and DNS defaults (conf/resolv.c)
 *
 * Sources: resolv.conf(5) (keywords, "the last instance wins" for search
 * and domain, comment characters), the stub file systemd-resolved writes
 * (systemd-resolved.service(8): "nameserver 127.0.0.53", "options edns0
 * trust-ad", "search ."), RFC 1035 2.3.4 (63-octet labels, 255-octet names)
 * and the upstream passt(1) description of --dns-host ("by default, the
 * first nameserver from the host's /etc/resolv.conf") and of DNS traffic to
 * the --map-host-loopback address.  Addresses are documentation ranges
 * (RFC 5737, RFC 3849).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../conf/resolv.h"
#include "fake_parse.h"
#include "fake_tmp.h"

static char tmpdir[64];
static char path[128];
static struct resolv_conf r;
static struct conf c;

/**
 * setup() - Per-test fixture: temporary directory, cleared configuration
 */
static void setup(void)
{
	tmp_dir_make(tmpdir, sizeof(tmpdir), "resolv_test");
	snprintf(path, sizeof(path), "%s/resolv.conf", tmpdir);
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	c.ip4.enabled = c.ip6.enabled = true;
}

/**
 * teardown() - Remove the fixture's temporary files
 */
static void teardown(void)
{
	tmp_dir_remove(tmpdir);
}

/**
 * write_file() - Write the test resolv.conf
 * @text:	Contents
 */
static void write_file(const char *text)
{
	tmp_write(path, text);
}

START_TEST(test_resolv_read_nameservers_and_search)
{
	write_file("# generated\n"
		   "nameserver 203.0.113.53\n"
		   "nameserver 2001:db8::53\n"
		   "nameserver\t198.51.100.53\n"
		   "search example.com example.org\n"
		   "options edns0\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 2);
	ck_assert_a4(r.ns4[0], "203.0.113.53");
	ck_assert_a4(r.ns4[1], "198.51.100.53");
	ck_assert_uint_eq(r.ns6_count, 1);
	ck_assert_a6(r.ns6[0], "2001:db8::53");
	ck_assert_uint_eq(r.search_count, 2);
	ck_assert_str_eq(r.search[0], "example.com");
	ck_assert_str_eq(r.search[1], "example.org");
}
END_TEST

/* resolv.conf(5): lines starting with ';' or '#' are comments */
START_TEST(test_resolv_read_comments_ignored)
{
	write_file("; nameserver 203.0.113.1\n"
		   "#nameserver 203.0.113.2\n"
		   "   \n"
		   "\n"
		   "nameserver 203.0.113.3\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 1);
	ck_assert_a4(r.ns4[0], "203.0.113.3");
}
END_TEST

/* resolv.conf(5): "domain" and "search" are exclusive, the last one wins */
START_TEST(test_resolv_read_last_search_or_domain_wins)
{
	write_file("search a.example b.example\ndomain c.example\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.search_count, 1);
	ck_assert_str_eq(r.search[0], "c.example");

	write_file("domain c.example\nsearch a.example b.example\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.search_count, 2);
	ck_assert_str_eq(r.search[0], "a.example");
}
END_TEST

/* systemd-resolved's stub file: loopback server, "search ." (root only) */
START_TEST(test_resolv_read_systemd_stub)
{
	write_file("nameserver 127.0.0.53\n"
		   "options edns0 trust-ad\n"
		   "search .\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 1);
	ck_assert_a4(r.ns4[0], "127.0.0.53");
	ck_assert_uint_eq(r.search_count, 0);
}
END_TEST

START_TEST(test_resolv_read_link_local_v6_skipped)
{
	write_file("nameserver fe80::1%eth0\nnameserver 2001:db8::1\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns6_count, 1);
	ck_assert_a6(r.ns6[0], "2001:db8::1");
}
END_TEST

START_TEST(test_resolv_read_garbage_ignored)
{
	write_file("nameserver\n"
		   "nameserver not-an-address\n"
		   "nameserver 300.1.1.1\n"
		   "nameserverx 203.0.113.9\n"
		   "search bad..domain good.example bad_\x01.example\n"
		   "\x01\x02\xff garbage\n"
		   "nameserver 203.0.113.10 trailing junk\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 1);
	ck_assert_a4(r.ns4[0], "203.0.113.10");
	ck_assert_uint_eq(r.search_count, 1);
	ck_assert_str_eq(r.search[0], "good.example");
}
END_TEST

START_TEST(test_resolv_read_limits)
{
	char buf[4096];
	size_t n = 0;
	unsigned i;

	for (i = 1; i <= RESOLV_MAX_NS + 3; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "nameserver 203.0.113.%u\n", i);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "search");
	for (i = 0; i < CONF_MAX_SEARCH + 2; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " d%u.example",
				      i);
	snprintf(buf + n, sizeof(buf) - n, "\n");
	write_file(buf);

	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, RESOLV_MAX_NS);
	ck_assert_a4(r.ns4[RESOLV_MAX_NS - 1], "203.0.113.8");
	ck_assert_uint_eq(r.search_count, CONF_MAX_SEARCH);
}
END_TEST

START_TEST(test_resolv_read_long_line)
{
	static char buf[70000];

	memset(buf, 'x', sizeof(buf) - 32);
	snprintf(buf + sizeof(buf) - 32, 32, "\nnameserver 203.0.113.4\n");
	write_file(buf);
	ck_assert_int_eq(resolv_read(path, &r), 0);
	ck_assert_uint_eq(r.ns4_count, 1);
}
END_TEST

START_TEST(test_resolv_read_missing_file)
{
	ck_assert_int_eq(resolv_read("/nonexistent/resolv.conf", &r), -ENOENT);
	ck_assert_uint_eq(r.ns4_count, 0);
}
END_TEST

START_TEST(test_resolv_domain_norm_forms)
{
	char out[CONF_SEARCH_LEN];
	char longname[300];
	char label64[70];

	ck_assert_int_eq(resolv_domain_norm(out, "example.com", 11), 0);
	ck_assert_str_eq(out, "example.com");
	/* upstream: "--search none." searches a domain called "none" */
	ck_assert_int_eq(resolv_domain_norm(out, "none.", 5), 0);
	ck_assert_str_eq(out, "none");
	ck_assert_int_eq(resolv_domain_norm(out, ".", 1), -EINVAL);
	ck_assert_int_eq(resolv_domain_norm(out, "", 0), -EINVAL);
	ck_assert_int_eq(resolv_domain_norm(out, "a..b", 4), -EINVAL);
	ck_assert_int_eq(resolv_domain_norm(out, ".a", 2), -EINVAL);
	ck_assert_int_eq(resolv_domain_norm(out, "a b", 3), -EINVAL);
	ck_assert_int_eq(resolv_domain_norm(out, "a/b", 3), -EINVAL);

	/* RFC 1035 2.3.4: labels are 63 octets or less */
	memset(label64, 'a', 64);
	ck_assert_int_eq(resolv_domain_norm(out, label64, 63), 0);
	ck_assert_int_eq(resolv_domain_norm(out, label64, 64), -EINVAL);

	/* 253 characters (255 octets on the wire) is the longest name */
	memset(longname, 'a', sizeof(longname));
	for (size_t i = 60; i < sizeof(longname); i += 61)
		longname[i] = '.';
	ck_assert_int_eq(resolv_domain_norm(out, longname, 253), 0);
	ck_assert_int_eq(resolv_domain_norm(out, longname, 254), -EINVAL);
}
END_TEST

START_TEST(test_resolv_apply_plain_servers)
{
	write_file("nameserver 203.0.113.53\nnameserver 2001:db8::53\n"
		   "search example.com\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);
	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_a4(c.ip4.dns[0], "203.0.113.53");
	ck_assert_a4(c.ip4.dns_host, "203.0.113.53");
	ck_assert_uint_eq(c.ip4.dns_fwd.s_addr, 0);
	ck_assert_uint_eq(c.ip6.dns_count, 1);
	ck_assert_a6(c.ip6.dns[0], "2001:db8::53");
	ck_assert_a6(c.ip6.dns_host, "2001:db8::53");
	ck_assert_uint_eq(c.search_count, 1);
	ck_assert_str_eq(c.search[0], "example.com");
}
END_TEST

/* A loopback resolver (127.0.0.53) reaches the guest as the host-mapping
 * address, which then forwards DNS to the loopback resolver
 */
START_TEST(test_resolv_apply_loopback_through_map_host_loopback)
{
	write_file("nameserver 127.0.0.53\nnameserver ::1\n");
	c.ip4.map_host_loopback = a4("198.51.100.2");
	c.ip6.map_host_loopback = a6("fe80::1");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);

	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_a4(c.ip4.dns[0], "198.51.100.2");
	ck_assert_a4(c.ip4.dns_fwd, "198.51.100.2");
	ck_assert_a4(c.ip4.dns_host, "127.0.0.53");

	ck_assert_uint_eq(c.ip6.dns_count, 1);
	ck_assert_a6(c.ip6.dns[0], "fe80::1");
	ck_assert_a6(c.ip6.dns_fwd, "fe80::1");
	ck_assert_a6(c.ip6.dns_host, "::1");
}
END_TEST

START_TEST(test_resolv_apply_loopback_skipped_without_mapping)
{
	write_file("nameserver 127.0.0.53\nnameserver 203.0.113.53\n");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);
	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_a4(c.ip4.dns[0], "203.0.113.53");
	ck_assert_uint_eq(c.ip4.dns_fwd.s_addr, 0);
	/* --dns-host default: the first name server, loopback or not */
	ck_assert_a4(c.ip4.dns_host, "127.0.0.53");
}
END_TEST

START_TEST(test_resolv_apply_given_dns_forward_kept)
{
	write_file("nameserver 127.0.0.1\n");
	c.ip4.map_host_loopback = a4("198.51.100.2");
	c.ip4.dns_fwd = a4("203.0.113.3");
	c.ip4.dns_host = a4("203.0.113.200");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);
	ck_assert_a4(c.ip4.dns_fwd, "203.0.113.3");
	ck_assert_a4(c.ip4.dns_host, "203.0.113.200");
	ck_assert_a4(c.ip4.dns[0], "198.51.100.2");
}
END_TEST

START_TEST(test_resolv_apply_duplicates_merged)
{
	write_file("nameserver 127.0.0.53\nnameserver 127.0.0.1\n"
		   "nameserver 198.51.100.2\nnameserver 203.0.113.1\n"
		   "nameserver 203.0.113.2\nnameserver 203.0.113.3\n"
		   "nameserver 203.0.113.4\n");
	c.ip4.map_host_loopback = a4("198.51.100.2");
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);
	ck_assert_uint_eq(c.ip4.dns_count, CONF_MAX_DNS);
	ck_assert_a4(c.ip4.dns[0], "198.51.100.2");
	ck_assert_a4(c.ip4.dns[1], "203.0.113.1");
	ck_assert_a4(c.ip4.dns[3], "203.0.113.3");
}
END_TEST

START_TEST(test_resolv_apply_keep_flags)
{
	write_file("nameserver 203.0.113.53\nsearch example.com\n");
	c.ip4.dns[0] = a4("203.0.113.99");
	c.ip4.dns_count = 1;
	snprintf(c.search[0], CONF_SEARCH_LEN, "given.example");
	c.search_count = 1;
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, true, true);
	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_a4(c.ip4.dns[0], "203.0.113.99");
	ck_assert_a4(c.ip4.dns_host, "203.0.113.53");
	ck_assert_str_eq(c.search[0], "given.example");
}
END_TEST

/* A disabled family offers the guest nothing, but its name server is still
 * the host's: --dns-forward of the other family may forward there
 */
START_TEST(test_resolv_apply_disabled_family_untouched)
{
	write_file("nameserver 203.0.113.53\nnameserver 2001:db8::53\n");
	c.ip6.enabled = false;
	ck_assert_int_eq(resolv_read(path, &r), 0);
	resolv_apply(&c, &r, false, false);
	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_uint_eq(c.ip6.dns_count, 0);
	ck_assert_a6(c.ip6.dns_host, "2001:db8::53");
}
END_TEST

/**
 * resolv_suite() - Test cases of conf/resolv.c
 *
 * Return: the suite
 */
static Suite *resolv_suite(void)
{
	Suite *s = suite_create("resolv");
	TCase *tc;

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resolv_read_nameservers_and_search);
	tcase_add_test(tc, test_resolv_read_comments_ignored);
	tcase_add_test(tc, test_resolv_read_last_search_or_domain_wins);
	tcase_add_test(tc, test_resolv_read_systemd_stub);
	tcase_add_test(tc, test_resolv_read_link_local_v6_skipped);
	tcase_add_test(tc, test_resolv_read_garbage_ignored);
	tcase_add_test(tc, test_resolv_read_limits);
	tcase_add_test(tc, test_resolv_read_long_line);
	tcase_add_test(tc, test_resolv_read_missing_file);
	tcase_add_test(tc, test_resolv_domain_norm_forms);
	suite_add_tcase(s, tc);

	tc = tcase_create("apply");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resolv_apply_plain_servers);
	tcase_add_test(tc, test_resolv_apply_loopback_through_map_host_loopback);
	tcase_add_test(tc, test_resolv_apply_loopback_skipped_without_mapping);
	tcase_add_test(tc, test_resolv_apply_given_dns_forward_kept);
	tcase_add_test(tc, test_resolv_apply_duplicates_merged);
	tcase_add_test(tc, test_resolv_apply_keep_flags);
	tcase_add_test(tc, test_resolv_apply_disabled_family_untouched);
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
	SRunner *sr = srunner_create(resolv_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
