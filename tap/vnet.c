// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/vnet.c - The virtio-net header of a frame: ours out, the guest's in
 *
 * Out (to a tap device or a vhost-user receive queue): a frame queued with
 * a partial checksum carries VIRTIO_NET_HDR_F_NEEDS_CSUM with csum_start
 * and csum_offset; a TCP super-frame marked with tap_tx_gso() carries
 * VIRTIO_NET_HDR_GSO_TCPV4/TCPV6, the segment size in gso_size and the
 * length of its headers (Ethernet, IP, TCP with options) in hdr_len.  The
 * rules are virtio 1.x 5.1.6.4.1 ("Processing of Incoming Packets", device
 * requirements): a GSO type only with NEEDS_CSUM and gso_size set, hdr_len
 * not less than the headers; whether the receiver negotiated GSO is the
 * caller's business (tap_gso_seg() makes super-frames only then).
 *
 * In (from a vhost-user transmit queue, VIRTIO_NET_F_HOST_TSO4/6): the
 * guest may hand us TCP segments of up to 64 KiB with a GSO type set.  We
 * never segment them (frames are not forwarded as they are: TCP takes the
 * whole payload into a socket), but a header that breaks the rules of
 * 5.1.6.2.1 (driver requirements) marks a frame we don't trust: a GSO type
 * not negotiated or unknown, the ECN bit (VIRTIO_NET_F_HOST_ECN is never
 * offered), GSO without NEEDS_CSUM or with gso_size 0, a TCPV4 type on a
 * frame that isn't IPv4 TCP (or TCPV6 on a non-IPv6 one), a checksum
 * field beyond the frame.  With VIRTIO_NET_F_HOST_USO (virtio 1.2) a UDP
 * super-frame (VIRTIO_NET_HDR_GSO_UDP_L4) is taken on the same terms, and
 * must be UDP over IPv4 or IPv6 with the checksum to fill at the UDP
 * header's checksum field (csum_offset 6, RFC 768): passt/udp.c sends it
 * with UDP_SEGMENT, after checking its segment size and count
 * (udp_gso_in_check()).  hdr_len is never relied on (5.1.6.2.2: the
 * device MUST NOT, without VIRTIO_NET_F_GUEST_HDRLEN).
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <string.h>

#include "../lib/util.h"
#include "hdr.h"
#include "vnet.h"

/**
 * vnet_hdr_out_uso() - The GSO part of the header of a UDP super-frame
 * @vh:		Header, NEEDS_CSUM and csum_start/csum_offset set already
 * @l2:		Frame, Ethernet header first
 * @hlen:	Bytes readable at @l2
 * @len:	Frame length, bytes
 * @gso:	Datagram payload size, bytes
 *
 * Leaves the header as it is (one datagram) unless the frame is UDP over
 * IPv4 (no options) or IPv6 (no extension headers) with the UDP header at
 * csum_start, within @hlen, and more than @gso bytes of payload.
 */
static void vnet_hdr_out_uso(struct virtio_net_hdr *vh, const uint8_t *l2,
			     size_t hlen, size_t len, uint16_t gso)
{
	size_t th = vh->csum_start, hdr_len = th + UDP_HLEN;
	uint16_t ethertype;

	if (hlen < ETH_HLEN + IP4_HLEN || hdr_len > hlen ||
	    hdr_len + gso >= len)
		return;
	ethertype = hdr_get16(l2, struct ethhdr, h_proto);
	if (!(ethertype == ETH_P_IP && th == ETH_HLEN + IP4_HLEN &&
	      hdr_get8(l2 + ETH_HLEN, struct iphdr, protocol) ==
	      IPPROTO_UDP) &&
	    !(ethertype == ETH_P_IPV6 && th == ETH_HLEN + IP6_HLEN &&
	      hdr_get8(l2 + ETH_HLEN, struct ip6_hdr, ip6_nxt) ==
	      IPPROTO_UDP))
		return;
	vh->gso_type = VNET_GSO_UDP_L4;
	vh->hdr_len = (uint16_t)hdr_len;
	vh->gso_size = gso;
}

/**
 * vnet_hdr_out() - Fill the virtio-net header of a frame we send
 * @vh:		Header to fill (all of it: flags, gso_type, hdr_len,
 *		gso_size, csum_start, csum_offset), host order
 * @l2:		Frame, Ethernet header first
 * @hlen:	Bytes readable at @l2 (the first piece of a frame whose
 *		payload lives elsewhere: its headers, at least)
 * @len:	Frame length, bytes (all pieces)
 * @csum:	csum_start << 16 | csum_offset, 0 if checksums are complete
 * @gso:	Segment size (tap_tx_gso(), tap_tx_uso()), bytes; 0: one
 *		segment
 *
 * With @csum 0 the header is all zeroes (VIRTIO_NET_HDR_GSO_NONE).  A
 * @gso is ignored (the frame goes with NEEDS_CSUM only) unless the frame
 * is TCP over IPv4 or IPv6 with its checksum field at csum_start + 16,
 * its whole TCP header within @hlen, and more than @gso bytes of payload;
 * or UDP with its checksum field at csum_start + 6 and more than @gso
 * bytes of payload: VIRTIO_NET_HDR_GSO_UDP_L4 (virtio 1.2 5.1.6.4, Linux
 * 6.2 for tap devices), hdr_len up to the end of the UDP header.
 */
void vnet_hdr_out(struct virtio_net_hdr *vh, const uint8_t *l2, size_t hlen,
		  size_t len, uint32_t csum, uint16_t gso)
{
	size_t th = csum >> 16, hdr_len;
	uint16_t ethertype;
	struct tcphdr tcp;

	memset(vh, 0, sizeof(*vh));
	if (!csum)
		return;
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->csum_start = (uint16_t)th;
	vh->csum_offset = (uint16_t)(csum & 0xffff);

	if (gso && vh->csum_offset == UDP_CSUM_OFF) {
		vnet_hdr_out_uso(vh, l2, hlen, len, gso);
		return;
	}
	if (!gso || vh->csum_offset != TCP_CSUM_OFF ||
	    hlen < ETH_HLEN + IP4_HLEN || th + sizeof(tcp) > hlen)
		return;
	hdr_load(&tcp, l2 + th);
	hdr_len = th + (size_t)tcp.doff * HDR_WORD;
	if (hdr_len < th + sizeof(tcp) || hdr_len > hlen ||
	    hdr_len + gso >= len)
		return;
	ethertype = hdr_get16(l2, struct ethhdr, h_proto);
	if (ethertype == ETH_P_IP &&
	    hdr_get8(l2 + ETH_HLEN, struct iphdr, protocol) == IPPROTO_TCP)
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	else if (ethertype == ETH_P_IPV6 && hlen >= ETH_HLEN + IP6_HLEN &&
		 hdr_get8(l2 + ETH_HLEN, struct ip6_hdr, ip6_nxt) ==
		 IPPROTO_TCP)
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	else
		return;
	vh->hdr_len = (uint16_t)hdr_len;
	vh->gso_size = gso;
}

/**
 * vnet_hdr_in_check() - Is the virtio-net header of a guest frame valid?
 * @vh:		Header, host order (read once from guest memory)
 * @l2:		Frame after the header, Ethernet header first
 * @len:	Frame length, bytes
 * @tso4:	VIRTIO_NET_F_HOST_TSO4 negotiated
 * @tso6:	VIRTIO_NET_F_HOST_TSO6 negotiated
 * @uso:	VIRTIO_NET_F_HOST_USO negotiated
 *
 * Flags the device doesn't know are ignored (5.1.6.2.2).
 *
 * Return: 0, or -enum vnet_in_err: drop the frame
 */
int vnet_hdr_in_check(const struct virtio_net_hdr *vh, const uint8_t *l2,
		      size_t len, bool tso4, bool tso6, bool uso)
{
	bool csum = vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
	uint16_t ethertype;

	if (csum && (size_t)vh->csum_start + vh->csum_offset + 2 > len)
		return -VNET_IN_CSUM;

	switch (vh->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return 0;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		if (!tso4)
			return -VNET_IN_TYPE;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!tso6)
			return -VNET_IN_TYPE;
		break;
	case VNET_GSO_UDP_L4:
		if (!uso)
			return -VNET_IN_TYPE;
		break;
	default:	/* UDP (UFO), ECN, tunnels: not offered */
		return -VNET_IN_TYPE;
	}

	if (!csum)
		return -VNET_IN_NOCSUM;
	if (!vh->gso_size)
		return -VNET_IN_SIZE;
	if (len < ETH_HLEN + IP6_HLEN)
		return -VNET_IN_PROTO;
	ethertype = hdr_get16(l2, struct ethhdr, h_proto);
	if (vh->gso_type == VNET_GSO_UDP_L4) {
		if (vh->csum_offset != UDP_CSUM_OFF)
			return -VNET_IN_CSUM;
		if (ethertype == ETH_P_IP &&
		    hdr_get8(l2 + ETH_HLEN, struct iphdr, protocol) ==
		    IPPROTO_UDP)
			return 0;
		if (ethertype == ETH_P_IPV6 &&
		    hdr_get8(l2 + ETH_HLEN, struct ip6_hdr, ip6_nxt) ==
		    IPPROTO_UDP)
			return 0;
		return -VNET_IN_PROTO;
	}
	if (vh->gso_type == VIRTIO_NET_HDR_GSO_TCPV4) {
		if (ethertype != ETH_P_IP ||
		    hdr_get8(l2 + ETH_HLEN, struct iphdr, protocol) !=
		    IPPROTO_TCP)
			return -VNET_IN_PROTO;
	} else if (ethertype != ETH_P_IPV6) {
		return -VNET_IN_PROTO;	/* extension headers may come first */
	}
	return 0;
}
