/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/conf.h - Run-time configuration: command line plus what the host says
 *
 * conf_parse() (conf/parse.c) fills one struct conf from argv and from the
 * host (routes, addresses, MTU, resolv.conf).  After set-up the rest of the
 * daemon treats it as read only, except for the fields marked "learnt"
 * (written by tap/ when the guest shows us its MAC or addresses).
 */
#ifndef CONF_CONF_H
#define CONF_CONF_H

#include <limits.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/inany.h"
#include "../lib/netlink.h"
#include "../lib/util.h"

#define CONF_MAX_DNS		4	/* per family */
#define CONF_MAX_SEARCH		8
#define CONF_SEARCH_LEN		254	/* RFC 1035 name length limit + NUL */
#define CONF_MAX_FWD_RULES	256	/* per table, after splitting exclusions */
#define CONF_FWD_AUTO_MAX	1024	/* ports per table forwarded by "auto" */
#define CONF_MTU_MIN		68	/* RFC 791 */
#define CONF_MTU_MAX		65520	/* tap limit, as upstream */
#define CONF_MTU_DEFAULT	65520
#define IPV6_MIN_MTU		1280	/* RFC 8200, section 5 */
#define CONF_FLOW_MAX_DEFAULT	8192
#define CONF_UDP_TIMEOUT_DEFAULT 180	/* s, like nf_conntrack_udp_timeout_stream */
#define CONF_FLOW_MAX_LIMIT	65536	/* --flow-max upper bound */
#define CONF_UDP_TIMEOUT_MAX	86400	/* s, --udp-timeout upper bound */
#define CONF_LOG_SIZE_DEFAULT	(1024 * 1024)	/* --log-size, as upstream */
#define CONF_STATS_DELAY_MAX	86400		/* --stats DELAY, seconds */
#define CONF_DRAIN_TIMEOUT_MAX	60		/* --drain-timeout, seconds */
#define CONF_DRAIN_TIMEOUT_DEFAULT 3		/* --drain-timeout, seconds */
#define CONF_BUSY_POLL_MAX	1000		/* --busy-poll, microseconds */
#define CONF_IFNAME_NS_DEFAULT	"tap0"	/* -I default without a template */
#define CONF_TPL_ADDRS_MAX	16	/* per family, --config-net copies */
#define CONF_TPL_ROUTES_MAX	64	/* per family, --config-net copies */

/* Our MAC address unless -M: locally administered, as upstream's default */
#define CONF_MAC_OUR_DEFAULT	{ 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 }

/* Local mode (no usable host interface), upstream's link-local choices */
#define CONF_LL4_ADDR		0xa9fe0201	/* 169.254.2.1, host order */
#define CONF_LL4_GW		0xa9fe0202	/* 169.254.2.2 */
#define CONF_LL4_PREFIX_LEN	16		/* RFC 3927 */

enum conf_mode {
	MODE_PASTA,
	MODE_PASST,
};

/* Tables, as indices: UDP adds 1, the namespace side 2 */
enum fwd_tbl {
	FWD_TBL_T = 0,	/* -t */
	FWD_TBL_U,	/* -u */
	FWD_TBL_TNS,	/* -T */
	FWD_TBL_UNS,	/* -U */
	FWD_TBLS
};

/**
 * struct fwd_rule - One range of forwarded ports
 * @af:		AF_UNSPEC to bind the wildcard address of both families,
 *		else AF_INET or AF_INET6 with @addr
 * @addr:	Bind address (only if @af is not AF_UNSPEC), network order
 * @ifname:	Bind interface (SO_BINDTODEVICE), "" for none
 * @first:	First listening port, host order
 * @last:	Last listening port (inclusive), host order
 * @to:		Target port for @first, host order; @first + i goes to @to + i
 * @weak:	Failures to bind are not errors ("all" and exclusion-only specs)
 * @tset:	@taddr is given (PORT:ADDR/PORT, all:ADDR): connections go to
 *		that address on the other side, not to the guest's or
 *		namespace's own one (-t and -u only)
 * @taddr:	Target address, network order, of the family of @addr
 */
struct fwd_rule {
	sa_family_t af;
	union inany addr;
	char ifname[IFNAMSIZ];
	uint16_t first;
	uint16_t last;
	uint16_t to;
	bool weak;
	bool tset;
	union inany taddr;
};

/**
 * struct fwd_excl - Ports an "auto" spec leaves out (~P, ~A-B), or the only
 *		     ones it forwards (A-B[:C-D],auto)
 * @first:	First port, host order
 * @last:	Last port (inclusive)
 * @to:		"auto" ranges only: port on the scanned side for @first, host
 *		order; @first + i listens while @to + i does there
 */
struct fwd_excl {
	uint16_t first;
	uint16_t last;
	uint16_t to;
};

/**
 * struct fwd_table - Port forwarding for one protocol and direction
 * @n:		Number of rules in use
 * @rules:	Rules; ranges never overlap for the same address and interface
 * @auto_on:	"auto": also forward, to the same port, what listens on the
 *		other side (passt/fwd_auto.c)
 * @auto_bind:	Bind address and interface of "auto" ports (@af, @addr,
 *		@ifname; the ports are unused)
 * @auto_nexc:	Number of @auto_exc entries
 * @auto_exc:	Exclusions of the "auto" spec, sorted, not overlapping
 * @auto_nonly:	Number of @auto_only entries, 0: "auto" may forward any port
 * @auto_only:	"RANGES,auto": the only ports "auto" may forward, while
 *		something listens on them on the other side; sorted, not
 *		overlapping, exclusions already taken out
 */
struct fwd_table {
	unsigned n;
	struct fwd_rule rules[CONF_MAX_FWD_RULES];
	bool auto_on;
	struct fwd_rule auto_bind;
	unsigned auto_nexc;
	struct fwd_excl auto_exc[CONF_MAX_FWD_RULES];
	unsigned auto_nonly;
	struct fwd_excl auto_only[CONF_MAX_FWD_RULES];
};

/**
 * fwd_table_on() - Does a table forward anything, now or later?
 * @t:		Table
 *
 * Return: true if it has rules or "auto"
 */
static inline bool fwd_table_on(const struct fwd_table *t)
{
	return t->n || t->auto_on;
}

/**
 * struct conf_tpl - Addresses and routes of the template interface that
 *		     pasta --config-net copies into the namespace
 * @addrs:	Global addresses, in the kernel's order (the guest's @addr,
 *		if the host has it, is one of them)
 * @addr_count:	Entries in @addrs
 * @routes:	Routes other than the default one (never a zero prefix
 *		length; see netlink_host_defaults())
 * @route_count: Entries in @routes
 */
struct conf_tpl {
	struct netlink_addr addrs[CONF_TPL_ADDRS_MAX];
	unsigned addr_count;
	struct netlink_route routes[CONF_TPL_ROUTES_MAX];
	unsigned route_count;
};

/**
 * struct conf_ip4 - IPv4 configuration of the guest side
 * @enabled:		IPv4 is handled at all (-6 clears it; no address, too)
 * @addr:		Address the guest uses (-a, or the host's)
 * @prefix_len:		Prefix length for @addr (-n, -a ADDR/LEN, the host's,
 *			else by address class); -1 only while parsing
 * @gw:			Default gateway the guest uses (-g, or the host's)
 * @map_host_loopback:	Guest-side address meaning "host loopback", or 0
 * @map_guest_addr:	Guest-side address meaning "the host's @addr", or 0
 * @dns:		Name servers offered to the guest (DHCP), network order
 * @dns_count:		Entries in @dns
 * @dns_fwd:		--dns-forward address, else @map_host_loopback if
 *			it stands for a loopback name server of the host
 *			(see conf/resolv.c), else 0
 * @dns_host:		Where queries to @dns_fwd go (--dns-host, or the
 *			host's first IPv4 name server, learnt even with IPv4
 *			disabled), or 0; also where IPv6 @dns_fwd queries go
 *			if there's no IPv6 one
 * @ifname_out:		Host interface the defaults came from (template
 *			interface: -i, --outbound-if4 or the default route's),
 *			"" if none (local mode, or everything given)
 * @addr_out:		-o/--outbound: bind outbound sockets to it, or 0
 * @ifname_bind:	--outbound-if4: bind outbound sockets to this
 *			interface (SO_BINDTODEVICE), "" for none
 * @tpl:		Addresses and routes --config-net copies (empty if not
 *			pasta --config-net, with -a / -g, --no-copy-addrs /
 *			--no-copy-routes, or in local mode)
 * @routed:		The host has a default route through the template
 *			interface (netlink_host_defaults()); while following
 *			the host, a family that loses it keeps its values
 *			(follow_derive())
 */
struct conf_ip4 {
	bool enabled;
	struct in_addr addr;
	int prefix_len;
	struct in_addr gw;
	struct in_addr map_host_loopback;
	struct in_addr map_guest_addr;
	struct in_addr dns[CONF_MAX_DNS];
	unsigned dns_count;
	struct in_addr dns_fwd;
	struct in_addr dns_host;
	char ifname_out[IFNAMSIZ];
	struct in_addr addr_out;
	char ifname_bind[IFNAMSIZ];
	struct conf_tpl tpl;
	bool routed;
};

/**
 * struct conf_ip6 - IPv6 configuration of the guest side
 * @enabled:		IPv6 is handled at all
 * @addr:		Global address the guest uses (-a, or the host's)
 * @prefix_len:		Prefix length for @addr (-a ADDR/LEN, the host's,
 *			else 64); -1 only while parsing
 * @gw:			Default gateway the guest uses (-g, or the host's,
 *			usually link-local)
 * @our_ll:		Link-local address we use as source of RA, NA and
 *			DHCPv6 replies (@gw if that is link-local)
 * @map_host_loopback:	Guest-side address meaning "host loopback", or ::
 * @map_guest_addr:	Guest-side address meaning "the host's @addr", or ::
 * @dns:		Name servers offered to the guest (RA RDNSS, DHCPv6)
 * @dns_count:		Entries in @dns
 * @dns_fwd:		--dns-forward address, or as for IPv4, or ::
 * @dns_host:		Where queries to @dns_fwd go, or ::; as for IPv4,
 *			also for IPv4 @dns_fwd queries if there's no IPv4 one
 * @ifname_out:		Host interface the defaults came from, as for IPv4
 * @addr_out:		-o/--outbound: bind outbound sockets to it, or ::
 * @ifname_bind:	--outbound-if6: bind outbound sockets to this
 *			interface, "" for none
 * @tpl:		As for IPv4
 * @routed:		As for IPv4
 */
struct conf_ip6 {
	bool enabled;
	struct in6_addr addr;
	int prefix_len;
	struct in6_addr gw;
	struct in6_addr our_ll;
	struct in6_addr map_host_loopback;
	struct in6_addr map_guest_addr;
	struct in6_addr dns[CONF_MAX_DNS];
	unsigned dns_count;
	struct in6_addr dns_fwd;
	struct in6_addr dns_host;
	char ifname_out[IFNAMSIZ];
	struct in6_addr addr_out;
	char ifname_bind[IFNAMSIZ];
	struct conf_tpl tpl;
	bool routed;
};

/**
 * struct conf_given - What the command line fixed, kept so that the rest
 *		       can be derived again when the host's network changes
 *		       (conf/follow.c, passt/follow.c)
 * @ip4:	IPv4 configuration as the options left it, before the host
 *		was read: zero (or -1 for @prefix_len) where nothing was given
 * @ip6:	Likewise, IPv6
 * @mhl4:	--map-host-loopback given for IPv4 (an address or none)
 * @mhl6:	--map-host-loopback given for IPv6
 * @dns:	-D given (addresses or none): the name server lists stay
 * @search:	-S given (domains or none): the search list stays
 */
struct conf_given {
	struct conf_ip4 ip4;
	struct conf_ip6 ip6;
	bool mhl4;
	bool mhl6;
	bool dns;
	bool search;
};

/**
 * struct conf - Whole configuration
 * @mode:		pasta or passt, from argv[0]
 * @argv0:		Program name as invoked (basename of argv[0]), used as
 *			the prefix of error messages
 *
 * @debug, @trace, @quiet, @foreground: logging and detaching (-d, --trace,
 *			-q, -f)
 * @log_file:		-l/--log-file, "" for none (conf_parse() doesn't open it)
 * @log_size:		--log-size, bytes (default 1 MiB)
 * @pid_file:		-P/--pid, "" for none
 * @pcap_file:		-p/--pcap, "" for none
 * @runas_set:		--runas given
 * @uid, @gid:		--runas target; without it, nobody (65534 if there's
 *			no such user) when started as root, else our own IDs
 *
 * @mtu:		-m/--mtu, bytes of IP packet (68..65520)
 * @no_mtu:		-m 0: no MTU advertised (DHCP, NDP) nor set on the
 *			tap device; @mtu is then 65520
 * @mac_our:		MAC address we answer with (ARP, NDP, as frame source)
 * @mac_guest:		--ns-mac-addr: the guest's MAC address (the learned one,
 *			run-time state, is in tap/guest.h)
 * @mac_guest_set:	--ns-mac-addr was given
 * @ip4, @ip6:		Per-family addresses, see above
 * @local_mode:		No host interface was usable: link-local defaults
 *			(169.254.2.1/16 via 169.254.2.2, IPv6 via fe80::1)
 * @search:		DNS search domains (-S, or from resolv.conf)
 * @search_count:	Entries in @search
 * @no_dhcp_dns:	Don't advertise DNS servers (DHCP, RA, DHCPv6): set
 *			by --no-dhcp-dns (passt); pasta's default, cleared by
 *			--dhcp-dns
 * @no_dhcp_search:	Don't advertise the search list, likewise
 * @hostname:		-H/--hostname for DHCP option 12, "" for none
 * @fqdn:		--fqdn for DHCP option 81 / DHCPv6 option 39
 *
 * @no_tcp, @no_udp, @no_icmp: disable a protocol (--no-icmp implies
 *			@no_ndp, as upstream)
 * @no_dhcp, @no_ndp, @no_dhcpv6, @no_ra: disable a local service
 * @no_map_gw:		--no-map-gw: the gateway address is not the host
 * @no_splice:		--no-splice: loopback connections take the tap path
 * @host_lo_to_ns_lo:	--host-lo-to-ns-lo: spliced -t/-u traffic from the
 *			host's loopback goes to the namespace's loopback, not
 *			to the namespace's own address
 * @splice_only:	--splice-only: no tap device, spliced connections only
 * @chroot_fallback:	--chroot-fallback: chroot() where pivot_root() fails
 * @peek_fallback:	--no-peek-offset: force the discard-buffer peek path
 * @udp_offload_off:	--no-udp-offload: no UDP_GRO, no UDP_SEGMENT, no USO
 * @freebind:		--freebind: IP_FREEBIND on forwarded-port listeners
 *
 * @tcp_in, @udp_in:	-t, -u: host ports forwarded into the guest
 * @tcp_out, @udp_out:	-T, -U: namespace ports forwarded to the host (pasta)
 *
 * @flow_max:		Flow table capacity (--flow-max)
 * @udp_timeout_s:	UDP flow idle timeout, seconds (--udp-timeout)
 * @stats:		--stats: dump counters on exit and on SIGUSR1
 * @busy_poll_us:	--busy-poll: after events, keep polling (epoll_wait()
 *			with a zero timeout) this long before sleeping, us
 * @drain_timeout_s:	--drain-timeout: at exit, connections get this long to
 *			finish, and as long again for the host peers to ACK
 *			what we ACKed before they are reset, seconds
 * @stats_delay_s:	--stats DELAY: also dump them periodically, at most
 *			every DELAY seconds and only if something changed;
 *			0 without DELAY
 * @no_follow_host:	--no-follow-host: keep what was derived at start
 *			when the host's addresses, routes or resolvers change
 * @given:		The command line's own values (see struct conf_given)
 * @seccomp_selftest:	Hidden --seccomp-selftest: on SIGUSR2, make a system
 *			call the seccomp filter forbids (test aid)
 *
 * pasta only:
 * @ifname_ns:		-I/--ns-ifname: tap name in the namespace; default
 *			filled in by conf_parse(): the template interface's
 *			name (IPv4 first), or "tap0" if there is none
 * @netns:		--netns path (a NAME without '/' is stored as
 *			/run/netns/NAME), or "" to create a namespace
 * @userns:		--userns path, or ""
 * @target_pid:		PID given as first non-option argument, or 0
 * @netns_only:		--netns-only: don't join or create a user namespace;
 *			also set by --netns without --userns, as upstream
 * @config_net:		--config-net: configure addresses and routes in it
 * @no_netns_quit:	--no-netns-quit: keep running if the netns goes away
 * @no_copy_routes:	--no-copy-routes
 * @no_copy_addrs:	--no-copy-addrs
 * @cmd:		Command and arguments to run (NULL-terminated, points
 *			into the argv given to conf_parse()), or NULL
 *
 * passt only:
 * @sock_path:		-s/--socket path, "" to choose /tmp/passt_N.socket
 * @conf_path:		-c/--conf-path: UNIX socket for pesto(1), "" for none
 * @fd:			-F/--fd: already connected socket, or -1
 * @one_off:		-1/--one-off: exit after the first client goes (-F
 *			implies it)
 * @vhost_user:		--vhost-user: the client is a vhost-user front-end
 * @restart_from:	--restart-from: -c socket of the instance we replace,
 *			"" for none (passt/restart.c)
 * @repair_path:	--repair-path: UNIX socket for passt-repair, "" for
 *			the default (the socket's path + ".repair"), "none"
 *			for no socket (./none is a file named none)
 * @migrate_exit:	--migrate-exit: exit after a migration as source
 * @migrate_no_linger:	--migrate-no-linger: close migrated TCP sockets at
 *			once (none is migrated yet: no effect)
 * @upstream_features:	--upstream-features: offer only upstream passt's
 *			virtio features (tap/vhost_user.c)
 *
 * @devmem_if:		--devmem interface, "" if off
 * @devmem_queues:	--devmem queue list as a bitmap (bit n = queue n,
 *			queues 0-63; BIT(0) if the list is omitted)
 */
struct conf {
	enum conf_mode mode;
	char argv0[64];

	bool debug;
	bool trace;
	bool quiet;
	bool foreground;
	char log_file[PATH_MAX];
	size_t log_size;
	char pid_file[PATH_MAX];
	char pcap_file[PATH_MAX];
	bool runas_set;
	uid_t uid;
	gid_t gid;

	int mtu;
	bool no_mtu;
	uint8_t mac_our[ETH_ALEN];
	uint8_t mac_guest[ETH_ALEN];
	bool mac_guest_set;
	struct conf_ip4 ip4;
	struct conf_ip6 ip6;
	bool local_mode;
	char search[CONF_MAX_SEARCH][CONF_SEARCH_LEN];
	unsigned search_count;
	bool no_dhcp_dns;
	bool no_dhcp_search;
	char hostname[64];
	char fqdn[CONF_SEARCH_LEN];

	bool no_tcp;
	bool no_udp;
	bool no_icmp;
	bool no_dhcp;
	bool no_ndp;
	bool no_dhcpv6;
	bool no_ra;
	bool no_map_gw;
	bool no_splice;
	bool host_lo_to_ns_lo;
	bool splice_only;
	bool chroot_fallback;
	bool peek_fallback;
	bool udp_offload_off;
	bool freebind;

	struct fwd_table tcp_in;
	struct fwd_table udp_in;
	struct fwd_table tcp_out;
	struct fwd_table udp_out;

	unsigned flow_max;
	unsigned udp_timeout_s;
	bool stats;
	unsigned stats_delay_s;
	unsigned drain_timeout_s;
	unsigned busy_poll_us;
	bool seccomp_selftest;
	bool no_follow_host;
	struct conf_given given;

	char ifname_ns[IFNAMSIZ];
	char netns[PATH_MAX];
	char userns[PATH_MAX];
	pid_t target_pid;
	bool netns_only;
	bool config_net;
	bool no_netns_quit;
	bool no_copy_routes;
	bool no_copy_addrs;
	char **cmd;

	char sock_path[108];
	char conf_path[108];
	int fd;
	bool one_off;
	bool vhost_user;
	char restart_from[108];
	char repair_path[108];
	bool migrate_exit;
	bool migrate_no_linger;
	bool upstream_features;

	char devmem_if[IFNAMSIZ];
	uint64_t devmem_queues;
};

int conf_parse(struct conf *c, int argc, char **argv);
const char *conf_version(void);

/* Test and fuzzing aid: called, if set, where conf_parse() would end the
 * process (usage errors, --help, --version) with the exit status; it must
 * not return (a harness longjmp()s out).  NULL in the daemon.
 */
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern void (*conf_exit_hook)(int status);
#endif

#endif /* CONF_CONF_H */
