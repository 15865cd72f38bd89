/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/host_internal.h - conf/host.c helpers exposed for unit tests
 *
 * Not for other modules: they use conf/host.h.
 */
#ifndef CONF_HOST_INTERNAL_H
#define CONF_HOST_INTERNAL_H

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
const char *netlink_route_skip(int af, unsigned table, unsigned type,
			       unsigned protocol, const void *dst,
			       unsigned dst_len);
#endif

#endif /* CONF_HOST_INTERNAL_H */
