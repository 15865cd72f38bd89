// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/frame.c - Harness: one frame from the guest, the whole input path
 *
 * Input: one Ethernet frame, as read from the tap device.  It goes through
 * passt_frames_input() (frame_parse(), address learning, ARP/DHCP/NDP/
 * DHCPv6, TCP, UDP and ICMP handlers), then whatever the daemon queued for
 * the guest is flushed to /dev/null, and the flow timers run on a clock
 * that advances 100 ms per input.  Flows persist from one input to the
 * next, as in the daemon; sockets are made in an empty network namespace.
 */
#include <sys/epoll.h>

#include "../../lib/eth.h"
#include "fuzz.h"
#include "../../passt/flow.h"
#include "../../passt/frame_input.h"
#include "../../passt/icmp.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/udp.h"
#include "../../tap/tap.h"

static struct ctx frame_ctx;

/**
 * frame_setup() - Namespace, configuration, flow table, TCP, tap to /dev/null
 */
static void frame_setup(void)
{
	struct ctx *ctx = &frame_ctx;
	int null;

	fuzz_isolate_net();
	fuzz_conf(&ctx->c);
	ctx->ns_fd = ctx->host_ns_fd = -1;
	if (flow_init(ctx->c.flow_max))
		abort();
	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (ctx->epollfd < 0 || null < 0)
		abort();
	tcp_init(ctx);
	udp_init(ctx);
	tap_init(TAP_DEV, null, true);
	ctx->now = 1000;
	ctx->timer_next = INT64_MAX;
}

/**
 * LLVMFuzzerTestOneInput() - One frame
 * @data:	Frame
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	const uint8_t *frame = data;

	if (!ready) {
		frame_setup();
		ready = true;
	}
	if (size > FRAME_MAX)
		return 0;	/* the tap device never returns more */

	passt_frames_input(&frame_ctx, &frame, &size, 1);
	tap_flush();
	fuzz_timers(&frame_ctx);
	tap_flush();
	return 0;
}
