/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/conf_internal.h - What the files of command line parsing share
 *
 * conf/parse.c (the option table, getopt, help, defaults, conf_parse()),
 * conf/options.c (each option's value, on its own) and conf/check.c (the
 * checks that involve several options, and the values derived from the
 * host) include this; nothing outside conf/ does (conf/conf.h is the
 * interface).
 */
#ifndef CONF_CONF_INTERNAL_H
#define CONF_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

#define M_PASST		BIT(MODE_PASST)
#define M_PASTA		BIT(MODE_PASTA)
#define M_BOTH		(M_PASST | M_PASTA)

#define CONF_SOCK_PATH_MAX	108	/* sizeof(sun_path), unix(7) */
#define CONF_NETNS_DIR		"/run/netns/"	/* ip-netns(8) */
#define CONF_ARG_SHOWN		80	/* characters of a bad value we quote */
#define CONF_DEVMEM_QUEUES	64	/* bits in devmem_queues */
#define CONF_UID_NOBODY		65534	/* overflowuid, if there's no nobody */

/* Long-only options; short ones use their character */
enum conf_opt_id {
	OPT_TRACE = 256,
	OPT_LOG_SIZE,
	OPT_RUNAS,
	OPT_VERSION,
	OPT_OUTBOUND_IF4,
	OPT_OUTBOUND_IF6,
	OPT_DNS_FORWARD,
	OPT_DNS_HOST,
	OPT_NO_DHCP_DNS,
	OPT_NO_DHCP_SEARCH,
	OPT_DHCP_DNS,
	OPT_DHCP_SEARCH,
	OPT_MAP_HOST_LOOPBACK,
	OPT_MAP_GUEST_ADDR,
	OPT_NO_MAP_GW,
	OPT_NO_TCP,
	OPT_NO_UDP,
	OPT_NO_ICMP,
	OPT_NO_DHCP,
	OPT_NO_NDP,
	OPT_NO_DHCPV6,
	OPT_NO_RA,
	OPT_FREEBIND,
	OPT_FQDN,
	OPT_NS_MAC_ADDR,
	OPT_NETNS,
	OPT_USERNS,
	OPT_NETNS_ONLY,
	OPT_NO_NETNS_QUIT,
	OPT_CONFIG_NET,
	OPT_NO_COPY_ROUTES,
	OPT_NO_COPY_ADDRS,
	OPT_NO_SPLICE,
	OPT_SPLICE_ONLY,
	OPT_CHROOT_FALLBACK,
	OPT_NO_PEEK_OFFSET,
	OPT_NO_UDP_OFFLOAD,
	OPT_FLOW_MAX,
	OPT_UDP_TIMEOUT,
	OPT_STATS,
	OPT_DRAIN_TIMEOUT,
	OPT_BUSY_POLL,
	OPT_DEVMEM,
	OPT_SECCOMP_SELFTEST,
	OPT_HOST_LO_TO_NS_LO,
	OPT_VHOST_USER,
	OPT_PRINT_CAPABILITIES,
	OPT_REPAIR_PATH,
	OPT_MIGRATE_EXIT,
	OPT_MIGRATE_NO_LINGER,
	OPT_UPSTREAM_FEATURES,
	OPT_NO_FOLLOW_HOST,
	OPT_RESTART_FROM,
};

/**
 * struct conf_opt - One command line option
 * @lname:	Long name, without "--"
 * @sname:	Short option character, 0 if none
 * @id:		Value getopt_long() returns for it
 * @has_arg:	no_argument, required_argument, or optional_argument (the
 *		value may then also be the next argument if it's a number,
 *		for upstream's "--stats DELAY")
 * @modes:	M_PASST, M_PASTA or both
 * @arg:	Argument name for --help, NULL without argument
 * @accepted:	Accepted form, quoted in error messages
 * @help:	One-line description for --help, NULL to hide (aliases)
 */
struct conf_opt {
	const char *lname;
	int sname;
	int id;
	int has_arg;
	unsigned modes;
	const char *arg;
	const char *accepted;
	const char *help;
};

#define ADDR4OR6	"IPv4 or IPv6 address"
#define IFNAME_FORM	"interface name, 1-15 characters"
#define PORTS_FORM	"none, all, auto (pasta), or ports like 22,80-90,2222:22,~25, " \
			"optionally after ADDR/, ADDR%IF/ or %IF/"
#define MAC_FORM	"unicast MAC address like 9a:55:9a:55:9a:55"

/**
 * struct conf_state - What parsing remembers beyond struct conf
 * @c:			Configuration being filled
 * @prog:		Program name for messages
 * @v4_only:		-4 given
 * @v6_only:		-6 given
 * @addr4:		-a given with an IPv4 address
 * @addr6:		-a given with an IPv6 address
 * @addr4_len:		That IPv4 -a came with /LEN
 * @netmask:		-n given
 * @gw4:		-g given for IPv4
 * @gw6:		-g given for IPv6
 * @out4:		-o given for IPv4
 * @out6:		-o given for IPv6
 * @ifname:		-i value, or NULL
 * @dns:		-D given with an address
 * @dns_none:		-D none given
 * @dns_fwd4:		--dns-forward given for IPv4
 * @dns_fwd6:		--dns-forward given for IPv6
 * @dns_host4:		--dns-host given for IPv4
 * @dns_host6:		--dns-host given for IPv6
 * @search:		-S given with domains
 * @search_none:	-S none given
 * @mhl4:		--map-host-loopback given for IPv4 (or none)
 * @mhl6:		--map-host-loopback given for IPv6 (or none)
 * @fwd_none:		"none" given, per table (-t, -u, -T, -U)
 * @fwd_some:		Another spec given, per table
 * @fwd_opt:		Option for each table, for messages
 * @netns_given:	--netns given
 * @userns_given:	--userns given
 * @fd_given:		-F given
 * @vu_only:		An option given that needs --vhost-user (for the
 *			message), or NULL
 */
struct conf_state {
	struct conf *c;
	const char *prog;
	bool v4_only, v6_only;
	bool addr4, addr6, addr4_len, netmask;
	bool gw4, gw6, out4, out6;
	const char *ifname;
	bool dns, dns_none, dns_fwd4, dns_fwd6, dns_host4, dns_host6;
	bool search, search_none;
	bool mhl4, mhl6;
	bool fwd_none[4], fwd_some[4];
	const struct conf_opt *fwd_opt[4];
	bool netns_given, userns_given, fd_given;
	const struct conf_opt *vu_only;
};

/* parse.c */
__attribute__((noreturn))
void conf_exit(int status);
__attribute__((format(printf, 3, 4), noreturn))
void conf_die(const struct conf_state *st, const struct conf_opt *o,
	      const char *fmt, ...);
__attribute__((noreturn))
void conf_invalid(const struct conf_state *st, const struct conf_opt *o,
		  const char *arg);
const char *conf_quote(const char *arg, char *buf, size_t len);
const struct conf_opt *conf_opt_by_id(int id);
void conf_usage(const struct conf *c);

/* options.c */
int conf_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
struct fwd_table *conf_fwd_table(struct conf *c, int id, bool *ns_side,
				 unsigned *idx);
void conf_opt(struct conf_state *st, const struct conf_opt *o, const char *arg);

/* check.c */
void conf_family_ignore(struct conf_state *st);
void conf_check_special(const struct conf_state *st, int af);
void conf_mtu_ipv6(const struct conf_state *st);
void conf_check(const struct conf_state *st);
void conf_interfaces(struct conf_state *st);
void conf_derived(struct conf_state *st);
void conf_dns(struct conf_state *st);
void conf_debug_dump(const struct conf *c);

#endif /* CONF_CONF_INTERNAL_H */
