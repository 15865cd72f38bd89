// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/guest.c - What we learn about the guest at run time: its MAC address
 *		 and the addresses it uses
 *
 * Frames to the guest go to the MAC address it sends from (until one is
 * seen, to the broadcast address, or to the one --ns-mac-addr gave).
 * Replies to a guest that uses an address other than the configured one
 * (a static address, SLAAC) go to the address it uses.  This state starts
 * from the configuration and changes only here, from the guest's frames,
 * and when pasta removed an address from the namespace itself
 * (tap_guest_forget()).
 */
#include <linux/if_ether.h>
#include <string.h>

#include "../lib/inany.h"
#include "guest.h"
#include "services.h"

struct tap_guest tap_guest;

/**
 * tap_guest_init() - Start from the configuration
 * @c:		Configuration: --ns-mac-addr, if given
 *
 * Context: set-up (and unit tests)
 */
void tap_guest_init(const struct conf *c)
{
	memset(&tap_guest, 0, sizeof(tap_guest));
	if (c->mac_guest_set)
		tap_guest_mac_set(c->mac_guest);
}

/**
 * tap_guest_mac_set() - The guest's MAC address is known
 * @mac:	MAC address (6 bytes)
 *
 * Context: pasta, once the tap device exists (its address); frames
 */
void tap_guest_mac_set(const uint8_t *mac)
{
	memcpy(tap_guest.mac, mac, ETH_ALEN);
	tap_guest.mac_set = true;
}

/**
 * tap_guest_mac_dst() - Destination MAC address of frames to the guest
 *
 * Return: the guest's MAC address, or the broadcast address if unknown
 */
const uint8_t *tap_guest_mac_dst(void)
{
	static const uint8_t bcast[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	return tap_guest.mac_set ? tap_guest.mac : bcast;
}

/**
 * tap_guest_learn() - Learn the guest's MAC and addresses from its frames
 * @f:		Valid frame from the guest
 *
 * A unicast source MAC address is the guest's; a source address other
 * than unspecified is one it uses; SLAAC-only guests name theirs in DAD
 * probes and unsolicited neighbour advertisements (ndp_guest_addr()).
 */
void tap_guest_learn(const struct frame *f)
{
	const uint8_t *smac = f->l2 + ETH_ALEN;

	if (!(smac[0] & 1) && (!tap_guest.mac_set ||
			       memcmp(tap_guest.mac, smac, ETH_ALEN)))
		tap_guest_mac_set(smac);

	if (f->af == AF_INET) {
		const struct in_addr *a4 = inany_v4(&f->src);

		if (a4 && a4->s_addr)
			tap_guest.addr4_seen = *a4;
	} else if (f->af == AF_INET6 &&
		   !IN6_IS_ADDR_UNSPECIFIED(&f->src.a6)) {
		if (IN6_IS_ADDR_LINKLOCAL(&f->src.a6))
			tap_guest.addr6_ll_seen = f->src.a6;
		else
			tap_guest.addr6_seen = f->src.a6;
	}
	if (f->af == AF_INET6 && f->proto == IPPROTO_ICMPV6)
		ndp_guest_addr(f, &tap_guest.addr6_seen);
}

/**
 * tap_guest_forget() - The guest no longer has an address: stop using it
 * @af:		AF_INET or AF_INET6
 * @addr:	The address (struct in_addr or struct in6_addr, network order)
 *
 * pasta --config-net took it away from the namespace (following the host,
 * passt/follow.c): if it is the one last seen, frames to the guest go to
 * the configured address again until the guest sends from another.
 * Inbound connections would otherwise be sent to an address the
 * namespace dropped.
 *
 * Context: passt/follow.c, as the namespace is updated
 */
void tap_guest_forget(int af, const void *addr)
{
	if (af == AF_INET &&
	    !memcmp(&tap_guest.addr4_seen, addr, sizeof(struct in_addr)))
		memset(&tap_guest.addr4_seen, 0, sizeof(tap_guest.addr4_seen));
	else if (af == AF_INET6 &&
		 !memcmp(&tap_guest.addr6_seen, addr, sizeof(struct in6_addr)))
		memset(&tap_guest.addr6_seen, 0, sizeof(tap_guest.addr6_seen));
}
