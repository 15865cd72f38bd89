/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp.h - TCP translation between guest segments and host sockets
 */
#ifndef PASST_TCP_H
#define PASST_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "../tap/frame.h"
#include "epoll_ref.h"

/**
 * struct tcp_stats - Counters of the tap-side TCP path (--stats, SIGUSR1)
 */
struct tcp_stats {
	uint64_t flows_opened, flows_closed;
	uint64_t rst_to_tap, rst_to_sock;
	uint64_t retrans, fast_retrans, rto;
	uint64_t bytes_to_tap, bytes_from_tap;
	uint64_t partial_send;		/* host socket took less than offered */
	uint64_t bad_opts;		/* segments with malformed options */
	uint64_t ooo;			/* out-of-order segments dropped */
	uint64_t tap_dropped;		/* our segments the tap didn't take */
	uint64_t tap_waits;		/* turns a flow waited for the tap */
	uint64_t synack_rexmit;		/* SYN-ACK again: resent from SND.UNA */
	uint64_t drained;		/* closed cleanly while exiting */
	uint64_t orphan_rst;		/* reset at exit, host peer had all */
	uint64_t refused_no_source;	/* host peer with no address to show */
	uint64_t orphan_timeout;	/* reset at exit, host peer hadn't */
	uint64_t wnd_read;		/* windows from SO_MEMINFO */
	uint64_t wnd_kept;		/* ACKs that kept the right edge */
};

extern struct tcp_stats tcp_stats;

/**
 * enum tcp_count - Counters of struct tcp_stats that the other files of
 *		    the TCP path (tcp_buf.c, tcp_open.c) add to, through
 *		    tcp_count(): tcp.c owns them
 */
enum tcp_count {
	TCP_COUNT_FLOWS_OPENED,
	TCP_COUNT_RST_TO_TAP,
	TCP_COUNT_RETRANS,
	TCP_COUNT_BYTES_TO_TAP,
	TCP_COUNT_BAD_OPTS,
	TCP_COUNT_TAP_DROPPED,
	TCP_COUNT_TAP_WAITS,
	TCP_COUNT_REFUSED_NO_SOURCE,
};

void tcp_count(enum tcp_count what, uint64_t n);
void tcp_flow_register(void);

struct ctx;

#define TCP_MAX_BATCH	256	/* segments of one flow handled per call */

void tcp_init(struct ctx *ctx);
struct restart_buf;
struct restart_tcp;
void tcp_restart_save(struct restart_buf *b, int *fds, size_t max);
int tcp_restart_check(const struct restart_tcp *t);
void tcp_restart_adopt(struct ctx *ctx, const struct restart_tcp *t, int fd);
const char *tcp_reader_name(int af);
unsigned tcp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void tcp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
#endif
void tcp_listen_handler(struct ctx *ctx, union epoll_ref ref);
void tcp_flush_all(struct ctx *ctx);
bool tcp_tap_waiting(void);
void tcp_tap_resume(struct ctx *ctx);

#endif /* PASST_TCP_H */
