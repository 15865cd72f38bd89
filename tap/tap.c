// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/tap.c - Frame I/O with the guest: tap device (pasta) or stream (passt)
 *
 * DOC: Theory of Operation
 *
 * Receive.  With a tap device every read() returns one frame, preceded by a
 * struct virtio_net_hdr (we open the device with IFF_VNET_HDR and announce
 * TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 with TUNSETOFFLOAD, so the namespace
 * hands us TCP super-frames up to 64 KiB with partial checksums instead of
 * segmenting and checksumming them: Documentation/networking/tuntap.rst,
 * include/uapi/linux/virtio_net.h).  tap_rx() reads up to TAP_RX_FRAMES of
 * them into static slots.  With a QEMU stream (-netdev stream, net/stream.c
 * in QEMU) each frame is preceded by its length as a 4-byte big-endian
 * integer; tap_rx() reads as much as fits into one buffer and splits it
 * (tap/stream.c keeps the framing state: a partial frame at the end is
 * moved to the front for the next read).  Complete frames left over after
 * a full batch need no read: tap_rx_buffered() tells the loop to come back
 * for them, since epoll won't.
 *
 * Segmentation offload.  Where the receiver takes them (tap_gso_offload():
 * a tap device with virtio_net_hdr, or a vhost-user guest that negotiated
 * VIRTIO_NET_F_GUEST_TSO4 and _TSO6; no capture), a TCP sender may queue a
 * super-frame of up to FRAME_MAX bytes holding several segments' worth of
 * payload (tap_gso_seg() says how much) and mark it with tap_tx_gso(): it
 * goes out with VIRTIO_NET_HDR_GSO_TCPV4/TCPV6 and the segment size in
 * gso_size (tap/vnet.c fills the header for both back-ends), so one write()
 * or one receive-queue copy carries what would be dozens at a small MTU.
 * The namespace's stack, or the guest's virtio-net driver, takes it like a
 * GRO aggregate (local delivery needs no segmenting; the kernel segments
 * only a packet it forwards out of a smaller-MTU link:
 * Documentation/networking/segmentation-offloads.rst,
 * include/linux/virtio_net.h virtio_net_hdr_to_skb()).
 *
 * Transmit.  Callers lay frames out one after another in a 4 MiB arena
 * (tap_tx_reserve(): the room for n frames of a size, after one flush if
 * there is too little), each with TAP_HEADROOM bytes in front, and register
 * them with tap_tx_add().  A frame may also be headers in the arena plus
 * payload that lives elsewhere (tap_tx_add_ext(): devmem TCP payload in a
 * mapped dma-buf), described by more iovecs: nothing is copied, the kernel
 * gathers them.  tap_flush() writes the batch: one write() per frame (or
 * writev() for a frame with external payload) to a tap device, with a
 * virtio_net_hdr in the headroom, and one sendmsg() of all iovecs to a
 * stream, with the length in the headroom.  A stream write that is cut
 * short keeps the unwritten tail in a pending buffer, and nothing new is
 * written until it drains (tap_tx_pending() tells the loop to wait for
 * EPOLLOUT); frames that arrive meanwhile and don't fit are dropped and
 * counted, never reordered, and a frame is never cut.
 *
 * vhost-user (passt --vhost-user, tap/vhost_user.c).  The guest's virtio
 * rings are in memory it shares with us: tap_rx() copies frames out of its
 * transmit queue, tap_flush() copies the arena's frames into its receive
 * buffers.  A receive queue without buffers is like a stream with a
 * pending tail: the frames that don't fit are reported to their senders,
 * and tap_tx_blocked() is true until the guest kicks the queue.
 *
 * Back-pressure.  A frame may carry a tag (tap_tx_tag()): TCP tags each
 * data segment and FIN with its flow and sequence number.  Whenever a
 * tagged frame is not written (the tap device answers EAGAIN or ENOBUFS,
 * the stream's pending buffer is full, no guest is attached), the
 * callback registered with tap_tx_set_drop_cb() gets its tag, so the
 * sender moves SND.NXT back to what the guest really got instead of
 * waiting for duplicate ACKs or an RTO.  tap_tx_blocked() tells senders
 * to stop producing data while the stream has a pending tail or the tap
 * device refused a write in this wake-up; tap_tx_unblock() starts the
 * next wake-up with a clean slate for the device.
 *
 * Checksums.  A frame added with a @csum_start carries only the
 * pseudo-header sum in its L4 checksum field.  On a tap device it goes out
 * with VIRTIO_NET_HDR_F_NEEDS_CSUM, so the kernel completes the checksum
 * only if the packet ever leaves the namespace (local delivery treats
 * CHECKSUM_PARTIAL as verified).  On a stream, or while a pcap capture runs,
 * tap_csum_offload() is false and callers compute full checksums.
 *
 * Memory: 2 MiB of receive slots (or the 1 MiB stream buffer), the 4 MiB
 * transmit arena and TAP_TX_IOVS iovecs, and for streams a pending buffer
 * of the arena's size; all static, nothing is allocated after start-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../lib/eth.h"
#include "../lib/iov.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"

/* Linux 6.2, include/uapi/linux/if_tun.h and virtio_net.h */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#define TUN_F_USO6	0x40
#endif
#include "frame.h"
#include "pcap.h"
#include "stream.h"
#include "tap.h"
#include "vhost_user.h"
#include "vnet.h"

#define VNET_HLEN	sizeof(struct virtio_net_hdr)
#define RX_SLOT		(VNET_HLEN + FRAME_MAX)

struct tap_stats tap_stats;

static enum tap_backend tap_be;
static int tap_dev_fd = -1;
static bool tap_vnet;
static bool tap_uso;	/* the tap device takes VIRTIO_NET_HDR_GSO_UDP_L4 */
static bool tap_uso_off;	/* --no-udp-offload: no UDP super-frames */
static bool tap_pcap_on;

/* Receive side */
static uint8_t tap_rx_slots[TAP_RX_FRAMES][RX_SLOT] __attribute__((aligned(64)));
static uint8_t tap_stream_rx_buf[TAP_STREAM_RXBUF] __attribute__((aligned(64)));
static struct stream_rx tap_stream_rx;

/* Transmit side: frame i is tap_tx_niov[i] iovecs from tap_tx_first[i] */
static uint8_t tap_tx_arena[TAP_TX_ARENA] __attribute__((aligned(64)));
static size_t tap_tx_used;		/* arena bytes in use */
static struct iovec tap_tx_iov[TAP_TX_IOVS];	/* frames, then their pieces */
static uint16_t tap_tx_first[TAP_TX_FRAMES];	/* first iovec of each frame */
static uint8_t tap_tx_niov[TAP_TX_FRAMES];	/* iovecs of each frame */
static uint64_t tap_tx_tags[TAP_TX_FRAMES];	/* tap_tx_tag(), 0: none */
static bool tap_tx_dropmap[TAP_TX_FRAMES];	/* stream_tx_keep_map() */
static tap_tx_drop_fn tap_tx_drop_cb;
static bool tap_dev_congested;	/* a write failed with EAGAIN/ENOBUFS */
static uint32_t tap_tx_csum[TAP_TX_FRAMES];	/* csum_start << 16 | offset */
static uint16_t tap_tx_gso_size[TAP_TX_FRAMES];	/* tap_tx_gso(), 0: none */
static unsigned tap_tx_n;		/* frames queued */
static unsigned tap_tx_iovn;		/* iovecs used */
static uint8_t tap_tx_gather[FRAME_MAX];	/* pcap copy of a gathered frame */
static uint8_t tap_tx_pend_buf[TAP_TX_ARENA + TAP_TX_FRAMES * 4];
static struct stream_tx tap_tx_pend;	/* unwritten tail of a stream flush */

/**
 * tap_dev_open_current_ns() - Create the tap device in the current netns
 * @ifname:	Requested name ("" lets the kernel choose tapN)
 * @ifname_out:	Name actually given, IFNAMSIZ bytes
 *
 * Opens /dev/net/tun with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, announces
 * TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 (if_tun.h), and makes the fd
 * non-blocking.
 *
 * Context: set-up, in the target network namespace
 * Return: fd, or -errno from open() or ioctl()
 */
int tap_dev_open_current_ns(const char *ifname, char *ifname_out)
{
	unsigned offload = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	struct ifreq ifr = { 0 };
	int fd, ret, hlen = VNET_HLEN;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		goto close_fd;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hlen) < 0) {
		ret = -errno;
		goto close_fd;
	}
	if (ioctl(fd, TUNSETOFFLOAD, offload) < 0) {
		ret = -errno;
		goto close_fd;
	}

	memcpy(ifname_out, ifr.ifr_name, IFNAMSIZ);
	ifname_out[IFNAMSIZ - 1] = '\0';
	return fd;
close_fd:
	close(fd);
	return ret;
}

/**
 * tap_dev_adopt() - Take a tap device opened by our caller (-F in pasta mode)
 * @fd:		Descriptor of /dev/net/tun, attached to a device with IFF_TAP
 *		and IFF_NO_PI (checked by conf/)
 * @vnet_hdr:	Result: frames carry a struct virtio_net_hdr (IFF_VNET_HDR)
 *
 * With IFF_VNET_HDR, sets the header size and announces the offloads as
 * tap_dev_open_current_ns() does; without, frames are plain Ethernet and
 * the kernel segments and checksums them itself.  Makes the fd
 * non-blocking and close-on-exec.
 *
 * Context: set-up
 * Return: 0, or -errno from ioctl() or fcntl()
 */
int tap_dev_adopt(int fd, bool *vnet_hdr)
{
	unsigned offload = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	struct ifreq ifr = { 0 };
	int hlen = VNET_HLEN, fl;

	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	*vnet_hdr = !!(ifr.ifr_flags & IFF_VNET_HDR);
	if (*vnet_hdr && (ioctl(fd, TUNSETVNETHDRSZ, &hlen) < 0 ||
			  ioctl(fd, TUNSETOFFLOAD, offload) < 0))
		return -errno;
	if ((fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

/**
 * tap_queues_reset() - Empty the stream reassembly buffer, the pending
 *			stream tail and the transmit queue
 */
static void tap_queues_reset(void)
{
	stream_rx_init(&tap_stream_rx, tap_stream_rx_buf,
		       sizeof(tap_stream_rx_buf));
	stream_tx_init(&tap_tx_pend, tap_tx_pend_buf, sizeof(tap_tx_pend_buf));
	tap_tx_used = 0;
	tap_tx_n = 0;
	tap_tx_iovn = 0;
}

/**
 * tap_uso_probe() - Does the tap device take UDP super-frames, both ways?
 * @fd:		Tap device, with IFF_VNET_HDR and our TUN_F_CSUM | TUN_F_TSO4
 *		| TUN_F_TSO6 offloads set
 *
 * The tun driver builds an skb of type SKB_GSO_UDP_L4 from a frame whose
 * virtio_net_hdr says VIRTIO_NET_HDR_GSO_UDP_L4 since Linux 6.2, the
 * version that added TUN_F_USO4 and TUN_F_USO6 to TUNSETOFFLOAD; an
 * older kernel refuses those flags (EINVAL), and would refuse the frames.
 * The flags also say that we take such frames from the namespace
 * (tap_rx_dev(): a socket there sending with UDP_SEGMENT, or a GRO
 * aggregate it forwards, reaches us as one frame), so they stay set.
 * One line in the log says which.  With --no-udp-offload
 * (tap_uso_set_off()) they are cleared instead, as on a kernel without
 * them: the namespace's stack then cuts its own super-datagrams before
 * the device (software GSO), and we write one frame per datagram.
 *
 * Context: set-up, from tap_init() of a tap device (pasta, main()),
 *	    before the seccomp filter: no #syscalls needed
 * Return: true if the kernel has USO for tap devices
 */
static bool tap_uso_probe(int fd)
{
	unsigned base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	bool ok;

	if (tap_uso_off) {
		/* A device handed over by a hitless restart may have them */
		ioctl(fd, TUNSETOFFLOAD, base);
		info("tap: UDP segmentation offload to the namespace: off (--no-udp-offload): one write per datagram, the namespace cuts its own");
		return false;
	}
	ok = !ioctl(fd, TUNSETOFFLOAD, base | TUN_F_USO4 | TUN_F_USO6);

	info("tap: UDP segmentation offload to the namespace: %s",
	     ok ? "yes (datagrams of a flow in one write, and one read)" :
		  "no (Linux < 6.2): one write per datagram");
	return ok;
}

/**
 * tap_uso_set_off() - Turn UDP super-frames off, both ways (--no-udp-offload)
 * @off:	true: never announce or use UDP segmentation offload
 *
 * For tests and for kernels whose USO misbehaves: the fallback a kernel
 * before 6.2 (tap) or a guest without VIRTIO_NET_F_GUEST_USO4/6
 * (vhost-user) gets.  Datagram boundaries are the same either way.
 *
 * Context: set-up, after conf_parse(), before tap_init()
 */
void tap_uso_set_off(bool off)
{
	tap_uso_off = off;
}

/**
 * tap_init() - Select the back-end and its fd
 * @be:		TAP_DEV or TAP_STREAM
 * @fd:		Tap device fd, or connected stream socket (non-blocking)
 * @vnet_hdr:	For TAP_DEV: frames carry a struct virtio_net_hdr
 */
void tap_init(enum tap_backend be, int fd, bool vnet_hdr)
{
	tap_be = be;
	tap_dev_fd = fd;
	tap_vnet = be == TAP_DEV && vnet_hdr;
	tap_uso = tap_vnet && tap_uso_probe(fd);
	tap_queues_reset();
}

/**
 * tap_detach() - Forget the current fd (stream client gone); frames queued
 *		  meanwhile are dropped
 */
void tap_detach(void)
{
	tap_dev_fd = -1;
	tap_queues_reset();
}

/**
 * tap_vnet_hdr() - Do frames on the tap device carry a virtio-net header?
 *
 * For a hitless restart (passt/restart.c), which hands the device over.
 *
 * Return: true if so (TAP_DEV only)
 */
bool tap_vnet_hdr(void)
{
	return tap_vnet;
}

/**
 * tap_fd() - fd of the back-end, -1 if none is connected
 *
 * Return: fd
 */
int tap_fd(void)
{
	return tap_dev_fd;
}

/**
 * tap_backend() - Which back-end is in use
 *
 * Return: TAP_DEV, TAP_STREAM or TAP_NONE
 */
enum tap_backend tap_backend(void)
{
	return tap_be;
}

/**
 * tap_connected() - Is there a guest to talk to?
 *
 * Return: true if a tap fd or a stream client is attached, or the
 *	   vhost-user front-end's queues are running
 */
bool tap_connected(void)
{
	if (tap_be == TAP_VHOST)
		return tap_dev_fd >= 0 && vu_ready();
	return tap_dev_fd >= 0;
}

/**
 * tap_csum_offload() - May L4 checksums be left partial?
 *
 * Return: true for a tap device with virtio_net_hdr, or a vhost-user guest
 *	   that negotiated VIRTIO_NET_F_GUEST_CSUM, and no pcap capture
 */
bool tap_csum_offload(void)
{
	if (tap_be == TAP_VHOST)
		return vu_guest_csum() && !tap_pcap_on;
	return tap_vnet && !tap_pcap_on;
}

/**
 * tap_gso_offload() - May TCP frames to the guest be super-frames?
 *
 * Return: true for a tap device with virtio_net_hdr (TUN_F_TSO4 and
 *	   TUN_F_TSO6 are always set), or a vhost-user guest that
 *	   negotiated VIRTIO_NET_F_GUEST_TSO4, _TSO6 and _CSUM; and no pcap
 *	   capture (a capture shows frames as the guest gets them)
 */
static bool tap_gso_offload(void)
{
	if (tap_be == TAP_VHOST)
		return vu_guest_tso() && !tap_pcap_on;
	return tap_vnet && !tap_pcap_on;
}

/**
 * tap_uso_offload() - May UDP frames to the guest be super-frames?
 *
 * Return: true for a tap device with virtio_net_hdr whose kernel takes
 *	   VIRTIO_NET_HDR_GSO_UDP_L4 (tap_uso_probe()), or a vhost-user
 *	   guest that negotiated VIRTIO_NET_F_GUEST_USO4, _USO6 and _CSUM
 *	   (vu_guest_uso()); and no pcap capture; false for the stream
 *	   back-end and with --no-udp-offload (tap_uso_set_off())
 */
bool tap_uso_offload(void)
{
	if (tap_uso_off)
		return false;
	if (tap_be == TAP_VHOST)
		return vu_guest_uso() && !tap_pcap_on;
	return tap_be == TAP_DEV && tap_uso && !tap_pcap_on;
}

/**
 * tap_set_pcap() - Tell the back-end that a capture is running
 * @on:		pcap file open: frames must carry complete checksums
 */
void tap_set_pcap(bool on)
{
	tap_pcap_on = on;
}

/**
 * tap_rx_dev() - Read frames from a tap device
 * @b:		Batch to fill
 *
 * With the virtio_net_hdr, a UDP super-frame from the namespace (gso_type
 * VIRTIO_NET_HDR_GSO_UDP_L4: we announce TUN_F_USO4 | TUN_F_USO6 where
 * the kernel has them, tap_uso_probe()) gets its gso_size in @b->gso, for
 * passt/udp.c to send on as the same datagrams; one with gso_size 0 (which
 * the kernel never writes) is dropped and counted.  Other headers carry
 * nothing we need: TCP super-frames are taken whole, and a partial checksum
 * is never checked (the payload goes into a socket).
 *
 * #syscalls read
 * Return: frames read (0 if none was ready), or -errno on a read error
 */
static int tap_rx_dev(struct tap_rx_batch *b)
{
	size_t skip = tap_vnet ? VNET_HLEN : 0;
	unsigned i;

	b->n = 0;
	for (i = 0; i < TAP_RX_FRAMES; i++) {
		ssize_t n = read(tap_dev_fd, tap_rx_slots[i], RX_SLOT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return b->n ? (int)b->n : -errno;
		}
		if ((size_t)n <= skip)
			continue;
		b->gso[b->n] = 0;
		if (tap_vnet) {
			struct virtio_net_hdr vh;

			memcpy(&vh, tap_rx_slots[i], sizeof(vh));
			if (vh.gso_type == VNET_GSO_UDP_L4 && !vh.gso_size) {
				tap_stats.rx_uso_bad++;
				continue;
			}
			if (vh.gso_type == VNET_GSO_UDP_L4)
				b->gso[b->n] = vh.gso_size;
		}
		b->frame[b->n] = tap_rx_slots[i] + skip;
		b->len[b->n] = (size_t)n - skip;
		tap_stats.rx_frames++;
		tap_stats.rx_bytes += b->len[b->n];
		pcap_frame(b->frame[b->n], b->len[b->n]);
		b->n++;
	}
	return (int)b->n;
}

/**
 * tap_rx_stream() - Read and split length-prefixed frames from a stream
 * @b:		Batch to fill
 *
 * Frames already complete in the buffer are handed out first; the socket is
 * read (once) only when they run out.  A length of zero, below an Ethernet
 * header, or above FRAME_MAX means the stream is corrupt or hostile: the
 * caller drops the connection (tap/stream.c).
 *
 * #syscalls recvfrom
 * Return: frames in @b, 0 if none complete yet, -EPIPE at EOF, -EBADMSG for
 *	   a bad length, -errno from recv()
 */
static int tap_rx_stream(struct tap_rx_batch *b)
{
	const uint8_t *frame;
	size_t len, room;
	int ret = 0;
	uint8_t *p;

	b->n = 0;

	if (!stream_rx_ready(&tap_stream_rx)) {
		ssize_t n;

		p = stream_rx_space(&tap_stream_rx, &room);
		n = recv(tap_dev_fd, p, room, MSG_DONTWAIT);
		if (n == 0)
			return -EPIPE;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n > 0)
			stream_rx_commit(&tap_stream_rx, (size_t)n);
	}

	while (b->n < TAP_RX_MAX &&
	       (ret = stream_rx_next(&tap_stream_rx, &frame, &len)) > 0) {
		b->frame[b->n] = frame;
		b->len[b->n] = len;
		b->gso[b->n] = 0;
		tap_stats.rx_frames++;
		tap_stats.rx_bytes += len;
		pcap_frame(frame, len);
		b->n++;
	}
	if (ret < 0 && !b->n) {	/* frames before it first, error next time */
		tap_stats.rx_bad_len++;
		return -EBADMSG;
	}
	return (int)b->n;
}

/**
 * tap_rx_vhost() - Take frames from the vhost-user guest's transmit queue
 * @b:		Batch to fill
 *
 * Return: frames in @b, or -EBADMSG if the ring is broken
 */
static int tap_rx_vhost(struct tap_rx_batch *b)
{
	int n = vu_frames_from_guest(b->frame, b->len, b->gso, TAP_RX_MAX);
	unsigned i;

	if (n < 0)
		return n;
	b->n = (unsigned)n;
	for (i = 0; i < b->n; i++) {
		tap_stats.rx_frames++;
		tap_stats.rx_bytes += b->len[i];
		pcap_frame(b->frame[i], b->len[i]);
	}
	return n;
}

/**
 * tap_rx_buffered() - Are complete frames waiting that no epoll event will
 *		       announce (the socket was already drained into our
 *		       buffer, or a full batch left chains in the guest's
 *		       transmit queue)?
 *
 * Return: true if tap_rx() would return frames without reading
 */
bool tap_rx_buffered(void)
{
	if (tap_be == TAP_VHOST)
		return tap_dev_fd >= 0 && vu_tx_more();
	return tap_be == TAP_STREAM && tap_dev_fd >= 0 &&
	       stream_rx_ready(&tap_stream_rx);
}

/**
 * tap_rx() - Read a batch of frames from the guest
 * @b:		Batch to fill; frames stay valid until the next call
 *
 * Context: main loop, on EPOLLIN of tap_fd().  Call again while it returns a
 *	    full batch (TAP_RX_FRAMES or TAP_RX_MAX): data may be left over.
 * Return: number of frames, 0 if nothing complete was ready, or -errno
 *	   (-EPIPE: stream closed, -EBADMSG: corrupt stream)
 */
int tap_rx(struct tap_rx_batch *b)
{
	b->n = 0;
	if (tap_dev_fd < 0)
		return 0;
	if (tap_be == TAP_STREAM)
		return tap_rx_stream(b);
	if (tap_be == TAP_VHOST)
		return tap_rx_vhost(b);
	return tap_rx_dev(b);
}

/**
 * tap_tx_space() - Free space in the transmit arena
 * @avail:	Bytes available from the returned pointer (including the
 *		TAP_HEADROOM each frame needs in front of it)
 *
 * The caller writes frames at p + TAP_HEADROOM, p + TAP_HEADROOM + len +
 * TAP_HEADROOM... and registers each with tap_tx_add(), in order.
 *
 * Return: start of free space; *@avail is 0 if a flush is needed
 */
VISIBLE_IF_UNIT
uint8_t *tap_tx_space(size_t *avail)
{
	if (tap_tx_n >= TAP_TX_FRAMES || tap_tx_iovn >= TAP_TX_IOVS)
		*avail = 0;
	else
		*avail = sizeof(tap_tx_arena) - tap_tx_used;
	return tap_tx_arena + tap_tx_used;
}

/**
 * tap_tx_frames_free() - How many more frames fit in this flush
 *
 * With vhost-user, no more than the guest has receive buffers for (each
 * frame takes one at least): what is queued beyond that would only be
 * dropped at the flush.
 *
 * Return: frames that tap_tx_add() can still take (bytes permitting)
 */
static unsigned tap_tx_frames_free(void)
{
	unsigned n = MIN(TAP_TX_FRAMES - tap_tx_n, TAP_TX_IOVS - tap_tx_iovn);

	if (tap_be == TAP_VHOST) {
		unsigned b = vu_rx_bufs();

		n = MIN(n, b > tap_tx_n ? b - tap_tx_n : 0);
	}
	return n;
}

/**
 * tap_tx_room_get() - Reserve room for frames, flushing once if too little
 * @slot:	Bytes of arena each frame takes, TAP_HEADROOM included
 * @want:	Frames wanted: fewer than that free, and tap_flush() runs once
 * @guest_bufs:	Count only the frames this flush can still take
 *		(tap_tx_frames_free(): with vhost-user, the guest's receive
 *		buffers), not only the arena's frame slots
 * @room:	Filled with the free space, frames that fit, and whether a
 *		flush ran
 *
 * The one "room in the arena, else flush and ask again" of the tap.
 */
static void tap_tx_room_get(size_t slot, unsigned want, bool guest_bufs,
			    struct tap_tx_room *room)
{
	unsigned i;

	room->flushed = false;
	for (i = 0; i < 2; i++) {
		size_t avail;

		room->p = tap_tx_space(&avail);
		room->n = (unsigned)MIN(avail / slot, (size_t)UINT_MAX);
		if (guest_bufs)
			room->n = MIN(room->n, tap_tx_frames_free());
		if (room->n >= want || i)
			return;
		tap_flush();
		room->flushed = true;
	}
}

/**
 * tap_tx_reserve() - Room in the transmit arena for frames of one size,
 *		      flushing once if there isn't enough
 * @slot:	Bytes each frame takes in the arena: TAP_HEADROOM, headers
 *		and payload, rounded up to 8
 * @want:	Frames wanted (at least 1): with fewer free, tap_flush() runs
 *		once and the room is measured again
 * @room:	Set to the free space, how many frames of @slot fit
 *		(bytes, and frames this flush can take: tap_tx_frames_free()),
 *		and whether a flush ran; the caller writes frames at
 *		@room->p + i * @slot + TAP_HEADROOM and queues each with
 *		tap_tx_add(), and gives up (drops) if @room->n is 0
 *
 * Context: main loop, senders of frames to the guest (TCP data, UDP)
 */
void tap_tx_reserve(size_t slot, unsigned want, struct tap_tx_room *room)
{
	tap_tx_room_get(slot, want, true, room);
}

/**
 * tap_tx_add() - Queue a frame laid out in the arena
 * @l2:		Ethernet header of the frame, with TAP_HEADROOM bytes free
 *		before it, at or after the pointer tap_tx_space() returned
 * @len:	Frame length, bytes
 * @csum_start:	TAP_CSUM_DONE if checksums are complete; else offset of the
 *		L4 header from @l2, whose checksum field holds the
 *		pseudo-header sum only
 * @csum_offset: Offset of the checksum field in the L4 header (16 for TCP,
 *		6 for UDP), if @csum_start is set
 *
 * The caller checked tap_tx_space() first, so there is room, for
 * ETH_ZLEN bytes at least: a shorter frame is zero-padded to that
 * (frame_pad()).
 */
void tap_tx_add(uint8_t *l2, size_t len, size_t csum_start,
		size_t csum_offset)
{
	size_t end;

	if (tap_tx_n >= TAP_TX_FRAMES || tap_tx_iovn >= TAP_TX_IOVS) {
		tap_stats.tx_dropped++;	/* caller ignored tap_tx_frames_free() */
		return;
	}
	if ((size_t)(l2 - tap_tx_arena) + ETH_ZLEN <= sizeof(tap_tx_arena))
		len = frame_pad(l2, len);
	end = (size_t)(l2 - tap_tx_arena) + len;

	tap_tx_iov[tap_tx_iovn].iov_base = l2;
	tap_tx_iov[tap_tx_iovn].iov_len = len;
	tap_tx_first[tap_tx_n] = (uint16_t)tap_tx_iovn;
	tap_tx_niov[tap_tx_n] = 1;
	tap_tx_csum[tap_tx_n] = (uint32_t)(csum_start << 16 | csum_offset);
	tap_tx_tags[tap_tx_n] = 0;
	tap_tx_gso_size[tap_tx_n] = 0;
	tap_tx_n++;
	tap_tx_iovn++;
	tap_tx_used = ROUND_UP(end, 8);
}

/**
 * tap_tx_ext_room() - Can a frame with external payload be queued now?
 * @npay:	Payload pieces of the frame
 *
 * Return: true if tap_tx_add_ext() with @npay pieces would succeed
 */
bool tap_tx_ext_room(unsigned npay)
{
	return tap_tx_n < TAP_TX_FRAMES && npay <= TAP_FRAME_IOV_MAX &&
	       tap_tx_iovn + 1 + npay <= TAP_TX_IOVS;
}

/**
 * tap_tx_add_ext() - Queue a frame: headers in the arena, payload elsewhere
 * @l2:		Ethernet header, with TAP_HEADROOM bytes free before it, in
 *		the arena at or after the pointer tap_tx_space() returned
 * @hlen:	Bytes of headers at @l2 (L2 to L4)
 * @pay:	Payload pieces, in order; the memory must stay readable and
 *		unchanged until the next tap_flush() returns
 * @npay:	Entries in @pay, at most TAP_FRAME_IOV_MAX
 * @csum_start:	As for tap_tx_add(); a partial checksum covers the payload
 *		pieces too
 * @csum_offset: As for tap_tx_add()
 *
 * The frame is @hlen plus the sum of the piece lengths, at most FRAME_MAX.
 * Nothing is copied, except for a frame shorter than ETH_ZLEN: its pieces
 * are copied after the headers (room for ETH_ZLEN bytes at @l2) and the
 * frame is padded like any other.  Context: main loop, like tap_tx_add().
 *
 * Return: 0, or -ENOBUFS if there is no room (flush and retry; @l2 stays
 *	   valid across tap_flush(), the arena is only reused by later
 *	   tap_tx_space() callers)
 */
int tap_tx_add_ext(uint8_t *l2, size_t hlen, const struct iovec *pay,
		   unsigned npay, size_t csum_start, size_t csum_offset)
{
	size_t end = (size_t)(l2 - tap_tx_arena) + hlen;
	size_t plen = iov_length(pay, npay);
	unsigned j;

	if (!tap_tx_ext_room(npay) || hlen + plen > FRAME_MAX)
		return -ENOBUFS;
	if (hlen + plen < ETH_ZLEN &&
	    (size_t)(l2 - tap_tx_arena) + ETH_ZLEN <= sizeof(tap_tx_arena)) {
		/* A runt: gather it after its headers, to pad it there */
		for (j = 0, end = hlen; j < npay; end += pay[j++].iov_len)
			memcpy(l2 + end, pay[j].iov_base, pay[j].iov_len);
		tap_tx_add(l2, end, csum_start, csum_offset);
		return 0;
	}

	tap_tx_iov[tap_tx_iovn].iov_base = l2;
	tap_tx_iov[tap_tx_iovn].iov_len = hlen;
	memcpy(&tap_tx_iov[tap_tx_iovn + 1], pay, npay * sizeof(*pay));
	tap_tx_first[tap_tx_n] = (uint16_t)tap_tx_iovn;
	tap_tx_niov[tap_tx_n] = (uint8_t)(1 + npay);
	tap_tx_csum[tap_tx_n] = (uint32_t)(csum_start << 16 | csum_offset);
	tap_tx_tags[tap_tx_n] = 0;
	tap_tx_gso_size[tap_tx_n] = 0;
	tap_tx_n++;
	tap_tx_iovn += 1 + npay;
	tap_tx_used = ROUND_UP(end, 8);
	return 0;
}

/**
 * tap_tx_frame() - Reserve room for one frame and queue it
 * @len:	Frame length, bytes (the caller fills it after this returns)
 *
 * For small frames with complete checksums (ARP, DHCP, ICMP...).  Flushes
 * first if the arena is full.
 *
 * Return: pointer to the Ethernet header to fill, NULL if @len can't fit
 */
uint8_t *tap_tx_frame(size_t len)
{
	struct tap_tx_room room;

	/* Bytes and frame slots only: with vhost-user, a control frame is
	 * queued even when the guest has no receive buffer for it, and the
	 * flush reports it dropped like any other (TCP then rewinds)
	 */
	tap_tx_room_get(TAP_HEADROOM + MAX(len, (size_t)ETH_ZLEN), 1, false,
			&room);
	if (!room.n)
		return NULL;
	tap_tx_add(room.p + TAP_HEADROOM, len, TAP_CSUM_DONE, 0);
	return room.p + TAP_HEADROOM;
}

/**
 * tap_gso_seg() - Payload bytes for one TCP frame to the guest
 * @hlen:	Bytes of headers in the frame, Ethernet to TCP (options
 *		included)
 * @mss:	Segment size the guest takes, bytes
 *
 * Return: @mss without segmentation offload (tap_gso_offload() false:
 *	   stream back-end, vhost-user guest without GUEST_TSO4/6, pcap
 *	   capture running, no virtio_net_hdr); else the largest multiple
 *	   of @mss that keeps the frame within FRAME_MAX (the IPv4 total
 *	   length and the IPv6 payload length are 16-bit), at least @mss
 */
size_t tap_gso_seg(size_t hlen, size_t mss)
{
	size_t k;

	if (!tap_gso_offload() || !mss || hlen + 2 * mss > FRAME_MAX)
		return mss;
	k = (FRAME_MAX - hlen) / mss;
	return MIN(k, (size_t)TAP_GSO_SEGS_MAX) * mss;
}

/**
 * tap_tx_gso() - Mark the frame queued last as a TCP super-frame
 * @mss:	Segment size, bytes: gso_size for the namespace's stack
 *
 * The frame must have been queued with a partial checksum (@csum_start
 * at its TCP header) and carry more than @mss bytes of payload; otherwise,
 * or without segmentation offload, the mark is ignored and it goes out as
 * one segment.
 *
 * Context: right after tap_tx_add(), like tap_tx_tag()
 */
void tap_tx_gso(size_t mss)
{
	if (tap_tx_n && tap_gso_offload() && mss && mss <= 0xffff)
		tap_tx_gso_size[tap_tx_n - 1] = (uint16_t)mss;
}

/**
 * tap_tx_uso() - Mark the frame queued last as a UDP super-frame
 * @seg:	Datagram payload size, bytes: gso_size for the namespace's
 *		stack, which cuts the payload into datagrams of @seg bytes,
 *		the last one possibly shorter (Linux __udp_gso_segment())
 *
 * The frame must have been queued with a partial checksum (@csum_start
 * at its UDP header, offset 6), carry more than @seg bytes of payload and
 * at most TAP_GSO_SEGS_MAX datagrams (the kernel's UDP_MAX_SEGMENTS is 64
 * or more); the caller checks tap_uso_offload() first.
 *
 * Context: right after tap_tx_add()
 */
void tap_tx_uso(size_t seg)
{
	if (tap_tx_n && tap_uso_offload() && seg && seg <= 0xffff)
		tap_tx_gso_size[tap_tx_n - 1] = (uint16_t)seg;
}

/**
 * tap_tx_tag() - Tag the frame queued last, to hear of it if it is dropped
 * @tag:	Caller's value, non-zero (TCP: flow index + 1 and sequence)
 *
 * Context: right after tap_tx_add(), tap_tx_add_ext() or tap_tx_frame()
 */
void tap_tx_tag(uint64_t tag)
{
	if (tap_tx_n)
		tap_tx_tags[tap_tx_n - 1] = tag;
}

/**
 * tap_tx_drop_count() - Count frames a sender dropped because the tap
 *			 couldn't take them (no room even after a flush)
 * @n:		Frames
 *
 * Context: senders that give up before queueing (UDP); tap.c owns the count
 */
void tap_tx_drop_count(uint64_t n)
{
	tap_stats.tx_dropped += n;
}

/**
 * tap_tx_set_drop_cb() - Who hears of tagged frames that were not written
 * @fn:		Called from tap_flush() with the tag of each such frame; it
 *		must not queue or flush frames itself (record, act later)
 */
void tap_tx_set_drop_cb(tap_tx_drop_fn fn)
{
	tap_tx_drop_cb = fn;
}

/**
 * tap_tx_dropped() - Count a queued frame that won't be written, tell its
 *		      sender
 * @i:		Frame index in this flush
 */
static void tap_tx_dropped(unsigned i)
{
	tap_stats.tx_dropped++;
	if (tap_tx_tags[i]) {
		tap_stats.tx_dropped_tagged++;
		if (tap_tx_drop_cb)
			tap_tx_drop_cb(tap_tx_tags[i]);
	}
}

/**
 * tap_tx_blocked() - Should senders hold new data back for now?
 *
 * Return: true while a stream write waits for EPOLLOUT, after the tap
 *	   device refused a write in this wake-up (see tap_tx_unblock()), or
 *	   while the vhost-user guest has no receive buffers for more frames
 *	   than are queued (its kick on queue 0, when it adds some, wakes
 *	   the loop)
 */
bool tap_tx_blocked(void)
{
	if (!tap_connected())
		return true;
	if (tap_be == TAP_VHOST)
		return vu_rx_full() || vu_rx_bufs() <= tap_tx_n;
	if (tap_be == TAP_STREAM)
		return stream_tx_pending(&tap_tx_pend);
	return tap_dev_congested;
}

/**
 * tap_tx_unblock() - New wake-up: let senders try the tap device again
 *
 * Return: true if the device had refused a write (the caller may want to
 *	   wait a little before the next try)
 */
bool tap_tx_unblock(void)
{
	bool was = tap_dev_congested;

	tap_dev_congested = false;
	return was;
}

/**
 * tap_tx_pending() - Is a stream write waiting for EPOLLOUT?
 *
 * Return: true if bytes of an earlier flush are still unwritten
 */
bool tap_tx_pending(void)
{
	return stream_tx_pending(&tap_tx_pend);
}

/**
 * tap_flush_pending() - Write what's left of an earlier stream flush
 *
 * #syscalls sendto
 * Return: 0 if everything is written, -EAGAIN if some is left, -errno
 */
static int tap_flush_pending(void)
{
	while (stream_tx_pending(&tap_tx_pend)) {
		const uint8_t *p;
		size_t len;
		ssize_t n;

		p = stream_tx_head(&tap_tx_pend, &len);
		n = send(tap_dev_fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -EAGAIN : -errno;
		}
		stream_tx_advance(&tap_tx_pend, (size_t)n);
	}
	return 0;
}

/**
 * tap_frame_len() - Length of a queued frame
 * @i:		Frame index
 *
 * Return: sum of the lengths of its iovecs, bytes
 */
static size_t tap_frame_len(unsigned i)
{
	if (tap_tx_niov[i] == 1)
		return tap_tx_iov[tap_tx_first[i]].iov_len;
	return iov_length(&tap_tx_iov[tap_tx_first[i]], tap_tx_niov[i]);
}

/**
 * tap_keep_tail() - Keep what a stream write left unwritten, in order
 * @done:	Bytes of the batch (length prefixes included) written
 *
 * Frames' iovecs are consecutive in tap_tx_iov, frame after frame; see
 * stream_tx_keep() for what is kept and what may be dropped.
 */
static void tap_keep_tail(size_t done)
{
	unsigned i;

	tap_stats.tx_short++;
	if (!stream_tx_keep_map(&tap_tx_pend, tap_tx_iov, tap_tx_niov,
				tap_tx_n, done, tap_tx_dropmap))
		return;
	for (i = 0; i < tap_tx_n; i++)
		if (tap_tx_dropmap[i])
			tap_tx_dropped(i);
}

/**
 * tap_flush_stream() - Write queued frames to a stream, in one sendmsg()
 *
 * Each frame's first iovec is widened to cover its 4-byte length, written
 * in the headroom.  Whatever the socket doesn't take is kept, in order, for
 * EPOLLOUT; while something is pending nothing new is written, so frames
 * are never cut or reordered, only dropped whole if the pending buffer is
 * full (tap/stream.c).  Context: main loop
 * #syscalls sendmsg
 * Return: 0, or -errno from sendmsg() other than EAGAIN
 */
static int tap_flush_stream(void)
{
	struct msghdr mh = { 0 };
	size_t total = 0, i;
	ssize_t n;
	int ret;

	for (i = 0; i < tap_tx_n; i++) {
		struct iovec *v = &tap_tx_iov[tap_tx_first[i]];
		uint8_t *l2 = v->iov_base;
		size_t flen = tap_frame_len((unsigned)i);

		put_be32(l2 - STREAM_LEN_SIZE, (uint32_t)flen);
		v->iov_base = l2 - STREAM_LEN_SIZE;
		v->iov_len += STREAM_LEN_SIZE;
		total += flen + STREAM_LEN_SIZE;
	}

	ret = tap_flush_pending();
	if (ret == -EAGAIN) {
		tap_keep_tail(0);	/* nothing new may overtake the tail */
		return 0;
	}
	if (ret < 0)
		return ret;

	n = 0;
	for (i = 0; i < tap_tx_iovn; i += IOV_MAX) {
		ssize_t r;

		mh.msg_iov = tap_tx_iov + i;
		mh.msg_iovlen = MIN(tap_tx_iovn - i, (size_t)IOV_MAX);
		r = sendmsg(tap_dev_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			break;
		}
		n += r;
		if ((size_t)r < iov_length(mh.msg_iov, mh.msg_iovlen))
			break;
	}
	if ((size_t)n == total)
		return 0;

	/* Keep the unwritten tail, in order, for EPOLLOUT */
	tap_keep_tail((size_t)n);
	return 0;
}

/**
 * tap_flush_dev() - Write queued frames to a tap device, one write() each
 *
 * Frames with external payload go out with one writev(): the virtio-net
 * header and the headers from the arena, then the payload pieces.
 *
 * Context: main loop
 * #syscalls write writev
 * Return: 0, or -errno of the first write error other than EAGAIN
 */
static int tap_flush_dev(void)
{
	unsigned i;

	for (i = 0; i < tap_tx_n; i++) {
		struct iovec *v = &tap_tx_iov[tap_tx_first[i]];
		uint8_t *l2 = v->iov_base;
		size_t len = v->iov_len, hlen = 0;
		ssize_t n;

		if (tap_vnet) {
			struct virtio_net_hdr vh;
			uint32_t cs = tap_tx_csum[i];

			vnet_hdr_out(&vh, l2, len, tap_frame_len(i), cs,
				     tap_tx_gso_size[i]);
			hlen = VNET_HLEN;
			memcpy(l2 - hlen, &vh, hlen);
		}

		if (tap_tx_niov[i] == 1) {
			n = write(tap_dev_fd, l2 - hlen, len + hlen);
		} else {
			v->iov_base = l2 - hlen;
			v->iov_len = len + hlen;
			n = writev(tap_dev_fd, v, tap_tx_niov[i]);
		}
		if (n < 0) {
			int err = errno;

			tap_tx_dropped(i);
			if (err == EAGAIN || err == EINTR || err == ENOBUFS) {
				tap_dev_congested = true;
				continue;
			}
			for (i++; i < tap_tx_n; i++)
				tap_tx_dropped(i);
			return -err;
		}
	}
	return 0;
}

/**
 * tap_flush_vhost() - Copy queued frames into the guest's receive queue
 *
 * Frames that find no buffer are reported like any frame not written
 * (tap_tx_dropped(): TCP moves SND.NXT back), and tap_tx_blocked() stays
 * true until the guest adds buffers.
 */
static void tap_flush_vhost(void)
{
	unsigned i;

	vu_frames_to_guest(tap_tx_iov, tap_tx_first, tap_tx_niov, tap_tx_csum,
			   tap_tx_gso_size, tap_tx_n, tap_tx_dropmap);
	for (i = 0; i < tap_tx_n; i++)
		if (tap_tx_dropmap[i])
			tap_tx_dropped(i);
}

/**
 * tap_pcap_frame() - Capture one queued frame, gathering external payload
 * @i:		Frame index
 * @flen:	Its length, bytes
 */
static void tap_pcap_frame(unsigned i, size_t flen)
{
	const struct iovec *v = &tap_tx_iov[tap_tx_first[i]];
	size_t off = 0;
	unsigned j;

	if (tap_tx_niov[i] == 1) {
		pcap_frame(v->iov_base, v->iov_len);
		return;
	}
	if (!tap_pcap_on)
		return;
	for (j = 0; j < tap_tx_niov[i] && off < sizeof(tap_tx_gather); j++) {
		size_t l = MIN(v[j].iov_len, sizeof(tap_tx_gather) - off);

		memcpy(tap_tx_gather + off, v[j].iov_base, l);
		off += l;
	}
	pcap_frame(tap_tx_gather, MIN(flen, off));
}

/**
 * tap_flush() - Write every queued frame to the guest
 *
 * Context: main loop, at the end of each wake-up, or when the arena fills
 * Return: 0, or -errno of a fatal error on the back-end fd
 */
int tap_flush(void)
{
	int ret = 0;
	unsigned i;

	if (!tap_tx_n) {
		if (tap_tx_pending() && tap_dev_fd >= 0) {
			ret = tap_flush_pending();
			return ret == -EAGAIN ? 0 : ret;
		}
		return 0;
	}

	if (!tap_connected()) {
		for (i = 0; i < tap_tx_n; i++)
			tap_tx_dropped(i);
		goto out;
	}

	for (i = 0; i < tap_tx_n; i++) {
		size_t flen = tap_frame_len(i);

		tap_stats.tx_bytes += flen;
		tap_pcap_frame(i, flen);
		if (unlikely(log_trace_on)) {
			const struct iovec *v = &tap_tx_iov[tap_tx_first[i]];

			frame_trace("to tap", v->iov_base, v->iov_len, flen);
		}
	}
	tap_stats.tx_frames += tap_tx_n;

	if (tap_be == TAP_STREAM)
		ret = tap_flush_stream();
	else if (tap_be == TAP_VHOST)
		tap_flush_vhost();
	else
		ret = tap_flush_dev();
out:
	tap_tx_n = 0;
	tap_tx_iovn = 0;
	tap_tx_used = 0;
	return ret;
}

/**
 * tap_stats_print() - Print the counters of the tap (--stats, SIGUSR1):
 *		       frames and bytes both ways, and the stream's errors
 */
void tap_stats_print(void)
{
	info_always("stats: tap rx %lu frames %lu bytes, tx %lu frames %lu bytes, tx dropped %lu",
		    tap_stats.rx_frames, tap_stats.rx_bytes, tap_stats.tx_frames,
		    tap_stats.tx_bytes, tap_stats.tx_dropped);
	if (tap_be == TAP_STREAM)
		info_always("stats: stream short writes %lu, bad lengths %lu",
			    tap_stats.tx_short, tap_stats.rx_bad_len);
}

/**
 * tap_stream_leftover() - passt's stream: bytes a hand-over must carry
 * @tx:		true: the unwritten tail of a flush (length prefixes
 *		included); false: bytes read and not yet a whole frame
 * @len:	Set: their count
 *
 * For a hitless restart (passt/restart.c): the new process must start
 * reading and writing exactly where we stopped, at a frame boundary of
 * the stream.
 *
 * Return: the bytes, valid until the next read or flush
 */
const uint8_t *tap_stream_leftover(bool tx, size_t *len)
{
	if (tx) {
		*len = 0;
		if (!stream_tx_pending(&tap_tx_pend))
			return NULL;
		return stream_tx_head(&tap_tx_pend, len);
	}
	*len = tap_stream_rx.len - tap_stream_rx.off;
	return tap_stream_rx.buf + tap_stream_rx.off;
}

/**
 * tap_stream_restore() - passt's stream: take bytes a hand-over carried
 * @tx:		As for tap_stream_leftover()
 * @p:		Bytes
 * @len:	Their count
 *
 * Context: set-up, after tap_init(TAP_STREAM, ...)
 * Return: 0, or -ENOBUFS if they don't fit (then the stream is lost)
 */
int tap_stream_restore(bool tx, const uint8_t *p, size_t len)
{
	size_t room;
	uint8_t *dst;

	if (tx) {
		struct iovec iov = { .iov_base = (void *)(uintptr_t)p,
				     .iov_len = len };

		return stream_tx_keep_map(&tap_tx_pend, &iov, NULL, 1, 0, NULL) ?
		       -ENOBUFS : 0;
	}
	dst = stream_rx_space(&tap_stream_rx, &room);
	if (len > room)
		return -ENOBUFS;
	memcpy(dst, p, len);
	stream_rx_commit(&tap_stream_rx, len);
	return 0;
}
