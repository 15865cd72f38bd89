/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/host.h - The configuration derived from the host's links, addresses
 *		 and routes
 *
 * Reads the namespace the calling thread is in (pasta: the host's, before
 * entering the target namespace).  The netlink operations themselves are
 * in lib/netlink.h.  All return 0 or -errno.
 */
#ifndef CONF_HOST_H
#define CONF_HOST_H

#include "conf.h"

int netlink_host_defaults(struct conf *c);
const char *netlink_host_summary(void);
int netlink_watch_derive(struct conf *c);

#endif /* CONF_HOST_H */
