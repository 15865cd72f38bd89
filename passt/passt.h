/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/passt.h - Run-time context shared by the core modules
 */
#ifndef PASST_PASST_H
#define PASST_PASST_H

#include <stdbool.h>
#include <stdint.h>

#include "../conf/conf.h"
#include "../tap/frame.h"

/**
 * struct ctx - Everything the core needs at run time
 * @c:		Configuration (read only after set-up, but for learnt fields)
 * @epollfd:	The one epoll instance of the main loop
 * @now:	CLOCK_MONOTONIC time of the current wake-up, ms
 * @timer_next:	Earliest pending deadline of any flow, ms (INT64_MAX: none)
 * @ns_fd:	pasta: fd of the target network namespace, else -1
 * @host_ns_fd:	pasta: fd of the network namespace we started in, else -1
 * @quit:	Set by signal handling: leave the loop (after the drain)
 * @quit_now:	A second signal while draining: leave at once
 * @draining:	The loop is draining connections before it exits
 * @drain_soft:	Draining: connections still open then are aborted once
 *		the host peer has ACKed everything we ACKed, ms
 * @drain_hard:	Draining: everything still open then is reset, ms
 * @exit_status: Exit status to use when quitting
 */
struct ctx {
	struct conf c;
	int epollfd;
	int64_t now;
	int64_t timer_next;
	int ns_fd;
	int host_ns_fd;
	bool quit;
	bool quit_now;
	bool draining;
	int64_t drain_soft;
	int64_t drain_hard;
	int exit_status;
};

/**
 * struct passt_stats - Counters of the core, dumped by --stats / SIGUSR1
 */
struct passt_stats {
	uint64_t frames_dropped[FD_COUNT];
	uint64_t frames_unhandled;	/* valid frames no handler wanted */
	uint64_t tcp_flows_opened, tcp_flows_closed;
	uint64_t tcp_refused_full;	/* new connections refused: table full */
	uint64_t tcp_rst_to_tap, tcp_rst_to_sock;
	uint64_t tcp_retrans, tcp_fast_retrans, tcp_rto;
	uint64_t tcp_bytes_to_tap, tcp_bytes_from_tap;
	uint64_t tcp_partial_send;	/* host socket took less than offered */
	uint64_t tcp_bad_opts;		/* segments with malformed options */
	uint64_t tcp_ooo;		/* out-of-order segments dropped */
	uint64_t tcp_tap_dropped;	/* our segments the tap didn't take */
	uint64_t tcp_tap_waits;		/* turns a flow waited for the tap */
	uint64_t tcp_synack_rexmit;	/* SYN-ACK again: resent from SND.UNA */
	uint64_t tcp_drained;		/* closed cleanly while exiting */
	uint64_t tcp_orphan_rst;	/* reset at exit, host peer had all */
	uint64_t tcp_orphan_timeout;	/* reset at exit, host peer hadn't */
	uint64_t splice_flows_opened, splice_flows_closed, splice_bytes;
	uint64_t splice_resets;		/* spliced connections ended by RST */
	uint64_t splice_connect_failed;	/* refused or timed-out connect() */
	uint64_t udp_flows_opened, udp_dgrams_to_tap, udp_dgrams_from_tap;
	uint64_t udp_too_big, udp_refused_full, udp_evicted;
	uint64_t icmp_echo_to_host, icmp_echo_from_host;
	uint64_t flow_refused_nofile;
	uint64_t devmem_bytes;		/* payload read as dma-buf fragments */
	uint64_t devmem_linear_bytes;	/* SCM_DEVMEM_LINEAR bytes */
	uint64_t devmem_copied_bytes;	/* devmem reads without devmem data */
	uint64_t devmem_tokens_held;	/* fragment tokens held now */
	uint64_t devmem_tokens_returned;
	uint64_t devmem_dontneed_calls;	/* SO_DEVMEM_DONTNEED calls */
	uint64_t devmem_waits;		/* devmem data behind peeked bytes */
	uint64_t devmem_store_full;	/* reads put off: piece store full */
};

extern struct passt_stats stats;

void timer_want(struct ctx *ctx, int64_t at);
void stats_dump(void);
void signals_block_early(void);
void signals_unblock_child(void);

#endif /* PASST_PASST_H */
