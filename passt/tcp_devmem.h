/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_devmem.h - Devmem TCP reader back-end (TCP_RD_DEVMEM)
 *
 * Only passt/tcp*.c, passt/devmem.c and the unit tests include this.
 */
#ifndef PASST_TCP_DEVMEM_H
#define PASST_TCP_DEVMEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "tcp_reader.h"

#define DM_PIECES	32768	/* held pieces, all connections */
#define DM_LIN_CHUNK	4096	/* granule of the linear store, bytes */
#define DM_LIN_CHUNKS	1024	/* linear store: 4 MiB */
#define DM_CMSG_MAX	4096	/* control messages per read */
#define DM_FRAG_EST	1024	/* bytes per fragment for msg_control */
#define DM_GRO_CHUNK	65536	/* smallest read when the window allows */

/**
 * struct tcp_devmem_sys - The system calls of the devmem reader
 * @recvmsg:	recvmsg(2)
 * @setsockopt:	setsockopt(2): SO_DEVMEM_DONTNEED, SO_PEEK_OFF
 * @sync:	DMA_BUF_IOCTL_SYNC on the dma-buf fd with these flags
 *
 * The unit tests replace them to replay control-message sequences.
 */
struct tcp_devmem_sys {
	ssize_t (*recvmsg)(int s, struct msghdr *mh, int flags);
	int (*setsockopt)(int s, int level, int name, const void *val,
			  socklen_t len);
	int (*sync)(int fd, uint64_t flags);
};

/**
 * struct tcp_devmem_stats - Counters of the devmem reader (--stats, SIGUSR1)
 */
struct tcp_devmem_stats {
	uint64_t bytes;			/* payload read as dma-buf fragments */
	uint64_t linear_bytes;		/* SCM_DEVMEM_LINEAR bytes */
	uint64_t copied_bytes;		/* devmem reads without devmem data */
	uint64_t tokens_held;		/* fragment tokens held now */
	uint64_t tokens_returned;
	uint64_t dontneed_calls;	/* SO_DEVMEM_DONTNEED calls */
	uint64_t waits;			/* devmem data behind peeked bytes */
	uint64_t store_full;		/* reads put off: piece store full */
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct tcp_devmem_stats tcp_devmem_stats;
#endif

void tcp_devmem_stats_print(void);

extern const struct tcp_reader_ops tcp_reader_devmem;

void tcp_devmem_attach(const uint8_t *base, size_t size, uint32_t id, int fd);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void tcp_devmem_sys_set(const struct tcp_devmem_sys *sys);
size_t tcp_devmem_held(const struct tcp_conn *conn);
unsigned tcp_devmem_pieces_free(void);
unsigned tcp_devmem_chunks_free(void);
#endif

#endif /* PASST_TCP_DEVMEM_H */
