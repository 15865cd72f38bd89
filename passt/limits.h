/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/limits.h - Resource limits: descriptor budget, refusing new flows
 *
 * See the DOC block of limits.c.
 */
#ifndef PASST_LIMITS_H
#define PASST_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf;
struct fwd_table;

/* Descriptors one flow may hold: a spliced connection has two sockets and
 * two pipes of two ends each
 */
#define LIMITS_FDS_PER_FLOW	6
/* Descriptors outside the flow table: stdio, epoll, signalfd, tap, log,
 * capture, netlink, namespace fds, the reserve, and room for libc
 */
#define LIMITS_FDS_FIXED	64
/* Descriptors pasta keeps in pools at set-up: namespace sockets from the
 * helper (4 kinds of 32, passt/nsock.h), 16 idle pipes (two ends each,
 * splice/), UDP namespace sockets (2 families, 16 fresh and 16 used each)
 */
#define LIMITS_FDS_POOLS	(4 * 32 + 16 * 2 + 2 * 16 * 2)
/* Flows the descriptor budget of listening sockets leaves room for, at
 * least (fewer with a smaller --flow-max): see limits_listen_budget()
 */
#define LIMITS_FLOWS_MIN	64

/**
 * enum limits_tbl - Forwarding tables, as limits_listen_take() sees them
 * @LIMITS_TBL_T:	-t (TCP, host side)
 * @LIMITS_TBL_U:	-u (UDP, host side)
 * @LIMITS_TBL_TNS:	-T (TCP, namespace side)
 * @LIMITS_TBL_UNS:	-U (UDP, namespace side)
 * @LIMITS_TBL_COUNT:	Number of tables
 */
enum limits_tbl {
	LIMITS_TBL_T,
	LIMITS_TBL_U,
	LIMITS_TBL_TNS,
	LIMITS_TBL_UNS,
	LIMITS_TBL_COUNT
};

/**
 * enum limit_kind - Which limit refused a new flow
 * @LIMIT_FLOWS:	The flow table is full (--flow-max)
 * @LIMIT_FDS:		Out of file descriptors (EMFILE, ENFILE) or socket
 *			memory (ENOBUFS, ENOMEM)
 * @LIMIT_COUNT:	Number of kinds
 */
enum limit_kind {
	LIMIT_FLOWS,
	LIMIT_FDS,
	LIMIT_COUNT
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
unsigned long limits_nofile_need(const struct conf *c);
#endif
int limits_nofile_init(const struct conf *c);
unsigned long limits_listen_budget(unsigned long nofile, unsigned flow_max,
				   bool pasta);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
unsigned long limits_table_socks(const struct fwd_table *t, bool ns,
				 bool weak);
#endif
void limits_listen_share(unsigned long room, const unsigned long *want,
			 unsigned long *share, unsigned n);
int limits_listen_plan(const struct conf *c, unsigned long nofile,
		       char *why, size_t len);
const char *limits_listen_opt(enum limits_tbl tbl);
unsigned long limits_nofile(void);
bool limits_listen_take(enum limits_tbl tbl, bool weak, unsigned n);
void limits_listen_put(enum limits_tbl tbl, bool weak, unsigned n);
unsigned long limits_listen_room(enum limits_tbl tbl);
int limits_reserve_init(int fd);
int limits_accept_refuse(int listen_fd);
void limits_refused(int64_t now, enum limit_kind kind, const char *what);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
uint64_t limits_refused_total(enum limit_kind kind);
#endif
void limits_stats_print(void);

#endif /* PASST_LIMITS_H */
