// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/conf.c - Minimal development parser (replaced by the full parser) */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "netlink.h"
#include "ports.h"

/**
 * conf_parse() - Fill @c from the command line and the host
 * @c:		Configuration to fill
 * @argc:	Argument count
 * @argv:	Arguments
 *
 * Return: 0; exits with status 1 on invalid options
 */
int conf_parse(struct conf *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug", no_argument, 0, 'd' },
		{ "foreground", no_argument, 0, 'f' },
		{ "config-net", no_argument, 0, 1 },
		{ "netns", required_argument, 0, 2 },
		{ "no-peek-offset", no_argument, 0, 3 },
		{ "tcp-ports", required_argument, 0, 't' },
		{ "pcap", required_argument, 0, 'p' },
		{ "socket", required_argument, 0, 's' },
		{ "stats", no_argument, 0, 4 },
		{ 0 },
	};
	char err[256];
	int o;

	memset(c, 0, sizeof(*c));
	c->mode = strstr(argv[0], "pasta") ? MODE_PASTA : MODE_PASST;
	c->mtu = CONF_MTU_DEFAULT;
	c->fd = -1;
	c->flow_max = CONF_FLOW_MAX_DEFAULT;
	c->udp_timeout_s = CONF_UDP_TIMEOUT_DEFAULT;
	memcpy(c->mac_our, "\x9a\x55\x9a\x55\x9a\x55", 6);
	while ((o = getopt_long(argc, argv, "+dft:p:s:", opts, NULL)) != -1) {
		switch (o) {
		case 'd': c->debug = true; break;
		case 'f': c->foreground = true; break;
		case 1: c->config_net = true; break;
		case 2: strncpy(c->netns, optarg, sizeof(c->netns) - 1); break;
		case 3: c->peek_fallback = true; break;
		case 4: c->stats = true; break;
		case 'p': strncpy(c->pcap_file, optarg, sizeof(c->pcap_file) - 1); break;
		case 's': strncpy(c->sock_path, optarg, sizeof(c->sock_path) - 1); break;
		case 't':
			if (fwd_spec_parse(&c->tcp_in, optarg, false, err, sizeof(err)))
				die("-t: %s", err);
			break;
		default: exit(1);
		}
	}
	if (optind < argc)
		c->cmd = argv + optind;
	c->ip4.enabled = c->ip6.enabled = true;
	c->ip4.prefix_len = c->ip6.prefix_len = -1;
	nl_host_defaults(c);
	c->ip4.map_host_loopback = c->ip4.gw;
	c->ip6.map_host_loopback = c->ip6.gw;
	return 0;
}
