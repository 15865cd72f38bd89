// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/parse.c - Command line parsing and derived defaults: conf_parse()
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
 *    (conf/host.c), unless given, then the derived values (host
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
#include <linux/if_ether.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conf_internal.h"
#include "../lib/log.h"
#include "host.h"
#include "ports.h"
#include "resolv.h"
#include "../lib/visible.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

/**
 * conf_version() - Our version, as --version prints it after the name
 *
 * One place for it: a hitless restart logs it too (passt/restart_run.c)
 *
 * Return: the version string (git describe at build time)
 */
const char *conf_version(void)
{
	return VERSION;
}

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
	  "deprecated: no effect but a warning" },
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
	  "integer 68-65520, or 0", "MTU to advertise (0: none), default 65520" },
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
	{ "dns", 'D', 'D', required_argument, M_BOTH, "ADDR|none",
	  ADDR4OR6 " (repeatable, at most 4 per family) or none",
	  "name server for the guest, default: from /etc/resolv.conf" },
	{ "dns-forward", 0, OPT_DNS_FORWARD, required_argument, M_BOTH,
	  "ADDR", ADDR4OR6 ", once per family",
	  "guest-side address whose DNS traffic goes to --dns-host" },
	{ "dns-host", 0, OPT_DNS_HOST, required_argument, M_BOTH, "ADDR",
	  ADDR4OR6 ", once per family",
	  "host name server for --dns-forward, default: the first one" },
	{ "search", 'S', 'S', required_argument, M_BOTH, "LIST|none",
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
	  PORTS_FORM, "forward host TCP ports to the guest, default none (passt), auto (pasta)" },
	{ "udp-ports", 'u', 'u', required_argument, M_BOTH, "SPEC",
	  PORTS_FORM, "forward host UDP ports to the guest, default none (passt), auto (pasta)" },

	/* passt only */
	{ "conf-path", 'c', 'c', required_argument, M_BOTH, "PATH",
	  "UNIX socket path, 1-107 characters",
	  "UNIX socket for pesto(1), to change port forwarding at run time" },
	{ "restart-from", 0, OPT_RESTART_FROM, required_argument, M_BOTH,
	  "PATH", "UNIX socket path, 1-107 characters",
	  "take over the connections of the instance whose -c socket is PATH "
	  "(hitless restart)" },
	{ "socket", 's', 's', required_argument, M_PASST, "PATH",
	  "UNIX socket path, 1-107 characters",
	  "UNIX socket for qemu (also --socket-path), default /tmp/passt_N.socket" },
	{ "socket-path", 's', 's', required_argument, M_PASST, "PATH",
	  "UNIX socket path, 1-107 characters", NULL },
	{ "fd", 'F', 'F', required_argument, M_BOTH, "FD",
	  "open file descriptor number 0-2147483647",
	  "use this connected socket (passt) or tap device (pasta), "
	  "implies -1" },
	{ "one-off", '1', '1', no_argument, M_PASST, NULL, NULL,
	  "quit after the first client disconnects" },
	{ "vhost-user", 0, OPT_VHOST_USER, no_argument, M_PASST, NULL, NULL,
	  "be a vhost-user back-end (virtio-net rings) on the socket" },
	{ "print-capabilities", 0, OPT_PRINT_CAPABILITIES, no_argument,
	  M_PASST, NULL, NULL,
	  "print the vhost-user back-end capabilities (JSON) and exit" },
	{ "repair-path", 0, OPT_REPAIR_PATH, required_argument, M_PASST,
	  "PATH", "UNIX socket path, 1-107 characters, or none",
	  "UNIX socket for passt-repair, default: the socket's path + .repair "
	  "(--vhost-user)" },
	{ "migrate-exit", 0, OPT_MIGRATE_EXIT, no_argument, M_PASST, NULL,
	  NULL, "exit once a migration as source completed (--vhost-user)" },
	{ "migrate-no-linger", 0, OPT_MIGRATE_NO_LINGER, no_argument, M_PASST,
	  NULL, NULL, "close migrated TCP sockets at once (--vhost-user)" },
	{ "upstream-features", 0, OPT_UPSTREAM_FEATURES, no_argument, M_PASST,
	  NULL, NULL, "offer only upstream passt's virtio features, so that "
	  "the guest may migrate to it (--vhost-user)" },

	/* pasta only */
	{ "tcp-ns", 'T', 'T', required_argument, M_PASTA, "SPEC", PORTS_FORM,
	  "forward namespace TCP ports to the host, default auto" },
	{ "udp-ns", 'U', 'U', required_argument, M_PASTA, "SPEC", PORTS_FORM,
	  "forward namespace UDP ports to the host, default auto" },
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
	{ "no-udp-offload", 0, OPT_NO_UDP_OFFLOAD, no_argument, M_BOTH, NULL,
	  NULL, "no UDP offload: UDP_GRO, UDP_SEGMENT, tap or vhost-user USO" },
	{ "flow-max", 0, OPT_FLOW_MAX, required_argument, M_BOTH, "N",
	  "integer 1-65536", "flow table size, default 8192" },
	{ "udp-timeout", 0, OPT_UDP_TIMEOUT, required_argument, M_BOTH,
	  "SECONDS", "integer 1-86400", "UDP flow idle timeout, default 180" },
	{ "drain-timeout", 0, OPT_DRAIN_TIMEOUT, required_argument, M_BOTH,
	  "SECONDS", "integer 0-60",
	  "at exit, let connections finish for up to SECONDS, default 3" },
	{ "busy-poll", 0, OPT_BUSY_POLL, required_argument, M_BOTH, "USEC",
	  "integer 0-1000 (microseconds)",
	  "after activity, poll without sleeping for up to USEC, default 0" },
	{ "stats", 0, OPT_STATS, optional_argument, M_BOTH, "[DELAY]",
	  "integer 1-86400 (seconds), or nothing",
	  "print counters on exit, on SIGUSR1, and at most every DELAY s" },
	{ "no-follow-host", 0, OPT_NO_FOLLOW_HOST, no_argument, M_BOTH, NULL,
	  NULL, "keep the start-up addresses, routes and name servers when "
	  "the host's change" },
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
 * conf_opt_name() - "-m/--mtu" or "--trace", for messages
 * @o:		Option
 * @buf:	Output buffer
 * @len:	Size of @buf
 *
 * Return: @buf
 */
static const char *conf_opt_name(const struct conf_opt *o, char *buf, size_t len)
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
const char *conf_quote(const char *arg, char *buf, size_t len)
{
	size_t i;

	if (!arg)
		arg = "";
	for (i = 0; i < CONF_ARG_SHOWN && i + 4 < len && arg[i]; i++)
		buf[i] = (arg[i] >= ' ' && arg[i] <= '~') ? arg[i] : '?';
	if (arg[i]) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

VISIBLE_IF_UNIT
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
void conf_exit(int status)
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
void conf_die(const struct conf_state *st, const struct conf_opt *o,
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
void conf_invalid(const struct conf_state *st, const struct conf_opt *o,
		  const char *arg)
{
	char q[CONF_ARG_SHOWN + 8];

	conf_die(st, o, "invalid value '%s' (accepted: %s)",
		 conf_quote(arg, q, sizeof(q)), o->accepted);
}

/**
 * conf_opt_by_id() - Find an option by its getopt_long() value
 * @id:		Value
 *
 * Return: the first option with that value, or NULL
 */
const struct conf_opt *conf_opt_by_id(int id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conf_opts); i++) {
		if (conf_opts[i].id == id)
			return &conf_opts[i];
	}
	return NULL;
}

/**
 * conf_usage() - Print the options of the current mode to stdout
 * @c:		Configuration (mode and program name)
 */
void conf_usage(const struct conf *c)
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
 * conf_defaults() - Values before any option
 * @c:		Configuration, zeroed
 * @argv0:	argv[0], may be NULL
 */
static void conf_defaults(struct conf *c, const char *argv0)
{
	static const uint8_t mac[ETH_ALEN] = CONF_MAC_OUR_DEFAULT;
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
	memcpy(c->mac_our, mac, ETH_ALEN);
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
 * (netlink_host_defaults()), resolv_path (/etc/resolv.conf) and the
 * ephemeral port range (fwd_ephemeral_load(), kept for specs given later
 * through -c).
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
	fwd_ephemeral_load();	/* for -t all, also through -c later */
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
	c->given.ip4 = c->ip4;	/* the options' values, before the host's */
	c->given.ip6 = c->ip6;
	c->given.mhl4 = st.mhl4;
	c->given.mhl6 = st.mhl6;
	c->given.dns = st.dns || st.dns_none;
	c->given.search = st.search || st.search_none;
	rc = netlink_host_defaults(c);
	if (rc) {
		err("%s: can't read routes and addresses: %s", c->argv0,
		    strerror(-rc));
		conf_exit(EXIT_FAILURE);
	}
	conf_derived(&st);
	conf_dns(&st);
	conf_check_special(&st, AF_INET);
	conf_check_special(&st, AF_INET6);
	info("%s", netlink_host_summary());
	conf_debug_dump(c);

	return 0;
}
