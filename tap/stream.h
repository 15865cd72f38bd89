/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/stream.h - Length-prefixed frame stream (passt mode, QEMU -netdev stream)
 *
 * On the UNIX stream between passt and QEMU (or libvirt's QEMU) every
 * Ethernet frame is preceded by its length, a 4-byte big-endian integer.
 * The stream knows nothing of frame boundaries: one read() may return part
 * of a frame or many frames, one write() may take part of what it is given.
 * These two small state machines keep the bookkeeping apart from the
 * syscalls, so that tap/tap.c only moves bytes and the framing can be tested
 * on its own (test/unit/stream_test.c).  Neither makes a syscall nor
 * allocates: the caller owns the buffers.
 */
#ifndef TAP_STREAM_H
#define TAP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define STREAM_LEN_SIZE		4	/* bytes of the length prefix */

/**
 * struct stream_rx - Receive side: bytes read, split into frames
 * @buf:	Buffer the caller reads into (at stream_rx_space())
 * @size:	Size of @buf, bytes; at least STREAM_LEN_SIZE + FRAME_MAX so
 *		that any valid frame fits
 * @len:	Bytes of @buf holding stream data
 * @off:	First byte of @buf not yet handed out as a frame: the start
 *		of a length prefix, or @len
 * @broken:	A bad length was seen: the stream can't be resynchronised,
 *		every later stream_rx_next() fails
 *
 * Invariant: @off <= @len <= @size.
 */
struct stream_rx {
	uint8_t *buf;
	size_t size;
	size_t len;
	size_t off;
	bool broken;
};

/**
 * struct stream_tx - Transmit side: the unwritten tail of earlier writes
 * @buf:	Pending bytes (whole prefixed frames, the first one possibly
 *		already partly written)
 * @size:	Size of @buf, bytes
 * @len:	Bytes of @buf in use
 * @off:	Bytes of @buf already written
 *
 * While @off < @len nothing new may be written to the stream before the
 * pending bytes: that would cut into the middle of a frame.
 */
struct stream_tx {
	uint8_t *buf;
	size_t size;
	size_t len;
	size_t off;
};

void stream_rx_init(struct stream_rx *s, uint8_t *buf, size_t size);
uint8_t *stream_rx_space(struct stream_rx *s, size_t *room);
void stream_rx_commit(struct stream_rx *s, size_t n);
int stream_rx_next(struct stream_rx *s, const uint8_t **frame, size_t *len);
bool stream_rx_ready(const struct stream_rx *s);

void stream_tx_init(struct stream_tx *t, uint8_t *buf, size_t size);
bool stream_tx_pending(const struct stream_tx *t);
const uint8_t *stream_tx_head(const struct stream_tx *t, size_t *len);
void stream_tx_advance(struct stream_tx *t, size_t n);
unsigned stream_tx_keep_map(struct stream_tx *t, const struct iovec *iov,
			    const uint8_t *niov, size_t n, size_t done,
			    bool *dropped);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
unsigned stream_tx_keep(struct stream_tx *t, const struct iovec *iov,
			const uint8_t *niov, size_t n, size_t done);
#endif

#endif /* TAP_STREAM_H */
