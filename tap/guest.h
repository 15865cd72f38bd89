/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/guest.h - What we learn about the guest at run time
 */
#ifndef TAP_GUEST_H
#define TAP_GUEST_H

#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "../conf/conf.h"
#include "../lib/util.h"
#include "frame.h"

/**
 * struct tap_guest - The guest as its frames show it (run-time state: the
 *		      parsed configuration, struct conf, is never changed)
 * @mac:		Its MAC address: from --ns-mac-addr, the tap device
 *			(pasta), or the source of its last unicast frame
 * @mac_set:		@mac is known (else frames to it are broadcast)
 * @addr4_seen:		IPv4 address it last sent from, 0 if none yet
 * @addr6_seen:		IPv6 global address it last sent from or announced
 * @addr6_ll_seen:	IPv6 link-local address it last sent from
 */
struct tap_guest {
	uint8_t mac[ETH_ALEN];
	bool mac_set;
	struct in_addr addr4_seen;
	struct in6_addr addr6_seen;
	struct in6_addr addr6_ll_seen;
};

extern struct tap_guest tap_guest;

void tap_guest_init(const struct conf *c);
void tap_guest_mac_set(const uint8_t *mac);
const uint8_t *tap_guest_mac_dst(void);
void tap_guest_learn(const struct frame *f);
void tap_guest_forget(int af, const void *addr);

#endif /* TAP_GUEST_H */
