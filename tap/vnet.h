/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/vnet.h - The virtio-net header of a frame: ours out, the guest's in
 *
 * One implementation for both back-ends that carry a struct virtio_net_hdr:
 * a tap device (pasta, tap/tap.c) and the vhost-user receive and transmit
 * queues (passt --vhost-user, tap/vhost_user.c).  Fields here are in host
 * order; vhost-user converts them to little-endian (virtio 1.x).
 */
#ifndef TAP_VNET_H
#define TAP_VNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

/* VIRTIO_NET_HDR_GSO_UDP_L4: Linux 6.2 headers, virtio 1.2 5.1.6 */
#define VNET_GSO_UDP_L4	5

/* Why a guest's header was refused (vnet_hdr_in_check()), negative */
enum vnet_in_err {
	VNET_IN_OK = 0,
	VNET_IN_TYPE,		/* gso_type unknown, not negotiated, or ECN */
	VNET_IN_NOCSUM,		/* GSO without VIRTIO_NET_HDR_F_NEEDS_CSUM */
	VNET_IN_SIZE,		/* GSO with gso_size 0 */
	VNET_IN_PROTO,		/* GSO type doesn't match the frame's L3/L4 */
	VNET_IN_CSUM,		/* csum_start + csum_offset beyond the frame, or
				 * a UDP super-frame's not at the UDP checksum */
	VNET_IN_COUNT
};

void vnet_hdr_out(struct virtio_net_hdr *vh, const uint8_t *l2, size_t hlen,
		  size_t len, uint32_t csum, uint16_t gso);
int vnet_hdr_in_check(const struct virtio_net_hdr *vh, const uint8_t *l2,
		      size_t len, bool tso4, bool tso6, bool uso);

#endif /* TAP_VNET_H */
