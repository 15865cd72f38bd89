/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_reader.h - Host-socket reader back-ends for data towards the guest
 *
 * The TCP engine never reads host sockets itself: it asks the connection's
 * reader for "new bytes after the @sent bytes already in flight", tells it
 * when the guest ACKs bytes, and asks it to rewind for retransmission.
 * Which back-end serves a connection is chosen once at start-up per address
 * family (tcp_reader_select()) and stored in tcp_conn.reader.  The peek
 * back-ends are in tcp_reader.c, the devmem one in tcp_devmem.c.
 */
#ifndef PASST_TCP_READER_H
#define PASST_TCP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct tcp_conn;

#define TCP_RD_EXT_MAX		4096	/* payload pieces per read, devmem */

/**
 * struct tcp_rd_ext - Payload a reader hands out from memory it owns
 * @n:		Pieces in @piece; 0: the payload is in the caller's iovecs
 * @piece:	Payload in stream order: pointers into a mapped dma-buf, or
 *		into the reader's own store of held bytes
 */
struct tcp_rd_ext {
	unsigned n;
	struct iovec piece[TCP_RD_EXT_MAX];
};

enum tcp_reader_kind {
	TCP_RD_PEEK_OFF = 0,	/* MSG_PEEK at SO_PEEK_OFF (Linux >= 6.9) */
	TCP_RD_PEEK_DISCARD,	/* MSG_PEEK from the head, sent bytes discarded */
	TCP_RD_DEVMEM,		/* MSG_SOCK_DEVMEM into a bound dma-buf */
	TCP_RD_COUNT
};

/**
 * struct tcp_reader_ops - One back-end
 * @name:	For logs
 * @min_read:	Bytes worth reading in one call when the window allows: the
 *		caller flushes the tap arena rather than offer less (0: any)
 * @start:	Connection established: prepare the socket.  Return 0 or -errno
 * @read:	Fill @iov (@n entries) with bytes following the @sent bytes
 *		already sent and not yet ACKed.  @rdhup: the peer's FIN was
 *		seen.  Return bytes (> 0), 0 at end of stream, -EAGAIN if
 *		nothing new is queued, other -errno (e.g. -ECONNRESET).
 *		@ext->n is 0 on entry; a reader that sets it returns the
 *		payload as @ext's pieces instead of in @iov (whose buffers
 *		it may use as scratch), and keeps those bytes: a later read
 *		at the same @sent returns them again, so the caller may send
 *		a prefix only
 * @ack:	The guest ACKed the first @bytes of what was sent: drop them
 *		from the socket (or release them).  Return 0 or -errno
 * @rewind:	Next @read must start @keep bytes after SND.UNA (usually 0:
 *		retransmit everything unacknowledged).  Return 0 or -errno
 * @close:	The connection is being freed, its socket still open: release
 *		what the reader holds.  NULL if nothing to do
 */
struct tcp_reader_ops {
	const char *name;
	size_t min_read;
	int (*start)(struct tcp_conn *conn);
	ssize_t (*read)(struct tcp_conn *conn, const struct iovec *iov,
			unsigned n, size_t sent, bool rdhup,
			struct tcp_rd_ext *ext);
	int (*ack)(struct tcp_conn *conn, size_t bytes);
	int (*rewind)(struct tcp_conn *conn, size_t keep);
	void (*close)(struct tcp_conn *conn);
};

extern const struct tcp_reader_ops *const tcp_readers[TCP_RD_COUNT];

uint64_t tcp_reader_peeked_again(void);
void tcp_reader_select(bool force_fallback, bool devmem,
		       enum tcp_reader_kind *v4, enum tcp_reader_kind *v6);

#define IOV_MAX_DATA		64	/* payload iovecs per read */
#define TCP_DISCARD_IOV_MAX	(1024 - IOV_MAX_DATA) /* discard prefix iovecs */
#define TCP_DISCARD_BUF		65536	/* one buffer, repeated in the iovec */

#endif /* PASST_TCP_READER_H */
