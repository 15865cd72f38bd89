/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp.h - UDP translation
 */
#ifndef PASST_UDP_H
#define PASST_UDP_H

#include <stdbool.h>
#include <stdint.h>

#include "../tap/frame.h"
#include "epoll_ref.h"

/**
 * struct udp_stats - Counters of UDP (--stats, SIGUSR1)
 */
struct udp_stats {
	uint64_t flows_opened, dgrams_to_tap, dgrams_from_tap;
	uint64_t too_big, refused_full;
	uint64_t evicted_answered, evicted_unanswered;
	uint64_t uso_frames;
	uint64_t gro_dgrams;	/* datagrams read in super-datagrams (UDP_GRO) */
	uint64_t gso_from_tap;	/* UDP super-frames from the guest */
	uint64_t gso_fallback;	/* of those, cut here: no UDP_SEGMENT */
	uint64_t gso_bad;	/* super-frames with too many segments: dropped */
	uint64_t no_source;	/* host peer with no address to show: dropped */
	uint64_t gso_splice;	/* spliced super-datagrams sent whole (UDP_SEGMENT) */
	uint64_t gso_splice_cut; /* spliced super-datagrams sent one datagram each */
};

/**
 * enum udp_count - Counters of struct udp_stats that udp_mcast.c adds to,
 *		    through udp_count(): udp.c owns them
 */
enum udp_count {
	UDP_COUNT_DGRAMS_TO_TAP,
	UDP_COUNT_TOO_BIG,
	UDP_COUNT_NO_SOURCE,
};

void udp_count(enum udp_count what, uint64_t n);

struct ctx;

void udp_flow_register(void);
void udp_init(struct ctx *ctx);
unsigned udp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void udp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
#endif
void udp_listen_handler(struct ctx *ctx, union epoll_ref ref,
			uint32_t events);
void udp_listen_closing(struct ctx *ctx, int s);

#endif /* PASST_UDP_H */
