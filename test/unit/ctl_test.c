// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/ctl_test.c - Requests of the -c socket (passt/ctl.c): the
 * tables a request gives, and the requests refused
 *
 * Expected values restate pesto(1) (ours, which follows upstream's CLI):
 * "set" replaces an option's rules, "add" adds, "del" takes listening
 * ports out whatever their target, "clear host" empties -t and -u, "clear
 * ns" -T and -U (pasta only); malformed lines, unknown options or sides,
 * and deletions of ports not forwarded are refused with the line number.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/ports.h"
#include "../../passt/ctl.h"
#include "../../passt/fwd.h"

static struct conf c;
static struct fwd_table tbls[FWD_TBLS];
static char err[256];
static bool show, change;

/**
 * req() - ctl_parse() on a copy of @text
 * @text:	Request
 *
 * Return: ctl_parse() result
 */
static int req(const char *text)
{
	static char buf[CTL_REQ_MAX + 1];

	snprintf(buf, sizeof(buf), "%s", text);
	show = change = false;
	err[0] = '\0';
	return ctl_parse(&c, buf, tbls, &show, &change, err, sizeof(err));
}

/**
 * check_rule() - Compare a rule with expected ports
 * @t:		Table
 * @i:		Rule index
 * @first:	First port
 * @last:	Last port
 * @to:		Target of @first
 */
static void check_rule(const struct fwd_table *t, unsigned i, unsigned first,
		       unsigned last, unsigned to)
{
	ck_assert_uint_lt(i, t->n);
	ck_assert_uint_eq(t->rules[i].first, first);
	ck_assert_uint_eq(t->rules[i].last, last);
	ck_assert_uint_eq(t->rules[i].to, to);
}

/**
 * setup() - pasta configuration, empty tables
 */
static void setup(void)
{
	memset(&c, 0, sizeof(c));
	c.mode = MODE_PASTA;
	memset(tbls, 0, sizeof(tbls));
}

START_TEST(test_ctl_show)
{
	ck_assert_int_eq(req("show\n"), 0);
	ck_assert(show && !change);
	ck_assert_int_eq(req("\n\nshow"), 0);
	ck_assert(show);
}
END_TEST

START_TEST(test_ctl_add_set)
{
	ck_assert_int_eq(req("add t 8080:80\nadd u 5353\nadd T 5432\n"), 0);
	ck_assert(change && !show);
	check_rule(&tbls[FWD_TBL_T], 0, 8080, 8080, 80);
	check_rule(&tbls[FWD_TBL_U], 0, 5353, 5353, 5353);
	check_rule(&tbls[FWD_TBL_TNS], 0, 5432, 5432, 5432);

	/* "set" replaces the rules and "auto" of that option only */
	tbls[FWD_TBL_T].auto_on = true;
	ck_assert_int_eq(req("set t 2222:22"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 1);
	check_rule(&tbls[FWD_TBL_T], 0, 2222, 2222, 22);
	ck_assert(!tbls[FWD_TBL_T].auto_on);
	ck_assert_uint_eq(tbls[FWD_TBL_U].n, 1);

	ck_assert_int_eq(req("set t none"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 0);
	ck_assert_int_eq(req("add t auto,~22"), 0);
	ck_assert(tbls[FWD_TBL_T].auto_on);
	ck_assert(fwd_auto_excluded(&tbls[FWD_TBL_T], 22));
}
END_TEST

START_TEST(test_ctl_del)
{
	ck_assert_int_eq(req("add t 8000-8010:9000-9010"), 0);
	/* a port in the middle: two pieces, targets kept */
	ck_assert_int_eq(req("del t 8005"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 2);
	check_rule(&tbls[FWD_TBL_T], 0, 8000, 8004, 9000);
	check_rule(&tbls[FWD_TBL_T], 1, 8006, 8010, 9006);
	/* whatever the target: by listening port */
	ck_assert_int_eq(req("del t 8000-8004"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 1);
	check_rule(&tbls[FWD_TBL_T], 0, 8006, 8010, 9006);
	/* the bind address is part of what is deleted */
	ck_assert_int_eq(req("del t 127.0.0.1/8006"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "8006 is not forwarded"));
	ck_assert_int_eq(req("del t 8006-8010"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 0);

	ck_assert_int_eq(req("add u auto"), 0);
	ck_assert_int_eq(req("del u auto"), 0);
	ck_assert(!tbls[FWD_TBL_U].auto_on);
	ck_assert_int_eq(req("del u auto"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'auto' is not on"));
}
END_TEST

START_TEST(test_ctl_clear)
{
	ck_assert_int_eq(req("add t 80\nadd u 53\nadd T 5432\nadd U 5353"), 0);
	ck_assert_int_eq(req("clear host"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n + tbls[FWD_TBL_U].n, 0);
	ck_assert_uint_eq(tbls[FWD_TBL_TNS].n + tbls[FWD_TBL_UNS].n, 2);
	ck_assert_int_eq(req("clear ns"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_TNS].n + tbls[FWD_TBL_UNS].n, 0);
}
END_TEST

/* podman's forwarder: --add, the same --add again (no-op), --delete with
 * the same arguments, targets included; upstream's pif names for -C;
 * deleting ports of "PORTS,auto"
 */
START_TEST(test_ctl_podman)
{
	static const char add[] = "add t 0.0.0.0/8080:10.88.0.2/80\n"
				  "add t [::]/8080:fd00::2/80";
	static const char del[] = "del t 0.0.0.0/8080:10.88.0.2/80\n"
				  "del t [::]/8080:fd00::2/80";

	memset(tbls, 0, sizeof(tbls));
	ck_assert_int_eq(req(add), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 2);
	ck_assert_int_eq(req(add), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 2);
	ck_assert_int_eq(req(del), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 0);

	ck_assert_int_eq(req("add t 80\nadd U 53\nclear HOST"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].n, 0);
	ck_assert_uint_eq(tbls[FWD_TBL_UNS].n, 1);
	ck_assert_int_eq(req("clear SPLICE"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_UNS].n, 0);

	ck_assert_int_eq(req("add t 8000-8010,auto"), 0);
	ck_assert(tbls[FWD_TBL_T].auto_on);
	ck_assert_int_eq(req("del t 8005,auto"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_nonly, 2);
	ck_assert(fwd_auto_excluded(&tbls[FWD_TBL_T], 8005));
	ck_assert(!fwd_auto_excluded(&tbls[FWD_TBL_T], 8004));
	ck_assert_int_eq(req("del t 8000-8010,auto"), 0);
	ck_assert(!tbls[FWD_TBL_T].auto_on);

	/* The pieces left keep their targets: port P still goes to P (or
	 * to P's own target), never to another port of the range
	 */
	ck_assert_int_eq(req("add t 7000-7010,auto"), 0);
	ck_assert_int_eq(req("del t 7005,auto"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_nonly, 2);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].first, 7000);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].last, 7004);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].to, 7000);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[1].first, 7006);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[1].last, 7010);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[1].to, 7006);
	ck_assert_int_eq(req("del t 7000,auto"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].first, 7001);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].to, 7001);
	ck_assert_int_eq(req("del t 7001-7010,auto"), 0);
	ck_assert(!tbls[FWD_TBL_T].auto_on);

	ck_assert_int_eq(req("add t 2000-2010:22-32,auto"), 0);
	ck_assert_int_eq(req("del t 2003-2004,auto"), 0);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_nonly, 2);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[0].to, 22);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[1].first, 2005);
	ck_assert_uint_eq(tbls[FWD_TBL_T].auto_only[1].to, 27);
	ck_assert_int_eq(req("del t 2000-2010,auto"), 0);
}
END_TEST

START_TEST(test_ctl_refused)
{
	static const struct {
		const char *req;
		const char *msg;
	} bad[] = {
		{ "add t 70000", "line 1: invalid port '70000'" },
		{ "show\nadd t 90-80", "line 2: inverted port range" },
		{ "add x 80", "option 'x' can't be changed here" },
		{ "add t", "missing option or spec" },
		{ "frob t 80", "unknown operation 'frob'" },
		{ "clear nowhere", "unknown pif 'nowhere'" },
		{ "del t 81", "port 81 is not forwarded" },
		{ "add t 80\nadd t 80:81", "line 2: host port 80 is already" },
		{ "show extra", "unknown operation" },
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(tbls, 0, sizeof(tbls));
		ck_assert_msg(req(bad[i].req) == -EINVAL, "accepted: %s",
			      bad[i].req);
		ck_assert_msg(strstr(err, bad[i].msg), "'%s' gave: %s",
			      bad[i].req, err);
	}

	/* passt has no -T, -U, nor a namespace side */
	c.mode = MODE_PASST;
	ck_assert_int_eq(req("add T 80"), -EINVAL);
	ck_assert_int_eq(req("clear ns"), -EINVAL);
	ck_assert_int_eq(req("add t 80"), 0);
	/* nor does a protocol turned off */
	c.no_udp = true;
	ck_assert_int_eq(req("add u 53"), -EINVAL);
}
END_TEST

/**
 * ctl_suite() - Request parsing
 *
 * Return: the suite
 */
static Suite *ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("requests");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_ctl_show);
	tcase_add_test(tc, test_ctl_add_set);
	tcase_add_test(tc, test_ctl_del);
	tcase_add_test(tc, test_ctl_clear);
	tcase_add_test(tc, test_ctl_refused);
	tcase_add_test(tc, test_ctl_podman);
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
	SRunner *sr = srunner_create(ctl_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
