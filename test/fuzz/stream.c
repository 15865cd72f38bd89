// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/stream.c - Harness: bytes on passt's QEMU stream, whole input path
 *
 * Input: what a QEMU guest writes on the UNIX stream socket: frames, each
 * preceded by its length as a 4-byte big-endian integer (possibly bogus).
 * The bytes go into a socket pair, tap_rx() splits them (the stream parser)
 * and passt_frames_input() handles each batch, so runs of frames of one
 * flow reach the TCP and UDP handlers together.  Replies are written back
 * to the stream (full checksums, as for passt) and drained.  A corrupt
 * length ends the "client" as in the daemon: the next input starts a new
 * one.  Flows persist between inputs; sockets live in an empty namespace.
 */
#include <sys/epoll.h>

#include "fuzz.h"
#include "../../passt/flow.h"
#include "../../passt/frame_input.h"
#include "../../passt/icmp.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/udp.h"
#include "../../tap/tap.h"

static struct ctx stream_ctx;
static int stream_sp[2];		/* [0]: daemon side, [1]: "QEMU" */
static struct tap_rx_batch stream_batch;
static uint8_t stream_left[65536];

/**
 * stream_setup() - Namespace, configuration, flow table, TCP, socket pair
 */
static void stream_setup(void)
{
	struct ctx *ctx = &stream_ctx;
	int sz = 1 << 20;

	fuzz_isolate_net();
	fuzz_conf(&ctx->c);
	ctx->c.mode = MODE_PASST;
	ctx->ns_fd = ctx->host_ns_fd = -1;
	if (flow_init(ctx->c.flow_max))
		abort();
	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epollfd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       stream_sp))
		abort();
	setsockopt(stream_sp[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(stream_sp[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(stream_sp[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(stream_sp[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	tcp_init(ctx);
	udp_init(ctx);
	ctx->now = 1000;
	ctx->timer_next = INT64_MAX;
}

/**
 * stream_drain() - Read and discard everything the daemon wrote
 */
static void stream_drain(void)
{
	static uint8_t buf[65536];

	while (recv(stream_sp[1], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/**
 * LLVMFuzzerTestOneInput() - One piece of stream
 * @data:	Bytes
 * @size:	Length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct ctx *ctx = &stream_ctx;
	size_t off = 0;
	int rounds;

	if (!ready) {
		stream_setup();
		ready = true;
	}

	tap_init(TAP_STREAM, stream_sp[0], false);
	for (rounds = 0; rounds < 64 && (off < size || rounds == 0); rounds++) {
		ssize_t n = 0;
		int got;

		if (off < size) {
			n = send(stream_sp[1], data + off, size - off,
				 MSG_DONTWAIT);
			if (n > 0)
				off += (size_t)n;
		}
		while ((got = tap_rx(&stream_batch)) > 0) {
			passt_frames_input(ctx, stream_batch.frame,
					   stream_batch.len, (unsigned)got);
			tap_flush();
			stream_drain();
		}
		if (got < 0)
			break;		/* corrupt stream: client dropped */
	}
	tap_flush();
	stream_drain();

	/* Leftover bytes must not leak into the next input */
	while (recv(stream_sp[0], stream_left, sizeof(stream_left),
		    MSG_DONTWAIT) > 0)
		;
	tap_detach();

	fuzz_timers(ctx);
	return 0;
}
