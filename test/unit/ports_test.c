// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/ports_test.c - Port forwarding specs (conf/ports.c)
 *
 * The "examples" case walks every example of the -t option in the upstream
 * passt(1) man page (passt.top, "-t, --tcp-ports spec"); the expected rules
 * restate the sentence the man page gives for each example.  The "all"
 * ranges use the kernel's default ip_local_port_range, 32768-60999
 * (Documentation/networking/ip-sysctl.rst), written to a file the fixture
 * points fwd_ephemeral_path at, so the machine's own setting never matters.
 */
#include <check.h>
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/inany.h"
#include "../../conf/ports.h"
#include "fake_tmp.h"

static char tmpdir[64];
static char range_path[128];
static struct fwd_table t;
static char err[256];

/**
 * write_range() - Write an ip_local_port_range file and use it
 * @text:	File contents
 */
static void write_range(const char *text)
{
	tmp_write(range_path, text);
	fwd_ephemeral_path = range_path;
	fwd_ephemeral_load();	/* what fwd_spec_parse() uses */
}

/**
 * setup() - Per-test fixture: kernel-default port range file, empty table
 */
static void setup(void)
{
	tmp_dir_make(tmpdir, sizeof(tmpdir), "ports_test");
	snprintf(range_path, sizeof(range_path), "%s/range", tmpdir);
	write_range("32768\t60999\n");	/* kernel default */
	memset(&t, 0, sizeof(t));
	err[0] = '\0';
}

/**
 * teardown() - Remove the fixture's temporary files
 */
static void teardown(void)
{
	tmp_dir_remove(tmpdir);
}

/**
 * parse() - fwd_spec_parse() on the host side, into the shared table
 * @spec:	Spec to parse
 *
 * Return: fwd_spec_parse() result
 */
static int parse(const char *spec)
{
	return fwd_spec_parse(&t, spec, false, err, sizeof(err));
}

/**
 * check_rule() - Compare one rule with expected values
 * @i:		Rule index in the shared table
 * @first:	Expected first port
 * @last:	Expected last port
 * @to:		Expected target of @first
 * @weak:	Expected weak flag
 */
static void check_rule(unsigned i, unsigned first, unsigned last, unsigned to,
		       bool weak)
{
	ck_assert_uint_lt(i, t.n);
	ck_assert_uint_eq(t.rules[i].first, first);
	ck_assert_uint_eq(t.rules[i].last, last);
	ck_assert_uint_eq(t.rules[i].to, to);
	ck_assert_int_eq(t.rules[i].weak, weak);
}

/**
 * check_addr() - Compare the bind address and interface of one rule
 * @i:		Rule index
 * @af:		Expected family
 * @addr:	Expected address text (NULL for AF_UNSPEC)
 * @ifname:	Expected interface ("" for none)
 */
static void check_addr(unsigned i, int af, const char *addr,
		       const char *ifname)
{
	union inany want;
	struct in_addr a4;

	ck_assert_int_eq(t.rules[i].af, af);
	ck_assert_str_eq(t.rules[i].ifname, ifname);
	if (af == AF_INET) {
		ck_assert_int_eq(inet_pton(AF_INET, addr, &a4), 1);
		inany_from_v4(&want, a4);
		ck_assert(inany_equals(&t.rules[i].addr, &want));
	} else if (af == AF_INET6) {
		ck_assert_int_eq(inet_pton(AF_INET6, addr, &want.a6), 1);
		ck_assert(inany_equals(&t.rules[i].addr, &want));
	}
}

/**
 * struct example - An example of the man page and the rules it makes
 * @spec:	-t argument
 * @n:		Rules it makes
 * @nrules:	How many of them @r checks, from the first
 * @r:		Expected first port, last port, target of the first, weak
 * @naddr:	How many rules, from the first, have their bind address and
 *		interface checked against @af, @addr and @ifname
 * @af:		Expected family
 * @addr:	Expected address text (NULL for AF_UNSPEC)
 * @ifname:	Expected interface ("" for none)
 */
struct example {
	const char *spec;
	unsigned n, nrules;
	struct { unsigned first, last, to; bool weak; } r[3];
	unsigned naddr;
	int af;
	const char *addr, *ifname;
};

static const struct example examples[] = {
	/* man page: "-t 22: Forward local port 22 to port 22" */
	{ "22", 1, 1, { { 22, 22, 22, false } }, 1, AF_UNSPEC, NULL, "" },
	/* man page: "-t 22:23: Forward local port 22 to port 23" */
	{ "22:23", 1, 1, { { 22, 22, 23, false } }, 0, 0, NULL, NULL },
	/* man page: "-t 22,25: Forward local ports 22 and 25 to ports 22 and
	 * 25"
	 */
	{ "22,25", 2, 2, { { 22, 22, 22, false }, { 25, 25, 25, false } },
	  0, 0, NULL, NULL },
	/* man page: "-t 22-80: ports between 22 and 80 to corresponding
	 * ports"
	 */
	{ "22-80", 1, 1, { { 22, 80, 22, false } }, 0, 0, NULL, NULL },
	/* man page: "-t 22-80:32-90: ports between 22 and 80 to ports
	 * between 32 and 90"
	 */
	{ "22-80:32-90", 1, 1, { { 22, 80, 32, false } }, 0, 0, NULL, NULL },
	/* man page: "-t 203.0.113.1/22: local port 22, bound to
	 * 203.0.113.1"
	 */
	{ "203.0.113.1/22", 1, 1, { { 22, 22, 22, false } },
	  1, AF_INET, "203.0.113.1", "" },
	/* Same form with an IPv6 documentation address (RFC 3849) */
	{ "2001:db8::1/22", 1, 1, { { 22, 22, 22, false } },
	  1, AF_INET6, "2001:db8::1", "" },
	/* man page: "-t 203.0.113.1%eth0/22: bound to 203.0.113.1 and
	 * interface eth0"
	 */
	{ "203.0.113.1%eth0/22", 1, 1, { { 22, 22, 22, false } },
	  1, AF_INET, "203.0.113.1", "eth0" },
	/* man page: "-t %eth0/22: bound to any address on interface eth0" */
	{ "%eth0/22", 1, 1, { { 22, 22, 22, false } },
	  1, AF_UNSPEC, NULL, "eth0" },
	/* man page: "-t 2000-5000,~3000-3010: between 2000 and 5000, except
	 * for those between 3000 and 3010"
	 */
	{ "2000-5000,~3000-3010", 2, 2,
	  { { 2000, 2999, 2000, false }, { 3011, 5000, 3011, false } },
	  0, 0, NULL, NULL },
	/* man page: "-t 203.0.113.1/20-30,~25: for 203.0.113.1, ports
	 * between 20 and 24 and between 26 and 30"
	 */
	{ "203.0.113.1/20-30,~25", 2, 2,
	  { { 20, 24, 20, false }, { 26, 30, 26, false } },
	  2, AF_INET, "203.0.113.1", "" },
	/* man page: "-t ~20000-20010: all ports, except 20000 to 20010";
	 * "all" means non-ephemeral, so 32768-60999 is left out too
	 */
	{ "~20000-20010", 3, 3,
	  { { 1, 19999, 1, true }, { 20011, 32767, 20011, true },
	    { 61000, 65535, 61000, true } }, 0, 0, NULL, NULL },
	/* man page: "-t all: all unbound, non-ephemeral ports"; upstream's
	 * example output for the default range lists 1-32767 and 61000-65535
	 */
	{ "all", 2, 2,
	  { { 1, 32767, 1, true }, { 61000, 65535, 61000, true } },
	  1, AF_UNSPEC, NULL, "" },
	/* man page: "-t ::1/all: for the local address ::1, all ... ports" */
	{ "::1/all", 2, 1, { { 1, 32767, 1, true } }, 2, AF_INET6, "::1", "" },
	{ "all,~22", 3, 3,
	  { { 1, 21, 1, true }, { 23, 32767, 23, true },
	    { 61000, 65535, 61000, true } }, 0, 0, NULL, NULL },
	/* man page: "-t none: Don't forward any ports" */
	{ "none", 0, 0, { { 0 } }, 0, 0, NULL, NULL },
};

/* One row of examples[] (loop test: _i is the row) */
START_TEST(test_fwd_spec_parse_example)
{
	const struct example *e = &examples[_i];
	unsigned i;

	ck_assert_msg(parse(e->spec) == 0, "-t %s: %s", e->spec, err);
	ck_assert_uint_eq(t.n, e->n);
	for (i = 0; i < e->nrules; i++)
		check_rule(i, e->r[i].first, e->r[i].last, e->r[i].to,
			   e->r[i].weak);
	for (i = 0; i < e->naddr; i++)
		check_addr(i, e->af, e->addr, e->ifname);
}
END_TEST

/**
 * check_target() - Compare the target address of one rule
 * @i:		Rule index
 * @addr:	Expected address text, NULL for none
 */
static void check_target(unsigned i, const char *addr)
{
	union inany want;
	struct in_addr a4;

	ck_assert_uint_lt(i, t.n);
	if (!addr) {
		ck_assert(!t.rules[i].tset);
		return;
	}
	ck_assert(t.rules[i].tset);
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		inany_from_v4(&want, a4);
	} else {
		memset(&want, 0, sizeof(want));
		ck_assert_int_eq(inet_pton(AF_INET6, addr, &want.a6), 1);
	}
	ck_assert(inany_equals(&t.rules[i].taddr, &want));
}

/* man page "-t auto": "Automatically forward any ports which are bound in
 * the namespace"; "-t ::1/auto": the same, "listening only on local
 * address ::1"; "-t 8000-8010,auto": "Forward ports in the range 8000-8010
 * if and only if they are bound in the namespace": so no rule forwards
 * them always, and no port outside the range is forwarded by "auto"
 */
START_TEST(test_fwd_spec_parse_auto)
{
	struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;

	ck_assert_int_eq(parse("auto"), 0);
	ck_assert(t.auto_on);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_int_eq(t.auto_bind.af, AF_UNSPEC);
	ck_assert_uint_eq(t.auto_nexc, 0);
	ck_assert(!fwd_auto_excluded(&t, 1));
	ck_assert(!fwd_auto_excluded(&t, 65535));

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("::1/auto"), 0);
	ck_assert(t.auto_on);
	ck_assert_int_eq(t.auto_bind.af, AF_INET6);
	ck_assert(!memcmp(&t.auto_bind.addr.a6, &lo6, sizeof(lo6)));

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("8000-8010,auto"), 0);
	ck_assert(t.auto_on);
	ck_assert_uint_eq(t.n, 0);
	ck_assert(fwd_auto_excluded(&t, 22));
	ck_assert(fwd_auto_excluded(&t, 7999));
	ck_assert(!fwd_auto_excluded(&t, 8000));
	ck_assert(!fwd_auto_excluded(&t, 8005));
	ck_assert(!fwd_auto_excluded(&t, 8010));
	ck_assert(fwd_auto_excluded(&t, 8011));
	ck_assert(fwd_auto_excluded(&t, 65535));

	/* the order of the elements doesn't matter */
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("auto,8000-8010"), 0);
	ck_assert_uint_eq(t.n, 0);
	ck_assert(fwd_auto_excluded(&t, 7999));
	ck_assert(!fwd_auto_excluded(&t, 8000));
}
END_TEST

/* "-t auto,~22": the exclusions apply to the ports "auto" finds; with
 * ports given, to those ports
 */
START_TEST(test_fwd_spec_parse_auto_exclusions)
{
	ck_assert_int_eq(parse("~80-90,auto,~22"), 0);
	ck_assert(t.auto_on);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_uint_eq(t.auto_nexc, 2);
	ck_assert(fwd_auto_excluded(&t, 22));
	ck_assert(fwd_auto_excluded(&t, 80));
	ck_assert(fwd_auto_excluded(&t, 90));
	ck_assert(!fwd_auto_excluded(&t, 21));
	ck_assert(!fwd_auto_excluded(&t, 23));
	ck_assert(!fwd_auto_excluded(&t, 91));
	ck_assert(!fwd_auto_excluded(&t, 8000));

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("8000-8010,~8005,auto"), 0);
	ck_assert_uint_eq(t.n, 0);
	ck_assert(!fwd_auto_excluded(&t, 8004));
	ck_assert(fwd_auto_excluded(&t, 8005));
	ck_assert(!fwd_auto_excluded(&t, 8006));
	ck_assert(fwd_auto_excluded(&t, 22));
}
END_TEST

/* man page: "Only forward ports in the specified set if the target ports
 * are bound in the namespace": "2222:22,auto" listens on 2222 while 22 is
 * bound there, and on nothing else
 */
START_TEST(test_fwd_spec_parse_auto_remap)
{
	uint16_t lport = 0;

	ck_assert_int_eq(parse("2222:22,8000-8010:9000-9010,auto"), 0);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_int_eq(fwd_auto_map(&t, 22, &lport), 0);
	ck_assert_uint_eq(lport, 2222);
	ck_assert_int_eq(fwd_auto_map(&t, 9005, &lport), 1);
	ck_assert_uint_eq(lport, 8005);
	ck_assert_int_eq(fwd_auto_map(&t, 2222, &lport), -1);
	ck_assert_int_eq(fwd_auto_map(&t, 8005, &lport), -1);
	ck_assert_int_eq(fwd_auto_map(&t, 9011, &lport), -1);

	/* without ports: the same port, unless excluded */
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("auto,~22"), 0);
	ck_assert_int_eq(fwd_auto_map(&t, 80, &lport), 0);
	ck_assert_uint_eq(lport, 80);
	ck_assert_int_eq(fwd_auto_map(&t, 22, &lport), -1);
}
END_TEST

/* "all,auto": every port, while bound in the namespace, as upstream (its
 * "all" with "auto" is the exclusion-only case with scanning)
 */
START_TEST(test_fwd_spec_parse_auto_with_all)
{
	ck_assert_int_eq(parse("all,auto"), 0);
	ck_assert(t.auto_on);
	ck_assert_uint_eq(t.n, 0);
	ck_assert(!fwd_auto_excluded(&t, 22));

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("auto,all,~22"), 0);
	ck_assert(t.auto_on);
	ck_assert_uint_eq(t.n, 0);
	ck_assert(fwd_auto_excluded(&t, 22));
	ck_assert(!fwd_auto_excluded(&t, 23));

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("auto,auto"), 0);	/* once, as upstream */
	ck_assert(t.auto_on);
}
END_TEST

/* "auto" with remapping or a target address, malformed, or in a second
 * option other than one adding ranges to an earlier "PORTS,auto": refused,
 * with nothing changed
 */
START_TEST(test_fwd_spec_parse_auto_rejected)
{
	static const char *const specs[] = {
		"auto:80", "~auto", "8000:9000,8001:9000,auto",
		"8000-8010:9000-9010,8011:9005,auto",
		"0.0.0.0/80:192.0.2.1/80,auto", "all:192.0.2.1,auto",
		"autox", "auto-1",
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		err[0] = '\0';
		ck_assert_msg(parse(specs[i]) == -EINVAL, "'%s' accepted",
			      specs[i]);
		ck_assert_str_ne(err, "");
	}
	ck_assert(!t.auto_on);
	ck_assert_uint_eq(t.n, 0);

	ck_assert_int_eq(parse("auto,~22"), 0);
	ck_assert_int_eq(parse("auto,8080"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "earlier option"));
	ck_assert_uint_eq(t.n, 0);
	ck_assert_uint_eq(t.auto_nexc, 1);

	/* two "PORTS,auto" options: both sets of ports */
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("9000,auto"), 0);
	ck_assert_int_eq(parse("8000-8010,auto"), 0);
	ck_assert(!fwd_auto_excluded(&t, 9000));
	ck_assert(!fwd_auto_excluded(&t, 8000));
	ck_assert(fwd_auto_excluded(&t, 8500));
	ck_assert_int_eq(parse("8005,auto"), -EINVAL);
	ck_assert_int_eq(parse("127.0.0.1/7000,auto"), -EINVAL);
	ck_assert_uint_eq(t.auto_nonly, 2);
}
END_TEST

/* man page: "-t 0.0.0.0/5000:192.0.2.5/6000: Forward local port 5000,
 * bound to any IPv4 address, to port 6000 on address 192.0.2.5"
 */
START_TEST(test_fwd_spec_parse_target_address)
{
	ck_assert_int_eq(parse("0.0.0.0/5000:192.0.2.5/6000"), 0);
	ck_assert_uint_eq(t.n, 1);
	check_rule(0, 5000, 5000, 6000, false);
	check_addr(0, AF_INET, "0.0.0.0", "");
	check_target(0, "192.0.2.5");
}
END_TEST

/* man page: "-t 127.0.0.6/all:192.0.2.6: For the local address 127.0.0.6,
 * forward all unbound, non-ephemeral ports [...] to the corresponding
 * port on 192.0.2.6"
 */
START_TEST(test_fwd_spec_parse_all_target_address)
{
	ck_assert_int_eq(parse("127.0.0.6/all:192.0.2.6"), 0);
	ck_assert_uint_eq(t.n, 2);
	check_rule(0, 1, 32767, 1, true);
	check_rule(1, 61000, 65535, 61000, true);
	check_addr(0, AF_INET, "127.0.0.6", "");
	check_target(0, "192.0.2.6");
	check_target(1, "192.0.2.6");
}
END_TEST

/* man page: "first[-last][:toaddr]": same ports, at that address; ranges
 * (c8145c3); an IPv6 target needs no brackets after ':', but may have them
 */
START_TEST(test_fwd_spec_parse_target_forms)
{
	ck_assert_int_eq(parse("0.0.0.0/8000-8004:10.88.0.2/80-84"), 0);
	check_rule(0, 8000, 8004, 80, false);
	check_target(0, "10.88.0.2");
	ck_assert_int_eq(parse("0.0.0.0/9000:10.88.0.2"), 0);
	check_rule(1, 9000, 9000, 9000, false);
	check_target(1, "10.88.0.2");
	ck_assert_int_eq(parse("[::]/8080:fd00::2/80"), 0);
	check_rule(2, 8080, 8080, 80, false);
	check_addr(2, AF_INET6, "::", "");
	check_target(2, "fd00::2");
	ck_assert_int_eq(parse("[::1]/7000:[fd00::3]/70"), 0);
	check_target(3, "fd00::3");
	/* no bind address: the wildcard of the target's family */
	ck_assert_int_eq(parse("6000:192.0.2.7/60"), 0);
	check_addr(4, AF_INET, "0.0.0.0", "");
	check_target(4, "192.0.2.7");
	/* an unspecified target is none */
	ck_assert_int_eq(parse("127.0.0.1/5000:0.0.0.0/50"), 0);
	check_target(5, NULL);
	/* a list, targets and not */
	ck_assert_int_eq(parse("198.51.100.1/22,23:192.0.2.8/2323"), 0);
	check_target(6, NULL);
	check_target(7, "192.0.2.8");
	check_rule(7, 23, 23, 2323, false);
}
END_TEST

/* Target addresses refused: on -T/-U, with "*" (upstream: "Did you mean
 * 0.0.0.0/... instead?"), of the other family than the bind address or of
 * both families in one spec, multicast, malformed
 */
START_TEST(test_fwd_spec_parse_target_address_rejected)
{
	static const char *const bad[] = {
		"*/5000:192.0.2.5/6000", "[::]/80:192.0.2.1/80",
		"0.0.0.0/80:2001:db8::1/80", "80:192.0.2.1,81:2001:db8::1",
		"80:224.0.0.1", "0.0.0.0/80:192.0.2.1/", "80:192.0.2.1/0",
		"80:192.0.2.999/80", "80:[192.0.2.1/80", "80-81:192.0.2.1/80-82",
		"~80:192.0.2.1", "all:nowhere",
		/* RFC 1122 3.2.1.3 (g), RFC 4291 2.5.3: never on a wire */
		"0.0.0.0/8020:127.0.0.1/9000", "8021:[::1]/9001",
		"all:127.0.0.5",
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		ck_assert_msg(parse(bad[i]) == -EINVAL, "'%s' accepted",
			      bad[i]);
		ck_assert_msg(err[0] != '\0', "no message for '%s'", bad[i]);
	}
	ck_assert_int_eq(fwd_spec_parse(&t, "22:192.0.2.1", true, err,
					sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "-t and -u only"));
	ck_assert_int_eq(parse("*/5000:192.0.2.5/6000"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "0.0.0.0/PORT:ADDR/PORT"));
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

/* podman's pesto forwarder (container-libs, pesto_linux.go): "-t
 * 0.0.0.0/PORT -t [::]/PORT", a host IP "[::1]/8080" or "[fd00::1]/80",
 * ranges "0.0.0.0/8000-8004"; the same spec twice is one rule (podman
 * expects adding to be idempotent)
 */
START_TEST(test_fwd_spec_parse_podman_forms)
{
	ck_assert_int_eq(parse("0.0.0.0/8080"), 0);
	ck_assert_int_eq(parse("[::]/8080"), 0);
	ck_assert_int_eq(parse("[::1]/9090"), 0);
	ck_assert_int_eq(parse("[fd00::1]/80"), 0);
	ck_assert_int_eq(parse("0.0.0.0/8000-8004"), 0);
	ck_assert_int_eq(parse("[::1]/5000-5003"), 0);
	ck_assert_uint_eq(t.n, 6);
	check_addr(0, AF_INET, "0.0.0.0", "");
	check_addr(1, AF_INET6, "::", "");
	check_rule(1, 8080, 8080, 8080, false);
	check_addr(2, AF_INET6, "::1", "");
	check_addr(3, AF_INET6, "fd00::1", "");
	check_rule(4, 8000, 8004, 8000, false);
	check_rule(5, 5000, 5003, 5000, false);

	ck_assert_int_eq(parse("[::]/8080"), 0);
	ck_assert_uint_eq(t.n, 6);
	ck_assert_int_eq(parse("[::]/8080:81"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "already forwarded"));
}
END_TEST

/* rootlesskit's pesto port driver: "--tcp-ports=0.0.0.0/8080:80" and, for
 * IPv6, the address as Go prints it, without brackets: "::/8080:80"
 */
START_TEST(test_fwd_spec_parse_rootlesskit_forms)
{
	ck_assert_int_eq(parse("0.0.0.0/8080:80"), 0);
	ck_assert_int_eq(parse("::/8080:80"), 0);
	ck_assert_int_eq(parse("2001:db8::1/8081:81"), 0);
	check_addr(0, AF_INET, "0.0.0.0", "");
	check_rule(0, 8080, 8080, 80, false);
	check_addr(1, AF_INET6, "::", "");
	check_rule(1, 8080, 8080, 80, false);
	check_addr(2, AF_INET6, "2001:db8::1", "");
	check_target(2, NULL);
}
END_TEST

/* "*" (upstream 296d7e3): the wildcard of both families, as no address;
 * "[*]" is refused (upstream's parser rewrite dropped it)
 */
START_TEST(test_fwd_spec_parse_star)
{
	ck_assert_int_eq(parse("*/8080"), 0);
	check_addr(0, AF_UNSPEC, NULL, "");
	ck_assert_int_eq(parse("*%lo/22"), 0);
	check_addr(1, AF_UNSPEC, NULL, "lo");
	ck_assert_int_eq(parse("*/auto"), 0);
	ck_assert(t.auto_on);
	ck_assert_int_eq(t.auto_bind.af, AF_UNSPEC);
	ck_assert_int_eq(parse("[*]/80"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "* for both families"));
	ck_assert_int_eq(parse("**/80"), -EINVAL);
	/* a word that is no keyword: every form of an element is named */
	ck_assert_int_eq(parse("foo"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'foo'"));
	ck_assert_ptr_nonnull(strstr(err, "all, all:ADDR, auto, none"));
	ck_assert_int_eq(parse("auto:192.0.2.5"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "~PORTS"));
	ck_assert_int_eq(parse("[::/80"), -EINVAL);
	ck_assert_int_eq(parse("[]/80"), -EINVAL);
	ck_assert_int_eq(parse("[::]]/80"), -EINVAL);
	ck_assert_uint_eq(t.n, 2);
}
END_TEST

START_TEST(test_fwd_spec_parse_range_shift)
{
	/* A-B:C keeps the length: 8000-8010 -> 9000-9010 */
	ck_assert_int_eq(parse("8000-8010:9000"), 0);
	check_rule(0, 8000, 8010, 9000, false);
}
END_TEST

START_TEST(test_fwd_spec_parse_exclusion_keeps_remap_offset)
{
	/* 1000-1009 -> 2000-2009 minus 1003-1004: 1005 still goes to 2005 */
	ck_assert_int_eq(parse("1000-1009:2000-2009,~1003-1004"), 0);
	ck_assert_uint_eq(t.n, 2);
	check_rule(0, 1000, 1002, 2000, false);
	check_rule(1, 1005, 1009, 2005, false);
}
END_TEST

START_TEST(test_fwd_spec_parse_port_limits)
{
	ck_assert_int_eq(parse("1"), 0);
	ck_assert_int_eq(parse("65535"), 0);
	check_rule(0, 1, 1, 1, false);
	check_rule(1, 65535, 65535, 65535, false);
}
END_TEST

/* Every one of these must be refused with a reason, and add nothing */
START_TEST(test_fwd_spec_parse_invalid_rejected)
{
	static const char *const bad[] = {
		"", "0", "65536", "99999999999999999999", "-1", "1-", "-",
		"80-22", "22-80:32-89", "22:0", "22:65536", "22,,25", ",22",
		"22,", "abc", "22a", " 22", "22 ", "+22", "0x16", "~", "~22:23",
		"~0", "1.2.3.4/", "/22", "999.1.1.1/22", "%/22",
		"%averyveryverylongifname/22", "all,22", "all,all", "none,22",
		"22,none", "22:23:24", "22-80,50", "22,22", "~1-65535",
		"22,~22", "22-80:65530", "203.0.113.1%eth 0/22", "2001:db8::zz",
		"1-2-3", "22:-", ":22", "22:", "\n", "2\n2",
		"\x1b[31m", "22,\xff",
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		ck_assert_msg(parse(bad[i]) == -EINVAL, "'%s' accepted", bad[i]);
		ck_assert_msg(err[0] != '\0', "no message for '%s'", bad[i]);
		ck_assert_msg(!strchr(err, '\n'), "multi-line for '%s'", bad[i]);
	}
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

START_TEST(test_fwd_spec_parse_null_rejected)
{
	ck_assert_int_eq(fwd_spec_parse(&t, NULL, false, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(fwd_spec_parse(&t, "22", false, NULL, 0), 0);
	ck_assert_int_eq(fwd_spec_parse(&t, "0", false, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_fwd_spec_parse_long_spec_rejected)
{
	static char spec[FWD_SPEC_MAX_LEN + 2];

	memset(spec, '1', sizeof(spec) - 1);
	ck_assert_int_eq(parse(spec), -EINVAL);
}
END_TEST

START_TEST(test_fwd_spec_parse_overlap_across_options_rejected)
{
	ck_assert_int_eq(parse("22"), 0);
	ck_assert_int_eq(parse("20-30"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "22"));
	ck_assert_uint_eq(t.n, 1);
}
END_TEST

START_TEST(test_fwd_spec_parse_same_port_other_address_accepted)
{
	ck_assert_int_eq(parse("203.0.113.1/22"), 0);
	ck_assert_int_eq(parse("203.0.113.2/22"), 0);
	ck_assert_int_eq(parse("%eth0/22"), 0);
	ck_assert_int_eq(parse("22"), 0);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_int_eq(parse("203.0.113.1%eth0/22"), 0);
	ck_assert_int_eq(parse("203.0.113.2/20-25"), -EINVAL);
	ck_assert_uint_eq(t.n, 5);
}
END_TEST

START_TEST(test_fwd_spec_parse_failed_spec_leaves_table)
{
	ck_assert_int_eq(parse("10-20"), 0);
	/* first element fine, second one bad: nothing of it is kept */
	ck_assert_int_eq(parse("30,0"), -EINVAL);
	ck_assert_uint_eq(t.n, 1);
	check_rule(0, 10, 20, 10, false);
}
END_TEST

START_TEST(test_fwd_spec_parse_table_full_rejected)
{
	char spec[8];
	unsigned i;

	for (i = 0; i < CONF_MAX_FWD_RULES; i++) {
		snprintf(spec, sizeof(spec), "%u", 1000 + i);
		ck_assert_int_eq(parse(spec), 0);
	}
	ck_assert_uint_eq(t.n, CONF_MAX_FWD_RULES);
	ck_assert_int_eq(parse("5000"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "too many"));
	ck_assert_uint_eq(t.n, CONF_MAX_FWD_RULES);
}
END_TEST

START_TEST(test_fwd_spec_parse_too_many_pieces_rejected)
{
	/* 1-1000 with every even port excluded: 500 pieces > 256 */
	static char spec[4096];
	size_t n;
	unsigned p;

	n = (size_t)snprintf(spec, sizeof(spec), "1-1000");
	for (p = 2; p <= 1000 && n < sizeof(spec) - 8; p += 4)
		n += (size_t)snprintf(spec + n, sizeof(spec) - n, ",~%u-%u",
				      p, p);
	ck_assert_int_eq(parse(spec), -EINVAL);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

START_TEST(test_fwd_spec_parse_ns_side_same_rules)
{
	ck_assert_int_eq(fwd_spec_parse(&t, "8080:80", true, err,
					sizeof(err)), 0);
	check_rule(0, 8080, 8080, 80, false);
	ck_assert_int_eq(fwd_spec_parse(&t, "8080", true, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "namespace"));
}
END_TEST

/* ip_local_port_range "40000 50000": "all" is 1-39999 and 50001-65535 */
START_TEST(test_fwd_ephemeral_range_from_file)
{
	uint16_t first, last;

	write_range("40000 50000\n");
	fwd_ephemeral_range(&first, &last);
	ck_assert_uint_eq(first, 40000);
	ck_assert_uint_eq(last, 50000);
	ck_assert_int_eq(parse("all"), 0);
	ck_assert_uint_eq(t.n, 2);
	check_rule(0, 1, 39999, 1, true);
	check_rule(1, 50001, 65535, 50001, true);
}
END_TEST

/* Unreadable or bogus file: kernel default 32768-60999 (ip-sysctl.rst) */
START_TEST(test_fwd_ephemeral_range_fallback)
{
	uint16_t first, last;

	fwd_ephemeral_path = "/nonexistent/ip_local_port_range";
	fwd_ephemeral_range(&first, &last);
	ck_assert_uint_eq(first, 32768);
	ck_assert_uint_eq(last, 60999);

	write_range("60000 1000\n");
	fwd_ephemeral_range(&first, &last);
	ck_assert_uint_eq(first, 32768);
	ck_assert_uint_eq(last, 60999);

	write_range("garbage\n");
	fwd_ephemeral_range(&first, &last);
	ck_assert_uint_eq(first, 32768);
}
END_TEST

/* The range is read by fwd_ephemeral_load() only: a spec parsed at run
 * time (-c, seccomp filter on, no file system) opens no file
 */
START_TEST(test_fwd_ephemeral_range_read_once)
{
	write_range("40000 50000\n");
	tmp_write(range_path, "20000 30000\n");
	ck_assert_int_eq(parse("all"), 0);
	ck_assert_uint_eq(t.n, 2);
	check_rule(0, 1, 39999, 1, true);
	check_rule(1, 50001, 65535, 50001, true);
	fwd_ephemeral_path = "/nonexistent/ip_local_port_range";
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(parse("~22"), 0);
	ck_assert_uint_eq(t.n, 3);
	check_rule(0, 1, 21, 1, true);
	check_rule(1, 23, 39999, 23, true);
	check_rule(2, 50001, 65535, 50001, true);
}
END_TEST

/* 200 exclusions, last port first (more than glibc's qsort() sorts on the
 * stack): 100-600 less the odd ports 101-499 is 100, 102, ..., 498 and
 * 500-600
 */
START_TEST(test_fwd_exclusions_many_unsorted)
{
	static char spec[FWD_SPEC_MAX_LEN + 1];
	size_t n = 0;
	unsigned p, i;

	n += (size_t)snprintf(spec + n, sizeof(spec) - n, "100-600");
	for (p = 499; p >= 101; p -= 2)
		n += (size_t)snprintf(spec + n, sizeof(spec) - n, ",~%u", p);
	ck_assert_uint_le(n, FWD_SPEC_MAX_LEN);
	ck_assert_int_eq(parse(spec), 0);
	ck_assert_uint_eq(t.n, 201);
	for (i = 0; i < 200; i++)
		check_rule(i, 100 + 2 * i, 100 + 2 * i, 100 + 2 * i, false);
	check_rule(200, 500, 600, 500, false);
}
END_TEST

/* fwd_spec_parse() makes no system call: it also runs for -c requests,
 * under the daemon's seccomp filter, where any call off the list kills the
 * daemon (openat() of ip_local_port_range did, and glibc's qsort() calling
 * sysinfo() for 171 exclusions or more).  A child parses an exclusion-only
 * spec with 200 exclusions, last one first, and "all", with a filter that
 * allows exit_group() only.
 */
START_TEST(test_fwd_spec_parse_no_syscall)
{
	static char spec[FWD_SPEC_MAX_LEN + 1];
	scmp_filter_ctx sc;
	size_t n = 0;
	int status;
	unsigned p;
	pid_t pid;

	for (p = 499; p >= 101; p -= 2)
		n += (size_t)snprintf(spec + n, sizeof(spec) - n, "%s~%u",
				      n ? "," : "", p);
	ck_assert_uint_le(n, FWD_SPEC_MAX_LEN);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		sc = seccomp_init(SCMP_ACT_KILL_PROCESS);
		if (!sc || seccomp_rule_add(sc, SCMP_ACT_ALLOW,
					    SCMP_SYS(exit_group), 0))
			_exit(2);
#ifdef SANITIZER_BUILD
		/* The sanitizer runtime's own calls (its shadow memory, its
		 * signal stack), not the parser's: the release build's run
		 * of this test holds the parser to exit_group() alone
		 */
		if (seccomp_rule_add(sc, SCMP_ACT_ALLOW,
				     SCMP_SYS(sigaltstack), 0) ||
		    seccomp_rule_add(sc, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 0) ||
		    seccomp_rule_add(sc, SCMP_ACT_ALLOW, SCMP_SYS(munmap), 0) ||
		    seccomp_rule_add(sc, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 0))
			_exit(2);
#endif
		if (seccomp_load(sc))
			_exit(2);
		/* 1-100, 102, 104 ... 498, 500-32767, 61000-65535 */
		if (parse(spec) || t.n != 202)
			_exit(3);
		memset(&t, 0, sizeof(t));
		if (parse("all") || t.n != 2)
			_exit(4);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		ck_abort_msg("parser killed by signal %d (SIGSYS is %d: a "
			     "system call)", WTERMSIG(status), SIGSYS);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(test_fwd_rule_fmt_forms)
{
	char buf[128];

	ck_assert_int_eq(parse("203.0.113.1%eth0/22"), 0);
	ck_assert_int_eq(parse("22-80:32-90"), 0);
	ck_assert_int_eq(parse("2001:db8::1/all"), 0);
	fwd_rule_fmt(&t.rules[0], buf, sizeof(buf));
	ck_assert_str_eq(buf, "[203.0.113.1]%eth0:22 => 22");
	fwd_rule_fmt(&t.rules[1], buf, sizeof(buf));
	ck_assert_str_eq(buf, "[*]:22-80 => 32-90");
	fwd_rule_fmt(&t.rules[2], buf, sizeof(buf));
	ck_assert_str_eq(buf, "[2001:db8::1]:1-32767 => 1-32767 (weak)");
	ck_assert_int_eq(parse("0.0.0.0/5000:192.0.2.5/6000"), 0);
	fwd_rule_fmt(&t.rules[4], buf, sizeof(buf));
	ck_assert_str_eq(buf, "[0.0.0.0]:5000 => [192.0.2.5]:6000");
}
END_TEST

/**
 * ports_suite() - Test cases of conf/ports.c
 *
 * Return: the suite
 */
static Suite *ports_suite(void)
{
	Suite *s = suite_create("ports");
	TCase *tc;

	tc = tcase_create("examples");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_fwd_spec_parse_example, 0,
			    ARRAY_SIZE(examples));
	tcase_add_test(tc, test_fwd_spec_parse_auto);
	tcase_add_test(tc, test_fwd_spec_parse_auto_exclusions);
	tcase_add_test(tc, test_fwd_spec_parse_auto_remap);
	tcase_add_test(tc, test_fwd_spec_parse_auto_with_all);
	tcase_add_test(tc, test_fwd_spec_parse_auto_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_target_address);
	tcase_add_test(tc, test_fwd_spec_parse_all_target_address);
	tcase_add_test(tc, test_fwd_spec_parse_target_forms);
	tcase_add_test(tc, test_fwd_spec_parse_target_address_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_podman_forms);
	tcase_add_test(tc, test_fwd_spec_parse_rootlesskit_forms);
	tcase_add_test(tc, test_fwd_spec_parse_star);
	suite_add_tcase(s, tc);

	tc = tcase_create("syntax");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fwd_spec_parse_range_shift);
	tcase_add_test(tc, test_fwd_spec_parse_exclusion_keeps_remap_offset);
	tcase_add_test(tc, test_fwd_spec_parse_port_limits);
	tcase_add_test(tc, test_fwd_spec_parse_invalid_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_null_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_long_spec_rejected);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fwd_spec_parse_overlap_across_options_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_same_port_other_address_accepted);
	tcase_add_test(tc, test_fwd_spec_parse_failed_spec_leaves_table);
	tcase_add_test(tc, test_fwd_spec_parse_table_full_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_too_many_pieces_rejected);
	tcase_add_test(tc, test_fwd_spec_parse_ns_side_same_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("ephemeral");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fwd_ephemeral_range_from_file);
	tcase_add_test(tc, test_fwd_ephemeral_range_fallback);
	tcase_add_test(tc, test_fwd_ephemeral_range_read_once);
	tcase_add_test(tc, test_fwd_exclusions_many_unsorted);
	tcase_add_test(tc, test_fwd_spec_parse_no_syscall);
	tcase_add_test(tc, test_fwd_rule_fmt_forms);
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
	SRunner *sr = srunner_create(ports_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
