/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/fake_netns.h - A scratch network namespace standing in for the host
 *
 * Tests that read routes and addresses must not depend on the machine they
 * run on: they enter a fresh network namespace, build the "host" there with
 * iproute2, and compare what our code finds with what they configured.
 */
#ifndef TEST_UNIT_FAKE_NETNS_H
#define TEST_UNIT_FAKE_NETNS_H

#include <stddef.h>

void netns_enter_scratch(void);
void netns_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int netns_sh_rc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void netns_out(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void netns_host_topology(void);

/* netns_host_topology(): the addresses test/integration/lib.sh uses */
#define TOPO_H4		"198.51.100.1"
#define TOPO_R4		"198.51.100.2"
#define TOPO_H6		"2001:db8:1::1"
#define TOPO_R6		"2001:db8:1::2"

#endif /* TEST_UNIT_FAKE_NETNS_H */
