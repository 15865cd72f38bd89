/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/tap.h - Frame-level interface to the guest: tap device or QEMU stream
 *
 * The protocol handlers see only batches of frames: tap_rx() fills a batch
 * of received frames, and frames to send are laid out in the transmit arena
 * (tap_tx_reserve(), tap_tx_add(), or tap_tx_add_ext() for headers in the
 * arena and payload elsewhere) and written together by tap_flush() at the
 * end of each wake-up.  Which back-end carries them (a tap fd with a virtio
 * net header, or a UNIX stream with 4-byte big-endian lengths) is invisible
 * to the callers.
 */
#ifndef TAP_TAP_H
#define TAP_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Bytes reserved in front of every transmitted frame for the back-end's
 * prefix: a struct virtio_net_hdr (10 bytes) or a 4-byte length.
 */
#define TAP_HEADROOM		12

#define TAP_RX_FRAMES		32	/* frames per tap_rx() batch (tap fd) */
#define TAP_TX_ARENA		(4 << 20)	/* bytes of frames per flush */
#define TAP_TX_FRAMES		1024	/* frames per flush */
#define TAP_GSO_SEGS_MAX	64	/* segments per super-frame, at most */
#define TAP_TX_IOVS		8192	/* iovecs per flush (<= 65536) */
#define TAP_FRAME_IOV_MAX	64	/* external payload pieces per frame */
#define TAP_STREAM_RXBUF	(1 << 20)	/* passt stream receive buffer */
#define TAP_RX_MAX		2048	/* frames per batch, any back-end */

enum tap_backend {
	TAP_NONE = 0,
	TAP_DEV,	/* pasta: tap device fd, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR */
	TAP_STREAM,	/* passt: connected UNIX stream, length-prefixed frames */
	TAP_VHOST,	/* passt --vhost-user: virtio rings in guest memory */
};

/**
 * struct tap_rx_batch - Frames read by one tap_rx() call
 * @n:		Number of frames
 * @frame:	Start of each frame (Ethernet header), valid until next tap_rx()
 * @len:	Length of each frame, bytes
 * @gso:	Of each frame: UDP segment size (gso_size) of a UDP super-frame
 *		(its virtio_net_hdr says VIRTIO_NET_HDR_GSO_UDP_L4), bytes;
 *		0 for any other frame
 */
struct tap_rx_batch {
	unsigned n;
	const uint8_t *frame[TAP_RX_MAX];
	size_t len[TAP_RX_MAX];
	uint16_t gso[TAP_RX_MAX];
};

/**
 * struct tap_stats - Counters of the guest-facing side
 * @rx_frames, @rx_bytes:	Frames and bytes received from the guest
 * @tx_frames, @tx_bytes:	Frames and bytes written to the guest
 * @tx_dropped:			Frames we could not write (queue full, error)
 * @rx_bad_len:			Stream length prefixes out of range
 * @tx_short:			Stream flushes the socket took only part of
 *				(the rest waited for EPOLLOUT)
 * @tx_dropped_tagged:		Of @tx_dropped, frames whose sender was told
 *				(TCP data and FIN: SND.NXT moved back)
 * @rx_uso_bad:			UDP super-frames from the tap device with
 *				gso_size 0: dropped
 */
struct tap_stats {
	uint64_t rx_frames, rx_bytes;
	uint64_t tx_frames, tx_bytes;
	uint64_t tx_dropped;
	uint64_t rx_bad_len;
	uint64_t tx_short;
	uint64_t tx_dropped_tagged;
	uint64_t rx_uso_bad;
};

/* Called with the tag of a frame that was not written (tap_tx_tag()) */
typedef void (*tap_tx_drop_fn)(uint64_t tag);

extern struct tap_stats tap_stats;

int tap_dev_open_current_ns(const char *ifname, char *ifname_out);
int tap_dev_adopt(int fd, bool *vnet_hdr);
void tap_uso_set_off(bool off);
void tap_init(enum tap_backend be, int fd, bool vnet_hdr);
void tap_detach(void);
int tap_fd(void);
bool tap_vnet_hdr(void);
const uint8_t *tap_stream_leftover(bool tx, size_t *len);
int tap_stream_restore(bool tx, const uint8_t *p, size_t len);
enum tap_backend tap_backend(void);
bool tap_connected(void);
bool tap_csum_offload(void);
bool tap_uso_offload(void);
void tap_set_pcap(bool on);

int tap_rx(struct tap_rx_batch *b);
bool tap_rx_buffered(void);

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
uint8_t *tap_tx_space(size_t *avail);
#endif

/**
 * struct tap_tx_room - Free space of the transmit arena, from tap_tx_reserve()
 * @p:		Start of the free space: frame i goes at @p + i * slot +
 *		TAP_HEADROOM
 * @n:		Frames of the slot size asked for that fit now (bytes, and
 *		frames this flush can still take), 0 if none
 * @flushed:	tap_flush() ran to make room: frames queued before were
 *		written or dropped (drop callbacks ran, tap_tx_blocked() may
 *		have changed)
 */
struct tap_tx_room {
	uint8_t *p;
	unsigned n;
	bool flushed;
};

void tap_tx_reserve(size_t slot, unsigned want, struct tap_tx_room *room);
void tap_tx_add(uint8_t *l2, size_t len, size_t csum_start,
		size_t csum_offset);
bool tap_tx_ext_room(unsigned npay);
int tap_tx_add_ext(uint8_t *l2, size_t hlen, const struct iovec *pay,
		   unsigned npay, size_t csum_start, size_t csum_offset);
uint8_t *tap_tx_frame(size_t len);
int tap_flush(void);
bool tap_tx_pending(void);
void tap_tx_tag(uint64_t tag);
void tap_tx_drop_count(uint64_t n);
void tap_stats_print(void);
size_t tap_gso_seg(size_t hlen, size_t mss);
void tap_tx_gso(size_t mss);
void tap_tx_uso(size_t seg);
void tap_tx_set_drop_cb(tap_tx_drop_fn fn);
bool tap_tx_blocked(void);
bool tap_tx_unblock(void);

#define TAP_CSUM_DONE	0	/* @csum_start value: checksums are complete */

#endif /* TAP_TAP_H */
