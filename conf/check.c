// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/check.c - Checks across options, and values derived from the host
 *
 * After every option is read (conf/parse.c), conf_check() refuses the
 * combinations that make no sense (-4 with -6, a PID with --netns, ...);
 * conf_interfaces(), conf_derived() and conf_dns() then fill what was not
 * given from the host: template interfaces, addresses and routes
 * (conf/host.c), the loopback mapping, the user to run as, name servers
 * and search domains (conf/resolv.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conf_internal.h"
#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/netlink.h"
#include "ports.h"
#include "resolv.h"

/**
 * conf_family_special() - Which special-address option has a family?
 * @st:		Parsing state
 * @af:		AF_INET or AF_INET6
 *
 * Return: id of the first of --dns-forward, --dns-host,
 *	   --map-guest-addr, --map-host-loopback given with an address of
 *	   @af ("none" sets no family), 0 if none
 */
static int conf_family_special(const struct conf_state *st, int af)
{
	const struct conf *c = st->c;

	if (af == AF_INET) {
		if (st->dns_fwd4)
			return OPT_DNS_FORWARD;
		if (st->dns_host4)
			return OPT_DNS_HOST;
		if (c->ip4.map_guest_addr.s_addr)
			return OPT_MAP_GUEST_ADDR;
		if (c->ip4.map_host_loopback.s_addr)
			return OPT_MAP_HOST_LOOPBACK;
		return 0;
	}
	if (st->dns_fwd6)
		return OPT_DNS_FORWARD;
	if (st->dns_host6)
		return OPT_DNS_HOST;
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_guest_addr))
		return OPT_MAP_GUEST_ADDR;
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_host_loopback))
		return OPT_MAP_HOST_LOOPBACK;
	return 0;
}

/**
 * conf_family_ignore() - Drop special addresses of a disabled family
 * @st:		Parsing state, after the options were read
 *
 * Integrators pass a fixed set of such options whatever the user asks for
 * (podman always gives "--dns-forward 169.254.1.1 --map-guest-addr
 * 169.254.1.2"), so with -4 or -6 the ones of the other family are
 * ignored, with a debug message, rather than refused: they open no socket
 * and nothing of that family ever uses them.
 */
void conf_family_ignore(struct conf_state *st)
{
	struct conf *c = st->c;
	int af, id;

	for (af = AF_INET; af <= AF_INET6; af += AF_INET6 - AF_INET) {
		bool v4 = af == AF_INET;

		if (!(v4 ? st->v6_only : st->v4_only))
			continue;
		while ((id = conf_family_special(st, af))) {
			const struct conf_opt *o = conf_opt_by_id(id);

			debug("--%s: IPv%d setting ignored with %s", o->lname,
			      v4 ? 4 : 6, v4 ? "-6/--ipv6-only" :
					       "-4/--ipv4-only");
			switch (id) {
			case OPT_DNS_FORWARD:
				*(v4 ? &st->dns_fwd4 : &st->dns_fwd6) = false;
				break;
			case OPT_DNS_HOST:
				*(v4 ? &st->dns_host4 : &st->dns_host6) = false;
				break;
			case OPT_MAP_GUEST_ADDR:
				if (v4)
					c->ip4.map_guest_addr.s_addr = 0;
				else
					c->ip6.map_guest_addr = in6addr_any;
				break;
			default:
				if (v4)
					c->ip4.map_host_loopback.s_addr = 0;
				else
					c->ip6.map_host_loopback = in6addr_any;
				break;
			}
		}
		if (v4) {
			c->ip4.dns_fwd.s_addr = 0;
			c->ip4.dns_host.s_addr = 0;
		} else {
			c->ip6.dns_fwd = in6addr_any;
			c->ip6.dns_host = in6addr_any;
		}
	}
}

/**
 * conf_check_special() - Refuse special addresses that can't work together
 * @st:		Parsing state, after conf_derived() and conf_dns()
 * @af:		AF_INET or AF_INET6
 *
 * The guest never sends its own address out, so neither --map-guest-addr
 * nor --map-host-loopback can be it; --dns-forward can, with a warning
 * (upstream accepts it, and podman's tests give one that may be).  --map-guest-addr and
 * --map-host-loopback (by default the gateway) can't share an address:
 * traffic to it could go to one place only.  --dns-forward may share one
 * with either: port 53 goes to the name server, the rest follows the map
 * (passt.1, ADDRESS MAPPING).
 */
void conf_check_special(const struct conf_state *st, int af)
{
	const struct conf *c = st->c;
	union inany mga, mhl, dns, self;
	char buf[INET6_ADDRSTRLEN];

	if (af == AF_INET) {
		if (!c->ip4.enabled)
			return;
		inany_from_v4(&mga, c->ip4.map_guest_addr);
		inany_from_v4(&mhl, c->ip4.map_host_loopback);
		inany_from_v4(&dns, st->dns_fwd4 ? c->ip4.dns_fwd :
					(struct in_addr){ 0 });
		inany_from_v4(&self, c->ip4.addr);
	} else {
		if (!c->ip6.enabled)
			return;
		mga.a6 = c->ip6.map_guest_addr;
		mhl.a6 = c->ip6.map_host_loopback;
		dns.a6 = st->dns_fwd6 ? c->ip6.dns_fwd : in6addr_any;
		self.a6 = c->ip6.addr;
	}

	if (inany_is_unspecified(&self))
		self.a6 = in6addr_loopback;	/* matches none of the three */

	if (!inany_is_unspecified(&mga) && inany_equals(&mga, &mhl))
		conf_die(st, conf_opt_by_id(OPT_MAP_GUEST_ADDR),
			 "%s is also the --map-host-loopback address (by "
			 "default the gateway): give another address, or "
			 "--no-map-gw", inany_ntop(&mga, buf));
	if (inany_equals(&mga, &self))
		conf_die(st, conf_opt_by_id(OPT_MAP_GUEST_ADDR),
			 "%s is the guest's own address, which never leaves "
			 "the guest (give another address)",
			 inany_ntop(&mga, buf));
	if ((af == AF_INET ? st->mhl4 : st->mhl6) && inany_equals(&mhl, &self))
		conf_die(st, conf_opt_by_id(OPT_MAP_HOST_LOOPBACK),
			 "%s is the guest's own address, which never leaves "
			 "the guest (give another address)",
			 inany_ntop(&mhl, buf));
	/* Accepted, as upstream does: podman's own tests pass
	 * --dns-forward 198.51.100.1 whatever the host's address is
	 */
	if (inany_equals(&dns, &self))
		warn("--dns-forward: %s is the guest's own address, which "
		     "never leaves the guest: its DNS queries to it won't "
		     "reach the name server", inany_ntop(&dns, buf));
}

/**
 * conf_mtu_ipv6() - Turn IPv6 off for an MTU below its minimum
 * @st:		Parser state, after conf_check()
 *
 * IPv6 needs links with an MTU of at least 1280 bytes (RFC 8200, section 5):
 * Linux disables IPv6 on such a link and refuses addresses on it.  Where
 * IPv6 was asked for explicitly (-6, an IPv6 -a or -g), that's an error;
 * otherwise IPv6 is off, with one line saying why.
 */
void conf_mtu_ipv6(const struct conf_state *st)
{
	struct conf *c = st->c;

	if (!c->ip6.enabled || c->mtu >= IPV6_MIN_MTU)
		return;
	if (st->v6_only || st->addr6 || st->gw6)
		conf_die(st, conf_opt_by_id('m'), "%d is below %d, the IPv6 "
			 "minimum (RFC 8200, section 5), and IPv6 was asked "
			 "for", c->mtu, IPV6_MIN_MTU);
	info("-m/--mtu %d is below %d, the IPv6 minimum: IPv6 disabled",
	     c->mtu, IPV6_MIN_MTU);
	c->ip6.enabled = false;
}

/**
 * conf_check() - Checks involving several options
 * @st:		Parsing state
 */
void conf_check(const struct conf_state *st)
{
	const struct conf *c = st->c;
	size_t i;

	if (st->v4_only && st->v6_only)
		conf_die(st, conf_opt_by_id('6'),
			 "conflicts with -4/--ipv4-only (give at most one)");
	if (c->quiet && c->debug)
		conf_die(st, conf_opt_by_id('q'),
			 "conflicts with -d/--debug and --trace");
	if (st->addr4_len && st->netmask)
		conf_die(st, conf_opt_by_id('n'),
			 "conflicts with a prefix length in -a/--address");
	if (st->v6_only && (st->addr4 || st->gw4 || st->netmask))
		conf_die(st, conf_opt_by_id(st->addr4 ? 'a' :
					    st->gw4 ? 'g' : 'n'),
			 "IPv4 setting given with -6/--ipv6-only");
	if (st->v4_only && (st->addr6 || st->gw6))
		conf_die(st, conf_opt_by_id(st->addr6 ? 'a' : 'g'),
			 "IPv6 setting given with -4/--ipv4-only");
	for (i = 0; i < 4; i++) {
		static const int ids[4] = { 't', 'u', 'T', 'U' };
		const struct fwd_table *t;
		bool ns_side;
		unsigned idx, r;

		t = conf_fwd_table(UNCONST(struct conf *, c), ids[i], &ns_side, &idx);
		for (r = 0; r < t->n; r++) {
			sa_family_t af = t->rules[r].af;
			char buf[INET6_ADDRSTRLEN];

			if ((af == AF_INET && st->v6_only) ||
			    (af == AF_INET6 && st->v4_only))
				conf_die(st, conf_opt_by_id(ids[i]),
					 "%s address %s given with %s (give "
					 "an address of the enabled family, "
					 "or none)",
					 af == AF_INET ? "IPv4" : "IPv6",
					 inany_ntop(&t->rules[r].addr, buf),
					 af == AF_INET ? "-6/--ipv6-only" :
							 "-4/--ipv4-only");
		}
	}

	for (i = 0; i < 4; i++) {
		bool tcp = i == 0 || i == 2;

		if (st->fwd_some[i] && (tcp ? c->no_tcp : c->no_udp))
			conf_die(st, st->fwd_opt[i], "port forwarding given "
				 "with %s", tcp ? "--no-tcp" : "--no-udp");
	}

	/* Upstream: "is for vhost-user mode only" */
	if (st->vu_only && !c->vhost_user)
		conf_die(st, st->vu_only, "needs --vhost-user");

	if (c->mode != MODE_PASTA)
		return;
	if (c->splice_only && c->no_splice)
		conf_die(st, conf_opt_by_id(OPT_SPLICE_ONLY),
			 "conflicts with --no-splice (give one)");
	if (st->netns_given && c->target_pid)
		conf_die(st, conf_opt_by_id(OPT_NETNS),
			 "conflicts with PID %d (give one target)",
			 (int)c->target_pid);
	if (st->netns_given && c->cmd)
		conf_die(st, conf_opt_by_id(OPT_NETNS),
			 "conflicts with a command (give one target)");
	/* The running instance's command goes on: nothing to start */
	if (*c->restart_from && c->cmd)
		conf_die(st, conf_opt_by_id(OPT_RESTART_FROM),
			 "conflicts with a command (the running instance's "
			 "goes on: give none)");
	if (st->userns_given && !st->netns_given && !c->target_pid)
		conf_die(st, conf_opt_by_id(OPT_USERNS),
			 "needs a PID or --netns");
	/* The caller created the tap device in an existing namespace */
	if (st->fd_given && !st->netns_given && !c->target_pid)
		conf_die(st, conf_opt_by_id('F'), "needs the namespace of the "
			 "tap device: a PID or --netns");
	if (st->fd_given && c->splice_only)
		conf_die(st, conf_opt_by_id('F'), "conflicts with --splice-only "
			 "(no tap device)");
}

/**
 * conf_interfaces() - Check and assign -i, --outbound-if4, --outbound-if6
 * @st:		Parsing state
 *
 * -i names the template interface of both families; --outbound-if4/6 that
 * of one family, unless -i is given too.  All must exist.
 */
void conf_interfaces(struct conf_state *st)
{
	struct conf *c = st->c;

	if (st->ifname && netlink_ifindex(st->ifname) < 0)
		conf_die(st, conf_opt_by_id('i'), "no interface '%s'",
			 c->ip4.ifname_out);
	if (c->ip4.ifname_bind[0] && netlink_ifindex(c->ip4.ifname_bind) < 0)
		conf_die(st, conf_opt_by_id(OPT_OUTBOUND_IF4),
			 "no interface '%s'", c->ip4.ifname_bind);
	if (c->ip6.ifname_bind[0] && netlink_ifindex(c->ip6.ifname_bind) < 0)
		conf_die(st, conf_opt_by_id(OPT_OUTBOUND_IF6),
			 "no interface '%s'", c->ip6.ifname_bind);
	if (!st->ifname) {
		memcpy(c->ip4.ifname_out, c->ip4.ifname_bind, IFNAMSIZ);
		memcpy(c->ip6.ifname_out, c->ip6.ifname_bind, IFNAMSIZ);
	}
}

/**
 * conf_derived() - Defaults that depend on the host and on other options
 * @st:		Parsing state
 */
void conf_derived(struct conf_state *st)
{
	struct conf *c = st->c;
	struct passwd *pw;

	/* the gateway stands for the host unless told otherwise */
	if (c->ip4.enabled && !st->mhl4 && !c->no_map_gw)
		c->ip4.map_host_loopback = c->ip4.gw;
	if (c->ip6.enabled && !st->mhl6 && !c->no_map_gw)
		c->ip6.map_host_loopback = c->ip6.gw;

	if (c->no_icmp)
		c->no_ndp = true;
	if (st->fd_given)
		c->one_off = true;
	if (c->mode == MODE_PASTA && st->netns_given && !st->userns_given)
		c->netns_only = true;

	/* pasta: -t, -u, -T and -U default to "auto" each, as upstream */
	if (c->mode == MODE_PASTA) {
		static const int ids[] = { 't', 'u', 'T', 'U' };
		unsigned i, idx;
		bool ns_side;

		for (i = 0; i < ARRAY_SIZE(ids); i++) {
			struct fwd_table *t = conf_fwd_table(c, ids[i], &ns_side,
							     &idx);

			if (!st->fwd_some[idx] && !st->fwd_none[idx])
				t->auto_on = true;
		}
	}

	if (c->mode == MODE_PASTA && !c->ifname_ns[0]) {
		if (c->ip4.enabled && c->ip4.ifname_out[0])
			memcpy(c->ifname_ns, c->ip4.ifname_out, IFNAMSIZ);
		else if (c->ip6.enabled && c->ip6.ifname_out[0])
			memcpy(c->ifname_ns, c->ip6.ifname_out, IFNAMSIZ);
		else
			snprintf(c->ifname_ns, IFNAMSIZ, "%s",
				 CONF_IFNAME_NS_DEFAULT);
	}

	if (!c->runas_set) {
		if (geteuid() == 0) {
			pw = getpwnam("nobody");
			c->uid = pw ? pw->pw_uid : CONF_UID_NOBODY;
			c->gid = pw ? pw->pw_gid : CONF_UID_NOBODY;
		} else {
			c->uid = geteuid();
			c->gid = getegid();
		}
	}
}

/**
 * conf_dns_forward_check() - Say where --dns-forward addresses forward to
 * @c:		Configuration, name servers settled
 *
 * A --dns-forward address with no --dns-host of its own family forwards to
 * the other family's name server (fwd_nat_to_host_port()), which is worth
 * a line; with none at all, its queries go nowhere, which is worth a
 * warning.
 */
static void conf_dns_forward_check(const struct conf *c)
{
	bool has4 = c->ip4.dns_host.s_addr != 0;
	bool has6 = !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_host);

	if (c->ip4.enabled && c->ip4.dns_fwd.s_addr && !has4) {
		if (has6)
			info("--dns-forward: IPv4 queries go to the IPv6 name "
			     "server (no IPv4 one)");
		else
			warn("--dns-forward: no name server to forward to "
			     "(give --dns-host)");
	}
	if (c->ip6.enabled && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_fwd) &&
	    !has6) {
		if (has4)
			info("--dns-forward: IPv6 queries go to the IPv4 name "
			     "server (no IPv6 one)");
		else
			warn("--dns-forward: no name server to forward to "
			     "(give --dns-host)");
	}
}

/**
 * conf_dns() - Name servers and search list from resolv.conf
 * @st:		Parsing state
 */
void conf_dns(struct conf_state *st)
{
	struct conf *c = st->c;
	struct resolv_conf r;
	int rc;

	rc = resolv_read(resolv_path, &r);
	if (rc)
		debug("%s: %s, no name servers from it", resolv_path,
		      strerror(-rc));
	resolv_apply(c, &r, st->dns || st->dns_none,
		     st->search || st->search_none);

	conf_dns_forward_check(c);
}

/**
 * conf_debug_dump() - Log the forwarding rules at debug level
 * @c:		Configuration
 */
void conf_debug_dump(const struct conf *c)
{
	static const char *const names[] = { "TCP in", "UDP in", "TCP out",
					     "UDP out" };
	const struct fwd_table *t[] = { &c->tcp_in, &c->udp_in, &c->tcp_out,
					&c->udp_out };
	char buf[128];
	unsigned i, j;

	if (log_level < LOG_DEBUG)
		return;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (j = 0; j < t[i]->n; j++) {
			fwd_rule_fmt(&t[i]->rules[j], buf, sizeof(buf));
			debug("forward %s: %s", names[i], buf);
		}
		if (t[i]->auto_on)
			debug("forward %s: auto, %u exclusions, %s", names[i],
			      t[i]->auto_nexc, t[i]->auto_nonly ?
			      "given ports only" : "any port");
	}
}
