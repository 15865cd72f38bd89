// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/ndp_test.c - Tests for tap/ndp.c (ndp_handle(), ndp_ra())
 *
 * Solicitations are real ones from the Linux kernel, rdisc6 and ndisc6
 * (captured_frames.h).  The Neighbor Advertisement is compared with the
 * one Linux sent for the same solicitation; RA fields are checked at the
 * offsets of RFC 4861 section 4.2 and 4.6 and RFC 8106 section 5.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/guest.h"
#include "../../tap/services.h"
#include "captured_frames.h"
#include "fake_conf.h"
#include "fake_parse.h"
#include "fake_svc.h"

#define IP6		14
#define ICMP		54

static struct conf c;
static uint8_t out[4096];

static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/**
 * setup() - Fresh configuration, counters and output for each test
 */
static void setup(void)
{
	svc_setup(&c, out, sizeof(out));
}

/**
 * run() - Parse a frame and pass it to ndp_handle()
 * @frame:	Frame
 * @len:	Its length
 *
 * Return: reply length; replies get their checksums checked
 */
static size_t run(const uint8_t *frame, size_t len)
{
	return svc_run(ndp_handle, &c, frame, len, out, sizeof(out));
}

/**
 * nd_opt() - Find an ND option (RFC 4861 section 4.6)
 * @n:		Reply length
 * @from:	Offset of the first option in @out
 * @type:	Option type
 *
 * Return: pointer to the option (type byte), or NULL
 */
static const uint8_t *nd_opt(size_t n, size_t from, uint8_t type)
{
	size_t i = from;

	while (i < n) {
		ck_assert_uint_gt(out[i + 1], 0);
		ck_assert_uint_le(i + out[i + 1] * 8U, n);
		if (out[i] == type)
			return out + i;
		i += out[i + 1] * 8U;
	}
	ck_assert_uint_eq(i, n);
	return NULL;
}

/**
 * check_ra() - Check an RA against fake_conf.h and the RFCs
 * @n:		Frame length
 * @dst:	Expected IPv6 destination
 * @dst_mac:	Expected Ethernet destination
 */
static void check_ra(size_t n, const char *dst, const uint8_t *dst_mac)
{
	static const uint8_t dnssl_names[] = {
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0,
		3, 'l', 'a', 'b', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		3, 'o', 'r', 'g', 0
	};
	const uint8_t *o;

	ck_assert_mem_eq(out, dst_mac, 6);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	ck_assert_uint_eq((unsigned)(out[12] << 8 | out[13]), 0x86dd);
	/* RFC 4861 6.1.2: link-local source, hop limit 255 */
	addr_is(out + IP6 + 8, "fe80::1");
	addr_is(out + IP6 + 24, dst);
	ck_assert_uint_eq(out[IP6 + 6], 58);
	ck_assert_uint_eq(out[IP6 + 7], 255);

	/* Section 4.2 */
	ck_assert_uint_eq(out[ICMP], 134);
	ck_assert_uint_eq(out[ICMP + 1], 0);
	ck_assert_uint_eq(out[ICMP + 4], 64);		/* cur hop limit */
	ck_assert_uint_eq(out[ICMP + 5], 0xc0);		/* M, O */
	ck_assert_uint_eq((unsigned)(out[ICMP + 6] << 8 | out[ICMP + 7]), 9000);
	ck_assert_uint_eq(out[ICMP + 8] | out[ICMP + 9] | out[ICMP + 10] |
			  out[ICMP + 11], 0);
	ck_assert_uint_eq(out[ICMP + 12] | out[ICMP + 13] | out[ICMP + 14] |
			  out[ICMP + 15], 0);

	/* 4.6.1: source link-layer address */
	o = nd_opt(n, ICMP + 16, 1);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[1], 1);
	ck_assert_mem_eq(o + 2, c.mac_our, 6);

	/* 4.6.4: MTU 1500 */
	o = nd_opt(n, ICMP + 16, 5);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[1], 1);
	ck_assert_uint_eq(o[2] | o[3], 0);
	ck_assert_uint_eq(o[4] << 24 | o[5] << 16 | o[6] << 8 | o[7], 1500);

	/* 4.6.2: 2001:db8::/64, L and A, infinite lifetimes */
	o = nd_opt(n, ICMP + 16, 3);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[1], 4);
	ck_assert_uint_eq(o[2], 64);
	ck_assert_uint_eq(o[3], 0xc0);
	ck_assert_uint_eq(o[4] & o[5] & o[6] & o[7], 0xff);
	ck_assert_uint_eq(o[8] & o[9] & o[10] & o[11], 0xff);
	ck_assert_uint_eq(o[12] | o[13] | o[14] | o[15], 0);
	addr_is(o + 16, "2001:db8::");

	/* RFC 8106 5.1: length 3 for one address, lifetime 3600 */
	o = nd_opt(n, ICMP + 16, 25);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[1], 3);
	ck_assert_uint_eq(o[2] | o[3], 0);
	ck_assert_uint_eq(o[4] << 24 | o[5] << 16 | o[6] << 8 | o[7], 3600);
	addr_is(o + 8, "2001:db8::3");

	/* RFC 8106 5.2: 30 bytes of names, uncompressed, padded to 32:
	 * 8 + 32 = 40 bytes, length 5
	 */
	o = nd_opt(n, ICMP + 16, 31);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[1], 5);
	ck_assert_uint_eq(o[4] << 24 | o[5] << 16 | o[6] << 8 | o[7], 3600);
	ck_assert_mem_eq(o + 8, dnssl_names, sizeof(dnssl_names));
	ck_assert_uint_eq(o[38] | o[39], 0);
}

/* ndp.pcap frame 1, rdisc6: RS from fe80::5054:ff:fe12:3456, no options.
 * RFC 4861 6.2.6: unicast RA to the solicitor
 */
START_TEST(test_ndp_handle_rs_unicast_ra)
{
	size_t n;

	n = run(cap_rs, sizeof(cap_rs));
	ck_assert_uint_gt(n, 0);
	check_ra(n, "fe80::5054:ff:fe12:3456", guest_mac);
	ck_assert_uint_eq(svc_stats.ndp_rs, 1);
	ck_assert_uint_eq(svc_stats.ndp_ra, 1);
}
END_TEST

/* ipv6_up.pcap frame 8, Linux RS with a source link-layer option, here
 * changed to 02:00:00:00:00:01: the RA goes to that address
 */
START_TEST(test_ndp_handle_rs_slla_used)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t b[sizeof(cap_rs_slla)];
	size_t n;

	memcpy(b, cap_rs_slla, sizeof(b));
	ck_assert_uint_eq(b[ICMP + 8], 1);		/* SLLA */
	memcpy(b + ICMP + 10, mac, 6);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	check_ra(n, "fe80::5054:ff:fe12:3456", mac);
}
END_TEST

/* RS from :: (cap_rs with the source cleared): RA to ff02::1 */
START_TEST(test_ndp_handle_rs_unspec_multicast_ra)
{
	uint8_t b[sizeof(cap_rs)];
	size_t n;

	memcpy(b, cap_rs, sizeof(b));
	memset(b + IP6 + 8, 0, 16);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	check_ra(n, "ff02::1", all_nodes_mac);
}
END_TEST

/* RFC 4861 6.1.1 validity checks, each on a copy of a real RS */
START_TEST(test_ndp_handle_rs_invalid_counted)
{
	uint8_t b[sizeof(cap_rs_slla)];

	/* Hop limit 64 */
	memcpy(b, cap_rs_slla, sizeof(b));
	b[IP6 + 7] = 64;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Code 1 */
	memcpy(b, cap_rs_slla, sizeof(b));
	b[ICMP + 1] = 1;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Option with length 0 */
	memcpy(b, cap_rs_slla, sizeof(b));
	b[ICMP + 9] = 0;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Option longer than the message */
	memcpy(b, cap_rs_slla, sizeof(b));
	b[ICMP + 9] = 2;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Unspecified source with a source link-layer option */
	memcpy(b, cap_rs_slla, sizeof(b));
	memset(b + IP6 + 8, 0, 16);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	ck_assert_uint_eq(svc_stats.ndp_bad, 5);
	ck_assert_uint_eq(svc_stats.ndp_rs, 0);
}
END_TEST

START_TEST(test_ndp_handle_rs_no_ra_silent)
{
	c.no_ra = true;
	ck_assert_uint_eq(run(cap_rs, sizeof(cap_rs)), 0);
	ck_assert_uint_eq(svc_stats.ndp_rs, 1);
	ck_assert_uint_eq(svc_stats.ndp_ra, 0);
}
END_TEST

/* Without DHCPv6: M and O clear (RFC 4861 4.2) */
START_TEST(test_ndp_ra_no_dhcpv6_flags_clear)
{
	size_t n;

	c.no_dhcpv6 = true;
	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(out[ICMP + 5], 0);
}
END_TEST

/* Unsolicited RA: to ff02::1, 33:33:00:00:00:01 (RFC 2464 section 7) */
START_TEST(test_ndp_ra_unsolicited_fields)
{
	size_t n;

	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	check_reply_csums(out, n);
	check_ra(n, "ff02::1", all_nodes_mac);
	ck_assert_uint_eq(svc_stats.ndp_ra, 1);
}
END_TEST

START_TEST(test_ndp_ra_disabled_none)
{
	c.no_ra = true;
	ck_assert_uint_eq(ndp_ra(&c, out, sizeof(out)), 0);
	c.no_ra = false;
	c.no_ndp = true;
	ck_assert_uint_eq(ndp_ra(&c, out, sizeof(out)), 0);
	c.no_ndp = false;
	c.ip6.enabled = false;
	ck_assert_uint_eq(ndp_ra(&c, out, sizeof(out)), 0);
	c.ip6.enabled = true;
	/* RFC 4861 6.1.2: an RA from a global address would be dropped */
	inet_pton(AF_INET6, "2001:db8::1", &c.ip6.our_ll);
	ck_assert_uint_eq(ndp_ra(&c, out, sizeof(out)), 0);
	ck_assert_uint_eq(out[0], 0xaa);
}
END_TEST

/* Unsolicited RAs, RFC 4861: one as soon as the guest attaches, then
 * MAX_INITIAL_RTR_ADVERTISEMENTS (3) at most MAX_INITIAL_RTR_ADVERT_INTERVAL
 * (16 s) apart (6.2.4), later ones every 200..600 s (6.2.1: MinRtrAdvInterval
 * 0.33 * MaxRtrAdvInterval, randomised, 6.2.4), never two within
 * MIN_DELAY_BETWEEN_RAS (3 s, section 10), also when a guest re-attaches
 * at once.  Time advances in steps of 100 ms, as a busy main loop would
 * ask.
 */
START_TEST(test_ndp_ra_timer_schedule)
{
	int64_t t = 5000, last = -1, gap[24];
	unsigned n = 0, i, distinct = 0;

	ndp_ra_restart();
	ck_assert_uint_gt(ndp_ra_timer(&c, t, out, sizeof(out)), 0);
	ck_assert_uint_eq(out[14 + 40], 134);	/* an RA */
	last = t;
	/* Attach handler and housekeeping in the same millisecond */
	ck_assert_uint_eq(ndp_ra_timer(&c, t, out, sizeof(out)), 0);
	ndp_ra_restart();			/* guest re-attaches */
	ck_assert_uint_eq(ndp_ra_timer(&c, t + 1, out, sizeof(out)), 0);
	ck_assert_uint_eq(ndp_ra_timer(&c, t + 2999, out, sizeof(out)), 0);

	for (t += 100; n < 24 && t < 24 * 700000LL; t += 100) {
		if (!ndp_ra_timer(&c, t, out, sizeof(out)))
			continue;
		gap[n++] = t - last;
		last = t;
	}
	ck_assert_uint_eq(n, 24);
	/* The restart made these the first of a new series */
	for (i = 0; i < 3; i++) {
		ck_assert_int_ge(gap[i], 3000);
		ck_assert_int_le(gap[i], 16000 + 100);
	}
	for (i = 3; i < 24; i++) {
		ck_assert_int_ge(gap[i], 200000);
		ck_assert_int_le(gap[i], 600000 + 100);
		distinct += gap[i] != gap[i - 1];
	}
	ck_assert_uint_ge(distinct, 15);	/* randomised, not fixed */

	c.no_ra = true;
	ndp_ra_restart();
	ck_assert_uint_eq(ndp_ra_timer(&c, t + 10000, out, sizeof(out)), 0);
}
END_TEST

/* MTU below 1280 (RFC 8200 5): no MTU option.  A /48: A flag clear
 * (RFC 4862 5.5.3 needs 64 bits of interface identifier), prefix bits
 * after 48 zero (RFC 4861 4.6.2: reserved, must be ignored)
 */
START_TEST(test_ndp_ra_small_mtu_and_non64_prefix)
{
	const uint8_t *o;
	size_t n;

	c.mtu = 1000;
	inet_pton(AF_INET6, "2001:db8:1:2::15", &c.ip6.addr);
	c.ip6.prefix_len = 48;
	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n, 14 + 1280);
	ck_assert_ptr_null(nd_opt(n, ICMP + 16, 5));
	o = nd_opt(n, ICMP + 16, 3);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o[2], 48);
	ck_assert_uint_eq(o[3], 0x80);
	addr_is(o + 16, "2001:db8:1::");
}
END_TEST

/* The host's prefix changed (passt.1, FOLLOWING THE HOST): the next RAs
 * carry the new prefix with infinite lifetimes and the old one with
 * preferred and valid lifetimes 0 (RFC 4861 4.6.2; RFC 4862 5.5.4: a
 * preferred lifetime 0 deprecates the addresses), NDP_RA_INITIAL (3)
 * times, then the old one is left out
 */
START_TEST(test_ndp_ra_old_prefix_deprecated)
{
	static const uint8_t zero[4] = { 0 }, inf[4] = { 0xff, 0xff, 0xff,
							  0xff };
	struct in6_addr old;
	const uint8_t *o;
	size_t n, off;
	unsigned i;

	inet_pton(AF_INET6, "2001:db8:1::15", &old);
	inet_pton(AF_INET6, "2001:db8:2::15", &c.ip6.addr);
	c.ip6.prefix_len = 64;
	ndp_ra_prefix_gone(&old, 64);
	for (i = 0; i < 4; i++) {
		n = ndp_ra(&c, out, sizeof(out));
		ck_assert_uint_gt(n, 0);
		check_reply_csums(out, n);
		o = nd_opt(n, ICMP + 16, 3);
		ck_assert_ptr_nonnull(o);
		addr_is(o + 16, "2001:db8:2::");
		ck_assert_mem_eq(o + 4, inf, 4);
		off = (size_t)(o - out) + 32;
		o = nd_opt(n, off, 3);
		if (i == 3) {
			ck_assert_ptr_null(o);
			break;
		}
		ck_assert_ptr_nonnull(o);
		ck_assert_uint_eq(o[2], 64);
		addr_is(o + 16, "2001:db8:1::");
		ck_assert_mem_eq(o + 4, zero, 4);	/* valid */
		ck_assert_mem_eq(o + 8, zero, 4);	/* preferred */
	}
}
END_TEST

/* -m 0 (upstream passt.1: "A zero value disables assignment"): no MTU
 * option (RFC 4861 4.6.4, type 5), the prefix still there
 */
START_TEST(test_ndp_ra_no_mtu_option)
{
	size_t n;

	c.no_mtu = true;
	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(nd_opt(n, ICMP + 16, 5));
	ck_assert_ptr_nonnull(nd_opt(n, ICMP + 16, 3));
}
END_TEST

/* ndp_ns_probe(): RFC 4861 4.3 NS for 2001:db8::15 to its solicited-node
 * address ff02::1:ff00:15 (RFC 4291 2.7.1), MAC 33:33:ff:00:00:15 (RFC
 * 2464 7), from fe80::1, hop limit 255, our MAC in an SLLA option
 */
START_TEST(test_ndp_ns_probe_fields)
{
	static const uint8_t dmac[6] = { 0x33, 0x33, 0xff, 0, 0, 0x15 };
	struct in6_addr t;
	const uint8_t *o;
	size_t n;

	inet_pton(AF_INET6, "2001:db8::15", &t);
	n = ndp_ns_probe(&c, &t, out, sizeof(out));
	ck_assert_uint_eq(n, 14 + 40 + 32);
	check_reply_csums(out, n);
	ck_assert_mem_eq(out, dmac, 6);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	ck_assert_uint_eq(out[IP6 + 6], 58);
	ck_assert_uint_eq(out[IP6 + 7], 255);
	addr_is(out + IP6 + 8, "fe80::1");
	addr_is(out + IP6 + 24, "ff02::1:ff00:15");
	ck_assert_uint_eq(out[ICMP], 135);
	ck_assert_uint_eq(out[ICMP + 1], 0);
	addr_is(out + ICMP + 8, "2001:db8::15");
	o = nd_opt(n, ICMP + 24, 1);
	ck_assert_ptr_nonnull(o);
	ck_assert_mem_eq(o + 2, c.mac_our, 6);

	c.ip6.enabled = false;
	ck_assert_uint_eq(ndp_ns_probe(&c, &t, out, sizeof(out)), 0);
}
END_TEST

START_TEST(test_ndp_ra_dns_switched_off)
{
	size_t n;

	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(nd_opt(n, ICMP + 16, 25));
	ck_assert_ptr_null(nd_opt(n, ICMP + 16, 31));
	ck_assert_ptr_nonnull(nd_opt(n, ICMP + 16, 3));
}
END_TEST

/* Eight names of 250 bytes (labels of 62 and 60 bytes) are 2016 bytes
 * encoded: more than fits in 1500.  Only whole names, in order, and the
 * RA within the MTU
 */
START_TEST(test_ndp_ra_long_search_cut_whole_names)
{
	const uint8_t *o;
	size_t n, i, len;
	int k;

	for (k = 0; k < CONF_MAX_SEARCH; k++) {
		char *s = c.search[k];

		memset(s, 'a' + k, 250);
		s[62] = s[125] = s[188] = '.';
		s[250] = 0;
	}
	c.search_count = CONF_MAX_SEARCH;
	n = ndp_ra(&c, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n - 14, 1500);
	o = nd_opt(n, ICMP + 16, 31);
	ck_assert_ptr_nonnull(o);
	len = o[1] * 8U;
	/* Each name: 4 labels (62, 62, 62, 61 bytes) = 4 + 247 + 1 = 252 */
	for (i = 8, k = 0; i + 252 <= len && o[i]; i += 252, k++) {
		ck_assert_uint_eq(o[i], 62);
		ck_assert_uint_eq(o[i + 1], (unsigned)('a' + k));
		ck_assert_uint_eq(o[i + 251], 0);
	}
	ck_assert_int_ge(k, 1);
	ck_assert_int_lt(k, CONF_MAX_SEARCH);
	for (; i < len; i++)
		ck_assert_uint_eq(o[i], 0);	/* padding */
}
END_TEST

/* ndp.pcap frame 2 (ndisc6: NS for 2001:db8::1 from the link-local
 * address, SLLA 52:54:00:12:34:56) and frame 3, the Linux NA.  Ours is
 * the same except for the Router flag (RFC 4861 4.4: 0xe0 for R, S, O
 * instead of 0x60) and so the checksum: 0x68f1 updated by 0x8000 in the
 * flags word gives 0xe8f0 (RFC 1624: ~(~0x68f1 + 0x8000), by hand)
 */
START_TEST(test_ndp_handle_ns_matches_linux_na)
{
	uint8_t want[sizeof(cap_na_linux)];
	size_t n;

	memcpy(want, cap_na_linux, sizeof(want));
	want[ICMP + 4] = 0xe0;
	want[ICMP + 2] = 0xe8;
	want[ICMP + 3] = 0xf0;
	n = run(cap_ns_ll_for_global, sizeof(cap_ns_ll_for_global));
	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_mem_eq(out, want, n);
	ck_assert_uint_eq(svc_stats.ndp_ns, 1);
	ck_assert_uint_eq(svc_stats.ndp_na, 1);
}
END_TEST

/* ndp.pcap frame 4: NS for fe80::1, our own link-local address */
START_TEST(test_ndp_handle_ns_gateway_answered)
{
	size_t n;

	n = run(cap_ns_gw_ll, sizeof(cap_ns_gw_ll));
	ck_assert_uint_eq(n, 14 + 40 + 32);
	ck_assert_mem_eq(out, guest_mac, 6);
	addr_is(out + IP6 + 8, "fe80::1");
	addr_is(out + IP6 + 24, "fe80::5054:ff:fe12:3456");
	ck_assert_uint_eq(out[IP6 + 7], 255);
	ck_assert_uint_eq(out[ICMP], 136);
	ck_assert_uint_eq(out[ICMP + 4], 0xe0);
	addr_is(out + ICMP + 8, "fe80::1");
	ck_assert_uint_eq(out[ICMP + 24], 2);		/* TLLA */
	ck_assert_uint_eq(out[ICMP + 25], 1);
	ck_assert_mem_eq(out + ICMP + 26, c.mac_our, 6);
}
END_TEST

/* ping.pcap frame 5: NS from the global address 2001:db8::15 */
START_TEST(test_ndp_handle_ns_from_global_answered)
{
	size_t n;

	n = run(cap_ns_global, sizeof(cap_ns_global));
	ck_assert_uint_eq(n, 86);
	addr_is(out + IP6 + 8, "2001:db8::1");
	addr_is(out + IP6 + 24, "2001:db8::15");
	addr_is(out + ICMP + 8, "2001:db8::1");
}
END_TEST

/* NS for the guest's own addresses: never answered */
START_TEST(test_ndp_handle_ns_guest_address_silent)
{
	uint8_t b[sizeof(cap_ns_ll_for_global)];

	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	inet_pton(AF_INET6, "2001:db8::15", b + ICMP + 8);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	inet_pton(AF_INET6, "2001:db8::99", &tap_guest.addr6_seen);
	inet_pton(AF_INET6, "2001:db8::99", b + ICMP + 8);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	inet_pton(AF_INET6, "fe80::99", &tap_guest.addr6_ll_seen);
	inet_pton(AF_INET6, "fe80::99", b + ICMP + 8);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	ck_assert_uint_eq(svc_stats.ndp_ns, 3);
	ck_assert_uint_eq(svc_stats.ndp_na, 0);
}
END_TEST

/* ipv6_up.pcap frame 3: Linux DAD for its new link-local address.  An
 * answer would make the guest give it up
 */
START_TEST(test_ndp_handle_dad_for_guest_silent)
{
	ck_assert_uint_eq(run(cap_dad_ns, sizeof(cap_dad_ns)), 0);
	ck_assert_uint_eq(svc_stats.ndp_ns, 1);
	ck_assert_uint_eq(svc_stats.ndp_bad, 0);
}
END_TEST

/* DAD for fe80::1, which we use: RFC 4861 7.2.4, NA to ff02::1 with the
 * Solicited flag clear (R and O: 0xa0).  Made from cap_dad_ns with the
 * target and the solicited-node destination ff02::1:ff00:1 changed
 */
START_TEST(test_ndp_handle_dad_for_ours_multicast_na)
{
	uint8_t b[sizeof(cap_dad_ns)];
	size_t n;

	memcpy(b, cap_dad_ns, sizeof(b));
	inet_pton(AF_INET6, "ff02::1:ff00:1", b + IP6 + 24);
	inet_pton(AF_INET6, "fe80::1", b + ICMP + 8);
	n = run(b, sizeof(b));
	ck_assert_uint_eq(n, 86);
	ck_assert_mem_eq(out, all_nodes_mac, 6);
	addr_is(out + IP6 + 24, "ff02::1");
	ck_assert_uint_eq(out[ICMP + 4], 0xa0);
}
END_TEST

/* SLAAC-only guests (RFC 4862 5.4.2): the DAD probe for a global address
 * names it as target, from ::, and an unsolicited NA (RFC 4861 7.2.6, S
 * flag clear) names it too; either teaches us the guest's address.  Not:
 * DAD for a link-local address (the real ipv6_up.pcap frame), a
 * solicited NA (the real Linux NA, S set), an NS from an address (address
 * resolution), hop limit below 255
 */
START_TEST(test_ndp_guest_addr_dad_and_unsolicited_na)
{
	uint8_t b[sizeof(cap_dad_ns)], na[sizeof(cap_na_linux)];
	struct in6_addr a = IN6ADDR_ANY_INIT;
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_dad_ns, sizeof(cap_dad_ns), &f), 0);
	ck_assert(!ndp_guest_addr(&f, &a));

	memcpy(b, cap_dad_ns, sizeof(b));
	inet_pton(AF_INET6, "ff02::1:ff00:99", b + IP6 + 24);
	inet_pton(AF_INET6, "2001:db8:1::99", b + ICMP + 8);
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert(ndp_guest_addr(&f, &a));
	addr_is((const uint8_t *)&a, "2001:db8:1::99");

	b[IP6 + 7] = 254;
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert(!ndp_guest_addr(&f, &a));
	b[IP6 + 7] = 255;
	inet_pton(AF_INET6, "2001:db8:1::5", b + IP6 + 8);	/* not DAD */
	ck_assert_int_eq(frame_parse(b, sizeof(b), &f), 0);
	ck_assert(!ndp_guest_addr(&f, &a));

	memcpy(na, cap_na_linux, sizeof(na));
	ck_assert_int_eq(frame_parse(na, sizeof(na), &f), 0);
	ck_assert(!ndp_guest_addr(&f, &a));		/* solicited */
	na[ICMP + 4] = 0x20;				/* Override only */
	ck_assert_int_eq(frame_parse(na, sizeof(na), &f), 0);
	memset(&a, 0, sizeof(a));
	ck_assert(ndp_guest_addr(&f, &a));
	addr_is((const uint8_t *)&a, "2001:db8::1");
}
END_TEST

/* RFC 4861 7.1.1 validity checks, each on a copy of a real NS */
START_TEST(test_ndp_handle_ns_invalid_counted)
{
	uint8_t b[sizeof(cap_ns_ll_for_global)], d[sizeof(cap_dad_ns)];

	/* Hop limit 254 */
	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	b[IP6 + 7] = 254;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Code 1 */
	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	b[ICMP + 1] = 1;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Multicast target */
	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	inet_pton(AF_INET6, "ff02::1", b + ICMP + 8);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Option length 0 */
	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	b[ICMP + 25] = 0;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* DAD to ff02::1, not to a solicited-node address */
	memcpy(d, cap_dad_ns, sizeof(d));
	inet_pton(AF_INET6, "ff02::1", d + IP6 + 24);
	ck_assert_uint_eq(run(d, sizeof(d)), 0);

	/* DAD with a source link-layer option */
	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	memset(b + IP6 + 8, 0, 16);
	inet_pton(AF_INET6, "ff02::1:ff00:1", b + IP6 + 24);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	ck_assert_uint_eq(svc_stats.ndp_bad, 6);
	ck_assert_uint_eq(svc_stats.ndp_ns, 0);
}
END_TEST

/* An NS cut to 16 bytes of ICMPv6 (payload length 16): shorter than the
 * 24 bytes of RFC 4861 4.3
 */
START_TEST(test_ndp_handle_ns_short_counted)
{
	uint8_t b[14 + 40 + 16];

	memcpy(b, cap_ns_ll_for_global, sizeof(b));
	b[IP6 + 4] = 0;
	b[IP6 + 5] = 16;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
	ck_assert_uint_eq(svc_stats.ndp_bad, 1);
}
END_TEST

/* Other ICMPv6 (MLD report, echo request), NA from Linux: not ours */
START_TEST(test_ndp_handle_other_icmpv6_ignored)
{
	ck_assert_uint_eq(run(cap_mld_unspec, sizeof(cap_mld_unspec)), 0);
	ck_assert_uint_eq(run(cap_icmp6_echo, sizeof(cap_icmp6_echo)), 0);
	ck_assert_uint_eq(run(cap_na_linux, sizeof(cap_na_linux)), 0);
	ck_assert_uint_eq(run(cap_icmp4_echo, sizeof(cap_icmp4_echo)), 0);
	ck_assert_uint_eq(svc_stats.ndp_bad + svc_stats.ndp_ns +
			  svc_stats.ndp_rs, 0);
}
END_TEST

START_TEST(test_ndp_handle_disabled_silent)
{
	c.no_ndp = true;
	ck_assert_uint_eq(run(cap_ns_gw_ll, sizeof(cap_ns_gw_ll)), 0);
	ck_assert_uint_eq(run(cap_rs, sizeof(cap_rs)), 0);
	c.no_ndp = false;
	c.ip6.enabled = false;
	ck_assert_uint_eq(run(cap_ns_gw_ll, sizeof(cap_ns_gw_ll)), 0);
}
END_TEST

START_TEST(test_ndp_handle_small_buffer_no_reply)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_ns_gw_ll, sizeof(cap_ns_gw_ll), &f),
			 0);
	ck_assert_uint_eq(ndp_handle(&c, &f, out, 85), 0);
	ck_assert_uint_eq(out[0], 0xaa);
	ck_assert_uint_eq(ndp_handle(&c, &f, out, 86), 86);

	ck_assert_int_eq(frame_parse(cap_rs, sizeof(cap_rs), &f), 0);
	ck_assert_uint_eq(ndp_handle(&c, &f, out, 117), 0);
}
END_TEST

/* With a small buffer the RA drops what doesn't fit, but stays valid */
START_TEST(test_ndp_ra_tight_buffer_valid)
{
	size_t cap, n;

	for (cap = 118; cap < 300; cap++) {
		n = ndp_ra(&c, out, cap);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_le(n, cap);
		check_reply_csums(out, n);
		ck_assert_ptr_nonnull(nd_opt(n, ICMP + 16, 3));
	}
}
END_TEST

START_TEST(test_ndp_handle_damaged_frames_safe)
{
	svc_robustness(ndp_handle, &c, cap_rs, sizeof(cap_rs), 2000);
	svc_robustness(ndp_handle, &c, cap_rs_slla, sizeof(cap_rs_slla),
		       2000);
	svc_robustness(ndp_handle, &c, cap_ns_ll_for_global,
		       sizeof(cap_ns_ll_for_global), 2000);
	svc_robustness(ndp_handle, &c, cap_dad_ns, sizeof(cap_dad_ns), 2000);
}
END_TEST

/**
 * ndp_suite() - All NDP tests
 *
 * Return: the suite
 */
static Suite *ndp_suite(void)
{
	Suite *s = suite_create("ndp");
	TCase *tc;

	tc = tcase_create("router");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_ndp_handle_rs_unicast_ra);
	tcase_add_test(tc, test_ndp_handle_rs_slla_used);
	tcase_add_test(tc, test_ndp_handle_rs_unspec_multicast_ra);
	tcase_add_test(tc, test_ndp_handle_rs_invalid_counted);
	tcase_add_test(tc, test_ndp_handle_rs_no_ra_silent);
	tcase_add_test(tc, test_ndp_ra_no_dhcpv6_flags_clear);
	tcase_add_test(tc, test_ndp_ra_unsolicited_fields);
	tcase_add_test(tc, test_ndp_ra_disabled_none);
	tcase_add_test(tc, test_ndp_ra_small_mtu_and_non64_prefix);
	tcase_add_test(tc, test_ndp_ra_old_prefix_deprecated);
	tcase_add_test(tc, test_ndp_ra_dns_switched_off);
	tcase_add_test(tc, test_ndp_ra_no_mtu_option);
	tcase_add_test(tc, test_ndp_ns_probe_fields);
	tcase_add_test(tc, test_ndp_ra_long_search_cut_whole_names);
	tcase_add_test(tc, test_ndp_ra_tight_buffer_valid);
	suite_add_tcase(s, tc);

	tc = tcase_create("neighbor");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_ndp_handle_ns_matches_linux_na);
	tcase_add_test(tc, test_ndp_handle_ns_gateway_answered);
	tcase_add_test(tc, test_ndp_handle_ns_from_global_answered);
	tcase_add_test(tc, test_ndp_handle_ns_guest_address_silent);
	tcase_add_test(tc, test_ndp_handle_dad_for_guest_silent);
	tcase_add_test(tc, test_ndp_handle_dad_for_ours_multicast_na);
	tcase_add_test(tc, test_ndp_handle_ns_invalid_counted);
	tcase_add_test(tc, test_ndp_handle_ns_short_counted);
	tcase_add_test(tc, test_ndp_handle_other_icmpv6_ignored);
	tcase_add_test(tc, test_ndp_handle_disabled_silent);
	tcase_add_test(tc, test_ndp_handle_small_buffer_no_reply);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_ndp_handle_damaged_frames_safe);
	tcase_add_test(tc, test_ndp_ra_timer_schedule);
	tcase_add_test(tc, test_ndp_guest_addr_dad_and_unsolicited_na);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ndp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
