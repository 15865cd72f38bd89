// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/conf.c - Command line parsing and derived defaults
 *
 * DOC: Theory of Operation
 *
 * One table, conf_opts[], describes every option: long and short name,
 * argument, the modes (passt, pasta) that accept it, and the accepted form
 * quoted in error messages.  getopt_long() tables and --help output are
 * built from it, so an option can't be known to the parser and missing
 * from the help, or the other way round.
 *
 * conf_parse() works in four steps:
 *
 * 1. options, in order, each checked on its own: a bad value ends the
 *    process with status 1 and one line on stderr that names the option
 *    and the accepted form.  Options of the other mode are refused with a
 *    line saying which mode takes them.  Parsing stops at the first
 *    non-option argument (getopt "+"), so that pasta's command keeps its
 *    own options;
 * 2. non-option arguments: for pasta, a PID (all digits) or a command, for
 *    passt none at all; then the checks that involve several options
 *    (-4 with -6, -q with -d, a PID with --netns...);
 * 3. the host: template interfaces, addresses and gateways from netlink
 *    (conf/netlink.c), unless given, then the derived values (host
 *    loopback mapping, namespace interface name, user to run as);
 * 4. DNS: name servers and search domains from resolv.conf
 *    (conf/resolv.c), unless given.
 *
 * Nothing here opens files for writing or changes the process, except
 * the log level (so that step 3 can report at the right verbosity).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "netlink.h"
#include "ports.h"
#include "resolv.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

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
	OPT_FLOW_MAX,
	OPT_UDP_TIMEOUT,
	OPT_STATS,
	OPT_DRAIN_TIMEOUT,
	OPT_DEVMEM,
	OPT_SECCOMP_SELFTEST,
	OPT_HOST_LO_TO_NS_LO,
	OPT_VHOST_USER,
	OPT_PRINT_CAPABILITIES,
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
#define PORTS_FORM	"none, all, or ports like 22,80-90,2222:22,~25, " \
			"optionally after ADDR/, ADDR%IF/ or %IF/"
#define MAC_FORM	"unicast MAC address like 9a:55:9a:55:9a:55"

static const struct conf_opt conf_opts[] = {
	/* general */
	{ "debug", 'd', 'd', no_argument, M_BOTH, NULL, NULL,
	  "be verbose" },
	{ "trace", 0, OPT_TRACE, no_argument, M_BOTH, NULL, NULL,
	  "be extra verbose, show single packets (implies -d)" },
	{ "quiet", 'q', 'q', no_argument, M_BOTH, NULL, NULL,
	  "don't print informational messages" },
	{ "foreground", 'f', 'f', no_argument, M_BOTH, NULL, NULL,
	  "don't run in background" },
	{ "stderr", 'e', 'e', no_argument, M_BOTH, NULL, NULL,
	  "no effect, accepted for compatibility" },
	{ "log-file", 'l', 'l', required_argument, M_BOTH, "PATH",
	  "file path", "log to PATH too" },
	{ "log-size", 0, OPT_LOG_SIZE, required_argument, M_BOTH, "SIZE",
	  "integer 4096-1099511627776 (bytes)",
	  "maximum log file size, default 1048576" },
	{ "runas", 0, OPT_RUNAS, required_argument, M_BOTH, "UID[:GID]",
	  "UID, UID:GID, LOGIN or LOGIN:GROUP",
	  "user (and group) to run as; default nobody if started as root" },
	{ "help", 'h', 'h', no_argument, M_BOTH, NULL, NULL,
	  "show this help and exit" },
	{ "version", 0, OPT_VERSION, no_argument, M_BOTH, NULL, NULL,
	  "show the version and exit" },
	{ "pcap", 'p', 'p', required_argument, M_BOTH, "FILE", "file path",
	  "capture guest-side frames to FILE (pcap)" },
	{ "pid", 'P', 'P', required_argument, M_BOTH, "FILE", "file path",
	  "write our PID to FILE" },

	/* network */
	{ "mtu", 'm', 'm', required_argument, M_BOTH, "MTU",
	  "integer 68-65520", "MTU to advertise, default 65520" },
	{ "address", 'a', 'a', required_argument, M_BOTH, "ADDR[/LEN]",
	  "IPv4 or IPv6 unicast address, optionally /prefix length, "
	  "once per family", "guest address, default: the host's" },
	{ "netmask", 'n', 'n', required_argument, M_BOTH, "MASK",
	  "dotted IPv4 netmask like 255.255.255.0 or prefix length 0-32",
	  "IPv4 netmask, default: the host's" },
	{ "mac-addr", 'M', 'M', required_argument, M_BOTH, "ADDR", MAC_FORM,
	  "our MAC address, default 9a:55:9a:55:9a:55" },
	{ "gateway", 'g', 'g', required_argument, M_BOTH, "ADDR",
	  "IPv4 or IPv6 unicast address, once per family",
	  "gateway for the guest, default: the host's" },
	{ "interface", 'i', 'i', required_argument, M_BOTH, "NAME",
	  IFNAME_FORM, "host interface to take addresses and routes from" },
	{ "outbound", 'o', 'o', required_argument, M_BOTH, "ADDR",
	  "IPv4 or IPv6 address, once per family",
	  "source address for outbound connections" },
	{ "outbound-if4", 0, OPT_OUTBOUND_IF4, required_argument, M_BOTH,
	  "NAME", IFNAME_FORM, "bind IPv4 outbound sockets to interface" },
	{ "outbound-if6", 0, OPT_OUTBOUND_IF6, required_argument, M_BOTH,
	  "NAME", IFNAME_FORM, "bind IPv6 outbound sockets to interface" },
	{ "dns", 'D', 'D', required_argument, M_BOTH, "ADDR",
	  ADDR4OR6 " (repeatable, at most 4 per family) or none",
	  "name server for the guest, default: from /etc/resolv.conf" },
	{ "dns-forward", 0, OPT_DNS_FORWARD, required_argument, M_BOTH,
	  "ADDR", ADDR4OR6 ", once per family",
	  "guest-side address whose DNS traffic goes to --dns-host" },
	{ "dns-host", 0, OPT_DNS_HOST, required_argument, M_BOTH, "ADDR",
	  ADDR4OR6 ", once per family",
	  "host name server for --dns-forward, default: the first one" },
	{ "search", 'S', 'S', required_argument, M_BOTH, "LIST",
	  "space-separated domain names (repeatable, at most 8) or none",
	  "DNS search list, default: from /etc/resolv.conf" },
	{ "no-dhcp-dns", 0, OPT_NO_DHCP_DNS, no_argument, M_PASST, NULL,
	  NULL, "don't advertise name servers (DHCP, NDP, DHCPv6)" },
	{ "no-dhcp-search", 0, OPT_NO_DHCP_SEARCH, no_argument, M_PASST,
	  NULL, NULL, "don't advertise the search list" },
	{ "dhcp-dns", 0, OPT_DHCP_DNS, no_argument, M_PASTA, NULL, NULL,
	  "advertise name servers (DHCP, NDP, DHCPv6)" },
	{ "dhcp-search", 0, OPT_DHCP_SEARCH, no_argument, M_PASTA, NULL, NULL,
	  "advertise the search list" },
	{ "map-host-loopback", 0, OPT_MAP_HOST_LOOPBACK, required_argument,
	  M_BOTH, "ADDR", ADDR4OR6 " or none",
	  "guest-side address meaning host loopback, default: gateway" },
	{ "map-guest-addr", 0, OPT_MAP_GUEST_ADDR, required_argument, M_BOTH,
	  "ADDR", ADDR4OR6 " or none",
	  "guest-side address meaning the host's own address" },
	{ "no-map-gw", 0, OPT_NO_MAP_GW, no_argument, M_BOTH, NULL, NULL,
	  "the gateway address doesn't mean host loopback" },
	{ "ipv4-only", '4', '4', no_argument, M_BOTH, NULL, NULL,
	  "IPv4 only" },
	{ "ipv6-only", '6', '6', no_argument, M_BOTH, NULL, NULL,
	  "IPv6 only" },
	{ "no-tcp", 0, OPT_NO_TCP, no_argument, M_BOTH, NULL, NULL,
	  "disable TCP" },
	{ "no-udp", 0, OPT_NO_UDP, no_argument, M_BOTH, NULL, NULL,
	  "disable UDP" },
	{ "no-icmp", 0, OPT_NO_ICMP, no_argument, M_BOTH, NULL, NULL,
	  "disable ICMP and ICMPv6 echo (implies --no-ndp)" },
	{ "no-dhcp", 0, OPT_NO_DHCP, no_argument, M_BOTH, NULL, NULL,
	  "disable the DHCP server" },
	{ "no-ndp", 0, OPT_NO_NDP, no_argument, M_BOTH, NULL, NULL,
	  "disable NDP responses" },
	{ "no-dhcpv6", 0, OPT_NO_DHCPV6, no_argument, M_BOTH, NULL, NULL,
	  "disable the DHCPv6 server" },
	{ "no-ra", 0, OPT_NO_RA, no_argument, M_BOTH, NULL, NULL,
	  "disable router advertisements" },
	{ "freebind", 0, OPT_FREEBIND, no_argument, M_BOTH, NULL, NULL,
	  "allow any bind address for -t and -u" },
	{ "hostname", 'H', 'H', required_argument, M_BOTH, "NAME",
	  "host name, 1-63 letters, digits, '-', '_' or '.'",
	  "host name for the guest (DHCP option 12)" },
	{ "fqdn", 0, OPT_FQDN, required_argument, M_BOTH, "NAME",
	  "domain name, at most 253 characters",
	  "FQDN for the guest (DHCP option 81, DHCPv6 option 39)" },
	{ "tcp-ports", 't', 't', required_argument, M_BOTH, "SPEC",
	  PORTS_FORM, "forward host TCP ports to the guest, default none" },
	{ "udp-ports", 'u', 'u', required_argument, M_BOTH, "SPEC",
	  PORTS_FORM, "forward host UDP ports to the guest, default none" },

	/* passt only */
	{ "conf-path", 'c', 'c', required_argument, M_BOTH, "PATH",
	  "UNIX socket path, 1-107 characters",
	  "UNIX socket for pesto(1), to change port forwarding at run time" },
	{ "socket", 's', 's', required_argument, M_PASST, "PATH",
	  "UNIX socket path, 1-107 characters",
	  "UNIX socket for qemu, default /tmp/passt_N.socket" },
	{ "socket-path", 's', 's', required_argument, M_PASST, "PATH",
	  "UNIX socket path, 1-107 characters", NULL },
	{ "fd", 'F', 'F', required_argument, M_PASST, "FD",
	  "open file descriptor number 0-2147483647",
	  "use this connected socket (implies -1)" },
	{ "one-off", '1', '1', no_argument, M_PASST, NULL, NULL,
	  "quit after the first client disconnects" },
	{ "vhost-user", 0, OPT_VHOST_USER, no_argument, M_PASST, NULL, NULL,
	  "be a vhost-user back-end (virtio-net rings) on the socket" },
	{ "print-capabilities", 0, OPT_PRINT_CAPABILITIES, no_argument,
	  M_PASST, NULL, NULL,
	  "print the vhost-user back-end capabilities (JSON) and exit" },

	/* pasta only */
	{ "tcp-ns", 'T', 'T', required_argument, M_PASTA, "SPEC", PORTS_FORM,
	  "forward namespace TCP ports to the host, default none" },
	{ "udp-ns", 'U', 'U', required_argument, M_PASTA, "SPEC", PORTS_FORM,
	  "forward namespace UDP ports to the host, default none" },
	{ "ns-ifname", 'I', 'I', required_argument, M_PASTA, "NAME",
	  IFNAME_FORM, "tap name in the namespace, default: the host's" },
	{ "ns-mac-addr", 0, OPT_NS_MAC_ADDR, required_argument, M_PASTA,
	  "ADDR", MAC_FORM, "MAC address of the namespace's tap" },
	{ "netns", 0, OPT_NETNS, required_argument, M_PASTA, "PATH|NAME",
	  "path, or name under /run/netns",
	  "join this network namespace" },
	{ "userns", 0, OPT_USERNS, required_argument, M_PASTA, "PATH",
	  "path to a user namespace", "join this user namespace" },
	{ "netns-only", 0, OPT_NETNS_ONLY, no_argument, M_PASTA, NULL, NULL,
	  "don't join or create a user namespace" },
	{ "no-netns-quit", 0, OPT_NO_NETNS_QUIT, no_argument, M_PASTA, NULL,
	  NULL, "don't quit when the namespace goes away" },
	{ "config-net", 0, OPT_CONFIG_NET, no_argument, M_PASTA, NULL, NULL,
	  "configure addresses and routes in the namespace" },
	{ "no-copy-routes", 0, OPT_NO_COPY_ROUTES, no_argument, M_PASTA,
	  NULL, NULL, "with --config-net, set up only the default route" },
	{ "no-copy-addrs", 0, OPT_NO_COPY_ADDRS, no_argument, M_PASTA, NULL,
	  NULL, "with --config-net, set up only one address" },
	{ "no-splice", 0, OPT_NO_SPLICE, no_argument, M_PASTA, NULL, NULL,
	  "loopback connections take the tap path too" },
	{ "host-lo-to-ns-lo", 0, OPT_HOST_LO_TO_NS_LO, no_argument, M_PASTA,
	  NULL, NULL, "host loopback -t/-u traffic reaches the namespace's "
	  "loopback" },
	{ "splice-only", 0, OPT_SPLICE_ONLY, no_argument, M_PASTA, NULL, NULL,
	  "no tap device: only loopback connections, spliced" },
	{ "chroot-fallback", 0, OPT_CHROOT_FALLBACK, no_argument, M_BOTH, NULL,
	  NULL, "chroot() to the empty root where pivot_root() fails" },

	/* ours */
	{ "no-peek-offset", 0, OPT_NO_PEEK_OFFSET, no_argument, M_BOTH, NULL,
	  NULL, "don't use SO_PEEK_OFF for TCP" },
	{ "flow-max", 0, OPT_FLOW_MAX, required_argument, M_BOTH, "N",
	  "integer 1-65536", "flow table size, default 8192" },
	{ "udp-timeout", 0, OPT_UDP_TIMEOUT, required_argument, M_BOTH,
	  "SECONDS", "integer 1-86400", "UDP flow idle timeout, default 180" },
	{ "drain-timeout", 0, OPT_DRAIN_TIMEOUT, required_argument, M_BOTH,
	  "SECONDS", "integer 0-60",
	  "at exit, let connections finish for up to SECONDS, default 3" },
	{ "stats", 0, OPT_STATS, optional_argument, M_BOTH, "[DELAY]",
	  "integer 1-86400 (seconds), or nothing",
	  "print counters on exit, on SIGUSR1, and at most every DELAY s" },
	{ "devmem", 0, OPT_DEVMEM, required_argument, M_BOTH,
	  "IF[:QUEUES]", "interface name, optionally ':' and queues 0-63 "
	  "like 0,2-3", "devmem TCP receive on these queues of IF" },

	/* hidden test aid (no help line, not in passt.1): on SIGUSR2, make a
	 * system call the seccomp filter forbids (isolate_forbidden_syscall())
	 */
	{ "seccomp-selftest", 0, OPT_SECCOMP_SELFTEST, no_argument, M_BOTH,
	  NULL, NULL, NULL },
};

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
};

/**
 * conf_opt_name() - "-m/--mtu" or "--trace", for messages
 * @o:		Option
 * @buf:	Output buffer
 * @len:	Size of @buf
 *
 * Return: @buf
 */
static const char *conf_opt_name(const struct conf_opt *o, char *buf,
				 size_t len)
{
	if (o->sname)
		snprintf(buf, len, "-%c/--%s", o->sname, o->lname);
	else
		snprintf(buf, len, "--%s", o->lname);
	return buf;
}

/**
 * conf_quote() - Make an argument printable and short for a message
 * @arg:	Argument as given (may be NULL)
 * @buf:	Output buffer, CONF_ARG_SHOWN + 4 bytes at least
 * @len:	Size of @buf
 *
 * Non-printable characters become '?', long arguments end with "...".
 *
 * Return: @buf
 */
static const char *conf_quote(const char *arg, char *buf, size_t len)
{
	size_t i;

	if (!arg)
		arg = "";
	for (i = 0; arg[i] && i < CONF_ARG_SHOWN && i + 4 < len; i++)
		buf[i] = (arg[i] >= ' ' && arg[i] <= '~') ? arg[i] : '?';
	if (arg[i]) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

void (*conf_exit_hook)(int status);

/**
 * conf_exit() - End the process where parsing can't go on
 * @status:	EXIT_SUCCESS (--help, --version: stdio is flushed) or
 *		EXIT_FAILURE
 *
 * A fuzzing harness sets conf_exit_hook to get control back instead
 * (test/fuzz/conf.c): the hook must not return.
 */
__attribute__((noreturn))
static void conf_exit(int status)
{
	if (conf_exit_hook)
		conf_exit_hook(status);
	if (status == EXIT_SUCCESS)
		exit(status);
	_exit(status);
}

/**
 * conf_die() - Report a problem with an option and exit with status 1
 * @st:		Parsing state
 * @o:		Option, or NULL for problems not tied to one
 * @fmt:	Rest of the line, printf() format, then its arguments
 */
__attribute__((format(printf, 3, 4), noreturn))
static void conf_die(const struct conf_state *st, const struct conf_opt *o,
		     const char *fmt, ...)
{
	char name[64], msg[512], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; *p; p++) {
		if (*p < ' ' || *p > '~')
			*p = '?';
	}

	/* A usage error, not a log message: no level or time stamp even
	 * with -d, nothing in a log file
	 */
	fflush(stdout);
	if (o)
		fprintf(stderr, "%s: %s: %s\n", st->prog,
			conf_opt_name(o, name, sizeof(name)), msg);
	else
		fprintf(stderr, "%s: %s\n", st->prog, msg);
	conf_exit(EXIT_FAILURE);
}

/**
 * conf_invalid() - Report an invalid value and exit with status 1
 * @st:		Parsing state
 * @o:		Option
 * @arg:	The value given
 */
__attribute__((noreturn))
static void conf_invalid(const struct conf_state *st,
			 const struct conf_opt *o, const char *arg)
{
	char q[CONF_ARG_SHOWN + 8];

	conf_die(st, o, "invalid value '%s' (accepted: %s)",
		 conf_quote(arg, q, sizeof(q)), o->accepted);
}

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
 * conf_opt_by_id() - Find an option by its getopt_long() value
 * @id:		Value
 *
 * Return: the first option with that value, or NULL
 */
static const struct conf_opt *conf_opt_by_id(int id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conf_opts); i++) {
		if (conf_opts[i].id == id)
			return &conf_opts[i];
	}
	return NULL;
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
static int conf_uint(const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out)
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
	static const uint8_t zero[ETH_ALEN_];
	int i, j;

	if (strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < ETH_ALEN_; i++) {
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
		if (i < ETH_ALEN_ - 1 && s[i * 3 + 2] != ':')
			return -EINVAL;
		mac[i] = (uint8_t)v;
	}
	if ((mac[0] & 1) || !memcmp(mac, zero, ETH_ALEN_))
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
static struct fwd_table *conf_fwd_table(struct conf *c, int id, bool *ns_side,
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
 * conf_usage() - Print the options of the current mode to stdout
 * @c:		Configuration (mode and program name)
 */
static void conf_usage(const struct conf *c)
{
	unsigned mode = c->mode == MODE_PASTA ? M_PASTA : M_PASST;
	size_t i;

	if (c->mode == MODE_PASTA)
		printf("Usage: %s [OPTION]... [COMMAND [ARG]...]\n"
		       "       %s [OPTION]... PID\n"
		       "       %s [OPTION]... --netns [PATH|NAME]\n\n"
		       "Connect a network namespace to the host's network "
		       "through a tap device.\n\n", c->argv0, c->argv0,
		       c->argv0);
	else
		printf("Usage: %s [OPTION]...\n\n"
		       "Connect a virtual machine to the host's network over "
		       "a UNIX socket.\n\n", c->argv0);

	for (i = 0; i < ARRAY_SIZE(conf_opts); i++) {
		const struct conf_opt *o = &conf_opts[i];
		char left[64];

		if (!(o->modes & mode) || !o->help)
			continue;
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
			 o->sname ? "-" : "   ", o->sname ? o->sname : ' ',
			 o->sname ? ", " : "", o->lname, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		printf("  %-30s %s\n", left, o->help);
	}
	printf("\nPort specs (-t, -u%s): %s.\nSee %s(1) for details.\n",
	       c->mode == MODE_PASTA ? ", -T, -U" : "", PORTS_FORM,
	       c->mode == MODE_PASTA ? "pasta" : "passt");
}

/**
 * conf_opt() - Apply one option
 * @st:		Parsing state
 * @o:		Option
 * @arg:	Its argument, or NULL
 */
static void conf_opt(struct conf_state *st, const struct conf_opt *o,
		     const char *arg)
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
		printf("%s %s\n", c->argv0, VERSION);
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
		if (conf_uint(arg, CONF_MTU_MIN, CONF_MTU_MAX, &v))
			conf_invalid(st, o, arg);
		c->mtu = (int)v;
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
		if (!conf_fd_connected_stream((int)v))
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
	case OPT_PRINT_CAPABILITIES:
		/* vhost-user.rst, "Backend program conventions" */
		printf("{\n  \"type\": \"net\"\n}\n");
		fflush(stdout);
		conf_exit(EXIT_SUCCESS);
	case 'I':
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
	}
}

/**
 * conf_defaults() - Values before any option
 * @c:		Configuration, zeroed
 * @argv0:	argv[0], may be NULL
 */
static void conf_defaults(struct conf *c, const char *argv0)
{
	static const uint8_t mac[ETH_ALEN_] = CONF_MAC_OUR_DEFAULT;
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	if (!base || !*base)
		base = "passt";
	snprintf(c->argv0, sizeof(c->argv0), "%s", base);
	c->mode = !strcmp(base, "pasta") ? MODE_PASTA : MODE_PASST;

	c->mtu = CONF_MTU_DEFAULT;
	c->fd = -1;
	c->flow_max = CONF_FLOW_MAX_DEFAULT;
	c->drain_timeout_s = CONF_DRAIN_TIMEOUT_DEFAULT;
	c->udp_timeout_s = CONF_UDP_TIMEOUT_DEFAULT;
	c->log_size = CONF_LOG_SIZE_DEFAULT;
	memcpy(c->mac_our, mac, ETH_ALEN_);
	c->ip4.prefix_len = c->ip6.prefix_len = -1;

	/* upstream: pasta doesn't advertise DNS unless --dhcp-dns/-search */
	if (c->mode == MODE_PASTA)
		c->no_dhcp_dns = c->no_dhcp_search = true;
}

/**
 * conf_args() - Non-option arguments: PID or command (pasta), none (passt)
 * @st:		Parsing state
 * @argc:	Argument count
 * @argv:	Arguments, NULL-terminated
 * @first:	Index of the first non-option argument
 * @dashdash:	Option parsing was ended by "--"
 */
static void conf_args(struct conf_state *st, int argc, char **argv, int first,
		      bool dashdash)
{
	char q[CONF_ARG_SHOWN + 8];
	struct conf *c = st->c;
	unsigned long long v;

	if (first >= argc)
		return;
	if (c->mode == MODE_PASST)
		conf_die(st, NULL, "'%s': unexpected argument (passt takes no "
			 "command or PID; see '%s --help')",
			 conf_quote(argv[first], q, sizeof(q)), c->argv0);

	if (!dashdash && argv[first][0] >= '0' && argv[first][0] <= '9' &&
	    argv[first][strspn(argv[first], "0123456789")] == '\0') {
		if (conf_uint(argv[first], 1, INT_MAX, &v))
			conf_die(st, NULL, "invalid PID '%s' (accepted: "
				 "integer 1-%d)",
				 conf_quote(argv[first], q, sizeof(q)),
				 INT_MAX);
		if (first + 1 < argc)
			conf_die(st, NULL, "PID %llu given with a command "
				 "(accepted: a PID or a command, not both)", v);
		c->target_pid = (pid_t)v;
		return;
	}
	c->cmd = &argv[first];
}

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
static void conf_family_ignore(struct conf_state *st)
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
 * The guest never sends its own address out, so none of --map-guest-addr,
 * --map-host-loopback and --dns-forward can be it.  --map-guest-addr and
 * --map-host-loopback (by default the gateway) can't share an address:
 * traffic to it could go to one place only.  --dns-forward may share one
 * with either: port 53 goes to the name server, the rest follows the map
 * (passt.1, ADDRESS MAPPING).
 */
static void conf_check_special(const struct conf_state *st, int af)
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
	if (inany_equals(&dns, &self))
		conf_die(st, conf_opt_by_id(OPT_DNS_FORWARD),
			 "%s is the guest's own address, which never leaves "
			 "the guest (give another address)",
			 inany_ntop(&dns, buf));
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
static void conf_mtu_ipv6(const struct conf_state *st)
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
static void conf_check(const struct conf_state *st)
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

		t = conf_fwd_table((struct conf *)c, ids[i], &ns_side, &idx);
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
	if (st->userns_given && !st->netns_given && !c->target_pid)
		conf_die(st, conf_opt_by_id(OPT_USERNS),
			 "needs a PID or --netns");
}

/**
 * conf_interfaces() - Check and assign -i, --outbound-if4, --outbound-if6
 * @st:		Parsing state
 *
 * -i names the template interface of both families; --outbound-if4/6 that
 * of one family, unless -i is given too.  All must exist.
 */
static void conf_interfaces(struct conf_state *st)
{
	struct conf *c = st->c;

	if (st->ifname && nl_ifindex(st->ifname) < 0)
		conf_die(st, conf_opt_by_id('i'), "no interface '%s'",
			 c->ip4.ifname_out);
	if (c->ip4.ifname_bind[0] && nl_ifindex(c->ip4.ifname_bind) < 0)
		conf_die(st, conf_opt_by_id(OPT_OUTBOUND_IF4),
			 "no interface '%s'", c->ip4.ifname_bind);
	if (c->ip6.ifname_bind[0] && nl_ifindex(c->ip6.ifname_bind) < 0)
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
static void conf_derived(struct conf_state *st)
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
static void conf_dns(struct conf_state *st)
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
static void conf_debug_dump(const struct conf *c)
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
			debug("forward %s: auto, %u exclusions", names[i],
			      t[i]->auto_nexc);
	}
}

/**
 * conf_parse() - Fill a configuration from the command line and the host
 * @c:		Configuration to fill (cleared first)
 * @argc:	Argument count
 * @argv:	Arguments, NULL-terminated (argv[argc] == NULL), as given to
 *		main(); c->cmd may point into it
 *
 * The mode comes from basename(argv[0]): "pasta" is MODE_PASTA, anything
 * else MODE_PASST.  Sets log_level (only if -q, -d or --trace is given)
 * and log_trace_on.
 * Reads routes and addresses of the current network namespace
 * (nl_host_defaults()) and resolv_path (/etc/resolv.conf).
 *
 * Return: 0.  Exits with status 0 after -h/--help or --version, and with
 *	   status 1, after one line on stderr naming the option and the
 *	   accepted form, on any invalid option or combination
 */
int conf_parse(struct conf *c, int argc, char **argv)
{
	static struct option longopts[ARRAY_SIZE(conf_opts) + 1];
	static char optstring[3 + ARRAY_SIZE(conf_opts) * 2];
	struct conf_state st = { .c = c };
	const char *last_optarg = NULL;
	bool dashdash = false;
	size_t i, n = 0;
	int opt, rc;

	memset(c, 0, sizeof(*c));
	conf_defaults(c, argc > 0 && argv ? argv[0] : NULL);
	st.prog = c->argv0;
	if (argc < 1 || !argv)
		argc = 0;

	optstring[n++] = '+';
	optstring[n++] = ':';
	for (i = 0; i < ARRAY_SIZE(conf_opts); i++) {
		const struct conf_opt *o = &conf_opts[i];

		longopts[i] = (struct option){ o->lname, o->has_arg, NULL,
					       o->id };
		if (o->sname && !memchr(optstring, o->sname, n)) {
			optstring[n++] = (char)o->sname;
			if (o->has_arg == required_argument)
				optstring[n++] = ':';
		}
	}
	optstring[n] = '\0';
	memset(&longopts[i], 0, sizeof(longopts[i]));

	opterr = 0;
	optind = 0;	/* full re-initialisation (glibc), for tests */
	while (argc && (opt = getopt_long(argc, argv, optstring, longopts,
					  NULL)) != -1) {
		const struct conf_opt *o;
		char q[CONF_ARG_SHOWN + 8];

		if (opt == '?' || opt == ':') {
			o = optopt ? conf_opt_by_id(optopt) : NULL;
			if (opt == ':' && o)
				conf_die(&st, o, "missing value (accepted: %s)",
					 o->accepted);
			if (o && o->has_arg == no_argument &&
			    optind > 0 && argv[optind - 1][0] == '-' &&
			    argv[optind - 1][1] == '-')
				conf_die(&st, o, "takes no value");
			if (optopt && !o)
				conf_die(&st, NULL, "-%c: unknown option "
					 "(see '%s --help')", optopt, c->argv0);
			conf_die(&st, NULL, "%s: unknown or ambiguous option "
				 "(see '%s --help')",
				 conf_quote(argv[optind - 1], q, sizeof(q)),
				 c->argv0);
		}

		o = conf_opt_by_id(opt);
		if (!o)
			continue;
		if (!(o->modes & (c->mode == MODE_PASTA ? M_PASTA : M_PASST)))
			conf_die(&st, o, "only accepted by %s, not %s",
				 c->mode == MODE_PASTA ? "passt" : "pasta",
				 c->argv0);
		/* "--stats 5" as well as "--stats=5" and "--stats" */
		if (o->has_arg == optional_argument && !optarg &&
		    optind < argc && argv[optind][0] >= '0' &&
		    argv[optind][0] <= '9')
			optarg = argv[optind++];
		last_optarg = optarg;
		conf_opt(&st, o, optarg);
	}

	/* -q, -d, --trace: before anything gets logged below */
	if (c->debug)
		log_level = LOG_DEBUG;
	else if (c->quiet)
		log_level = LOG_WARNING;
	log_trace_on = c->trace;

	if (argc && optind > 1 && optind <= argc &&
	    !strcmp(argv[optind - 1], "--") && argv[optind - 1] != last_optarg)
		dashdash = true;
	conf_args(&st, argc, argv, argc ? optind : 0, dashdash);

	conf_family_ignore(&st);
	conf_check(&st);
	if (c->mode == MODE_PASTA && c->config_net && !c->no_ra) {
		/* Addresses and routes are set already: an RA would only add
		 * a second default route, via our link-local address
		 */
		debug("--config-net: no router advertisements");
		c->no_ra = true;
	}
	c->ip4.enabled = !st.v6_only;
	c->ip6.enabled = !st.v4_only;
	conf_mtu_ipv6(&st);

	conf_interfaces(&st);
	rc = nl_host_defaults(c);
	if (rc) {
		err("%s: can't read routes and addresses: %s", c->argv0,
		    strerror(-rc));
		conf_exit(EXIT_FAILURE);
	}
	conf_derived(&st);
	conf_dns(&st);
	conf_check_special(&st, AF_INET);
	conf_check_special(&st, AF_INET6);
	info("%s", nl_host_summary());
	conf_debug_dump(c);

	return 0;
}
