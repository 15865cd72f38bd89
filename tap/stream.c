// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/stream.c - Framing of the passt UNIX stream: 4-byte big-endian lengths
 *
 * Receive: the caller reads whatever the socket has into stream_rx_space(),
 * reports it with stream_rx_commit(), then takes complete frames with
 * stream_rx_next() until it returns 0.  A frame cut by the end of a read
 * stays in the buffer and is moved to its front on the next
 * stream_rx_space(), so a frame split at any byte, or many frames in one
 * read, come out the same.  A length below an Ethernet header (zero
 * included) or above FRAME_MAX can't be skipped (we would lose track of
 * where the next frame starts): the stream is marked broken and the caller
 * drops the connection.
 *
 * Transmit: the caller writes a batch of prefixed frames with one
 * sendmsg(); if the socket takes only part of it, stream_tx_keep() copies
 * the rest, in order, to the pending buffer, and from then on the caller
 * writes stream_tx_head() first, whenever the socket is writable again,
 * before anything new.  A frame that was partly written is always kept
 * whole (the peer would otherwise read the next frame's bytes as the rest of
 * it); frames not yet started are dropped, whole, if the buffer is full.
 */
#include <errno.h>
#include <string.h>

#include "../lib/eth.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "stream.h"

/**
 * stream_rx_init() - Start a receive stream with an empty buffer
 * @s:		Receive state
 * @buf:	Caller's buffer
 * @size:	Size of @buf, bytes: at least STREAM_LEN_SIZE + FRAME_MAX
 */
void stream_rx_init(struct stream_rx *s, uint8_t *buf, size_t size)
{
	ASSERT(size >= STREAM_LEN_SIZE + FRAME_MAX);
	s->buf = buf;
	s->size = size;
	s->len = s->off = 0;
	s->broken = false;
}

/**
 * stream_rx_space() - Where to read the next bytes of the stream
 * @s:		Receive state
 * @room:	Set to the bytes free from the returned pointer (0 only if
 *		the buffer is full of complete frames not yet taken)
 *
 * Moves the unconsumed tail (a partial frame, or frames not yet taken) to
 * the front of the buffer first: frames returned by stream_rx_next() before
 * this call are no longer valid after it.
 *
 * Return: pointer to the free space
 */
uint8_t *stream_rx_space(struct stream_rx *s, size_t *room)
{
	if (s->off) {
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	*room = s->size - s->len;
	return s->buf + s->len;
}

/**
 * stream_rx_commit() - Account for bytes read into stream_rx_space()
 * @s:		Receive state
 * @n:		Bytes read, at most the room stream_rx_space() gave
 */
void stream_rx_commit(struct stream_rx *s, size_t n)
{
	ASSERT(n <= s->size - s->len);
	s->len += n;
}

/**
 * stream_rx_frame_len() - Length prefix at the read position, checked
 * @s:		Receive state, with at least STREAM_LEN_SIZE bytes unconsumed
 * @len:	Set to the frame length, bytes
 *
 * Return: 0 if the length is valid (ETH_HLEN to FRAME_MAX), -EBADMSG if not
 */
static int stream_rx_frame_len(const struct stream_rx *s, size_t *len)
{
	*len = get_be32(s->buf + s->off);
	if (*len < ETH_HLEN || *len > FRAME_MAX)
		return -EBADMSG;
	return 0;
}

/**
 * stream_rx_next() - Take the next complete frame from the buffer
 * @s:		Receive state
 * @frame:	Set to the Ethernet header of the frame, inside the buffer;
 *		valid until the next stream_rx_space()
 * @len:	Set to the frame length, bytes (without the prefix)
 *
 * Return: 1 if a frame was taken, 0 if more bytes are needed for one,
 *	   -EBADMSG if the stream carries a bad length (now and ever after)
 */
int stream_rx_next(struct stream_rx *s, const uint8_t **frame, size_t *len)
{
	size_t l;

	if (s->broken)
		return -EBADMSG;
	if (s->len - s->off < STREAM_LEN_SIZE)
		return 0;
	if (stream_rx_frame_len(s, &l)) {
		s->broken = true;
		return -EBADMSG;
	}
	if (s->len - s->off - STREAM_LEN_SIZE < l)
		return 0;

	*frame = s->buf + s->off + STREAM_LEN_SIZE;
	*len = l;
	s->off += STREAM_LEN_SIZE + l;
	return 1;
}

/**
 * stream_rx_ready() - Would stream_rx_next() return something without a read?
 * @s:		Receive state
 *
 * Return: true if a complete frame, or a bad length, is waiting
 */
bool stream_rx_ready(const struct stream_rx *s)
{
	size_t l;

	if (s->broken)
		return true;
	if (s->len - s->off < STREAM_LEN_SIZE)
		return false;
	if (stream_rx_frame_len(s, &l))
		return true;
	return s->len - s->off - STREAM_LEN_SIZE >= l;
}

/**
 * stream_tx_init() - Start a transmit stream with nothing pending
 * @t:		Transmit state
 * @buf:	Caller's pending buffer
 * @size:	Size of @buf, bytes: at least STREAM_LEN_SIZE + FRAME_MAX so
 *		that a partly written frame always fits
 */
void stream_tx_init(struct stream_tx *t, uint8_t *buf, size_t size)
{
	ASSERT(size >= STREAM_LEN_SIZE + FRAME_MAX);
	t->buf = buf;
	t->size = size;
	t->len = t->off = 0;
}

/**
 * stream_tx_pending() - Are bytes of earlier writes still unwritten?
 * @t:		Transmit state
 *
 * Return: true if stream_tx_head() must be written before anything new
 */
bool stream_tx_pending(const struct stream_tx *t)
{
	return t->off < t->len;
}

/**
 * stream_tx_head() - Pending bytes to write next
 * @t:		Transmit state
 * @len:	Set to their count, 0 if nothing is pending
 *
 * Return: pointer to the first unwritten byte
 */
const uint8_t *stream_tx_head(const struct stream_tx *t, size_t *len)
{
	*len = t->len - t->off;
	return t->buf + t->off;
}

/**
 * stream_tx_advance() - Account for pending bytes written
 * @t:		Transmit state
 * @n:		Bytes of stream_tx_head() the socket took
 */
void stream_tx_advance(struct stream_tx *t, size_t n)
{
	ASSERT(n <= t->len - t->off);
	t->off += n;
	if (t->off == t->len)
		t->len = t->off = 0;
}

/**
 * stream_tx_keep() - Keep the unwritten part of a batch, in order
 * @t:		Transmit state
 * @iov:	The batch: frame after frame, each one or more iovecs, the
 *		first starting with the length prefix
 * @niov:	iovecs of each frame, NULL if every frame is one iovec
 * @n:		Number of frames
 * @done:	Bytes of the batch the socket took, from the start of @iov[0];
 *		if non-zero, nothing may have been pending before the write
 *		(stream_tx_pending() false), else the batch overtook it
 *
 * Context: after a short sendmsg() of @iov, or instead of one while
 *	    stream_tx_pending() (then @done is 0)
 * Return: whole frames dropped because the pending buffer was full
 */
VISIBLE_IF_UNIT
unsigned stream_tx_keep(struct stream_tx *t, const struct iovec *iov,
			const uint8_t *niov, size_t n, size_t done)
{
	return stream_tx_keep_map(t, iov, niov, n, done, NULL);
}

/**
 * stream_tx_keep_map() - stream_tx_keep(), telling which frames were dropped
 * @t:		Transmit state
 * @iov:	The batch, as for stream_tx_keep()
 * @niov:	iovecs of each frame, NULL if every frame is one iovec
 * @n:		Number of frames
 * @done:	Bytes of the batch the socket took, as for stream_tx_keep()
 * @dropped:	If not NULL, @n entries: set true for each frame dropped
 *		because the pending buffer was full, false otherwise
 *
 * Context: as stream_tx_keep()
 * Return: whole frames dropped
 */
unsigned stream_tx_keep_map(struct stream_tx *t, const struct iovec *iov,
			    const uint8_t *niov, size_t n, size_t done,
			    bool *dropped)
{
	const struct iovec *v = iov;
	unsigned ndrop = 0;
	size_t i, j, k = 0;

	ASSERT(!done || !stream_tx_pending(t));

	if (t->off) {
		memmove(t->buf, t->buf + t->off, t->len - t->off);
		t->len -= t->off;
		t->off = 0;
	}

	for (i = 0; i < n; i++, v += k) {	/* v: first iovec of frame i */
		size_t flen = 0, skip;

		k = niov ? niov[i] : 1;
		for (j = 0; j < k; j++)
			flen += v[j].iov_len;
		if (dropped)
			dropped[i] = false;

		if (done >= flen) {
			done -= flen;
			continue;
		}
		skip = done;
		done = 0;

		if (t->size - t->len < flen - skip) {
			/* A started frame must go out whole: it always fits,
			 * as the buffer was empty and holds any frame
			 */
			ASSERT(!skip);
			ndrop++;
			if (dropped)
				dropped[i] = true;
			continue;
		}
		for (j = 0; j < k; j++) {
			size_t l = v[j].iov_len;

			if (skip >= l) {
				skip -= l;
				continue;
			}
			memcpy(t->buf + t->len,
			       (const uint8_t *)v[j].iov_base + skip, l - skip);
			t->len += l - skip;
			skip = 0;
		}
	}
	return ndrop;
}
