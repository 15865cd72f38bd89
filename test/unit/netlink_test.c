// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/netlink_test.c - Host defaults (conf/host.c) and link, address
 *			      and route helpers (lib/netlink.c)
 *
 * Each test runs in a scratch network namespace (fake_netns.c).  Expected
 * values are what the test configured there with iproute2, and the effect
 * of the set-up helpers is checked with iproute2 output or with the
 * SIOCGIF* ioctls of netdevice(7), never by reading back through our own
 * code.  Local mode values are upstream passt(1)'s ("Local mode for
 * disconnected setups": 169.254.2.1, gateway 169.254.2.2, fe80::1).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "../../lib/log.h"
#include "../../lib/netlink.h"
#include "../../conf/host.h"
#include "../../conf/host_internal.h"
#include "fake_netns.h"
#include "fake_parse.h"

static struct conf c;

/**
 * setup() - Per-test fixture: empty scratch namespace, fresh configuration
 */
static void setup(void)
{
	netns_enter_scratch();
	memset(&c, 0, sizeof(c));
	c.ip4.enabled = c.ip6.enabled = true;
	c.ip4.prefix_len = c.ip6.prefix_len = -1;
	log_level = LOG_ERR;
}

/**
 * setup_topo() - setup(), plus lib.sh's host topology (fake_netns.c)
 */
static void setup_topo(void)
{
	setup();
	netns_host_topology();
}

/**
 * ifreq_get() - SIOCGIF* ioctl on an interface
 * @name:	Interface name
 * @req:	Request
 * @ifr:	Result
 */
static void ifreq_get(const char *name, unsigned long req, struct ifreq *ifr)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", name);
	ck_assert_int_eq(ioctl(s, req, ifr), 0);
	close(s);
}

/* lib.sh topology: both families from h0's default routes */
START_TEST(test_netlink_host_defaults_default_routes)
{
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert(c.ip4.enabled);
	ck_assert(c.ip6.enabled);
	ck_assert(!c.local_mode);
	ck_assert_str_eq(c.ip4.ifname_out, "h0");
	ck_assert_str_eq(c.ip6.ifname_out, "h0");
	ck_assert_a4(c.ip4.addr, TOPO_H4);
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert_a4(c.ip4.gw, TOPO_R4);
	ck_assert_a6(c.ip6.addr, TOPO_H6);
	ck_assert_int_eq(c.ip6.prefix_len, 64);
	ck_assert_a6(c.ip6.gw, TOPO_R6);
	/* gateway is global: our link-local address is fe80::1 */
	ck_assert_a6(c.ip6.our_ll, "fe80::1");
}
END_TEST

START_TEST(test_netlink_host_defaults_link_local_gw_is_our_ll)
{
	netns_sh("ip -6 route del default");
	netns_sh("ip -6 route add default via fe80::2 dev h0");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_a6(c.ip6.gw, "fe80::2");
	ck_assert_a6(c.ip6.our_ll, "fe80::2");
}
END_TEST

START_TEST(test_netlink_host_defaults_given_values_kept)
{
	c.ip4.addr = a4("203.0.113.100");
	c.ip4.gw = a4("203.0.113.2");
	c.ip6.prefix_len = 48;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_a4(c.ip4.addr, "203.0.113.100");
	ck_assert_a4(c.ip4.gw, "203.0.113.2");
	/* not a host address: prefix from the class (C: /24, RFC 791) */
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert_a6(c.ip6.addr, TOPO_H6);
	ck_assert_int_eq(c.ip6.prefix_len, 48);

	/* an IPv4 link-local address (RFC 3927) is class B: /16, not the
	 * /24 of the host's address
	 */
	c.ip4.addr = a4("169.254.2.100");
	c.ip4.prefix_len = -1;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_a4(c.ip4.addr, "169.254.2.100");
	ck_assert_int_eq(c.ip4.prefix_len, 16);
}
END_TEST

START_TEST(test_netlink_host_defaults_given_host_address_takes_its_prefix)
{
	netns_sh("ip addr add 203.0.113.7/26 dev h0");
	c.ip4.addr = a4("203.0.113.7");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_int_eq(c.ip4.prefix_len, 26);
}
END_TEST

START_TEST(test_netlink_host_defaults_lowest_metric_wins)
{
	netns_sh("ip link add h1 type veth peer name r1");
	netns_sh("ip link set r1 addrgenmode none && ip link set r1 up");
	netns_sh("ip link set h1 up && ip addr add 203.0.113.1/24 dev h1");
	netns_sh("ip route del default");
	netns_sh("ip route add default via " TOPO_R4 " metric 200");
	netns_sh("ip route add default via 203.0.113.2 dev h1 metric 100");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_str_eq(c.ip4.ifname_out, "h1");
	ck_assert_a4(c.ip4.addr, "203.0.113.1");
	ck_assert_a4(c.ip4.gw, "203.0.113.2");
	ck_assert_str_eq(c.ip6.ifname_out, "h0");
}
END_TEST

START_TEST(test_netlink_host_defaults_multipath_highest_weight)
{
	netns_sh("ip addr add 198.51.100.10/24 dev h0");
	netns_sh("ip route del default");
	netns_sh("ip route add default nexthop via " TOPO_R4
		 " weight 1 nexthop via 198.51.100.3 weight 5");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_a4(c.ip4.gw, "198.51.100.3");
}
END_TEST

START_TEST(test_netlink_host_defaults_given_interface)
{
	netns_sh("ip link add h1 type veth peer name r1");
	netns_sh("ip link set r1 addrgenmode none && ip link set r1 up");
	netns_sh("ip link set h1 up && ip addr add 203.0.113.1/25 dev h1");
	snprintf(c.ip4.ifname_out, IFNAMSIZ, "h1");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_str_eq(c.ip4.ifname_out, "h1");
	ck_assert_a4(c.ip4.addr, "203.0.113.1");
	ck_assert_int_eq(c.ip4.prefix_len, 25);
	/* no default route through h1: no gateway */
	ck_assert_uint_eq(c.ip4.gw.s_addr, 0);
}
END_TEST

START_TEST(test_netlink_host_defaults_missing_interface)
{
	snprintf(c.ip6.ifname_out, IFNAMSIZ, "nosuchif");
	ck_assert_int_eq(netlink_host_defaults(&c), -ENODEV);
}
END_TEST

START_TEST(test_netlink_host_defaults_no_default_route_first_routed_link)
{
	netns_sh("ip route del default && ip -6 route del default");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_str_eq(c.ip4.ifname_out, "h0");
	ck_assert_a4(c.ip4.addr, TOPO_H4);
	ck_assert_uint_eq(c.ip4.gw.s_addr, 0);
	ck_assert_a6(c.ip6.addr, TOPO_H6);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.gw));
}
END_TEST

START_TEST(test_netlink_host_defaults_ipv4_only_host_disables_ipv6)
{
	netns_sh("ip -6 route del default");
	netns_sh("ip -6 addr del " TOPO_H6 "/64 dev h0");
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert(c.ip4.enabled);
	ck_assert(!c.ip6.enabled);
	ck_assert(!c.local_mode);
}
END_TEST

START_TEST(test_netlink_host_defaults_disabled_family_untouched)
{
	c.ip6.enabled = false;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert(!c.ip6.enabled);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.addr));
	ck_assert_a4(c.ip4.addr, TOPO_H4);
}
END_TEST

/* Only lo: upstream's local mode */
START_TEST(test_netlink_host_defaults_local_mode)
{
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert(c.local_mode);
	ck_assert(c.ip4.enabled);
	ck_assert(c.ip6.enabled);
	ck_assert_a4(c.ip4.addr, "169.254.2.1");
	ck_assert_int_eq(c.ip4.prefix_len, 16);
	ck_assert_a4(c.ip4.gw, "169.254.2.2");
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.addr));
	ck_assert_a6(c.ip6.gw, "fe80::1");
	ck_assert_a6(c.ip6.our_ll, "fe80::1");
	ck_assert_str_eq(c.ip4.ifname_out, "");
}
END_TEST

START_TEST(test_nl_ifindex_matches_libc)
{
	ck_assert_int_eq(netlink_ifindex("h0"), (int)if_nametoindex("h0"));
	ck_assert_int_eq(netlink_ifindex("lo"), (int)if_nametoindex("lo"));
	ck_assert_int_eq(netlink_ifindex("nosuchif"), -ENODEV);
	ck_assert_int_eq(netlink_ifindex(""), -EINVAL);
	ck_assert_int_eq(netlink_ifindex("abcdefghijklmnopq"), -EINVAL);
	ck_assert_int_eq(netlink_ifindex(NULL), -EINVAL);
}
END_TEST

START_TEST(test_nl_link_up_sets_iff_up)
{
	struct ifreq ifr;

	netns_sh("ip link add x0 type veth peer name y0");
	ifreq_get("x0", SIOCGIFFLAGS, &ifr);
	ck_assert(!(ifr.ifr_flags & IFF_UP));
	ck_assert_int_eq(netlink_link_up(netlink_ifindex("x0")), 0);
	ifreq_get("x0", SIOCGIFFLAGS, &ifr);
	ck_assert(ifr.ifr_flags & IFF_UP);
	ck_assert_int_eq(netlink_link_up(99999), -ENODEV);
	ck_assert_int_eq(netlink_link_up(0), -EINVAL);
}
END_TEST

START_TEST(test_nl_link_set_mtu_values)
{
	struct ifreq ifr;

	netns_sh("ip link add x0 type veth peer name y0");
	ck_assert_int_eq(netlink_link_set_mtu(netlink_ifindex("x0"), 1280), 0);
	ifreq_get("x0", SIOCGIFMTU, &ifr);
	ck_assert_int_eq(ifr.ifr_mtu, 1280);
	ck_assert_int_eq(netlink_link_set_mtu(netlink_ifindex("x0"), 65520), 0);
	ifreq_get("x0", SIOCGIFMTU, &ifr);
	ck_assert_int_eq(ifr.ifr_mtu, 65520);
	/* veth's max_mtu is 65535 (ip -d link: "maxmtu 65535") */
	ck_assert_int_eq(netlink_link_set_mtu(netlink_ifindex("x0"), 70000), -EINVAL);
	ck_assert_int_eq(netlink_link_set_mtu(netlink_ifindex("x0"), 0), -EINVAL);
}
END_TEST

START_TEST(test_nl_link_mac_set_and_get)
{
	static const uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint8_t got[6];
	struct ifreq ifr;
	int idx;

	netns_sh("ip link add x0 type veth peer name y0");
	idx = netlink_ifindex("x0");
	ck_assert_int_eq(netlink_link_set_mac(idx, mac), 0);
	ifreq_get("x0", SIOCGIFHWADDR, &ifr);
	ck_assert_mem_eq(ifr.ifr_hwaddr.sa_data, mac, 6);
	ck_assert_int_eq(netlink_link_get_mac(idx, got), 0);
	ck_assert_mem_eq(got, mac, 6);
	/* eth_validate_addr(): multicast addresses are refused */
	ck_assert_int_eq(netlink_link_set_mac(idx, mcast), -EADDRNOTAVAIL);
	ck_assert_int_eq(netlink_link_get_mac(99999, got), -ENODEV);
}
END_TEST

START_TEST(test_nl_addr_add_both_families)
{
	struct in6_addr v6 = a6("2001:db8::5");
	struct in_addr v4 = a4("203.0.113.1");
	char out[1024];
	int idx;

	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	idx = netlink_ifindex("x0");
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &v4, 24), 0);
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET6, &v6, 64), 0);
	netns_out(out, sizeof(out), "ip -o addr show dev x0");
	ck_assert_ptr_nonnull(strstr(out, "inet 203.0.113.1/24"));
	ck_assert_ptr_nonnull(strstr(out, "inet6 2001:db8::5/64"));
	/* IFA_F_NODAD: iproute2 prints "nodad" and never "tentative" */
	ck_assert_ptr_nonnull(strstr(out, "nodad"));
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &v4, 24), -EEXIST);
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &v4, 33), -EINVAL);
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET6, &v6, 129), -EINVAL);
	ck_assert_int_eq(netlink_addr_add(idx, AF_UNIX, &v6, 1), -EINVAL);
}
END_TEST

START_TEST(test_nl_route_add_default_in_prefix)
{
	struct in_addr gw = a4("203.0.113.254"), a = a4("203.0.113.1");
	char out[512];
	int idx;

	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	idx = netlink_ifindex("x0");
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &a, 24), 0);
	ck_assert_int_eq(netlink_route_add_default(idx, AF_INET, &gw), 0);
	netns_out(out, sizeof(out), "ip -4 route show default");
	ck_assert_ptr_nonnull(strstr(out, "default via 203.0.113.254 dev x0"));
	ck_assert_ptr_null(strstr(out, "onlink"));
	ck_assert_int_eq(netlink_route_add_default(idx, AF_INET, &gw), -EEXIST);
}
END_TEST

START_TEST(test_nl_route_add_default_outside_prefix_onlink)
{
	struct in_addr gw = a4("203.0.113.1"), a = a4("198.51.100.1");
	char out[512];
	int idx;

	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	idx = netlink_ifindex("x0");
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &a, 32), 0);
	ck_assert_int_eq(netlink_route_add_default(idx, AF_INET, &gw), 0);
	netns_out(out, sizeof(out), "ip -4 route show default");
	ck_assert_ptr_nonnull(strstr(out, "default via 203.0.113.1 dev x0"));
	ck_assert_ptr_nonnull(strstr(out, "onlink"));
}
END_TEST

START_TEST(test_nl_route_add_default_ipv6_link_local)
{
	struct in6_addr gw = a6("fe80::1");
	char out[512];
	int idx;

	netns_sh("ip link add x0 type veth peer name y0");
	netns_sh("ip link set x0 addrgenmode none && ip link set x0 up");
	idx = netlink_ifindex("x0");
	/* no link-local address yet: onlink lets the kernel take it */
	ck_assert_int_eq(netlink_route_add_default(idx, AF_INET6, &gw), 0);
	netns_out(out, sizeof(out), "ip -6 route show default");
	ck_assert_ptr_nonnull(strstr(out, "default via fe80::1 dev x0"));
}
END_TEST

START_TEST(test_nl_route_add_default_device_route)
{
	char out[512];

	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	ck_assert_int_eq(netlink_route_add_default(netlink_ifindex("x0"),
						   AF_INET, NULL), 0);
	netns_out(out, sizeof(out), "ip -4 route show default");
	ck_assert_ptr_nonnull(strstr(out, "default dev x0"));
	ck_assert_int_eq(netlink_route_add_default(0, AF_INET, NULL), -EINVAL);
}
END_TEST

START_TEST(test_nl_addr_wait_ll_after_dad)
{
	struct in6_addr ll, want;
	char out[512], *p, *slash;

	netns_sh("ip link add x0 type veth peer name y0");
	netns_sh("ip link set y0 up && ip link set x0 up");
	ck_assert_int_eq(netlink_addr_wait_ll(netlink_ifindex("x0"), &ll, 5000), 0);
	netns_out(out, sizeof(out),
		  "ip -6 -o addr show dev x0 scope link -tentative");
	p = strstr(out, "inet6 ");
	ck_assert_ptr_nonnull(p);
	p += 6;
	slash = strchr(p, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	want = a6(p);
	ck_assert(IN6_ARE_ADDR_EQUAL(&ll, &want));
}
END_TEST

START_TEST(test_nl_addr_wait_ll_timeout)
{
	struct in6_addr ll;

	netns_sh("ip link add x0 type veth peer name y0");
	netns_sh("ip link set x0 addrgenmode none && ip link set x0 up");
	ck_assert_int_eq(netlink_addr_wait_ll(netlink_ifindex("x0"), &ll, 50),
			 -ETIMEDOUT);
	ck_assert_int_eq(netlink_addr_wait_ll(99999, &ll, 0), -ENODEV);
	ck_assert_int_eq(netlink_addr_wait_ll(1, &ll, -1), -EINVAL);
}
END_TEST

/**
 * setup_tpl() - setup_topo(), as pasta --config-net, with a second address
 *		 per family and three more routes on h0
 */
static void setup_tpl(void)
{
	setup_topo();
	c.mode = MODE_PASTA;
	c.config_net = true;
	netns_sh("ip addr add 198.51.100.4/25 dev h0");
	netns_sh("ip addr add 2001:db8:1::4/80 dev h0 nodad");
	netns_sh("ip route add 203.0.113.0/25 via " TOPO_R4 " metric 50");
	netns_sh("ip route add 203.0.113.128/25 dev h0");
	netns_sh("ip -6 route add 2001:db8:99::/48 via " TOPO_R6
		 " metric 7");
	/* neither of these is copied: another interface, and multicast */
	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	netns_sh("ip route add 203.0.113.64/26 dev x0");
	netns_sh("ip route add 224.0.0.0/4 dev h0");
}

/**
 * tpl_addr_find() - Index of an address in a recorded list, or -1
 * @t:		Recorded list
 * @af:		AF_INET or AF_INET6
 * @s:		Address as text
 * @plen:	Expected prefix length
 *
 * Return: index, -1 if absent or with another prefix length
 */
static int tpl_addr_find(const struct conf_tpl *t, int af, const char *s,
			 int plen)
{
	union netlink_ip want = { 0 };
	unsigned i;

	ck_assert_int_eq(inet_pton(af, s, &want), 1);
	for (i = 0; i < t->addr_count; i++)
		if (!memcmp(&t->addrs[i].addr, &want, sizeof(want)) &&
		    t->addrs[i].prefix_len == plen)
			return (int)i;
	return -1;
}

/**
 * tpl_route_find() - Is a route in a recorded list?
 * @t:		Recorded list
 * @af:		AF_INET or AF_INET6
 * @dst:	Destination as text
 * @plen:	Prefix length
 * @gw:		Gateway as text, NULL for none
 * @metric:	Expected metric
 *
 * Return: true if found with these values
 */
static bool tpl_route_find(const struct conf_tpl *t, int af, const char *dst,
			   int plen, const char *gw, uint32_t metric)
{
	union netlink_ip d = { 0 }, g = { 0 };
	unsigned i;

	ck_assert_int_eq(inet_pton(af, dst, &d), 1);
	if (gw)
		ck_assert_int_eq(inet_pton(af, gw, &g), 1);
	for (i = 0; i < t->route_count; i++) {
		const struct netlink_route *r = &t->routes[i];

		if (!memcmp(&r->dst, &d, sizeof(d)) && r->prefix_len == plen &&
		    !memcmp(&r->gw, &g, sizeof(g)) && r->metric == metric)
			return true;
	}
	return false;
}

/* what setup_tpl() configured, minus the default and kernel routes */
START_TEST(test_netlink_host_defaults_records_template)
{
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_uint_eq(c.ip4.tpl.addr_count, 2);
	ck_assert_int_ge(tpl_addr_find(&c.ip4.tpl, AF_INET, TOPO_H4, 24), 0);
	ck_assert_int_ge(tpl_addr_find(&c.ip4.tpl, AF_INET, "198.51.100.4",
				       25), 0);
	/* global ones only: no fe80:: */
	ck_assert_uint_eq(c.ip6.tpl.addr_count, 2);
	ck_assert_int_ge(tpl_addr_find(&c.ip6.tpl, AF_INET6, TOPO_H6, 64), 0);
	ck_assert_int_ge(tpl_addr_find(&c.ip6.tpl, AF_INET6, "2001:db8:1::4",
				       80), 0);

	ck_assert_uint_eq(c.ip4.tpl.route_count, 2);
	ck_assert(tpl_route_find(&c.ip4.tpl, AF_INET, "203.0.113.0", 25,
				 TOPO_R4, 50));
	/* ip-route(8): IPv4 routes default to metric 0 */
	ck_assert(tpl_route_find(&c.ip4.tpl, AF_INET, "203.0.113.128", 25,
				 NULL, 0));
	ck_assert_uint_eq(c.ip6.tpl.route_count, 1);
	ck_assert(tpl_route_find(&c.ip6.tpl, AF_INET6, "2001:db8:99::", 48,
				 TOPO_R6, 7));
}
END_TEST

START_TEST(test_netlink_host_defaults_no_copy_records_nothing)
{
	c.no_copy_addrs = true;
	c.no_copy_routes = true;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_uint_eq(c.ip4.tpl.addr_count, 0);
	ck_assert_uint_eq(c.ip6.tpl.addr_count, 0);
	ck_assert_uint_eq(c.ip4.tpl.route_count, 0);
	ck_assert_uint_eq(c.ip6.tpl.route_count, 0);
}
END_TEST

/* upstream pasta(1): -a implies --no-copy-addrs, -g --no-copy-routes,
 * each for its IP version only
 */
START_TEST(test_netlink_host_defaults_given_addr_gw_per_family)
{
	c.ip4.addr = a4("198.51.100.4");
	c.ip6.gw = a6(TOPO_R6);
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_uint_eq(c.ip4.tpl.addr_count, 0);
	ck_assert_uint_eq(c.ip4.tpl.route_count, 2);
	ck_assert_uint_eq(c.ip6.tpl.addr_count, 2);
	ck_assert_uint_eq(c.ip6.tpl.route_count, 0);
}
END_TEST

START_TEST(test_netlink_host_defaults_no_config_net_no_record)
{
	c.config_net = false;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_uint_eq(c.ip4.tpl.addr_count + c.ip4.tpl.route_count, 0);
	ck_assert_uint_eq(c.ip6.tpl.addr_count + c.ip6.tpl.route_count, 0);

	c.config_net = true;
	c.mode = MODE_PASST;
	ck_assert_int_eq(netlink_host_defaults(&c), 0);
	ck_assert_uint_eq(c.ip4.tpl.addr_count + c.ip4.tpl.route_count, 0);
}
END_TEST

/* values from <linux/rtnetlink.h> (rtnetlink(7)): RT_TABLE_MAIN 254,
 * RT_TABLE_LOCAL 255, RTN_UNICAST 1, RTN_LOCAL 2, RTPROT_KERNEL 2,
 * RTPROT_BOOT 3, RTPROT_STATIC 4, RTPROT_RA 9
 */
START_TEST(test_netlink_route_skip_copies_static_unicast_main)
{
	struct in6_addr d6 = a6("2001:db8:99::");
	struct in_addr d4 = a4("203.0.113.0");

	ck_assert_ptr_null(netlink_route_skip(AF_INET, 254, 1, 4, &d4, 24));
	ck_assert_ptr_null(netlink_route_skip(AF_INET, 254, 1, 3, &d4, 32));
	ck_assert_ptr_null(netlink_route_skip(AF_INET6, 254, 1, 9, &d6, 48));
}
END_TEST

START_TEST(test_netlink_route_skip_kernel_default_other_table_type)
{
	struct in_addr d4 = a4("203.0.113.0"), z4 = a4("0.0.0.0");

	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 2, &d4, 24));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 4, &z4, 0));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 4, NULL, 0));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 255, 1, 4, &d4, 24));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 2, 4, &d4, 24));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 4, &d4, 33));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_UNIX, 254, 1, 4, &d4, 24));
}
END_TEST

/* RFC 3927 169.254.0.0/16, RFC 5771 224.0.0.0/4, RFC 4291 fe80::/10 and
 * ff00::/8
 */
START_TEST(test_netlink_route_skip_link_local_multicast)
{
	struct in6_addr ll6 = a6("fe80::"), ll6b = a6("febf:1::"),
			mc6 = a6("ff02::"), ok6 = a6("fec0::");
	struct in_addr ll4 = a4("169.254.0.0"), mc4 = a4("239.1.0.0"),
		       ok4 = a4("240.0.0.0");

	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 4, &ll4, 16));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET, 254, 1, 4, &mc4, 16));
	ck_assert_ptr_null(netlink_route_skip(AF_INET, 254, 1, 4, &ok4, 4));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET6, 254, 1, 4, &ll6, 64));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET6, 254, 1, 4, &ll6b, 32));
	ck_assert_ptr_nonnull(netlink_route_skip(AF_INET6, 254, 1, 4, &mc6, 16));
	ck_assert_ptr_null(netlink_route_skip(AF_INET6, 254, 1, 4, &ok6, 10));
	/* wider than the range: not a link-local route */
	ck_assert_ptr_null(netlink_route_skip(AF_INET6, 254, 1, 4, &ll6, 8));
}
END_TEST

START_TEST(test_nl_route_add_network_metric)
{
	struct in_addr a = a4("198.51.100.1"), d = a4("203.0.113.0"),
		       gw = a4("198.51.100.2"), d2 = a4("203.0.113.128");
	struct in6_addr d6 = a6("2001:db8:99::"), gw6 = a6("2001:db8:5::1");
	char out[1024];
	int idx;

	netns_sh("ip link add x0 type veth peer name y0 && ip link set x0 up");
	idx = netlink_ifindex("x0");
	ck_assert_int_eq(netlink_addr_add(idx, AF_INET, &a, 24), 0);
	ck_assert_int_eq(netlink_route_add(idx, AF_INET, &d, 25, &gw, 50), 0);
	ck_assert_int_eq(netlink_route_add(idx, AF_INET, &d2, 25, NULL, 0), 0);
	/* gateway outside every prefix of the link: onlink */
	ck_assert_int_eq(netlink_route_add(idx, AF_INET6, &d6, 48, &gw6, 7), 0);
	/* iproute2 doesn't print "proto boot", the protocol we set */
	netns_out(out, sizeof(out), "ip -4 route show; ip -6 route show");
	ck_assert_ptr_nonnull(strstr(out,
		"203.0.113.0/25 via 198.51.100.2 dev x0 metric 50"));
	ck_assert_ptr_nonnull(strstr(out,
		"203.0.113.128/25 dev x0 scope link"));
	ck_assert_ptr_nonnull(strstr(out,
		"2001:db8:99::/48 via 2001:db8:5::1 dev x0 metric 7 onlink"));
	ck_assert_int_eq(netlink_route_add(idx, AF_INET, &d, 25, &gw, 50),
			 -EEXIST);
	ck_assert_int_eq(netlink_route_add(idx, AF_INET, &d, 33, &gw, 50),
			 -EINVAL);
	ck_assert_int_eq(netlink_route_add(idx, AF_INET, NULL, 8, &gw, 50),
			 -EINVAL);
}
END_TEST

/**
 * netlink_suite() - Test cases of conf/host.c and lib/netlink.c
 *
 * Return: the suite
 */
static Suite *netlink_suite(void)
{
	Suite *s = suite_create("netlink");
	TCase *tc;

	tc = tcase_create("host_defaults");
	tcase_add_checked_fixture(tc, setup_topo, NULL);
	tcase_add_test(tc, test_netlink_host_defaults_default_routes);
	tcase_add_test(tc, test_netlink_host_defaults_link_local_gw_is_our_ll);
	tcase_add_test(tc, test_netlink_host_defaults_given_values_kept);
	tcase_add_test(tc,
		       test_netlink_host_defaults_given_host_address_takes_its_prefix);
	tcase_add_test(tc, test_netlink_host_defaults_lowest_metric_wins);
	tcase_add_test(tc, test_netlink_host_defaults_multipath_highest_weight);
	tcase_add_test(tc, test_netlink_host_defaults_given_interface);
	tcase_add_test(tc, test_netlink_host_defaults_missing_interface);
	tcase_add_test(tc,
		       test_netlink_host_defaults_no_default_route_first_routed_link);
	tcase_add_test(tc, test_netlink_host_defaults_ipv4_only_host_disables_ipv6);
	tcase_add_test(tc, test_netlink_host_defaults_disabled_family_untouched);
	tcase_add_test(tc, test_nl_ifindex_matches_libc);
	suite_add_tcase(s, tc);

	tc = tcase_create("template");
	tcase_add_checked_fixture(tc, setup_tpl, NULL);
	tcase_add_test(tc, test_netlink_host_defaults_records_template);
	tcase_add_test(tc, test_netlink_host_defaults_no_copy_records_nothing);
	tcase_add_test(tc, test_netlink_host_defaults_given_addr_gw_per_family);
	tcase_add_test(tc, test_netlink_host_defaults_no_config_net_no_record);
	suite_add_tcase(s, tc);

	tc = tcase_create("route_skip");
	tcase_add_test(tc, test_netlink_route_skip_copies_static_unicast_main);
	tcase_add_test(tc, test_netlink_route_skip_kernel_default_other_table_type);
	tcase_add_test(tc, test_netlink_route_skip_link_local_multicast);
	suite_add_tcase(s, tc);

	tc = tcase_create("local_mode");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_netlink_host_defaults_local_mode);
	suite_add_tcase(s, tc);

	tc = tcase_create("set_up");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_nl_link_up_sets_iff_up);
	tcase_add_test(tc, test_nl_link_set_mtu_values);
	tcase_add_test(tc, test_nl_link_mac_set_and_get);
	tcase_add_test(tc, test_nl_addr_add_both_families);
	tcase_add_test(tc, test_nl_route_add_default_in_prefix);
	tcase_add_test(tc, test_nl_route_add_default_outside_prefix_onlink);
	tcase_add_test(tc, test_nl_route_add_default_ipv6_link_local);
	tcase_add_test(tc, test_nl_route_add_default_device_route);
	tcase_add_test(tc, test_nl_route_add_network_metric);
	tcase_add_test(tc, test_nl_addr_wait_ll_after_dad);
	tcase_add_test(tc, test_nl_addr_wait_ll_timeout);
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
	SRunner *sr = srunner_create(netlink_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
