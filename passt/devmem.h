/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/devmem.h - Devmem TCP: kernel constants, dma-buf binding at set-up
 *
 * Debian 12's linux-libc-dev is 6.1 and has none of these definitions, so
 * they are spelt out here with their sources.  Devmem TCP receive appeared
 * in Linux 6.12 (series "Device Memory TCP", Mina Almasry;
 * Documentation/networking/devmem.rst).
 */
#ifndef PASST_DEVMEM_H
#define PASST_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__hppa__)
#error "parisc numbers the devmem socket options differently (0x404E...)"
#endif

/* include/uapi/linux/uio.h (6.12): recvmsg() flag */
#define DEVMEM_MSG_SOCK_DEVMEM	0x2000000

/* include/uapi/asm-generic/socket.h (6.12), level SOL_SOCKET */
#define DEVMEM_SO_LINEAR	78	/* = SCM_DEVMEM_LINEAR, cmsg type */
#define DEVMEM_SO_DMABUF	79	/* = SCM_DEVMEM_DMABUF, cmsg type */
#define DEVMEM_SO_DONTNEED	80	/* setsockopt(): return tokens */

/* net/core/sock.c sock_devmem_dontneed(): limits of one call */
#define DEVMEM_DONTNEED_TOKENS	128	/* MAX_DONTNEED_TOKENS, ranges */
#define DEVMEM_DONTNEED_FRAGS	1024	/* MAX_DONTNEED_FRAGS */

/**
 * struct devmem_cmsg - Payload of a SCM_DEVMEM_* control message
 *			(struct dmabuf_cmsg, include/uapi/linux/uio.h)
 * @frag_offset:	DMABUF: offset of the fragment in the dma-buf
 * @frag_size:		Bytes of the fragment (LINEAR: bytes copied into
 *			the iovec instead)
 * @frag_token:		DMABUF: token to return with SO_DEVMEM_DONTNEED
 * @dmabuf_id:		DMABUF: id of the binding (NETDEV_A_DMABUF_ID)
 * @flags:		Reserved, 0
 */
struct devmem_cmsg {
	uint64_t frag_offset;
	uint32_t frag_size;
	uint32_t frag_token;
	uint32_t dmabuf_id;
	uint32_t flags;
};

/**
 * struct devmem_token - A range of tokens for SO_DEVMEM_DONTNEED
 *			 (struct dmabuf_token, include/uapi/linux/uio.h)
 * @token_start:	First token
 * @token_count:	Consecutive tokens from @token_start
 */
struct devmem_token {
	uint32_t token_start;
	uint32_t token_count;
};

_Static_assert(sizeof(struct devmem_cmsg) == 24, "struct dmabuf_cmsg");
_Static_assert(sizeof(struct devmem_token) == 8, "struct dmabuf_token");

/* Generic netlink family "netdev": include/uapi/linux/netdev.h (6.12),
 * Documentation/netlink/specs/netdev.yaml
 */
#define DEVMEM_NETDEV_FAMILY	"netdev"
#define DEVMEM_CMD_BIND_RX	13	/* NETDEV_CMD_BIND_RX */
#define DEVMEM_A_DMABUF_IFINDEX	1	/* u32 */
#define DEVMEM_A_DMABUF_QUEUES	2	/* nest, repeated */
#define DEVMEM_A_DMABUF_FD	3	/* u32 */
#define DEVMEM_A_DMABUF_ID	4	/* u32, in the reply */
#define DEVMEM_A_QUEUE_ID	1	/* u32, in a QUEUES nest */
#define DEVMEM_A_QUEUE_TYPE	3	/* u32 */
#define DEVMEM_QUEUE_TYPE_RX	0	/* NETDEV_QUEUE_TYPE_RX */

#define DEVMEM_BUF_SIZE		(64UL << 20)	/* udmabuf size_limit_mb */
#define DEVMEM_EXTACK_MAX	128	/* extack message bytes kept */

struct conf;
struct nl_msg;
struct nlmsghdr;

int devmem_setup(const struct conf *c);
bool devmem_bound(void);
int devmem_dmabuf_fd(void);

/* Pieces of devmem_setup(), exposed for the unit tests */
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int devmem_bind_msg(struct nl_msg *msg, int family, unsigned ifindex,
		    int fd, uint64_t queues);
int devmem_family_parse(struct nlmsghdr *h, int *family, bool *bind_rx);
int devmem_bind_reply_parse(struct nlmsghdr *h, uint32_t *id);
int devmem_err_parse(const struct nlmsghdr *h, char *msg, size_t len);
void devmem_reason(int err, const char *extack, bool probe, const char *ifname,
		   char *buf, size_t len);
void devmem_queues_str(uint64_t queues, char *buf, size_t len);
#endif

#endif /* PASST_DEVMEM_H */
