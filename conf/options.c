// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/options.c - The value of each command line option, checked on its own
 *
 * conf_opt() stores the value of one option in struct conf, after checking
 * it alone: a bad value ends the process with status 1 and one line naming
 * the option and the accepted form (conf_die(), conf_invalid()).  What
 * involves several options is checked after all are read (conf/check.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_tun.h>

#include "conf_internal.h"
#include "../lib/inany.h"
#include "../lib/log.h"
#include "ports.h"
#include "resolv.h"

/**
 * conf_fd_connected_stream() - Is a descriptor a connected stream socket?
 * @fd:		Descriptor (-F)
 *
 * SOCK_STREAM (socket(7) SO_TYPE), not listening (SO_ACCEPTCONN), with a
 * peer: getpeername() fails with ENOTCONN on an unconnected socket, and
 * succeeds on either end of an AF_UNIX socketpair() (with an unnamed
 * address, unix(7)), which is what QEMU or libvirt may hand us.
 *
 * Return: true if it is
 */
static bool conf_fd_connected_stream(int fd)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(int);
	int type, acc;

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) ||
	    type != SOCK_STREAM)
		return false;
	sl = sizeof(acc);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &sl) || acc)
		return false;
	sl = sizeof(sa);
	return !getpeername(fd, (struct sockaddr *)&sa, &sl);
}

/**
 * conf_fd_tap() - Is a descriptor a tap device without packet information?
 * @fd:		Descriptor (-F in pasta mode)
 * @name:	Result: the device's name, IFNAMSIZ bytes
 *
 * A /dev/net/tun descriptor attached to a device answers TUNGETIFF with
 * the device's name and flags (linux/if_tun.h): IFF_TAP for Ethernet
 * frames, IFF_NO_PI for frames without the 4-byte packet information
 * header (Documentation/networking/tuntap.rst).
 *
 * Return: true if it is such a device
 */
static bool conf_fd_tap(int fd, char *name)
{
	struct ifreq ifr = { 0 };

	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return false;
	memcpy(name, ifr.ifr_name, IFNAMSIZ);
	name[IFNAMSIZ - 1] = '\0';
	return (ifr.ifr_flags & (IFF_TAP | IFF_TUN)) == IFF_TAP &&
	       (ifr.ifr_flags & IFF_NO_PI);
}

/**
 * conf_uint() - Parse a decimal integer within limits
 * @s:		Text: digits only, no sign, no spaces
 * @min:	Smallest value accepted
 * @max:	Largest value accepted
 * @out:	Result
 *
 * Return: 0 on success, -EINVAL if malformed or out of range
 */
int conf_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (ULLONG_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * conf_addr() - Parse an IPv4 or IPv6 address
 * @s:		Text
 * @a:		Result: IPv4 addresses IPv4-mapped
 *
 * Return: AF_INET, AF_INET6, or -EINVAL
 */
static int conf_addr(const char *s, union inany *a)
{
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1) {
		inany_from_v4(a, a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &a->a6) == 1)
		return AF_INET6;
	return -EINVAL;
}

/**
 * conf_addr_unicast() - Is the address usable as a host address?
 * @a:		Address, IPv4-mapped for IPv4
 * @ll_ok:	Accept IPv6 link-local addresses
 *
 * Return: false for unspecified, loopback, multicast and (IPv4) limited
 *	   broadcast addresses, or link-local IPv6 unless @ll_ok
 */
static bool conf_addr_unicast(const union inany *a, bool ll_ok)
{
	const struct in_addr *a4 = inany_v4(a);

	if (inany_is_unspecified(a) || inany_is_loopback(a))
		return false;
	if (a4) {
		uint32_t h = ntohl(a4->s_addr);

		return (h >> 28) != 0xe && h != 0xffffffffU;
	}
	if (IN6_IS_ADDR_MULTICAST(&a->a6))
		return false;
	return ll_ok || !IN6_IS_ADDR_LINKLOCAL(&a->a6);
}

/**
 * conf_mac() - Parse a unicast MAC address "xx:xx:xx:xx:xx:xx"
 * @s:		Text: six pairs of hex digits separated by ':'
 * @mac:	Result, 6 bytes
 *
 * Return: 0, or -EINVAL if malformed, multicast or all zeros
 */
static int conf_mac(const char *s, uint8_t *mac)
{
	static const uint8_t zero[ETH_ALEN];
	int i, j;

	if (strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < ETH_ALEN; i++) {
		unsigned v = 0;

		for (j = 0; j < 2; j++) {
			char ch = s[i * 3 + j];

			v <<= 4;
			if (ch >= '0' && ch <= '9')
				v |= (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				v |= (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				v |= (unsigned)(ch - 'A' + 10);
			else
				return -EINVAL;
		}
		if (i < ETH_ALEN - 1 && s[i * 3 + 2] != ':')
			return -EINVAL;
		mac[i] = (uint8_t)v;
	}
	if ((mac[0] & 1) || !memcmp(mac, zero, ETH_ALEN))
		return -EINVAL;
	return 0;
}

/**
 * conf_ifname() - Check and copy an interface name
 * @s:		Name
 * @dst:	Output, IFNAMSIZ bytes
 *
 * Rules of the kernel's dev_valid_name(): 1-15 characters, not "." or
 * "..", no '/', ':' or white space.
 *
 * Return: 0, or -EINVAL
 */
static int conf_ifname(const char *s, char *dst)
{
	size_t len = strlen(s), i;

	if (!len || len >= IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] == '/' || s[i] == ':' || s[i] <= ' ' || s[i] > '~')
			return -EINVAL;
	}
	memcpy(dst, s, len + 1);
	return 0;
}

/**
 * conf_path() - Check and copy a file path
 * @s:		Path
 * @dst:	Output
 * @len:	Size of @dst
 *
 * Return: 0, or -EINVAL if empty or too long
 */
static int conf_path(const char *s, char *dst, size_t len)
{
	size_t n = strlen(s);

	if (!n || n >= len)
		return -EINVAL;
	memcpy(dst, s, n + 1);
	return 0;
}

/**
 * conf_netmask() - Parse -n: dotted netmask or prefix length
 * @s:		Text
 *
 * Return: prefix length 0-32, or -EINVAL (also for non-contiguous masks)
 */
static int conf_netmask(const char *s)
{
	unsigned long long v;
	struct in_addr m;
	uint32_t h;
	int len;

	if (strchr(s, '.')) {
		if (inet_pton(AF_INET, s, &m) != 1)
			return -EINVAL;
		h = ntohl(m.s_addr);
		for (len = 0; len < 32 && (h & (0x80000000U >> len)); len++)
			;
		if (len < 32 && (h << len))
			return -EINVAL;
		return len;
	}
	if (conf_uint(s, 0, 32, &v))
		return -EINVAL;
	return (int)v;
}

/**
 * conf_opt_address() - -a ADDR[/LEN]
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value
 */
static void conf_opt_address(struct conf_state *st, const struct conf_opt *o,
			     const char *arg)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned long long len = 0;
	struct conf *c = st->c;
	char *slash;
	union inany a;
	int af;

	if (conf_path(arg, buf, sizeof(buf)))
		conf_invalid(st, o, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	af = conf_addr(buf, &a);
	if (af < 0 || !conf_addr_unicast(&a, false))
		conf_invalid(st, o, arg);
	if (slash && conf_uint(slash + 1, 0, af == AF_INET ? 32 : 128, &len))
		conf_invalid(st, o, arg);

	if (af == AF_INET) {
		if (st->addr4)
			conf_die(st, o, "given twice for IPv4 (accepted: %s)",
				 o->accepted);
		st->addr4 = true;
		c->ip4.addr = *inany_v4(&a);
		if (slash) {
			st->addr4_len = true;
			c->ip4.prefix_len = (int)len;
		}
	} else {
		if (st->addr6)
			conf_die(st, o, "given twice for IPv6 (accepted: %s)",
				 o->accepted);
		st->addr6 = true;
		c->ip6.addr = a.a6;
		if (slash)
			c->ip6.prefix_len = (int)len;
	}
}

/**
 * conf_opt_addr_per_family() - -g, -o, --dns-forward, --dns-host
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value
 * @given4:	"Given for IPv4" flag of this option
 * @given6:	"Given for IPv6" flag
 * @dst4:	Where the IPv4 address goes
 * @dst6:	Where the IPv6 address goes
 * @unicast:	Refuse unspecified, loopback and multicast addresses
 */
static void conf_opt_addr_per_family(struct conf_state *st,
				     const struct conf_opt *o, const char *arg,
				     bool *given4, bool *given6,
				     struct in_addr *dst4,
				     struct in6_addr *dst6, bool unicast)
{
	union inany a;
	int af = conf_addr(arg, &a);

	if (af < 0 || (unicast && !conf_addr_unicast(&a, true)) ||
	    inany_is_unspecified(&a))
		conf_invalid(st, o, arg);
	if (af == AF_INET) {
		if (*given4)
			conf_die(st, o, "given twice for IPv4 (accepted: %s)",
				 o->accepted);
		*given4 = true;
		*dst4 = *inany_v4(&a);
	} else {
		if (*given6)
			conf_die(st, o, "given twice for IPv6 (accepted: %s)",
				 o->accepted);
		*given6 = true;
		*dst6 = a.a6;
	}
}

/**
 * conf_opt_map() - --map-host-loopback, --map-guest-addr: ADDR or none
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value
 * @dst4:	IPv4 address to set
 * @dst6:	IPv6 address to set
 * @given4:	Set when IPv4 is given (or none), may be NULL
 * @given6:	Set when IPv6 is given (or none), may be NULL
 *
 * The last value for each family wins, as upstream documents.
 */
static void conf_opt_map(struct conf_state *st, const struct conf_opt *o,
			 const char *arg, struct in_addr *dst4,
			 struct in6_addr *dst6, bool *given4, bool *given6)
{
	union inany a;
	int af;

	if (!strcmp(arg, "none")) {
		dst4->s_addr = INADDR_ANY;
		*dst6 = in6addr_any;
		if (given4)
			*given4 = true;
		if (given6)
			*given6 = true;
		return;
	}
	af = conf_addr(arg, &a);
	if (af < 0 || !conf_addr_unicast(&a, true))
		conf_invalid(st, o, arg);
	if (af == AF_INET) {
		*dst4 = *inany_v4(&a);
		if (given4)
			*given4 = true;
	} else {
		*dst6 = a.a6;
		if (given6)
			*given6 = true;
	}
}

/**
 * conf_opt_dns() - -D ADDR or none
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value
 */
static void conf_opt_dns(struct conf_state *st, const struct conf_opt *o,
			 const char *arg)
{
	struct conf *c = st->c;
	union inany a;
	int af;

	if (!strcmp(arg, "none")) {
		if (st->dns)
			conf_die(st, o, "'none' can't be combined with addresses");
		st->dns_none = true;
		c->ip4.dns_count = c->ip6.dns_count = 0;
		return;
	}
	if (st->dns_none)
		conf_die(st, o, "addresses can't be combined with 'none'");
	af = conf_addr(arg, &a);
	if (af < 0 || inany_is_unspecified(&a) ||
	    (af == AF_INET6 && IN6_IS_ADDR_MULTICAST(&a.a6)))
		conf_invalid(st, o, arg);
	st->dns = true;
	if (af == AF_INET) {
		if (c->ip4.dns_count >= CONF_MAX_DNS)
			conf_die(st, o, "more than %d IPv4 name servers",
				 CONF_MAX_DNS);
		c->ip4.dns[c->ip4.dns_count++] = *inany_v4(&a);
	} else {
		if (c->ip6.dns_count >= CONF_MAX_DNS)
			conf_die(st, o, "more than %d IPv6 name servers",
				 CONF_MAX_DNS);
		c->ip6.dns[c->ip6.dns_count++] = a.a6;
	}
}

/**
 * conf_opt_search() - -S LIST or none
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value: domains separated by spaces
 */
static void conf_opt_search(struct conf_state *st, const struct conf_opt *o,
			    const char *arg)
{
	struct conf *c = st->c;
	const char *p = arg;

	if (!strcmp(arg, "none")) {
		if (st->search)
			conf_die(st, o, "'none' can't be combined with domains");
		st->search_none = true;
		c->search_count = 0;
		return;
	}
	if (st->search_none)
		conf_die(st, o, "domains can't be combined with 'none'");

	for (;;) {
		size_t len;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " ");
		if (c->search_count >= CONF_MAX_SEARCH)
			conf_die(st, o, "more than %d search domains",
				 CONF_MAX_SEARCH);
		if (resolv_domain_norm(c->search[c->search_count], p, len))
			conf_invalid(st, o, arg);
		c->search_count++;
		p += len;
	}
	if (!st->search && !c->search_count)
		conf_invalid(st, o, arg);
	st->search = true;
}

/**
 * conf_opt_runas() - --runas UID[:GID] or LOGIN[:GROUP]
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value
 */
static void conf_opt_runas(struct conf_state *st, const struct conf_opt *o,
			   const char *arg)
{
	char user[256], *group;
	unsigned long long v;
	struct conf *c = st->c;
	struct passwd *pw;
	struct group *gr;

	if (conf_path(arg, user, sizeof(user)))
		conf_invalid(st, o, arg);
	group = strchr(user, ':');
	if (group)
		*group++ = '\0';
	if (!user[0] || (group && !group[0]))
		conf_invalid(st, o, arg);

	/* (uid_t)-1 means "unchanged" to setresuid(2): never accept it */
	if (!conf_uint(user, 0, (uid_t)-2, &v)) {
		c->uid = (uid_t)v;
		pw = getpwuid(c->uid);
		c->gid = pw ? pw->pw_gid : (gid_t)v;
	} else {
		pw = getpwnam(user);
		if (!pw)
			conf_invalid(st, o, arg);
		c->uid = pw->pw_uid;
		c->gid = pw->pw_gid;
	}

	if (group) {
		if (!conf_uint(group, 0, (gid_t)-2, &v)) {
			c->gid = (gid_t)v;
		} else {
			gr = getgrnam(group);
			if (!gr)
				conf_invalid(st, o, arg);
			c->gid = gr->gr_gid;
		}
	}
	c->runas_set = true;
}

/**
 * conf_opt_devmem() - --devmem IFNAME[:QUEUES]
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value: QUEUES is a comma-separated list of queues or ranges
 */
static void conf_opt_devmem(struct conf_state *st, const struct conf_opt *o,
			    const char *arg)
{
	char buf[IFNAMSIZ + 256], *colon, *tok, *save;
	struct conf *c = st->c;
	uint64_t q = 0;

	if (conf_path(arg, buf, sizeof(buf)))
		conf_invalid(st, o, arg);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (conf_ifname(buf, c->devmem_if))
		conf_invalid(st, o, arg);
	if (!colon) {
		c->devmem_queues = BIT(0);
		return;
	}

	if (!colon[1] || colon[1] == ',' || arg[strlen(arg) - 1] == ',' ||
	    strstr(colon + 1, ",,"))
		conf_invalid(st, o, arg);
	for (tok = strtok_r(colon + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long first, last;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (conf_uint(tok, 0, CONF_DEVMEM_QUEUES - 1, &first))
			conf_invalid(st, o, arg);
		last = first;
		if (dash && (conf_uint(dash + 1, 0, CONF_DEVMEM_QUEUES - 1,
				       &last) || last < first))
			conf_invalid(st, o, arg);
		for (; first <= last; first++)
			q |= (uint64_t)1 << first;
	}
	c->devmem_queues = q;
}

/**
 * conf_opt_netns() - --netns PATH or NAME
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Value: NAME (no '/') means /run/netns/NAME, as ip-netns(8)
 */
static void conf_opt_netns(struct conf_state *st, const struct conf_opt *o,
			   const char *arg)
{
	struct conf *c = st->c;
	int n;

	if (!*arg)
		conf_invalid(st, o, arg);
	if (strchr(arg, '/')) {
		if (conf_path(arg, c->netns, sizeof(c->netns)))
			conf_invalid(st, o, arg);
	} else {
		if (!strcmp(arg, ".") || !strcmp(arg, ".."))
			conf_invalid(st, o, arg);
		n = snprintf(c->netns, sizeof(c->netns), "%s%s",
			     CONF_NETNS_DIR, arg);
		if (n < 0 || (size_t)n >= sizeof(c->netns))
			conf_invalid(st, o, arg);
	}
	st->netns_given = true;
}

/**
 * conf_fwd_table() - Table, side and index for a forwarding option
 * @c:		Configuration
 * @id:		't', 'u', 'T' or 'U'
 * @ns_side:	Result: ports are bound in the namespace
 * @idx:	Result: index into the per-table flags of struct conf_state
 *
 * Return: the table
 */
struct fwd_table *conf_fwd_table(struct conf *c, int id, bool *ns_side,
				 unsigned *idx)
{
	switch (id) {
	case 't':
		*ns_side = false;
		*idx = 0;
		return &c->tcp_in;
	case 'u':
		*ns_side = false;
		*idx = 1;
		return &c->udp_in;
	case 'T':
		*ns_side = true;
		*idx = 2;
		return &c->tcp_out;
	default:
		*ns_side = true;
		*idx = 3;
		return &c->udp_out;
	}
}

/**
 * conf_opt_fwd() - -t, -u, -T, -U
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Port forwarding spec (conf/ports.c)
 */
static void conf_opt_fwd(struct conf_state *st, const struct conf_opt *o,
			 const char *arg)
{
	char err[256], q[CONF_ARG_SHOWN + 8];
	struct fwd_table *t;
	unsigned idx;
	bool ns_side;

	t = conf_fwd_table(st->c, o->id, &ns_side, &idx);
	st->fwd_opt[idx] = o;
	if (!strcmp(arg, "none")) {
		if (st->fwd_some[idx])
			conf_die(st, o, "'none' can't be combined with other port specs");
		st->fwd_none[idx] = true;
		return;
	}
	if (st->fwd_none[idx])
		conf_die(st, o, "port specs can't be combined with 'none'");
	if (fwd_spec_parse(t, arg, ns_side, err, sizeof(err)))
		conf_die(st, o, "%s in '%s'", err, conf_quote(arg, q, sizeof(q)));
	if (t->auto_on && st->c->mode != MODE_PASTA)
		conf_die(st, o, "'auto' needs a namespace to watch: pasta only "
			 "(give ports, ranges, 'all' or 'none')");
	st->fwd_some[idx] = true;
}

/**
 * conf_opt() - Apply one option
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Its argument, or NULL
 */
void conf_opt(struct conf_state *st, const struct conf_opt *o, const char *arg)
{
	struct conf *c = st->c;
	unsigned long long v;
	int n;

	switch (o->id) {
	case 'd':
		c->debug = true;
		break;
	case OPT_TRACE:
		c->trace = c->debug = true;
		break;
	case 'q':
		c->quiet = true;
		break;
	case 'f':
		c->foreground = true;
		break;
	case 'e':
		/* as upstream: a warning, no effect */
		warn("-e/--stderr is deprecated and has no effect: it will be "
		     "dropped");
		break;
	case 'l':
		if (conf_path(arg, c->log_file, sizeof(c->log_file)))
			conf_invalid(st, o, arg);
		break;
	case OPT_LOG_SIZE:
		if (conf_uint(arg, LOG_FILE_SIZE_MIN, 1ULL << 40, &v) ||
		    v > SIZE_MAX)
			conf_invalid(st, o, arg);
		c->log_size = (size_t)v;
		break;
	case OPT_RUNAS:
		conf_opt_runas(st, o, arg);
		break;
	case 'h':
		conf_usage(c);
		fflush(stdout);
		conf_exit(EXIT_SUCCESS);
	case OPT_VERSION:
		printf("%s %s\n", c->argv0, conf_version());
		fflush(stdout);
		conf_exit(EXIT_SUCCESS);
	case 'p':
		if (conf_path(arg, c->pcap_file, sizeof(c->pcap_file)))
			conf_invalid(st, o, arg);
		break;
	case 'P':
		if (conf_path(arg, c->pid_file, sizeof(c->pid_file)))
			conf_invalid(st, o, arg);
		break;
	case 'm':
		/* 0, as upstream: advertise none, leave the tap's as it is;
		 * frames stay within the largest MTU we could have given
		 */
		if (!strcmp(arg, "0")) {
			c->no_mtu = true;
			c->mtu = CONF_MTU_DEFAULT;
			break;
		}
		if (conf_uint(arg, CONF_MTU_MIN, CONF_MTU_MAX, &v))
			conf_invalid(st, o, arg);
		c->mtu = (int)v;
		c->no_mtu = false;
		break;
	case 'a':
		conf_opt_address(st, o, arg);
		break;
	case 'n':
		n = conf_netmask(arg);
		if (n < 0)
			conf_invalid(st, o, arg);
		c->ip4.prefix_len = n;
		st->netmask = true;
		break;
	case 'M':
		if (conf_mac(arg, c->mac_our))
			conf_invalid(st, o, arg);
		break;
	case 'g':
		conf_opt_addr_per_family(st, o, arg, &st->gw4, &st->gw6,
					 &c->ip4.gw, &c->ip6.gw, true);
		break;
	case 'i':
		if (conf_ifname(arg, c->ip4.ifname_out))
			conf_invalid(st, o, arg);
		memcpy(c->ip6.ifname_out, c->ip4.ifname_out, IFNAMSIZ);
		st->ifname = arg;
		break;
	case 'o':
		conf_opt_addr_per_family(st, o, arg, &st->out4, &st->out6,
					 &c->ip4.addr_out, &c->ip6.addr_out,
					 true);
		break;
	case OPT_OUTBOUND_IF4:
		if (conf_ifname(arg, c->ip4.ifname_bind))
			conf_invalid(st, o, arg);
		break;
	case OPT_OUTBOUND_IF6:
		if (conf_ifname(arg, c->ip6.ifname_bind))
			conf_invalid(st, o, arg);
		break;
	case 'D':
		conf_opt_dns(st, o, arg);
		break;
	case OPT_DNS_FORWARD:
		conf_opt_addr_per_family(st, o, arg, &st->dns_fwd4,
					 &st->dns_fwd6, &c->ip4.dns_fwd,
					 &c->ip6.dns_fwd, false);
		break;
	case OPT_DNS_HOST:
		conf_opt_addr_per_family(st, o, arg, &st->dns_host4,
					 &st->dns_host6, &c->ip4.dns_host,
					 &c->ip6.dns_host, false);
		break;
	case 'S':
		conf_opt_search(st, o, arg);
		break;
	case OPT_NO_DHCP_DNS:
		c->no_dhcp_dns = true;
		break;
	case OPT_NO_DHCP_SEARCH:
		c->no_dhcp_search = true;
		break;
	case OPT_DHCP_DNS:
		c->no_dhcp_dns = false;
		break;
	case OPT_DHCP_SEARCH:
		c->no_dhcp_search = false;
		break;
	case OPT_MAP_HOST_LOOPBACK:
		conf_opt_map(st, o, arg, &c->ip4.map_host_loopback,
			     &c->ip6.map_host_loopback, &st->mhl4, &st->mhl6);
		if (!strcmp(arg, "none"))
			c->no_map_gw = true;
		break;
	case OPT_MAP_GUEST_ADDR:
		conf_opt_map(st, o, arg, &c->ip4.map_guest_addr,
			     &c->ip6.map_guest_addr, NULL, NULL);
		break;
	case OPT_NO_MAP_GW:
		c->no_map_gw = true;
		break;
	case '4':
		st->v4_only = true;
		break;
	case '6':
		st->v6_only = true;
		break;
	case OPT_NO_TCP:
		c->no_tcp = true;
		break;
	case OPT_NO_UDP:
		c->no_udp = true;
		break;
	case OPT_NO_ICMP:
		c->no_icmp = true;
		break;
	case OPT_NO_DHCP:
		c->no_dhcp = true;
		break;
	case OPT_NO_NDP:
		c->no_ndp = true;
		break;
	case OPT_NO_DHCPV6:
		c->no_dhcpv6 = true;
		break;
	case OPT_NO_RA:
		c->no_ra = true;
		break;
	case OPT_FREEBIND:
		c->freebind = true;
		break;
	case 'H': {
		char name[CONF_SEARCH_LEN];

		if (resolv_domain_norm(name, arg, strlen(arg)) ||
		    strlen(name) >= sizeof(c->hostname))
			conf_invalid(st, o, arg);
		memcpy(c->hostname, name, strlen(name) + 1);
		break;
	}
	case OPT_FQDN:
		if (resolv_domain_norm(c->fqdn, arg, strlen(arg)))
			conf_invalid(st, o, arg);
		break;
	case 't':
	case 'u':
	case 'T':
	case 'U':
		conf_opt_fwd(st, o, arg);
		break;
	case 's':
		if (conf_path(arg, c->sock_path, CONF_SOCK_PATH_MAX))
			conf_invalid(st, o, arg);
		break;
	case 'c':
		if (conf_path(arg, c->conf_path, CONF_SOCK_PATH_MAX))
			conf_invalid(st, o, arg);
		break;
	case 'F':
		if (conf_uint(arg, 0, INT_MAX, &v))
			conf_invalid(st, o, arg);
		if (fcntl((int)v, F_GETFD) < 0)
			conf_die(st, o, "%llu is not an open file descriptor "
				 "(accepted: %s)", v, o->accepted);
		/* pasta: the caller's tap device, in the target namespace;
		 * its name is the namespace interface's
		 */
		if (c->mode == MODE_PASTA && c->ifname_ns[0] && !st->fd_given)
			conf_die(st, o, "conflicts with -I/--ns-ifname (the "
				 "tap device has its name)");
		if (c->mode == MODE_PASTA &&
		    !conf_fd_tap((int)v, c->ifname_ns))
			conf_die(st, o, "%llu is not a tap device opened with "
				 "IFF_TAP | IFF_NO_PI (/dev/net/tun)", v);
		if (c->mode != MODE_PASTA && !conf_fd_connected_stream((int)v))
			conf_die(st, o, "%llu is not a connected stream socket",
				 v);
		c->fd = (int)v;
		st->fd_given = true;
		break;
	case '1':
		c->one_off = true;
		break;
	case OPT_VHOST_USER:
		c->vhost_user = true;
		break;
	case OPT_RESTART_FROM:
		if (conf_path(arg, c->restart_from, CONF_SOCK_PATH_MAX))
			conf_invalid(st, o, arg);
		break;
	case OPT_REPAIR_PATH:
		if (conf_path(arg, c->repair_path, CONF_SOCK_PATH_MAX))
			conf_invalid(st, o, arg);
		st->vu_only = o;
		break;
	case OPT_MIGRATE_EXIT:
		c->migrate_exit = true;
		st->vu_only = o;
		break;
	case OPT_MIGRATE_NO_LINGER:
		c->migrate_no_linger = true;
		st->vu_only = o;
		break;
	case OPT_UPSTREAM_FEATURES:
		c->upstream_features = true;
		st->vu_only = o;
		break;
	case OPT_PRINT_CAPABILITIES:
		/* vhost-user.rst, "Backend program conventions" */
		printf("{\n  \"type\": \"net\"\n}\n");
		fflush(stdout);
		conf_exit(EXIT_SUCCESS);
	case 'I':
		if (st->fd_given)
			conf_die(st, o, "conflicts with -F/--fd (the tap device "
				 "has its name)");
		if (conf_ifname(arg, c->ifname_ns))
			conf_invalid(st, o, arg);
		break;
	case OPT_NS_MAC_ADDR:
		if (conf_mac(arg, c->mac_guest))
			conf_invalid(st, o, arg);
		c->mac_guest_set = true;
		break;
	case OPT_NETNS:
		conf_opt_netns(st, o, arg);
		break;
	case OPT_USERNS:
		if (conf_path(arg, c->userns, sizeof(c->userns)))
			conf_invalid(st, o, arg);
		st->userns_given = true;
		break;
	case OPT_NETNS_ONLY:
		c->netns_only = true;
		break;
	case OPT_NO_NETNS_QUIT:
		c->no_netns_quit = true;
		break;
	case OPT_CONFIG_NET:
		c->config_net = true;
		break;
	case OPT_NO_COPY_ROUTES:
		c->no_copy_routes = true;
		break;
	case OPT_NO_COPY_ADDRS:
		c->no_copy_addrs = true;
		break;
	case OPT_NO_SPLICE:
		c->no_splice = true;
		break;
	case OPT_HOST_LO_TO_NS_LO:
		c->host_lo_to_ns_lo = true;
		break;
	case OPT_SPLICE_ONLY:
		c->splice_only = true;
		break;
	case OPT_CHROOT_FALLBACK:
		c->chroot_fallback = true;
		break;
	case OPT_NO_PEEK_OFFSET:
		c->peek_fallback = true;
		break;
	case OPT_NO_UDP_OFFLOAD:
		c->udp_offload_off = true;
		break;
	case OPT_FLOW_MAX:
		if (conf_uint(arg, 1, CONF_FLOW_MAX_LIMIT, &v))
			conf_invalid(st, o, arg);
		c->flow_max = (unsigned)v;
		break;
	case OPT_UDP_TIMEOUT:
		if (conf_uint(arg, 1, CONF_UDP_TIMEOUT_MAX, &v))
			conf_invalid(st, o, arg);
		c->udp_timeout_s = (unsigned)v;
		break;
	case OPT_DRAIN_TIMEOUT:
		if (conf_uint(arg, 0, CONF_DRAIN_TIMEOUT_MAX, &v))
			conf_invalid(st, o, arg);
		c->drain_timeout_s = (unsigned)v;
		break;
	case OPT_BUSY_POLL:
		if (conf_uint(arg, 0, CONF_BUSY_POLL_MAX, &v))
			conf_invalid(st, o, arg);
		c->busy_poll_us = (unsigned)v;
		break;
	case OPT_STATS:
		c->stats = true;
		if (arg && conf_uint(arg, 1, CONF_STATS_DELAY_MAX, &v))
			conf_invalid(st, o, arg);
		c->stats_delay_s = arg ? (unsigned)v : 0;
		break;
	case OPT_DEVMEM:
		conf_opt_devmem(st, o, arg);
		break;
	case OPT_SECCOMP_SELFTEST:
		c->seccomp_selftest = true;
		break;
	case OPT_NO_FOLLOW_HOST:
		c->no_follow_host = true;
		break;
	}
}
