// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp_gso.c - UDP segmentation offload on host sockets: UDP_GRO in,
 *		     UDP_SEGMENT out, and the size rules of super-datagrams
 *
 * A super-datagram is several datagrams of one flow carried as one
 * buffer: all of gso_size bytes but the last, which may be shorter and is
 * never empty (Linux udp_gro_receive_segment() joins only such runs, and
 * __udp_gso_segment() cuts them so).  The application on either side sees
 * the same datagrams, so boundaries never change.
 *
 * In (UDP_GRO, Linux 5.0, udp(7)): a host socket with the option set may
 * return one from recvmsg(), with the segment size in a cmsg of level
 * SOL_UDP, type UDP_GRO (an int); without the cmsg it is one datagram.  It
 * happens when the sender used UDP_SEGMENT on a local path (loopback,
 * veth), or the NIC's GRO joined datagrams of one flow.  The reader's
 * buffer must hold 64 KiB: a shorter one truncates the whole super-datagram
 * (MSG_TRUNC), not one of its datagrams.
 *
 * Out (UDP_SEGMENT, Linux 4.18, udp(7)): a super-datagram from the guest
 * (a tap frame with VIRTIO_NET_HDR_GSO_UDP_L4) goes out in one sendmsg()
 * with a cmsg of level SOL_UDP, type UDP_SEGMENT (a uint16_t gso_size);
 * the kernel (or the NIC) cuts it.  The kernel refuses a segment that
 * doesn't fit the route's MTU without fragments (EMSGSIZE on 6.18, EINVAL
 * on older kernels), more than its UDP_MAX_SEGMENTS (EINVAL), and (EIO) a
 * route without checksum offload in some cases: such a flow falls back to
 * one datagram per message, cut here.
 *
 * udp_gso_probe() tries both options once on a throw-away socket at
 * start, and --no-udp-offload turns both off: one log line says which.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/log.h"
#include "udp_gso.h"
#include "udp_internal.h"

#ifndef SOL_UDP
#define SOL_UDP		17	/* IPPROTO_UDP as a socket level */
#endif

static bool udp_gro_on;		/* set UDP_GRO on host sockets */
static bool udp_seg_on;		/* send super-datagrams with UDP_SEGMENT */

/**
 * udp_gso_segs() - How many datagrams a super-datagram holds
 * @len:	Payload bytes of the super-datagram
 * @seg:	Segment size (gso_size), bytes; 0 means one datagram
 *
 * Return: ceil(@len / @seg), 1 if @seg is 0 or not less than @len, 0 if
 *	   @len is 0 with a @seg (no datagram can be cut from nothing)
 */
unsigned udp_gso_segs(size_t len, size_t seg)
{
	if (!seg || len <= seg)
		return 1;
	return (unsigned)((len + seg - 1) / seg);
}

/**
 * udp_gso_in_check() - May a guest super-datagram be sent on, and how?
 * @len:	UDP payload bytes of the frame
 * @seg:	gso_size from its virtio_net_hdr (VIRTIO_NET_HDR_GSO_UDP_L4)
 * @pmax:	Largest datagram payload the guest link carries (its MTU less
 *		the IP and UDP headers: udp_payload_max()), bytes
 *
 * virtio 1.2 5.1.6.2.1: gso_size is the size of each segment's payload,
 * the last one may be shorter; a frame no longer than gso_size is one
 * datagram.  A segment beyond the guest's own MTU could not have been
 * sent that way (the namespace's stack cuts at most to the MTU), and
 * more than UDP_GSO_SEGS_IN_MAX segments is more than any kernel's
 * UDP_MAX_SEGMENTS (64 or 128, by version; a kernel that takes fewer
 * answers EINVAL and the flow falls back to cutting them here).
 *
 * Return: number of datagrams (1 for a plain frame), or -EINVAL for
 *	   gso_size 0 with a GSO type, -EMSGSIZE for a segment beyond
 *	   @pmax, -E2BIG for too many segments
 */
int udp_gso_in_check(size_t len, size_t seg, size_t pmax)
{
	unsigned n;

	if (!seg)
		return -EINVAL;
	if (len <= seg)
		return 1;
	if (seg > pmax)
		return -EMSGSIZE;
	n = udp_gso_segs(len, seg);
	if (n > UDP_GSO_SEGS_IN_MAX)
		return -E2BIG;
	return (int)n;
}

/**
 * udp_gro_size() - Segment size of a datagram read from a UDP_GRO socket
 * @mh:		Message as recvmsg() returned it, control data included
 *
 * Return: gso_size from the SOL_UDP/UDP_GRO cmsg (udp(7)), bytes, or 0
 *	   if there is none (one datagram)
 */
size_t udp_gro_size(struct msghdr *mh)
{
	struct cmsghdr *cm;

	if (!mh->msg_control)
		return 0;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v > 0 ? (size_t)v : 0;
		}
	}
	return 0;
}

/**
 * udp_gso_cmsg() - Append a UDP_SEGMENT cmsg to control data
 * @buf:	Control buffer, UDP_GSO_CMSG_SPACE bytes free at @off,
 *		aligned for struct cmsghdr
 * @off:	Bytes of control data already in @buf (a multiple of
 *		CMSG_ALIGN), 0 for none
 * @seg:	Segment size, bytes (1 to 65535)
 *
 * Return: new length of the control data, bytes
 */
size_t udp_gso_cmsg(uint8_t *buf, size_t off, uint16_t seg)
{
	struct cmsghdr *cm = (struct cmsghdr *)(void *)(buf + off);

	memset(cm, 0, UDP_GSO_CMSG_SPACE);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	return off + UDP_GSO_CMSG_SPACE;
}

/**
 * udp_gso_probe() - Does this kernel take UDP_GRO and UDP_SEGMENT?
 * @force_off:	--no-udp-offload: use neither
 *
 * Both are socket options of level SOL_UDP (udp(7)); a kernel without
 * them answers ENOPROTOOPT.  Tried on a throw-away socket, logged once.
 *
 * Context: set-up (udp_init()), before the seccomp filter
 */
void udp_gso_probe(bool force_off)
{
	int s, one = 1, seg = 1000;

	udp_gro_on = udp_seg_on = false;
	if (force_off) {
		info("UDP offload on host sockets: off (--no-udp-offload): one datagram per read and per send");
		return;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s < 0) {
		warn_perror("UDP offload probe: socket()");
		return;
	}
	udp_gro_on = !setsockopt(s, SOL_UDP, UDP_GRO, &one, sizeof(one));
	udp_seg_on = !setsockopt(s, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg));
	close(s);
	info("UDP offload on host sockets: UDP_GRO %s, UDP_SEGMENT %s",
	     udp_gro_on ? "yes" : "no (Linux < 5.0)",
	     udp_seg_on ? "yes" : "no (Linux < 4.18)");
}

/**
 * udp_seg_enabled() - May super-datagrams leave with UDP_SEGMENT?
 *
 * Return: true if udp_gso_probe() found UDP_SEGMENT and it isn't off
 */
bool udp_seg_enabled(void)
{
	return udp_seg_on;
}

/**
 * udp_gro_set() - Ask a host socket for super-datagrams (UDP_GRO)
 * @s:		UDP socket
 *
 * Its reader must then look at udp_gro_size() and read into 64 KiB.
 *
 * #syscalls setsockopt
 * Return: true if set, false if UDP_GRO is off or the kernel refused
 */
bool udp_gro_set(int s)
{
	int one = 1;

	return udp_gro_on &&
	       !setsockopt(s, SOL_UDP, UDP_GRO, &one, sizeof(one));
}
