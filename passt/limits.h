/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/limits.h - Resource limits: descriptor budget, refusing new flows
 *
 * See the DOC block of limits.c.
 */
#ifndef PASST_LIMITS_H
#define PASST_LIMITS_H

#include <stdint.h>

struct conf;

/* Descriptors one flow may hold: a spliced connection has two sockets and
 * two pipes of two ends each
 */
#define LIMITS_FDS_PER_FLOW	6
/* Descriptors outside the flow table: stdio, epoll, signalfd, tap, log,
 * capture, netlink, namespace fds, the reserve, and room for libc
 */
#define LIMITS_FDS_FIXED	64

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

unsigned long limits_nofile_need(const struct conf *c);
int limits_nofile_init(const struct conf *c);
int limits_reserve_init(int fd);
int limits_accept_refuse(int listen_fd);
void limits_refused(int64_t now, enum limit_kind kind, const char *what);
uint64_t limits_refused_total(enum limit_kind kind);

#endif /* PASST_LIMITS_H */
