// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fake_conf.c - A fixed struct conf for the tap/ service tests */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <string.h>

#include "fake_conf.h"

/**
 * fake_conf_init() - Fill @c with the values listed in fake_conf.h
 * @c:		Configuration to overwrite
 */
void fake_conf_init(struct conf *c)
{
	static const uint8_t mac_our[ETH_ALEN] = {
		0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55
	};
	static const uint8_t mac_guest[ETH_ALEN] = {
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56
	};

	memset(c, 0, sizeof(*c));
	c->mode = MODE_PASTA;
	c->mtu = 1500;
	c->fd = -1;
	memcpy(c->mac_our, mac_our, sizeof(mac_our));
	memcpy(c->mac_guest, mac_guest, sizeof(mac_guest));

	c->ip4.enabled = true;
	inet_pton(AF_INET, "203.0.113.15", &c->ip4.addr);
	c->ip4.prefix_len = 24;
	inet_pton(AF_INET, "203.0.113.2", &c->ip4.gw);
	inet_pton(AF_INET, "203.0.113.3", &c->ip4.dns[0]);
	c->ip4.dns_count = 1;

	c->ip6.enabled = true;
	inet_pton(AF_INET6, "2001:db8::15", &c->ip6.addr);
	c->ip6.prefix_len = 64;
	inet_pton(AF_INET6, "fe80::1", &c->ip6.gw);
	inet_pton(AF_INET6, "fe80::1", &c->ip6.our_ll);
	inet_pton(AF_INET6, "2001:db8::3", &c->ip6.dns[0]);
	c->ip6.dns_count = 1;

	strcpy(c->search[0], "example.org");
	strcpy(c->search[1], "lab.example.org");
	c->search_count = 2;
	strcpy(c->hostname, "guest");
}
