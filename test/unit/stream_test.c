// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/stream_test.c - Tests for tap/stream.c and the stream back-end
 *
 * The format is QEMU's -netdev stream (net/stream.c): every Ethernet frame
 * is preceded by its length as a 4-byte big-endian integer, with nothing
 * else on the stream.  The streams here are laid out by hand from that
 * description (put_len()), never by the code under test.  A frame is at
 * least an Ethernet header (14 bytes) and at most 65535 bytes of IP packet
 * plus that header.
 *
 * The framing state machines are driven with every split of a stream into
 * two reads, one-byte reads, all frames in one read, and bad lengths; the
 * transmit side with a socket that takes any number of bytes per write.
 * The last test case runs tap/tap.c itself over a socketpair.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "../../tap/stream.h"
#include "../../tap/tap.h"

#define MAXF	(65535 + 14)		/* largest valid frame */
#define RXSIZE	(4 + MAXF)		/* smallest buffer stream.c accepts */

static uint8_t rxbuf[1 << 20];
static uint8_t wire[1 << 20];		/* a stream laid out by a test */
static uint8_t out[1 << 20];		/* what came out of the code */

/**
 * put_len() - Write a 4-byte big-endian length, as QEMU does
 * @p:		Destination
 * @len:	Length
 */
static void put_len(uint8_t *p, uint32_t len)
{
	p[0] = (uint8_t)(len >> 24);
	p[1] = (uint8_t)(len >> 16);
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
}

/**
 * fill_frame() - Deterministic frame contents, different for each frame
 * @p:		Frame
 * @len:	Length, bytes
 * @seed:	Frame number
 */
static void fill_frame(uint8_t *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed * 31 + (i >> 8));
}

/**
 * lay_out() - Build a stream of frames with the given lengths
 * @lens:	Frame lengths
 * @n:		Number of frames
 *
 * Return: bytes of stream in @wire
 */
static size_t lay_out(const size_t *lens, unsigned n)
{
	size_t off = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		put_len(wire + off, (uint32_t)lens[i]);
		fill_frame(wire + off + 4, lens[i], i);
		off += 4 + lens[i];
	}
	return off;
}

/**
 * feed() - Copy bytes into the receive state as one read would
 * @s:		Receive state
 * @src:	Bytes
 * @len:	Count; must fit
 */
static void feed(struct stream_rx *s, const uint8_t *src, size_t len)
{
	size_t room;
	uint8_t *p = stream_rx_space(s, &room);

	ck_assert_uint_ge(room, len);
	memcpy(p, src, len);
	stream_rx_commit(s, len);
}

/**
 * drain() - Take every complete frame, check each against the expected
 * @s:		Receive state
 * @lens:	Expected lengths of all frames of the stream
 * @got:	Frames taken so far, updated
 *
 * Return: last stream_rx_next() result (0 or -EBADMSG)
 */
static int drain(struct stream_rx *s, const size_t *lens, unsigned *got)
{
	uint8_t expect[MAXF];
	const uint8_t *f;
	size_t len;
	int r;

	while ((r = stream_rx_next(s, &f, &len)) == 1) {
		ck_assert_uint_eq(len, lens[*got]);
		fill_frame(expect, len, *got);
		ck_assert_int_eq(memcmp(f, expect, len), 0);
		(*got)++;
	}
	return r;
}

static const size_t mixed[] = { 14, 60, 1514, 15, 98, 342 };

/* Every split of the stream into two reads gives the same frames */
START_TEST(test_rx_split_at_every_byte)
{
	size_t total = lay_out(mixed, ARRAY_SIZE(mixed)), cut;

	for (cut = 0; cut <= total; cut++) {
		struct stream_rx s;
		unsigned got = 0;

		stream_rx_init(&s, rxbuf, RXSIZE);
		feed(&s, wire, cut);
		ck_assert_int_eq(drain(&s, mixed, &got), 0);
		feed(&s, wire + cut, total - cut);
		ck_assert_int_eq(drain(&s, mixed, &got), 0);
		ck_assert_uint_eq(got, ARRAY_SIZE(mixed));
		ck_assert(!stream_rx_ready(&s));
	}
}
END_TEST

/* Every split into three reads, around the first two frames' prefixes */
START_TEST(test_rx_split_three_ways)
{
	static const size_t lens[] = { 14, 20, 14 };
	size_t total = lay_out(lens, 3), a, b;

	for (a = 0; a <= total; a++) {
		for (b = a; b <= total; b++) {
			struct stream_rx s;
			unsigned got = 0;

			stream_rx_init(&s, rxbuf, RXSIZE);
			feed(&s, wire, a);
			ck_assert_int_eq(drain(&s, lens, &got), 0);
			feed(&s, wire + a, b - a);
			ck_assert_int_eq(drain(&s, lens, &got), 0);
			feed(&s, wire + b, total - b);
			ck_assert_int_eq(drain(&s, lens, &got), 0);
			ck_assert_uint_eq(got, 3);
		}
	}
}
END_TEST

/* One byte per read: a frame comes out exactly when its last byte is in */
START_TEST(test_rx_one_byte_reads)
{
	size_t total = lay_out(mixed, ARRAY_SIZE(mixed)), i, end = 0;
	struct stream_rx s;
	unsigned got = 0;

	stream_rx_init(&s, rxbuf, RXSIZE);
	for (i = 0; i < total; i++) {
		unsigned before = got;

		if (got < ARRAY_SIZE(mixed) && i == end)
			end += 4 + mixed[got];
		feed(&s, wire + i, 1);
		ck_assert_int_eq(stream_rx_ready(&s), i + 1 == end);
		ck_assert_int_eq(drain(&s, mixed, &got), 0);
		ck_assert_uint_eq(got, before + (i + 1 == end));
	}
	ck_assert_uint_eq(got, ARRAY_SIZE(mixed));
}
END_TEST

/* Many frames in one read, taken one by one */
START_TEST(test_rx_many_frames_one_read)
{
	static size_t lens[1000];
	struct stream_rx s;
	unsigned got = 0, i;
	size_t total;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		lens[i] = 14 + (i * 13) % 200;
	total = lay_out(lens, ARRAY_SIZE(lens));

	stream_rx_init(&s, rxbuf, sizeof(rxbuf));
	feed(&s, wire, total);
	ck_assert_int_eq(drain(&s, lens, &got), 0);
	ck_assert_uint_eq(got, ARRAY_SIZE(lens));
}
END_TEST

/* Largest frames through the smallest buffer, in reads of odd sizes: the
 * tail of each read is moved to the front and the next frame still fits
 */
START_TEST(test_rx_max_frames_small_buffer)
{
	static const size_t lens[] = { MAXF, 14, MAXF, MAXF, 60, MAXF };
	size_t total = lay_out(lens, ARRAY_SIZE(lens)), off = 0;
	struct stream_rx s;
	unsigned got = 0;

	stream_rx_init(&s, rxbuf, RXSIZE);
	while (off < total) {
		size_t room, n;
		uint8_t *p = stream_rx_space(&s, &room);

		ck_assert_uint_gt(room, 0);
		n = MIN(MIN(room, (size_t)40009), total - off);
		memcpy(p, wire + off, n);
		stream_rx_commit(&s, n);
		off += n;
		ck_assert_int_eq(drain(&s, lens, &got), 0);
	}
	ck_assert_uint_eq(got, ARRAY_SIZE(lens));
}
END_TEST

/* Lengths at the limits: 14 and 65549 pass, 0, 13, 65550, 2^32 - 1 don't;
 * the frames before a bad length still come out, nothing after it
 */
START_TEST(test_rx_bad_lengths)
{
	static const uint32_t bad[] = { 0, 1, 13, MAXF + 1, 0x10000 + 14 + 1,
					0x7fffffff, 0xffffffff };
	static const size_t ok[] = { 14, MAXF };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t total = lay_out(ok, 2), k;
		struct stream_rx s;
		const uint8_t *f;
		unsigned got = 0;
		size_t len;

		put_len(wire + total, bad[i]);
		memset(wire + total + 4, 0xaa, 100);	/* would-be payload */
		total += 104;

		stream_rx_init(&s, rxbuf, RXSIZE);
		/* Two good frames, then the bad prefix one byte at a time */
		feed(&s, wire, 4 + 14);
		ck_assert_int_eq(drain(&s, ok, &got), 0);
		feed(&s, wire + 4 + 14, total - 104 - 4 - 14);
		ck_assert_int_eq(drain(&s, ok, &got), 0);
		ck_assert_uint_eq(got, 2);
		for (k = 0; k < 3; k++) {
			feed(&s, wire + total - 104 + k, 1);
			ck_assert(!stream_rx_ready(&s));
			ck_assert_int_eq(stream_rx_next(&s, &f, &len), 0);
		}
		feed(&s, wire + total - 101, 101);
		ck_assert(stream_rx_ready(&s));
		ck_assert_int_eq(stream_rx_next(&s, &f, &len), -EBADMSG);
		/* Sticky: no resynchronisation on later bytes */
		ck_assert_int_eq(stream_rx_next(&s, &f, &len), -EBADMSG);
		ck_assert(stream_rx_ready(&s));
	}
}
END_TEST

/* A bad length as the very first thing on the stream */
START_TEST(test_rx_bad_first)
{
	static const uint8_t zero[] = { 0, 0, 0, 0, 1, 2, 3 };
	struct stream_rx s;
	const uint8_t *f;
	size_t len;

	stream_rx_init(&s, rxbuf, RXSIZE);
	feed(&s, zero, sizeof(zero));
	ck_assert_int_eq(stream_rx_next(&s, &f, &len), -EBADMSG);
}
END_TEST

/**
 * tx_batch() - Lay out prefixed frames as iovecs, as tap.c hands them over
 * @lens:	Frame lengths
 * @n:		Number of frames
 * @iov:	Filled, one entry per frame (prefix included), pointing in @wire
 *
 * Return: total bytes
 */
static size_t tx_batch(const size_t *lens, unsigned n, struct iovec *iov)
{
	size_t total = lay_out(lens, n), off = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		iov[i].iov_base = wire + off;
		iov[i].iov_len = 4 + lens[i];
		off += iov[i].iov_len;
	}
	return total;
}

/* A socket that takes k bytes of the batch, for every k: what it took plus
 * the pending bytes, written later, is exactly the batch
 */
START_TEST(test_tx_short_write_every_byte)
{
	static uint8_t pend[RXSIZE * 2];
	struct iovec iov[ARRAY_SIZE(mixed)];
	size_t total = tx_batch(mixed, ARRAY_SIZE(mixed), iov), k;

	for (k = 0; k < total; k++) {
		const uint8_t *p;
		struct stream_tx t;
		size_t len;

		stream_tx_init(&t, pend, sizeof(pend));
		memcpy(out, wire, k);		/* what the socket took */
		ck_assert_uint_eq(stream_tx_keep(&t, iov, NULL,
						 ARRAY_SIZE(mixed), k), 0);
		ck_assert_int_eq(stream_tx_pending(&t), 1);
		p = stream_tx_head(&t, &len);
		ck_assert_uint_eq(k + len, total);
		memcpy(out + k, p, len);
		ck_assert_int_eq(memcmp(out, wire, total), 0);
		stream_tx_advance(&t, len);
		ck_assert_int_eq(stream_tx_pending(&t), 0);
	}
}
END_TEST

/* The pending bytes drain in pieces of any size, and a batch queued while
 * they are pending (done = 0) comes after them, in order
 */
START_TEST(test_tx_pending_then_new_batch)
{
	static uint8_t pend[RXSIZE * 4];
	static const size_t second[] = { 100, 14, 1500 };
	struct iovec iov[ARRAY_SIZE(mixed)], iov2[ARRAY_SIZE(second)];
	size_t total1, total2, step;
	static uint8_t expect[8192];

	for (step = 1; step < 200; step += 7) {
		size_t k = 1000, outlen, len;
		struct stream_tx t;

		total1 = tx_batch(mixed, ARRAY_SIZE(mixed), iov);
		memcpy(expect, wire, total1);
		stream_tx_init(&t, pend, sizeof(pend));
		stream_tx_keep(&t, iov, NULL, ARRAY_SIZE(mixed), k);
		memcpy(out, wire, k);
		outlen = k;

		/* One piece of the tail goes, then a second batch arrives */
		memcpy(out + outlen, stream_tx_head(&t, &len), step);
		ck_assert_uint_ge(len, step);
		stream_tx_advance(&t, step);
		outlen += step;

		/* Second batch: built over @wire, so keep its bytes aside */
		total2 = lay_out(second, ARRAY_SIZE(second));
		memmove(wire + total1, wire, total2);
		memcpy(expect + total1, wire + total1, total2);
		{
			size_t off = total1;
			unsigned i;

			for (i = 0; i < ARRAY_SIZE(second); i++) {
				iov2[i].iov_base = wire + off;
				iov2[i].iov_len = 4 + second[i];
				off += iov2[i].iov_len;
			}
		}
		ck_assert_uint_eq(stream_tx_keep(&t, iov2, NULL,
						 ARRAY_SIZE(second), 0), 0);

		while (stream_tx_pending(&t)) {
			const uint8_t *p = stream_tx_head(&t, &len);

			len = MIN(len, step);
			memcpy(out + outlen, p, len);
			stream_tx_advance(&t, len);
			outlen += len;
		}
		ck_assert_uint_eq(outlen, total1 + total2);
		ck_assert_int_eq(memcmp(out, expect, outlen), 0);
	}
}
END_TEST

/* Frames made of several iovecs (headers, then payload kept elsewhere, as
 * tap_tx_add_ext() queues them): a short write at every byte keeps exactly
 * the rest of the stream
 */
START_TEST(test_tx_short_write_gathered_frames)
{
	static uint8_t pend[RXSIZE * 2];
	static const uint8_t niov[] = { 1, 3, 2, 1 };
	static const size_t lens[] = { 60, 1514, 300, 14 };
	struct iovec iov[7];
	size_t total = lay_out(lens, ARRAY_SIZE(lens)), k, off = 0;
	unsigned f, j, n = 0;

	/* Cut each frame (prefix included) into niov[f] pieces */
	for (f = 0; f < ARRAY_SIZE(lens); f++) {
		size_t flen = 4 + lens[f], piece = flen / niov[f];

		for (j = 0; j < niov[f]; j++, n++) {
			iov[n].iov_base = wire + off + j * piece;
			iov[n].iov_len = j + 1 < niov[f] ? piece :
						flen - j * piece;
		}
		off += flen;
	}
	ck_assert_uint_eq(off, total);

	for (k = 0; k < total; k++) {
		struct stream_tx t;
		const uint8_t *p;
		size_t len;

		stream_tx_init(&t, pend, sizeof(pend));
		ck_assert_uint_eq(stream_tx_keep(&t, iov, niov,
						 ARRAY_SIZE(lens), k), 0);
		p = stream_tx_head(&t, &len);
		ck_assert_uint_eq(k + len, total);
		ck_assert_int_eq(memcmp(p, wire + k, len), 0);
	}
}
END_TEST

/**
 * check_frames() - Is a byte stream a sequence of whole frames laid out by
 *		    lay_out(), a subsequence of @lens in order?
 * @p:		Stream
 * @total:	Bytes
 * @lens:	Lengths of the frames offered
 * @n:		Number of frames offered
 *
 * Return: frames found
 */
static unsigned check_frames(const uint8_t *p, size_t total, const size_t *lens,
			     unsigned n)
{
	static uint8_t expect[MAXF];
	unsigned found = 0, next = 0;
	size_t off = 0;

	while (off < total) {
		size_t len;

		ck_assert_uint_ge(total - off, 4);
		len = (size_t)p[off] << 24 | (size_t)p[off + 1] << 16 |
		      (size_t)p[off + 2] << 8 | p[off + 3];
		ck_assert_uint_ge(total - off - 4, len);
		/* Find the frame it is: same length and contents, later */
		for (; next < n; next++) {
			if (lens[next] != len)
				continue;
			fill_frame(expect, len, next);
			if (!memcmp(p + off + 4, expect, len))
				break;
		}
		ck_assert_uint_lt(next, n);
		next++;
		found++;
		off += 4 + len;
	}
	return found;
}

/* Pending buffer full: frames not started are dropped whole, the one cut by
 * the short write is kept whole, the result is valid framing, in order
 */
START_TEST(test_tx_full_drops_whole_frames)
{
	static uint8_t pend[RXSIZE];
	static const size_t lens[] = { 1514, MAXF, 60, MAXF, 14, 9000 };
	struct iovec iov[ARRAY_SIZE(lens)];
	size_t total = tx_batch(lens, ARRAY_SIZE(lens), iov), k;

	for (k = 0; k < total; k += 997) {
		struct stream_tx t;
		const uint8_t *p;
		unsigned dropped;
		size_t len;

		stream_tx_init(&t, pend, sizeof(pend));
		dropped = stream_tx_keep(&t, iov, NULL, ARRAY_SIZE(lens), k);
		p = stream_tx_head(&t, &len);

		memcpy(out, wire, k);
		memcpy(out + k, p, len);
		ck_assert_uint_eq(check_frames(out, k + len, lens,
					       ARRAY_SIZE(lens)) + dropped,
				  ARRAY_SIZE(lens));
	}
}
END_TEST

/**
 * set_sndbuf() - Small send buffer so that writes come up short
 * @fd:		Socket
 */
static void set_sndbuf(int fd)
{
	int v = 4096;

	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)),
			 0);
}

/* tap.c over a socketpair: frames written by the peer split at every byte
 * arrive whole through tap_rx()
 */
START_TEST(test_tap_rx_socketpair_split)
{
	size_t total = lay_out(mixed, ARRAY_SIZE(mixed)), cut;
	static struct tap_rx_batch b;

	for (cut = 1; cut < total; cut += 3) {
		unsigned got = 0, i;
		int sv[2];

		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM |
					    SOCK_NONBLOCK, 0, sv), 0);
		tap_init(TAP_STREAM, sv[0], false);

		ck_assert_int_eq(write(sv[1], wire, cut), (ssize_t)cut);
		while (tap_rx(&b) > 0) {
			for (i = 0; i < b.n; i++, got++) {
				uint8_t expect[2000];

				ck_assert_uint_eq(b.len[i], mixed[got]);
				fill_frame(expect, b.len[i], got);
				ck_assert_int_eq(memcmp(b.frame[i], expect,
							b.len[i]), 0);
			}
		}
		ck_assert_int_eq(write(sv[1], wire + cut, total - cut),
				 (ssize_t)(total - cut));
		while (tap_rx(&b) > 0)
			got += b.n;
		ck_assert_uint_eq(got, ARRAY_SIZE(mixed));
		ck_assert(!tap_rx_buffered());

		close(sv[1]);
		ck_assert_int_eq(tap_rx(&b), -EPIPE);
		tap_detach();
		close(sv[0]);
	}
}
END_TEST

/* tap.c: a bad length from the peer is -EBADMSG, after the good frames */
START_TEST(test_tap_rx_socketpair_bad_length)
{
	static struct tap_rx_batch b;
	static const size_t one[] = { 60 };
	size_t total = lay_out(one, 1);
	int sv[2];

	put_len(wire + total, 70000);
	total += 4;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	tap_init(TAP_STREAM, sv[0], false);
	ck_assert_int_eq(write(sv[1], wire, total), (ssize_t)total);
	ck_assert_int_eq(tap_rx(&b), 1);
	ck_assert_uint_eq(b.len[0], 60);
	ck_assert_int_eq(tap_rx(&b), -EBADMSG);
	tap_detach();
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* tap.c: more frames than the socket takes; the peer reads slowly, we flush
 * on each "EPOLLOUT"; every frame arrives once, whole, in order
 */
START_TEST(test_tap_tx_socketpair_short_writes)
{
	unsigned queued = 0, i, rounds;
	static size_t lens[3000];
	size_t got = 0;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	set_sndbuf(sv[0]);
	tap_init(TAP_STREAM, sv[0], false);

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		lens[i] = 14 + (i * 37) % 1500;

	/* Queue in batches of 100 with a read of the peer in between */
	for (rounds = 0; rounds < 100000 && (queued < ARRAY_SIZE(lens) ||
					     tap_tx_pending()); rounds++) {
		ssize_t n;

		for (i = 0; i < 100 && queued < ARRAY_SIZE(lens) &&
			    !tap_tx_pending(); i++, queued++) {
			uint8_t *l2 = tap_tx_frame(lens[queued]);

			ck_assert_ptr_nonnull(l2);
			fill_frame(l2, lens[queued], queued);
		}
		ck_assert_int_eq(tap_flush(), 0);

		n = read(sv[1], out + got, MIN(sizeof(out) - got,
					       (size_t)(1 + rounds % 3000)));
		if (n > 0)
			got += (size_t)n;
		if (got > sizeof(out) / 2) {
			/* Check and discard what we have so far, whole
			 * frames only
			 */
			size_t off = 0;

			while (got - off >= 4) {
				size_t l = (size_t)out[off] << 24 |
					   (size_t)out[off + 1] << 16 |
					   (size_t)out[off + 2] << 8 |
					   out[off + 3];
				if (got - off - 4 < l)
					break;
				off += 4 + l;
			}
			ck_assert_uint_gt(off, 0);
			memmove(out, out + off, got - off);
			got -= off;
		}
	}
	for (;;) {
		ssize_t n = read(sv[1], out + got, sizeof(out) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	ck_assert_uint_eq(queued, ARRAY_SIZE(lens));
	ck_assert(!tap_tx_pending());
	ck_assert_uint_eq(tap_stats.tx_dropped, 0);
	tap_detach();
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Same, but the frames are checked in full: one batch, slow reader */
START_TEST(test_tap_tx_socketpair_order)
{
	static size_t lens[500];
	unsigned i, rounds;
	size_t got = 0;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	set_sndbuf(sv[0]);
	tap_init(TAP_STREAM, sv[0], false);

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		uint8_t *l2;

		lens[i] = 60 + (i * 53) % 1200;	/* no runts: padded */
		l2 = tap_tx_frame(lens[i]);
		ck_assert_ptr_nonnull(l2);
		fill_frame(l2, lens[i], i);
	}
	ck_assert_int_eq(tap_flush(), 0);
	ck_assert(tap_tx_pending());

	for (rounds = 0; rounds < 100000; rounds++) {
		ssize_t n = read(sv[1], out + got,
				 MIN(sizeof(out) - got, (size_t)777));

		if (n > 0)
			got += (size_t)n;
		if (!tap_tx_pending() && n <= 0)
			break;
		ck_assert_int_eq(tap_flush(), 0);	/* on EPOLLOUT */
	}
	ck_assert_uint_eq(check_frames(out, got, lens, ARRAY_SIZE(lens)),
			  ARRAY_SIZE(lens));
	tap_detach();
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/**
 * stream_suite() - All stream framing tests
 *
 * Return: the suite
 */
static Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc;

	tc = tcase_create("rx");
	tcase_add_test(tc, test_rx_split_at_every_byte);
	tcase_add_test(tc, test_rx_split_three_ways);
	tcase_add_test(tc, test_rx_one_byte_reads);
	tcase_add_test(tc, test_rx_many_frames_one_read);
	tcase_add_test(tc, test_rx_max_frames_small_buffer);
	tcase_add_test(tc, test_rx_bad_lengths);
	tcase_add_test(tc, test_rx_bad_first);
	suite_add_tcase(s, tc);

	tc = tcase_create("tx");
	tcase_add_test(tc, test_tx_short_write_every_byte);
	tcase_add_test(tc, test_tx_short_write_gathered_frames);
	tcase_add_test(tc, test_tx_pending_then_new_batch);
	tcase_add_test(tc, test_tx_full_drops_whole_frames);
	suite_add_tcase(s, tc);

	tc = tcase_create("tap");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tap_rx_socketpair_split);
	tcase_add_test(tc, test_tap_rx_socketpair_bad_length);
	tcase_add_test(tc, test_tap_tx_socketpair_short_writes);
	tcase_add_test(tc, test_tap_tx_socketpair_order);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
