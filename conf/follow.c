// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/follow.c - Derive the host-given configuration again, and coalesce
 *		   the bursts of changes that ask for it
 *
 * DOC: Theory of Operation
 *
 * At start, conf_parse() fills what the command line doesn't give from the
 * host: the template interface of each family, its address, prefix length
 * and default gateway (netlink_host_defaults()), the addresses and routes
 * pasta --config-net copies, the mapped host loopback address (the
 * gateway's, unless --map-host-loopback or --no-map-gw), and the name
 * servers, the --dns-forward target and the search list (resolv.conf).
 * When the host's network changes, follow_derive() computes the same again
 * from the command line's own values (struct conf_given, saved before the
 * host was read) with the same functions: a value the user gave never
 * changes, because it is the starting point of every derivation.
 *
 * What doesn't follow: families keep their state (one disabled at start,
 * by -4, -6 or because the host had no address of it, stays disabled), and
 * local mode stays local mode.  A family that has no usable address for a
 * while (no route at all, say), or that had a default route and has none
 * for a while, keeps its previous values: the guest keeps its
 * configuration, and gets the new one when the host has one again.
 *
 * follow_settle_*(): a network change is a burst of notifications (a VPN
 * coming up is dozens of link, address and route messages), so the caller
 * acts once none came for FOLLOW_QUIET_MS, or FOLLOW_MAX_WAIT_MS after the
 * first one if they never stop (a flood).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "follow.h"

/**
 * follow_settle_event() - Record one change notification
 * @s:		Coalescing state
 * @now:	Current time, ms (monotonic)
 */
void follow_settle_event(struct follow_settle *s, int64_t now)
{
	if (!s->pending) {
		s->pending = true;
		s->first = now;
	}
	s->last = now;
}

/**
 * follow_settle_due() - When to act on the pending changes
 * @s:		Coalescing state
 *
 * Return: the earlier of FOLLOW_QUIET_MS after the latest change and
 *	   FOLLOW_MAX_WAIT_MS after the first one, ms; INT64_MAX if nothing
 *	   is pending
 */
int64_t follow_settle_due(const struct follow_settle *s)
{
	int64_t quiet, cap;

	if (!s->pending)
		return INT64_MAX;
	quiet = s->last + FOLLOW_QUIET_MS;
	cap = s->first + FOLLOW_MAX_WAIT_MS;
	return quiet < cap ? quiet : cap;
}

/**
 * follow_settle_take() - Is it time to act?  If so, clear the pending state
 * @s:		Coalescing state
 * @now:	Current time, ms (monotonic)
 *
 * Return: true once per burst, when follow_settle_due() has passed
 */
bool follow_settle_take(struct follow_settle *s, int64_t now)
{
	if (!s->pending || now < follow_settle_due(s))
		return false;
	s->pending = false;
	return true;
}

/**
 * follow_keep4() - Keep the current IPv4 host-given values
 * @next:	New configuration
 * @cur:	Current one
 */
static void follow_keep4(struct conf_ip4 *next, const struct conf_ip4 *cur)
{
	memcpy(next->ifname_out, cur->ifname_out, IFNAMSIZ);
	next->addr = cur->addr;
	next->prefix_len = cur->prefix_len;
	next->gw = cur->gw;
	next->tpl = cur->tpl;
	next->enabled = cur->enabled;
	next->routed = cur->routed;
}

/**
 * follow_keep6() - Keep the current IPv6 host-given values
 * @next:	New configuration
 * @cur:	Current one
 */
static void follow_keep6(struct conf_ip6 *next, const struct conf_ip6 *cur)
{
	memcpy(next->ifname_out, cur->ifname_out, IFNAMSIZ);
	next->addr = cur->addr;
	next->prefix_len = cur->prefix_len;
	next->gw = cur->gw;
	next->our_ll = cur->our_ll;
	next->tpl = cur->tpl;
	next->enabled = cur->enabled;
	next->routed = cur->routed;
}

/**
 * follow_derive() - Derive the host-given configuration again
 * @cur:	Configuration in use (with @cur->given)
 * @next:	New configuration, filled (a copy of @cur with the derived
 *		fields replaced)
 * @r:		What resolv.conf says now
 * @host:	Fills the template interface's values (netlink_watch_derive()
 *		in the daemon, a stub in tests)
 *
 * The rules are those of conf_parse() (see the DOC comment): each family
 * starts from @cur->given, @host fills what wasn't given, the mapped host
 * loopback address follows the gateway unless --map-host-loopback or
 * --no-map-gw, and resolv_apply() fills name servers, the --dns-forward
 * target and the search list unless -D, --dns-host or -S.  A family @host
 * leaves without a usable address, or without the default route it had
 * (@cur's .routed set, @next's not), or all of them if @host fails, keeps
 * its current host-given values.  In local mode nothing is derived.
 *
 * Return: 0, or the error of @host (the families then keep their values;
 *	   name servers are derived anyway)
 */
int follow_derive(const struct conf *cur, struct conf *next,
		  const struct resolv_conf *r, follow_host_fn host)
{
	const struct conf_given *g = &cur->given;
	int rc = 0;

	*next = *cur;
	if (cur->local_mode)
		return 0;

	next->ip4 = g->ip4;
	next->ip6 = g->ip6;
	next->ip4.enabled = cur->ip4.enabled;
	next->ip6.enabled = cur->ip6.enabled;
	if (host)
		rc = host(next);

	/* No default route any more (a link down, between two networks):
	 * until it comes back, the guest keeps its picture, gateway and name
	 * servers included, instead of losing its default route
	 */
	if (cur->ip4.enabled && (rc || next->local_mode || !next->ip4.enabled ||
				 (cur->ip4.routed && !next->ip4.routed)))
		follow_keep4(&next->ip4, &cur->ip4);
	if (cur->ip6.enabled && (rc || next->local_mode || !next->ip6.enabled ||
				 (cur->ip6.routed && !next->ip6.routed)))
		follow_keep6(&next->ip6, &cur->ip6);
	next->local_mode = false;

	if (next->ip4.enabled && !g->mhl4 && !cur->no_map_gw)
		next->ip4.map_host_loopback = next->ip4.gw;
	if (next->ip6.enabled && !g->mhl6 && !cur->no_map_gw)
		next->ip6.map_host_loopback = next->ip6.gw;

	if (!g->search)
		next->search_count = 0;
	resolv_apply(next, r, g->dns, g->search);
	return rc;
}

/**
 * follow_a() - Format an address of either family, or "none"
 * @af:		AF_INET or AF_INET6
 * @a:		Address, network order
 * @buf:	Output, INET6_ADDRSTRLEN bytes at least
 *
 * Return: @buf
 */
static const char *follow_a(int af, const void *a, char *buf)
{
	static const struct in6_addr zero;

	if (!memcmp(a, &zero, af == AF_INET ? 4 : 16))
		snprintf(buf, INET6_ADDRSTRLEN, "none");
	else
		inet_ntop(af, a, buf, INET6_ADDRSTRLEN);
	return buf;
}

/**
 * follow_list() - Format a list of addresses, comma-separated
 * @af:		AF_INET or AF_INET6
 * @a:		Addresses, network order, @n * (4 or 16) bytes
 * @n:		Entries
 * @buf:	Output
 * @len:	Size of @buf
 *
 * Return: @buf ("none" for an empty list)
 */
static const char *follow_list(int af, const void *a, unsigned n, char *buf,
			       size_t len)
{
	size_t alen = af == AF_INET ? 4 : 16, used = 0;
	char s[INET6_ADDRSTRLEN];
	unsigned i;

	snprintf(buf, len, "none");
	for (i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 follow_a(af, (const char *)a + i * alen, s));

		if (w > 0)
			used += (size_t)w;
	}
	return buf;
}

/**
 * struct follow_fam_view - One family's derived values, for follow_fam()
 * @addr:	Address, network order (4 or 16 bytes)
 * @gw:		Gateway
 * @mhl:	Guest-side address mapped to host loopback
 * @dns:	Name servers for the guest, @dns_count entries
 * @dns_host:	Where --dns-forward queries go
 * @dns_count:	Entries in @dns
 * @plen:	Prefix length of @addr
 * @ifname:	Template interface, "" for none
 * @tpl:	Addresses and routes pasta --config-net copies
 */
struct follow_fam_view {
	const void *addr, *gw, *mhl, *dns, *dns_host;
	unsigned dns_count;
	int plen;
	const char *ifname;
	const struct conf_tpl *tpl;
};

/**
 * follow_tpl_addrs_eq() - Same addresses to copy, but for the guest's own?
 * @af:		AF_INET or AF_INET6
 * @a:		Old list
 * @pa:		Old guest address (network order), left out of @a
 * @b:		New list
 * @pb:		New guest address, left out of @b
 *
 * Return: true if the other addresses are the same, in the same order
 */
static bool follow_tpl_addrs_eq(int af, const struct conf_tpl *a,
				const void *pa, const struct conf_tpl *b,
				const void *pb)
{
	size_t alen = af == AF_INET ? 4 : 16;
	unsigned i = 0, j = 0;

	for (;;) {
		while (i < a->addr_count && !memcmp(&a->addrs[i].addr, pa, alen))
			i++;
		while (j < b->addr_count && !memcmp(&b->addrs[j].addr, pb, alen))
			j++;
		if (i == a->addr_count || j == b->addr_count)
			return i == a->addr_count && j == b->addr_count;
		if (memcmp(&a->addrs[i], &b->addrs[j], sizeof(a->addrs[i])))
			return false;
		i++;
		j++;
	}
}

/**
 * follow_tpl_routes_eq() - Same routes to copy?
 * @a:		Old list
 * @b:		New list
 *
 * Return: true if equal
 */
static bool follow_tpl_routes_eq(const struct conf_tpl *a,
				 const struct conf_tpl *b)
{
	return a->route_count == b->route_count &&
	       !memcmp(a->routes, b->routes,
		       sizeof(a->routes[0]) * a->route_count);
}

/**
 * follow_fam() - Report the changes of one family
 * @af:		AF_INET or AF_INET6
 * @a:		Old values
 * @b:		New values
 * @line:	Called with each line
 *
 * Return: number of lines
 */
static unsigned follow_fam(int af, const struct follow_fam_view *a,
			   const struct follow_fam_view *b,
			   void (*line)(const char *msg))
{
	size_t alen = af == AF_INET ? 4 : 16;
	const char *f = af == AF_INET ? "IPv4" : "IPv6";
	char x[INET6_ADDRSTRLEN], y[INET6_ADDRSTRLEN];
	char la[CONF_MAX_DNS * 48], lb[CONF_MAX_DNS * 48], msg[512];
	unsigned n = 0;

	if (strcmp(a->ifname, b->ifname)) {
		snprintf(msg, sizeof(msg), "host changed: %s template "
			 "interface %s -> %s", f, *a->ifname ? a->ifname :
			 "none", *b->ifname ? b->ifname : "none");
		if (line)
			line(msg);
		n++;
	}
	if (memcmp(a->addr, b->addr, alen) || a->plen != b->plen) {
		snprintf(msg, sizeof(msg), "host changed: %s address %s/%d -> "
			 "%s/%d", f, follow_a(af, a->addr, x), a->plen,
			 follow_a(af, b->addr, y), b->plen);
		if (line)
			line(msg);
		n++;
	}
	if (memcmp(a->gw, b->gw, alen)) {
		snprintf(msg, sizeof(msg), "host changed: %s gateway %s -> %s",
			 f, follow_a(af, a->gw, x), follow_a(af, b->gw, y));
		if (line)
			line(msg);
		n++;
	}
	if (memcmp(a->mhl, b->mhl, alen) && memcmp(b->mhl, b->gw, alen)) {
		snprintf(msg, sizeof(msg), "host changed: %s address mapped to "
			 "host loopback %s -> %s", f, follow_a(af, a->mhl, x),
			 follow_a(af, b->mhl, y));
		if (line)
			line(msg);
		n++;
	}
	if (!follow_tpl_addrs_eq(af, a->tpl, a->addr, b->tpl, b->addr)) {
		snprintf(msg, sizeof(msg), "host changed: %s addresses copied "
			 "to the namespace: %u -> %u", f, a->tpl->addr_count,
			 b->tpl->addr_count);
		if (line)
			line(msg);
		n++;
	}
	if (!follow_tpl_routes_eq(a->tpl, b->tpl)) {
		snprintf(msg, sizeof(msg), "host changed: %s routes copied to "
			 "the namespace: %u -> %u", f, a->tpl->route_count,
			 b->tpl->route_count);
		if (line)
			line(msg);
		n++;
	}
	if (a->dns_count != b->dns_count ||
	    memcmp(a->dns, b->dns, alen * a->dns_count)) {
		snprintf(msg, sizeof(msg), "host changed: %s name servers for "
			 "the guest %s -> %s", f,
			 follow_list(af, a->dns, a->dns_count, la, sizeof(la)),
			 follow_list(af, b->dns, b->dns_count, lb, sizeof(lb)));
		if (line)
			line(msg);
		n++;
	}
	if (memcmp(a->dns_host, b->dns_host, alen)) {
		snprintf(msg, sizeof(msg), "host changed: %s name server DNS "
			 "forwarding goes to %s -> %s", f,
			 follow_a(af, a->dns_host, x),
			 follow_a(af, b->dns_host, y));
		if (line)
			line(msg);
		n++;
	}
	return n;
}

/**
 * follow_diff() - Say what changed, one line per item
 * @a:		Old configuration
 * @b:		New configuration (follow_derive())
 * @line:	Called with each line ("host changed: IPv4 address ..."), or
 *		NULL to count only
 *
 * Return: number of changed items (lines), 0 if nothing changed
 */
unsigned follow_diff(const struct conf *a, const struct conf *b,
		     void (*line)(const char *msg))
{
	const struct follow_fam_view a4 = {
		&a->ip4.addr, &a->ip4.gw, &a->ip4.map_host_loopback,
		a->ip4.dns, &a->ip4.dns_host, a->ip4.dns_count,
		a->ip4.prefix_len, a->ip4.ifname_out, &a->ip4.tpl };
	const struct follow_fam_view b4 = {
		&b->ip4.addr, &b->ip4.gw, &b->ip4.map_host_loopback,
		b->ip4.dns, &b->ip4.dns_host, b->ip4.dns_count,
		b->ip4.prefix_len, b->ip4.ifname_out, &b->ip4.tpl };
	const struct follow_fam_view a6 = {
		&a->ip6.addr, &a->ip6.gw, &a->ip6.map_host_loopback,
		a->ip6.dns, &a->ip6.dns_host, a->ip6.dns_count,
		a->ip6.prefix_len, a->ip6.ifname_out, &a->ip6.tpl };
	const struct follow_fam_view b6 = {
		&b->ip6.addr, &b->ip6.gw, &b->ip6.map_host_loopback,
		b->ip6.dns, &b->ip6.dns_host, b->ip6.dns_count,
		b->ip6.prefix_len, b->ip6.ifname_out, &b->ip6.tpl };
	unsigned n = 0, i;
	char msg[CONF_MAX_SEARCH * CONF_SEARCH_LEN + 64];

	n += follow_fam(AF_INET, &a4, &b4, line);
	n += follow_fam(AF_INET6, &a6, &b6, line);

	if (a->search_count != b->search_count ||
	    memcmp(a->search, b->search, sizeof(a->search[0]) * a->search_count)) {
		size_t used = (size_t)snprintf(msg, sizeof(msg),
					       "host changed: search list");

		for (i = 0; i < b->search_count && used < sizeof(msg); i++)
			used += (size_t)snprintf(msg + used, sizeof(msg) - used,
						 " %s", b->search[i]);
		if (!b->search_count)
			snprintf(msg + used, sizeof(msg) - used, " (none)");
		if (line)
			line(msg);
		n++;
	}
	return n;
}
