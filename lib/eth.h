/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/eth.h - Ethernet: the uapi names, and the largest frame we handle
 *
 * The Ethernet names come from the kernel's uapi header
 * (include/uapi/linux/if_ether.h: ETH_ALEN, ETH_HLEN, ETH_ZLEN, ETH_P_*,
 * struct ethhdr), never from private copies.  What the uapi doesn't name
 * and every folder needs is here.
 */
#ifndef LIB_ETH_H
#define LIB_ETH_H

#include <linux/if_ether.h>	/* ETH_ALEN, ETH_HLEN, ETH_ZLEN, ETH_P_* */

/* Largest L2 frame we ever handle: 65535 bytes of IP plus the Ethernet
 * header.  The tap MTU is at most CONF_MTU_MAX, 65520 (conf/conf.h, checked
 * by conf_uint() for -m in conf/options.c).
 */
#define FRAME_MAX		(65535 + ETH_HLEN)

#endif /* LIB_ETH_H */
