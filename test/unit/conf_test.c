// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/conf_test.c - Command line parsing (conf/parse.c)
 *
 * Every test runs in a scratch network namespace built like the
 * integration tests' host (fake_netns.c: h0 198.51.100.1/24 via
 * 198.51.100.2, 2001:db8:1::1/64 via 2001:db8:1::2), with its own
 * resolv.conf and ip_local_port_range files, so expected values come from
 * what the fixture configured, never from the machine.
 *
 * Option names, forms and defaults are upstream passt(1)'s: -M default
 * 9a:55:9a:55:9a:55, MTU default 65520, --netns NAME meaning
 * /run/netns/NAME (ip-netns(8)), --netns implying --netns-only, pasta not
 * advertising DNS unless --dhcp-dns, -F implying --one-off, --no-icmp
 * implying --no-ndp, the gateway as default --map-host-loopback.  Invalid
 * values must end the process with status 1 and exactly one line on
 * stderr naming the option.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../conf/conf.h"
#include "../../lib/log.h"
#include "../../conf/ports.h"
#include "../../conf/resolv.h"
#include "fake_netns.h"
#include "fake_parse.h"
#include "fake_tmp.h"

#define MAX_ARGS	32

static char tmpdir[64];
static char resolv_file[128], range_file[128], out_file[128], err_file[128];
static struct conf c;

/**
 * setup() - Per-test fixture: temp files for resolv.conf and the port
 *	     range, then a scratch namespace with lib.sh's host topology
 */
static void setup(void)
{
	tmp_dir_make(tmpdir, sizeof(tmpdir), "conf_test");
	snprintf(resolv_file, sizeof(resolv_file), "%s/resolv.conf", tmpdir);
	snprintf(range_file, sizeof(range_file), "%s/range", tmpdir);
	snprintf(out_file, sizeof(out_file), "%s/stdout", tmpdir);
	snprintf(err_file, sizeof(err_file), "%s/stderr", tmpdir);
	/* systemd-resolved's stub, see resolv_test.c */
	tmp_write(resolv_file, "nameserver 127.0.0.53\nsearch example.com\n");
	tmp_write(range_file, "32768 60999\n");
	resolv_path = resolv_file;
	fwd_ephemeral_path = range_file;

	netns_enter_scratch();
	netns_host_topology();
}

/**
 * teardown() - Remove the fixture's temporary files
 */
static void teardown(void)
{
	tmp_dir_remove(tmpdir);
}

/**
 * build_argv() - Collect a NULL-terminated argument list
 * @argv:	Output, MAX_ARGS + 1 entries
 * @first:	argv[0]
 * @ap:		Further arguments, NULL-terminated
 *
 * Return: argc
 */
static int build_argv(char **argv, const char *first, va_list ap)
{
	const char *a;
	int argc = 0;

	argv[argc++] = UNCONST(char *, first);
	while ((a = va_arg(ap, const char *))) {
		ck_assert_int_lt(argc, MAX_ARGS);
		argv[argc++] = UNCONST(char *, a);
	}
	argv[argc] = NULL;
	return argc;
}

/**
 * parse() - conf_parse() with a NULL-terminated list, in this process
 * @first:	argv[0], then the arguments, then NULL
 */
static void parse(const char *first, ...)
{
	static char *argv[MAX_ARGS + 1];
	va_list ap;
	int argc;

	va_start(ap, first);
	argc = build_argv(argv, first, ap);
	va_end(ap);
	log_level = LOG_ERR;
	ck_assert_int_eq(conf_parse(&c, argc, argv), 0);
}

/**
 * run() - conf_parse() in a child, capturing exit status and output
 * @out:	Captured stdout
 * @outlen:	Size of @out
 * @err:	Captured stderr
 * @errlen:	Size of @err
 * @first:	argv[0], then the arguments, then NULL
 *
 * Return: exit status of the child; 100 if conf_parse() returned
 */
static int run(char *out, size_t outlen, char *err, size_t errlen,
	       const char *first, ...)
{
	static char *argv[MAX_ARGS + 1];
	int status, fd, argc;
	ssize_t n;
	va_list ap;
	pid_t pid;

	va_start(ap, first);
	argc = build_argv(argv, first, ap);
	va_end(ap);

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int o = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(99);
		conf_parse(&c, argc, argv);
		fflush(stdout);
		_exit(100);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));

	fd = open(out_file, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, out, outlen - 1);
	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	fd = open(err_file, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return WEXITSTATUS(status);
}

/**
 * lines() - Count newline-terminated lines
 * @s:		Text
 *
 * Return: number of '\n'
 */
static unsigned lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Exit 1, one line on stderr, equal to @want (with its newline) */
#define EXPECT_ERROR_LINE(want, ...)					\
	do {								\
		char o_[8192], e_[4096];				\
		int rc_ = run(o_, sizeof(o_), e_, sizeof(e_),		\
			      __VA_ARGS__, NULL);			\
		ck_assert_int_eq(rc_, 1);				\
		ck_assert_str_eq(e_, want "\n");			\
	} while (0)

/* Exit 1, one line on stderr that starts with @prog and names @opt */
#define EXPECT_REJECTED(prog, opt, ...)					\
	do {								\
		char o_[8192], e_[4096];				\
		int rc_ = run(o_, sizeof(o_), e_, sizeof(e_),		\
			      prog, __VA_ARGS__, NULL);			\
		ck_assert_msg(rc_ == 1, "%s " #__VA_ARGS__		\
			      ": exit status %d", prog, rc_);		\
		ck_assert_msg(lines(e_) == 1, #__VA_ARGS__		\
			      ": %u lines: %s", lines(e_), e_);		\
		ck_assert_msg(!strncmp(e_, prog ": ", strlen(prog) + 2),\
			      "no program name: %s", e_);		\
		ck_assert_msg(strstr(e_, opt), #__VA_ARGS__		\
			      ": '%s' not named in: %s", opt, e_);	\
	} while (0)

START_TEST(test_conf_parse_passt_defaults)
{
	static const uint8_t mac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };

	parse("/usr/bin/passt", NULL);
	ck_assert_int_eq(c.mode, MODE_PASST);
	ck_assert_str_eq(c.argv0, "passt");
	ck_assert_int_eq(c.mtu, 65520);
	ck_assert_int_eq(c.fd, -1);
	ck_assert_uint_eq(c.flow_max, CONF_FLOW_MAX_DEFAULT);
	ck_assert_uint_eq(c.udp_timeout_s, 180);
	ck_assert_uint_eq(c.log_size, 1048576);
	ck_assert_mem_eq(c.mac_our, mac, 6);
	ck_assert(!c.mac_guest_set);
	ck_assert(!c.no_dhcp_dns);
	ck_assert(!c.no_dhcp_search);
	ck_assert_uint_eq(c.tcp_in.n + c.udp_in.n + c.tcp_out.n + c.udp_out.n,
			  0);
	/* man page: passt forwards nothing by default */
	ck_assert(!c.tcp_in.auto_on && !c.udp_in.auto_on);
	ck_assert_ptr_null(c.cmd);
	ck_assert_int_eq(c.target_pid, 0);
	ck_assert_str_eq(c.sock_path, "");
	ck_assert(!c.one_off);
	ck_assert_str_eq(c.devmem_if, "");
}
END_TEST

START_TEST(test_conf_parse_addresses_from_host)
{
	parse("passt", NULL);
	ck_assert(c.ip4.enabled);
	ck_assert(c.ip6.enabled);
	ck_assert_str_eq(c.ip4.ifname_out, "h0");
	ck_assert_a4(c.ip4.addr, TOPO_H4);
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	ck_assert_a4(c.ip4.gw, TOPO_R4);
	ck_assert_a6(c.ip6.addr, TOPO_H6);
	ck_assert_int_eq(c.ip6.prefix_len, 64);
	ck_assert_a6(c.ip6.gw, TOPO_R6);
	ck_assert_a6(c.ip6.our_ll, "fe80::1");
	/* the gateway stands for host loopback by default */
	ck_assert_a4(c.ip4.map_host_loopback, TOPO_R4);
	ck_assert_a6(c.ip6.map_host_loopback, TOPO_R6);
	ck_assert_uint_eq(c.ip4.map_guest_addr.s_addr, 0);
}
END_TEST

/* 127.0.0.53 in resolv.conf: the guest gets the gateway, which forwards */
START_TEST(test_conf_parse_dns_from_resolv_conf)
{
	parse("passt", NULL);
	ck_assert_uint_eq(c.ip4.dns_count, 1);
	ck_assert_a4(c.ip4.dns[0], TOPO_R4);
	ck_assert_a4(c.ip4.dns_fwd, TOPO_R4);
	ck_assert_a4(c.ip4.dns_host, "127.0.0.53");
	ck_assert_uint_eq(c.ip6.dns_count, 0);
	ck_assert_uint_eq(c.search_count, 1);
	ck_assert_str_eq(c.search[0], "example.com");
}
END_TEST

START_TEST(test_conf_parse_dns_options)
{
	parse("passt", "-D", "203.0.113.53", "-D", "2001:db8::53", "-D",
	      "203.0.113.54", "--dns-forward", "203.0.113.3", "--dns-host",
	      "203.0.113.200", "-S", "a.example b.example", "-S", "c.example",
	      NULL);
	ck_assert_uint_eq(c.ip4.dns_count, 2);
	ck_assert_a4(c.ip4.dns[0], "203.0.113.53");
	ck_assert_a4(c.ip4.dns[1], "203.0.113.54");
	ck_assert_uint_eq(c.ip6.dns_count, 1);
	ck_assert_a6(c.ip6.dns[0], "2001:db8::53");
	ck_assert_a4(c.ip4.dns_fwd, "203.0.113.3");
	ck_assert_a4(c.ip4.dns_host, "203.0.113.200");
	ck_assert_uint_eq(c.search_count, 3);
	ck_assert_str_eq(c.search[2], "c.example");
}
END_TEST

START_TEST(test_conf_parse_dns_none)
{
	parse("passt", "-D", "none", "-S", "none", NULL);
	ck_assert_uint_eq(c.ip4.dns_count, 0);
	ck_assert_uint_eq(c.ip6.dns_count, 0);
	ck_assert_uint_eq(c.search_count, 0);
	ck_assert_uint_eq(c.ip4.dns_fwd.s_addr, 0);
}
END_TEST

START_TEST(test_conf_parse_dhcp_dns_by_mode)
{
	parse("pasta", NULL);
	ck_assert(c.no_dhcp_dns);
	ck_assert(c.no_dhcp_search);
	parse("pasta", "--dhcp-dns", "--dhcp-search", NULL);
	ck_assert(!c.no_dhcp_dns);
	ck_assert(!c.no_dhcp_search);
	parse("passt", "--no-dhcp-dns", "--no-dhcp-search", NULL);
	ck_assert(c.no_dhcp_dns);
	ck_assert(c.no_dhcp_search);
}
END_TEST

START_TEST(test_conf_parse_mode_from_basename)
{
	parse("/usr/local/bin/pasta", NULL);
	ck_assert_int_eq(c.mode, MODE_PASTA);
	ck_assert_str_eq(c.argv0, "pasta");
	parse("./passt", NULL);
	ck_assert_int_eq(c.mode, MODE_PASST);
	parse("/opt/pasta/passt", NULL);
	ck_assert_int_eq(c.mode, MODE_PASST);
	parse("something-else", NULL);
	ck_assert_int_eq(c.mode, MODE_PASST);
}
END_TEST

START_TEST(test_conf_parse_pasta_defaults)
{
	parse("pasta", NULL);
	/* -I default: the template interface's name */
	ck_assert_str_eq(c.ifname_ns, "h0");
	ck_assert_ptr_null(c.cmd);
	ck_assert_int_eq(c.target_pid, 0);
	ck_assert_str_eq(c.netns, "");
	ck_assert(!c.netns_only);
	/* man page: -t, -u, -T, -U default to "auto" in pasta mode */
	ck_assert(c.tcp_in.auto_on && c.udp_in.auto_on);
	ck_assert(c.tcp_out.auto_on && c.udp_out.auto_on);
	ck_assert_uint_eq(c.tcp_in.n + c.udp_in.n + c.tcp_out.n + c.udp_out.n,
			  0);
}
END_TEST

START_TEST(test_conf_parse_pid)
{
	parse("pasta", "--config-net", "12345", NULL);
	ck_assert_int_eq(c.target_pid, 12345);
	ck_assert_ptr_null(c.cmd);
	ck_assert(c.config_net);
}
END_TEST

START_TEST(test_conf_parse_command_keeps_its_options)
{
	parse("pasta", "-f", "ip", "-4", "addr", "show", NULL);
	ck_assert(c.foreground);
	ck_assert_ptr_nonnull(c.cmd);
	ck_assert_str_eq(c.cmd[0], "ip");
	ck_assert_str_eq(c.cmd[1], "-4");
	ck_assert_str_eq(c.cmd[3], "show");
	ck_assert_ptr_null(c.cmd[4]);
	/* "-4" belonged to the command: IPv6 stays on */
	ck_assert(c.ip6.enabled);
	ck_assert_int_eq(c.target_pid, 0);
}
END_TEST

START_TEST(test_conf_parse_dashdash_command)
{
	parse("pasta", "--", "1234", NULL);
	ck_assert_int_eq(c.target_pid, 0);
	ck_assert_ptr_nonnull(c.cmd);
	ck_assert_str_eq(c.cmd[0], "1234");

	parse("pasta", "--", "sh", "-c", "true", NULL);
	ck_assert_str_eq(c.cmd[0], "sh");
	ck_assert_str_eq(c.cmd[2], "true");

	/* "--" as the value of -l is a file name, not the end of options */
	parse("pasta", "-l", "--", "4321", NULL);
	ck_assert_str_eq(c.log_file, "--");
	ck_assert_int_eq(c.target_pid, 4321);
}
END_TEST

START_TEST(test_conf_parse_netns)
{
	parse("pasta", "--netns", "test1", NULL);
	ck_assert_str_eq(c.netns, "/run/netns/test1");
	ck_assert(c.netns_only);

	parse("pasta", "--netns", "/proc/1/ns/net", "--userns",
	      "/proc/1/ns/user", NULL);
	ck_assert_str_eq(c.netns, "/proc/1/ns/net");
	ck_assert_str_eq(c.userns, "/proc/1/ns/user");
	ck_assert(!c.netns_only);

	parse("pasta", "--netns-only", "--no-netns-quit", "--no-copy-routes",
	      "--no-copy-addrs", "--no-splice", NULL);
	ck_assert(c.netns_only);
	ck_assert(c.no_netns_quit);
	ck_assert(c.no_copy_routes);
	ck_assert(c.no_copy_addrs);
	ck_assert(c.no_splice);
}
END_TEST

START_TEST(test_conf_parse_port_tables)
{
	parse("pasta", "-t", "22,80:8080", "-u", "53", "-T", "5000-5009",
	      "-U", "none", NULL);
	ck_assert_uint_eq(c.tcp_in.n, 2);
	ck_assert_uint_eq(c.tcp_in.rules[1].first, 80);
	ck_assert_uint_eq(c.tcp_in.rules[1].to, 8080);
	ck_assert_uint_eq(c.udp_in.n, 1);
	ck_assert_uint_eq(c.tcp_out.n, 1);
	ck_assert_uint_eq(c.tcp_out.rules[0].last, 5009);
	ck_assert_uint_eq(c.udp_out.n, 0);
	/* a table given ports or "none" has no "auto" */
	ck_assert(!c.tcp_in.auto_on && !c.udp_in.auto_on);
	ck_assert(!c.tcp_out.auto_on && !c.udp_out.auto_on);

	/* only the tables not given keep the default "auto" */
	parse("pasta", "-t", "22", "-U", "auto,~53", NULL);
	ck_assert(!c.tcp_in.auto_on && c.udp_in.auto_on);
	ck_assert(c.tcp_out.auto_on && c.udp_out.auto_on);
	ck_assert_uint_eq(c.udp_out.auto_nexc, 1);

	/* -t given twice adds to the same table */
	parse("passt", "-t", "22", "-t", "203.0.113.1/22", "--tcp-ports", "23",
	      NULL);
	ck_assert_uint_eq(c.tcp_in.n, 3);
}
END_TEST

START_TEST(test_conf_parse_address_options)
{
	parse("passt", "-a", "203.0.113.100", "-n", "255.255.255.128", "-g",
	      "203.0.113.2", "-a", "2001:db8:2::100/48", "-g", "fe80::2", NULL);
	ck_assert_a4(c.ip4.addr, "203.0.113.100");
	ck_assert_int_eq(c.ip4.prefix_len, 25);
	ck_assert_a4(c.ip4.gw, "203.0.113.2");
	ck_assert_a4(c.ip4.map_host_loopback, "203.0.113.2");
	ck_assert_a6(c.ip6.addr, "2001:db8:2::100");
	ck_assert_int_eq(c.ip6.prefix_len, 48);
	ck_assert_a6(c.ip6.gw, "fe80::2");
	ck_assert_a6(c.ip6.our_ll, "fe80::2");

	parse("passt", "-a", "203.0.113.100/16", NULL);
	ck_assert_int_eq(c.ip4.prefix_len, 16);
	/* no prefix, not a host address: class C (RFC 791) */
	parse("passt", "-a", "203.0.113.100", NULL);
	ck_assert_int_eq(c.ip4.prefix_len, 24);
	/* IPv4 link-local (RFC 3927) is class B */
	parse("passt", "-a", "169.254.2.100", NULL);
	ck_assert_int_eq(c.ip4.prefix_len, 16);
	parse("passt", "-n", "20", NULL);
	ck_assert_int_eq(c.ip4.prefix_len, 20);
	ck_assert_a4(c.ip4.addr, TOPO_H4);
}
END_TEST

START_TEST(test_conf_parse_map_options)
{
	parse("passt", "--no-map-gw", NULL);
	ck_assert_uint_eq(c.ip4.map_host_loopback.s_addr, 0);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.map_host_loopback));

	parse("passt", "--map-host-loopback", "203.0.113.9", NULL);
	ck_assert_a4(c.ip4.map_host_loopback, "203.0.113.9");
	ck_assert_a6(c.ip6.map_host_loopback, TOPO_R6);

	parse("passt", "--map-host-loopback", "none", NULL);
	ck_assert_uint_eq(c.ip4.map_host_loopback.s_addr, 0);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.map_host_loopback));
	ck_assert(c.no_map_gw);

	parse("pasta", "--map-guest-addr", "169.254.1.2", NULL);
	ck_assert_a4(c.ip4.map_guest_addr, "169.254.1.2");
}
END_TEST

START_TEST(test_conf_parse_family_only)
{
	parse("passt", "-4", NULL);
	ck_assert(c.ip4.enabled);
	ck_assert(!c.ip6.enabled);
	parse("passt", "--ipv6-only", NULL);
	ck_assert(!c.ip4.enabled);
	ck_assert(c.ip6.enabled);
}
END_TEST

START_TEST(test_conf_parse_flags)
{
	parse("passt", "--no-tcp", "--no-udp", "--no-icmp", "--no-dhcp",
	      "--no-dhcpv6", "--no-ra", "--freebind", "--no-peek-offset",
	      "--stats", "-e", "-f", "-1", NULL);
	ck_assert(c.no_tcp && c.no_udp && c.no_icmp && c.no_dhcp);
	ck_assert(c.no_dhcpv6 && c.no_ra && c.freebind && c.peek_fallback);
	ck_assert(c.stats && c.foreground && c.one_off);
	/* upstream: --no-icmp implies --no-ndp */
	ck_assert(c.no_ndp);

	/* upstream's pasta(1): --splice-only, --chroot-fallback, -c */
	parse("pasta", "--splice-only", "--chroot-fallback", "-c", "/tmp/c.sock",
	      NULL);
	ck_assert(c.splice_only && c.chroot_fallback);
	ck_assert_str_eq(c.conf_path, "/tmp/c.sock");
	parse("passt", "--chroot-fallback", "--conf-path", "/tmp/d.sock", NULL);
	ck_assert(c.chroot_fallback);
	ck_assert_str_eq(c.conf_path, "/tmp/d.sock");
	EXPECT_REJECTED("pasta", "--splice-only", "--splice-only", "--no-splice");
	EXPECT_REJECTED("passt", "--splice-only", "--splice-only");
	EXPECT_REJECTED("passt", "-c/--conf-path", "-c", "");
}
END_TEST

/* Upstream's form is "--stats DELAY" (a required value); ours also takes
 * the bare flag, and "--stats=DELAY"
 */
START_TEST(test_conf_parse_stats_delay)
{
	parse("passt", "--stats", NULL);
	ck_assert(c.stats);
	ck_assert_uint_eq(c.stats_delay_s, 0);
	parse("passt", "--stats", "5", "-f", NULL);
	ck_assert(c.stats && c.foreground);
	ck_assert_uint_eq(c.stats_delay_s, 5);
	parse("passt", "--stats=7", NULL);
	ck_assert_uint_eq(c.stats_delay_s, 7);
	parse("passt", "--stats", "-f", NULL);
	ck_assert(c.stats && c.foreground);
	ck_assert_uint_eq(c.stats_delay_s, 0);
}
END_TEST

START_TEST(test_conf_parse_log_levels)
{
	parse("passt", "-q", NULL);
	ck_assert(c.quiet);
	ck_assert_int_eq(log_level, LOG_WARNING);
	parse("passt", "-d", NULL);
	ck_assert_int_eq(log_level, LOG_DEBUG);
	ck_assert(!log_trace_on);
	parse("passt", "--trace", NULL);
	ck_assert(c.debug && c.trace);
	ck_assert(log_trace_on);
}
END_TEST

START_TEST(test_conf_parse_values)
{
	char fd[16];
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(fd, sizeof(fd), "%d", sv[0]);
	parse("passt", "-m", "68", "-M", "02:00:00:AB:cd:01", "--flow-max",
	      "65536", "--udp-timeout", "86400", "--log-size", "4096", "-l",
	      "/tmp/x.log", "-P", "/tmp/x.pid", "-p", "/tmp/x.pcap", "-s",
	      "/tmp/x.socket", "-F", fd, "-H", "guest1", "--fqdn",
	      "guest1.example.com.", "-o", "198.51.100.1", "--outbound-if4",
	      "h0", NULL);
	ck_assert_int_eq(c.mtu, 68);
	ck_assert_uint_eq(c.mac_our[3], 0xab);
	ck_assert_uint_eq(c.mac_our[4], 0xcd);
	ck_assert_uint_eq(c.flow_max, 65536);
	ck_assert_uint_eq(c.udp_timeout_s, 86400);
	ck_assert_uint_eq(c.log_size, 4096);
	ck_assert_str_eq(c.log_file, "/tmp/x.log");
	ck_assert_str_eq(c.pid_file, "/tmp/x.pid");
	ck_assert_str_eq(c.pcap_file, "/tmp/x.pcap");
	ck_assert_str_eq(c.sock_path, "/tmp/x.socket");
	ck_assert_int_eq(c.fd, sv[0]);
	ck_assert(c.one_off);
	close(sv[0]);
	close(sv[1]);
	ck_assert_str_eq(c.hostname, "guest1");
	ck_assert_str_eq(c.fqdn, "guest1.example.com");
	ck_assert_a4(c.ip4.addr_out, "198.51.100.1");
	ck_assert_str_eq(c.ip4.ifname_bind, "h0");
	ck_assert_str_eq(c.ip4.ifname_out, "h0");

	parse("passt", "-m", "65520", NULL);
	ck_assert_int_eq(c.mtu, 65520);
	ck_assert(!c.no_mtu);

	/* upstream passt.1: "A zero value disables assignment" */
	parse("pasta", "-m", "0", NULL);
	ck_assert(c.no_mtu);
	ck_assert_int_eq(c.mtu, 65520);
	parse("passt", "-m", "1500", "-m", "0", NULL);
	ck_assert(c.no_mtu);
}
END_TEST

/**
 * fd_str() - Descriptor number as a string, for -F
 * @fd:		Descriptor, asserted valid
 * @buf:	Buffer, 16 bytes
 *
 * Return: @buf
 */
static const char *fd_str(int fd, char *buf)
{
	ck_assert_int_ge(fd, 0);
	snprintf(buf, 16, "%d", fd);
	return buf;
}

/* passt.1, -F: a connected stream socket; unix(7): getpeername() on a
 * socketpair() end succeeds, on an unconnected socket it fails (ENOTCONN)
 */
START_TEST(test_conf_parse_fd_must_be_connected_stream)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char b[16], o[512], e[512], want[128];
	int sv[2], s;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	parse("passt", "-F", fd_str(sv[1], b), NULL);
	ck_assert_int_eq(c.fd, sv[1]);
	close(sv[0]);
	close(sv[1]);

	s = open("/dev/null", O_RDONLY);	/* not a socket at all */
	ck_assert_int_eq(run(o, sizeof(o), e, sizeof(e), "passt", "-F",
			     fd_str(s, b), NULL), 1);
	snprintf(want, sizeof(want),
		 "passt: -F/--fd: %d is not a connected stream socket\n", s);
	ck_assert_str_eq(e, want);
	close(s);

	s = socket(AF_INET, SOCK_DGRAM, 0);
	EXPECT_REJECTED("passt", "-F/--fd", "-F", fd_str(s, b));
	close(s);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	EXPECT_REJECTED("passt", "-F/--fd", "-F", fd_str(sv[0], b));
	close(sv[0]);
	close(sv[1]);

	s = socket(AF_INET, SOCK_STREAM, 0);	/* never connected */
	EXPECT_REJECTED("passt", "-F/--fd", "-F", fd_str(s, b));
	close(s);

	s = socket(AF_UNIX, SOCK_STREAM, 0);	/* listening, abstract name */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "conf_test_%d",
		 (int)getpid());
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(s, 1), 0);
	EXPECT_REJECTED("passt", "-F/--fd", "-F", fd_str(s, b));
	close(s);
}
END_TEST

START_TEST(test_conf_parse_pasta_values)
{
	parse("pasta", "-I", "tap5", "--ns-mac-addr", "52:54:00:12:34:56",
	      NULL);
	ck_assert_str_eq(c.ifname_ns, "tap5");
	ck_assert(c.mac_guest_set);
	ck_assert_uint_eq(c.mac_guest[0], 0x52);
	ck_assert_uint_eq(c.mac_guest[5], 0x56);
}
END_TEST

START_TEST(test_conf_parse_runas)
{
	parse("passt", "--runas", "1000:2000", NULL);
	ck_assert(c.runas_set);
	ck_assert_uint_eq(c.uid, 1000);
	ck_assert_uint_eq(c.gid, 2000);
	/* every passwd(5) has root, uid 0 gid 0; accepted also when started
	 * as root (passt.1, --runas: the daemon then stays UID 0 without
	 * capabilities)
	 */
	parse("passt", "--runas", "root", NULL);
	ck_assert_uint_eq(c.uid, 0);
	ck_assert_uint_eq(c.gid, 0);
	parse("passt", "--runas", "root:0", NULL);
	ck_assert_uint_eq(c.gid, 0);
	parse("pasta", "--runas", "0:1000", NULL);
	ck_assert_uint_eq(c.uid, 0);
	ck_assert_uint_eq(c.gid, 1000);
	parse("passt", NULL);
	ck_assert(!c.runas_set);
	if (geteuid())
		ck_assert_uint_eq(c.uid, geteuid());
	else
		ck_assert_uint_ne(c.uid, 0);
}
END_TEST

START_TEST(test_conf_parse_devmem)
{
	parse("passt", "--devmem", "eth0", NULL);
	ck_assert_str_eq(c.devmem_if, "eth0");
	ck_assert_uint_eq(c.devmem_queues, 0x1);
	parse("passt", "--devmem", "eth0:0,2-3", NULL);
	ck_assert_uint_eq(c.devmem_queues, 0xd);
	parse("passt", "--devmem", "eth1:63", NULL);
	ck_assert_uint_eq(c.devmem_queues, 0x8000000000000000ULL);
}
END_TEST

/* Upstream's migration options, --vhost-user only (passt.1) */
START_TEST(test_conf_parse_migration_options)
{
	parse("passt", "--vhost-user", "--repair-path", "/tmp/r.sock",
	      "--migrate-exit", "--migrate-no-linger", NULL);
	ck_assert_str_eq(c.repair_path, "/tmp/r.sock");
	ck_assert(c.migrate_exit);
	ck_assert(c.migrate_no_linger);
	parse("passt", "--vhost-user", "--repair-path", "none", NULL);
	ck_assert_str_eq(c.repair_path, "none");
	parse("passt", "--vhost-user", NULL);
	ck_assert_str_eq(c.repair_path, "");
	ck_assert(!c.migrate_exit);
	EXPECT_ERROR_LINE("passt: --repair-path: needs --vhost-user",
			  "passt", "--repair-path", "/tmp/r.sock");
	EXPECT_ERROR_LINE("passt: --migrate-exit: needs --vhost-user",
			  "passt", "--migrate-exit");
	EXPECT_ERROR_LINE("passt: --migrate-no-linger: needs --vhost-user",
			  "passt", "--migrate-no-linger");
	EXPECT_ERROR_LINE("passt: --upstream-features: needs --vhost-user",
			  "passt", "--upstream-features");
	parse("passt", "--vhost-user", "--upstream-features", NULL);
	ck_assert(c.upstream_features);
	EXPECT_ERROR_LINE("passt: --repair-path: invalid value '' (accepted: UNIX socket path, 1-107 characters, or none)",
			  "passt", "--vhost-user", "--repair-path", "");
	EXPECT_ERROR_LINE("pasta: --migrate-exit: only accepted by passt, not pasta",
			  "pasta", "--migrate-exit");
}
END_TEST

START_TEST(test_conf_parse_help_and_version)
{
	char out[8192], err[4096];

	ck_assert_int_eq(run(out, sizeof(out), err, sizeof(err), "pasta",
			     "--help", NULL), 0);
	ck_assert(!strncmp(out, "Usage: pasta", 12));
	ck_assert_ptr_nonnull(strstr(out, "--netns"));
	ck_assert_ptr_null(strstr(out, "--socket"));
	ck_assert_str_eq(err, "");

	ck_assert_int_eq(run(out, sizeof(out), err, sizeof(err), "passt",
			     "-h", NULL), 0);
	ck_assert(!strncmp(out, "Usage: passt", 12));
	ck_assert_ptr_nonnull(strstr(out, "--socket"));
	ck_assert_ptr_null(strstr(out, "--netns"));

	ck_assert_int_eq(run(out, sizeof(out), err, sizeof(err), "passt",
			     "--version", NULL), 0);
	ck_assert(!strncmp(out, "passt ", 6));
	ck_assert_uint_eq(lines(out), 1);
}
END_TEST

/* The exact lines for a few representative errors */
START_TEST(test_conf_parse_error_lines)
{
	EXPECT_ERROR_LINE("pasta: -m/--mtu: invalid value '70000' (accepted: integer 68-65520, or 0)",
			  "pasta", "-m", "70000");
	EXPECT_ERROR_LINE("passt: -m/--mtu: missing value (accepted: integer 68-65520, or 0)",
			  "passt", "-m");
	EXPECT_ERROR_LINE("passt: -6/--ipv6-only: conflicts with -4/--ipv4-only (give at most one)",
			  "passt", "-4", "-6");
	EXPECT_ERROR_LINE("passt: -T/--tcp-ns: only accepted by pasta, not passt",
			  "passt", "-T", "80");
	EXPECT_ERROR_LINE("pasta: -s/--socket: only accepted by passt, not pasta",
			  "pasta", "-s", "/tmp/s");
	EXPECT_ERROR_LINE("passt: -t/--tcp-ports: 'auto' needs a namespace to watch: pasta only (give ports, ranges, 'all' or 'none')",
			  "passt", "-t", "auto");
	EXPECT_ERROR_LINE("pasta: --frobnicate: unknown or ambiguous option (see 'pasta --help')",
			  "pasta", "--frobnicate");
	EXPECT_ERROR_LINE("passt: -x: unknown option (see 'passt --help')",
			  "passt", "-x");
	EXPECT_ERROR_LINE("passt: 'foo': unexpected argument (passt takes no command or PID; see 'passt --help')",
			  "passt", "foo");
	EXPECT_ERROR_LINE("pasta: -i/--interface: no interface 'nosuchif'",
			  "pasta", "-i", "nosuchif");
}
END_TEST

START_TEST(test_conf_parse_invalid_values_rejected)
{
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "67");
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "65521");
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "abc");
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "");
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "-1");
	EXPECT_REJECTED("passt", "-m/--mtu", "--mtu", "99999999999999999999999");
	EXPECT_REJECTED("passt", "-m/--mtu", "--mtu=1500x");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "999.1.1.1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "0.0.0.0");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "127.0.0.1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "224.0.0.1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "255.255.255.255");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "::1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "::");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "fe80::1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "ff02::1");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "203.0.113.1/33");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "2001:db8::1/129");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "203.0.113.1/");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "203.0.113.1/x");
	EXPECT_REJECTED("passt", "-a/--address", "-a", "203.0.113.1", "-a",
			"203.0.113.2");
	EXPECT_REJECTED("passt", "-n/--netmask", "-n", "255.0.255.0");
	EXPECT_REJECTED("passt", "-n/--netmask", "-n", "33");
	EXPECT_REJECTED("passt", "-n/--netmask", "-n", "255.255.255.256");
	EXPECT_REJECTED("passt", "-n/--netmask", "-n", "abc");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "01:00:5e:00:00:01");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "00:00:00:00:00:00");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "9a:55:9a:55:9a");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "9a-55-9a-55-9a-55");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "9a:55:9a:55:9a:5g");
	EXPECT_REJECTED("passt", "-M/--mac-addr", "-M", "9a:55:9a:55:9a:55:00");
	EXPECT_REJECTED("passt", "-g/--gateway", "-g", "0.0.0.0");
	EXPECT_REJECTED("passt", "-g/--gateway", "-g", "gw");
	EXPECT_REJECTED("passt", "-g/--gateway", "-g", "224.0.0.1");
	EXPECT_REJECTED("passt", "-g/--gateway", "-g", "fe80::1", "-g",
			"fe80::2");
	EXPECT_REJECTED("passt", "-i/--interface", "-i", "");
	EXPECT_REJECTED("passt", "-i/--interface", "-i", "abcdefghijklmnop");
	EXPECT_REJECTED("passt", "-i/--interface", "-i", "a/b");
	EXPECT_REJECTED("passt", "-o/--outbound", "-o", "host");
	EXPECT_REJECTED("passt", "--outbound-if4", "--outbound-if4", "");
	EXPECT_REJECTED("passt", "--outbound-if6", "--outbound-if6",
			"nosuchif");
	EXPECT_REJECTED("passt", "-D/--dns", "-D", "dns.example");
	EXPECT_REJECTED("passt", "-D/--dns", "-D", "0.0.0.0");
	EXPECT_REJECTED("passt", "-D/--dns", "-D", "none", "-D", "203.0.113.1");
	EXPECT_REJECTED("passt", "-D/--dns", "-D", "203.0.113.1", "-D", "none");
	EXPECT_REJECTED("passt", "-D/--dns", "-D", "203.0.113.1", "-D",
			"203.0.113.2", "-D", "203.0.113.3", "-D", "203.0.113.4",
			"-D", "203.0.113.5");
	EXPECT_REJECTED("passt", "--dns-forward", "--dns-forward", "x");
	EXPECT_REJECTED("passt", "--dns-forward", "--dns-forward",
			"203.0.113.1", "--dns-forward", "203.0.113.2");
	EXPECT_REJECTED("passt", "--dns-host", "--dns-host", "::");
	EXPECT_REJECTED("passt", "-S/--search", "-S", "bad..domain");
	EXPECT_REJECTED("passt", "-S/--search", "-S", "");
	EXPECT_REJECTED("passt", "-S/--search", "-S", "none", "-S",
			"example.com");
	EXPECT_REJECTED("passt", "--map-host-loopback", "--map-host-loopback",
			"host");
	EXPECT_REJECTED("passt", "--map-guest-addr", "--map-guest-addr",
			"0.0.0.0");
	EXPECT_REJECTED("passt", "-H/--hostname", "-H", "");
	EXPECT_REJECTED("passt", "-H/--hostname", "-H", "a b");
	EXPECT_REJECTED("passt", "-H/--hostname", "-H",
			"a234567890123456789012345678901234567890123456789012345678901234");
	EXPECT_REJECTED("passt", "--fqdn", "--fqdn", "a..b");
	/* RFC 1035 2.3.4: labels of at most 63 and names of at most 253 */
	EXPECT_REJECTED("passt", "--fqdn", "--fqdn",
			"a234567890123456789012345678901234567890123456789012345678901234.org");
	{
		char n[256];

		memset(n, 'a', 254);
		n[63] = n[127] = n[191] = '.';
		n[254] = '\0';
		EXPECT_REJECTED("passt", "--fqdn", "--fqdn", n);
		n[253] = '\0';		/* 253 characters: accepted */
		parse("passt", "--fqdn", n, NULL);
		ck_assert_uint_eq(strlen(c.fqdn), 253);
	}
	EXPECT_REJECTED("passt", "--runas", "--runas", "nosuchuser-conf-test");
	EXPECT_REJECTED("passt", "--runas", "--runas", "");
	EXPECT_REJECTED("passt", "--runas", "--runas", "4294967295");
	EXPECT_REJECTED("passt", "--runas", "--runas", "0:nosuchgroup-conf");
	EXPECT_REJECTED("passt", "--runas", "--runas", ":0");
	EXPECT_REJECTED("passt", "--runas", "--runas", "0:");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "0");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "auto");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "none", "-t", "22");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "22", "-t", "none");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "22", "-t", "20-30");
	EXPECT_REJECTED("passt", "-u/--udp-ports", "-u", "65536");
	EXPECT_REJECTED("passt", "-s/--socket", "-s", "");
	EXPECT_REJECTED("passt", "-s/--socket", "-s",
			"/tmp/0123456789012345678901234567890123456789"
			"0123456789012345678901234567890123456789"
			"01234567890123456789012345678");
	EXPECT_REJECTED("passt", "-F/--fd", "-F", "abc");
	EXPECT_REJECTED("passt", "-F/--fd", "-F", "-1");
	EXPECT_REJECTED("passt", "-F/--fd", "-F", "999");
	EXPECT_REJECTED("passt", "--flow-max", "--flow-max", "0");
	EXPECT_REJECTED("passt", "--flow-max", "--flow-max", "65537");
	EXPECT_REJECTED("passt", "--udp-timeout", "--udp-timeout", "0");
	EXPECT_REJECTED("passt", "--udp-timeout", "--udp-timeout", "86401");
	EXPECT_REJECTED("passt", "--log-size", "--log-size", "0");
	EXPECT_REJECTED("passt", "--stats", "--stats", "0");
	EXPECT_REJECTED("passt", "--stats", "--stats", "5x");
	EXPECT_REJECTED("passt", "--stats", "--stats=abc");
	/* smallest limit a trim can honour (LOG_FILE_SIZE_MIN) is 4096 */
	EXPECT_REJECTED("passt", "--log-size", "--log-size", "4095");
	EXPECT_REJECTED("passt", "-l/--log-file", "-l", "");
	EXPECT_REJECTED("passt", "-P/--pid", "-P", "");
	EXPECT_REJECTED("passt", "-p/--pcap", "-p", "");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:64");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:3-1");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:0,,1");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:0,");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", "eth0:a");
	EXPECT_REJECTED("passt", "--devmem", "--devmem", ":0");
	EXPECT_REJECTED("pasta", "-T/--tcp-ns", "-T", "8000:9000,8001:9000,auto");
	EXPECT_REJECTED("pasta", "-T/--tcp-ns", "-T", "22:192.0.2.1/22");
	EXPECT_REJECTED("pasta", "-t/--tcp-ports", "-t", "[*]/80");
	EXPECT_REJECTED("pasta", "-t/--tcp-ports", "-t",
			"*/5000:192.0.2.5/6000");
	EXPECT_REJECTED("pasta", "-T/--tcp-ns", "-T", "auto", "-T", "auto");
	EXPECT_REJECTED("pasta", "-U/--udp-ns", "-U", "1-");
	EXPECT_REJECTED("pasta", "-I/--ns-ifname", "-I", "");
	EXPECT_REJECTED("pasta", "--ns-mac-addr", "--ns-mac-addr", "x");
	EXPECT_REJECTED("pasta", "--netns", "--netns", "");
	EXPECT_REJECTED("pasta", "--netns", "--netns", "..");
	EXPECT_REJECTED("pasta", "--userns", "--userns", "");
}
END_TEST

START_TEST(test_conf_parse_wrong_mode_rejected)
{
	EXPECT_REJECTED("passt", "pasta", "--netns", "x");
	EXPECT_REJECTED("passt", "pasta", "-I", "tap0");
	EXPECT_REJECTED("passt", "pasta", "-U", "53");
	EXPECT_REJECTED("passt", "pasta", "--config-net");
	EXPECT_REJECTED("passt", "pasta", "--dhcp-dns");
	EXPECT_REJECTED("passt", "pasta", "--no-splice");
	/* pasta takes -F as upstream does, for a tap device only */
	EXPECT_REJECTED("pasta", "tap device", "-F", "0");
	EXPECT_REJECTED("pasta", "passt", "-1");
	EXPECT_REJECTED("pasta", "passt", "--socket-path", "/tmp/s");
	EXPECT_REJECTED("pasta", "passt", "--no-dhcp-dns");
	EXPECT_REJECTED("pasta", "passt", "--no-dhcp-search");
}
END_TEST

START_TEST(test_conf_parse_conflicts_rejected)
{
	EXPECT_REJECTED("passt", "-6/--ipv6-only", "-6", "-4");
	EXPECT_REJECTED("passt", "-q/--quiet", "-q", "-d");
	EXPECT_REJECTED("passt", "-q/--quiet", "--trace", "-q");
	EXPECT_REJECTED("passt", "-n/--netmask", "-a", "203.0.113.1/24", "-n",
			"24");
	EXPECT_REJECTED("passt", "-a/--address", "-6", "-a", "203.0.113.1");
	EXPECT_REJECTED("passt", "-a/--address", "-4", "-a", "2001:db8::1");
	EXPECT_REJECTED("passt", "-g/--gateway", "-4", "-g", "fe80::1");
	/* A forwarding rule of a disabled family would open its sockets */
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-6", "-t",
			"198.51.100.1/12345");
	EXPECT_REJECTED("pasta", "-t/--tcp-ports", "-t", "198.51.100.1/12345",
			"-6");
	EXPECT_REJECTED("passt", "-u/--udp-ports", "-4", "-u",
			"2001:db8::1/53");
	EXPECT_REJECTED("pasta", "-T/--tcp-ns", "-6", "-T", "127.0.0.1/22");
	EXPECT_REJECTED("pasta", "-U/--udp-ns", "-4", "-U", "::1/53");
	/* Special addresses that can't work together (passt.1, ADDRESS
	 * MAPPING); the host topology: 198.51.100.1/24 via 198.51.100.2
	 */
	EXPECT_REJECTED("passt", "--map-guest-addr", "--map-guest-addr",
			"198.51.100.2");	/* the gateway: host loopback */
	EXPECT_REJECTED("passt", "--map-guest-addr", "--map-guest-addr",
			"203.0.113.9", "--map-host-loopback", "203.0.113.9");
	EXPECT_REJECTED("passt", "--map-guest-addr", "--map-guest-addr",
			"198.51.100.1");	/* the guest's own address */
	EXPECT_REJECTED("passt", "--map-host-loopback",
			"--map-host-loopback", "198.51.100.1");
	EXPECT_REJECTED("pasta", "--map-guest-addr", "--map-guest-addr",
			"2001:db8:1::1");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "--no-tcp", "-t", "22");
	EXPECT_REJECTED("pasta", "-U/--udp-ns", "--no-udp", "-U", "53");
	EXPECT_REJECTED("pasta", "--netns", "--netns", "x", "1234");
	EXPECT_REJECTED("pasta", "--netns", "--netns", "x", "sh");
	EXPECT_REJECTED("pasta", "--userns", "--userns", "/proc/1/ns/user");
	EXPECT_REJECTED("pasta", "PID", "1234", "sh");
	EXPECT_REJECTED("pasta", "PID", "0");
	EXPECT_REJECTED("pasta", "PID", "99999999999");
	EXPECT_REJECTED("passt", "unexpected argument", "1234");
}
END_TEST

/* podman's own test "Custom DNS forward address, IPv4" (505-networking-
 * pasta.bats, v5.4.2) passes --dns-forward 198.51.100.1, which is the host's
 * (so the guest's) address here: upstream's pasta starts, so must we
 */
START_TEST(test_conf_parse_dns_forward_own_address)
{
	parse("pasta", "--dns-forward", "198.51.100.1", NULL);
	ck_assert_uint_eq(ntohl(c.ip4.dns_fwd.s_addr), 0xc6336401);
	ck_assert_uint_eq(ntohl(c.ip4.addr.s_addr), 0xc6336401);
}
END_TEST

/* podman always appends "--dns-forward 169.254.1.1 --map-guest-addr
 * 169.254.1.2", also to "--network=pasta:-6" (its test "No IPv4"): special
 * addresses of a disabled family are ignored, not fatal
 */
START_TEST(test_conf_parse_disabled_family_ignored)
{
	parse("pasta", "-6", "--dns-forward", "169.254.1.1",
	      "--map-guest-addr", "169.254.1.2", NULL);
	ck_assert(!c.ip4.enabled);
	ck_assert(c.ip6.enabled);
	ck_assert_uint_eq(c.ip4.map_guest_addr.s_addr, 0);
	ck_assert_uint_eq(c.ip4.dns_fwd.s_addr, 0);

	parse("passt", "-4", "--dns-forward", "2001:db8::53",
	      "--map-host-loopback", "2001:db8::8", "--dns-host", "::1", NULL);
	ck_assert(c.ip4.enabled);
	ck_assert(!c.ip6.enabled);
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.dns_fwd));
	ck_assert(IN6_IS_ADDR_UNSPECIFIED(&c.ip6.map_host_loopback));

	/* A rule without an address, or of the enabled family, is fine */
	parse("pasta", "-6", "-t", "8080", "-t", "2001:db8:1::1/8081", NULL);
	ck_assert_uint_eq(c.tcp_in.n, 2);
}
END_TEST

/* Combinations that work: --dns-forward on a mapped address takes port 53
 * only; with --no-map-gw, the gateway may stand for the host's address;
 * "none" sets no family
 */
START_TEST(test_conf_parse_special_overlaps_accepted)
{
	parse("passt", "--map-guest-addr", "169.254.1.1", "--dns-forward",
	      "169.254.1.1", NULL);
	ck_assert_a4(c.ip4.map_guest_addr, "169.254.1.1");
	ck_assert_a4(c.ip4.dns_fwd, "169.254.1.1");
	parse("passt", "--no-map-gw", "--map-guest-addr", "198.51.100.2",
	      NULL);
	ck_assert_a4(c.ip4.map_guest_addr, "198.51.100.2");
	parse("passt", "-4", "--map-host-loopback", "none", NULL);
	ck_assert(c.no_map_gw);
}
END_TEST

START_TEST(test_conf_parse_getopt_errors_rejected)
{
	EXPECT_REJECTED("passt", "--foo", "--foo");
	EXPECT_REJECTED("passt", "--no-d", "--no-d");
	EXPECT_REJECTED("passt", "-d/--debug", "--debug=1");
	EXPECT_REJECTED("passt", "-z", "-dz");
	EXPECT_REJECTED("passt", "-a/--address", "--address");
	EXPECT_REJECTED("pasta", "--netns", "--netns");
	/* an unprintable argument is quoted on one line */
	EXPECT_REJECTED("passt", "-m/--mtu", "-m", "1\n2\x1b");
	EXPECT_REJECTED("passt", "-t/--tcp-ports", "-t", "2\n2");
}
END_TEST

/* The smallest possible argv: never crash */
START_TEST(test_conf_parse_empty_argv)
{
	static char *argv[] = { NULL };

	log_level = LOG_ERR;
	ck_assert_int_eq(conf_parse(&c, 0, argv), 0);
	ck_assert_int_eq(c.mode, MODE_PASST);
	ck_assert_str_eq(c.argv0, "passt");
}
END_TEST

/**
 * conf_suite() - Test cases of conf/parse.c
 *
 * Return: the suite
 */
static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc;

	tc = tcase_create("defaults");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conf_parse_passt_defaults);
	tcase_add_test(tc, test_conf_parse_addresses_from_host);
	tcase_add_test(tc, test_conf_parse_dns_from_resolv_conf);
	tcase_add_test(tc, test_conf_parse_dhcp_dns_by_mode);
	tcase_add_test(tc, test_conf_parse_mode_from_basename);
	tcase_add_test(tc, test_conf_parse_pasta_defaults);
	tcase_add_test(tc, test_conf_parse_empty_argv);
	suite_add_tcase(s, tc);

	tc = tcase_create("args");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conf_parse_pid);
	tcase_add_test(tc, test_conf_parse_command_keeps_its_options);
	tcase_add_test(tc, test_conf_parse_dashdash_command);
	tcase_add_test(tc, test_conf_parse_netns);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conf_parse_dns_options);
	tcase_add_test(tc, test_conf_parse_dns_none);
	tcase_add_test(tc, test_conf_parse_port_tables);
	tcase_add_test(tc, test_conf_parse_address_options);
	tcase_add_test(tc, test_conf_parse_map_options);
	tcase_add_test(tc, test_conf_parse_family_only);
	tcase_add_test(tc, test_conf_parse_flags);
	tcase_add_test(tc, test_conf_parse_log_levels);
	tcase_add_test(tc, test_conf_parse_stats_delay);
	tcase_add_test(tc, test_conf_parse_values);
	tcase_add_test(tc, test_conf_parse_fd_must_be_connected_stream);
	tcase_add_test(tc, test_conf_parse_pasta_values);
	tcase_add_test(tc, test_conf_parse_runas);
	tcase_add_test(tc, test_conf_parse_devmem);
	tcase_add_test(tc, test_conf_parse_migration_options);
	tcase_add_test(tc, test_conf_parse_help_and_version);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_conf_parse_error_lines);
	tcase_add_test(tc, test_conf_parse_invalid_values_rejected);
	tcase_add_test(tc, test_conf_parse_wrong_mode_rejected);
	tcase_add_test(tc, test_conf_parse_conflicts_rejected);
	tcase_add_test(tc, test_conf_parse_special_overlaps_accepted);
	tcase_add_test(tc, test_conf_parse_disabled_family_ignored);
	tcase_add_test(tc, test_conf_parse_dns_forward_own_address);
	tcase_add_test(tc, test_conf_parse_getopt_errors_rejected);
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
	SRunner *sr = srunner_create(conf_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
