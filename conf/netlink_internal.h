/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/netlink_internal.h - conf/netlink.c helpers exposed for unit tests
 *
 * Not for other modules: they use conf/netlink.h.
 */
#ifndef CONF_NETLINK_INTERNAL_H
#define CONF_NETLINK_INTERNAL_H

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
const char *netlink_route_skip(int af, unsigned table, unsigned type,
			       unsigned protocol, const void *dst,
			       unsigned dst_len);
#endif

#endif /* CONF_NETLINK_INTERNAL_H */
