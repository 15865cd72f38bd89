/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_reader.h - Host-socket reader back-ends for data towards the guest
 *
 * The TCP engine never reads host sockets itself: it asks the connection's
 * reader for "new bytes after the @sent bytes already in flight", tells it
 * when the guest ACKs bytes, and asks it to rewind for retransmission.
 * Which back-end serves a connection is chosen once at start-up per address
 * family (tcp_reader_probe()) and stored in tcp_conn.reader.
 */
#ifndef PASST_TCP_READER_H
#define PASST_TCP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct tcp_conn;

enum tcp_reader_kind {
	TCP_RD_PEEK_OFF = 0,	/* MSG_PEEK at SO_PEEK_OFF (Linux >= 6.9) */
	TCP_RD_PEEK_DISCARD,	/* MSG_PEEK from the head, sent bytes discarded */
	TCP_RD_DEVMEM,		/* MSG_SOCK_DEVMEM into a bound dma-buf */
	TCP_RD_COUNT
};

/**
 * struct tcp_reader_ops - One back-end
 * @name:	For logs
 * @start:	Connection established: prepare the socket.  Return 0 or -errno
 * @read:	Fill @iov (@n entries) with bytes following the @sent bytes
 *		already sent and not yet ACKed.  @rdhup: the peer's FIN was
 *		seen.  Return bytes (> 0), 0 at end of stream, -EAGAIN if
 *		nothing new is queued, other -errno (e.g. -ECONNRESET)
 * @ack:	The guest ACKed the first @bytes of what was sent: drop them
 *		from the socket (or release them).  Return 0 or -errno
 * @rewind:	Next @read must start @keep bytes after SND.UNA (usually 0:
 *		retransmit everything unacknowledged).  Return 0 or -errno
 */
struct tcp_reader_ops {
	const char *name;
	int (*start)(struct tcp_conn *conn);
	ssize_t (*read)(struct tcp_conn *conn, const struct iovec *iov,
			unsigned n, size_t sent, bool rdhup);
	int (*ack)(struct tcp_conn *conn, size_t bytes);
	int (*rewind)(struct tcp_conn *conn, size_t keep);
};

extern const struct tcp_reader_ops *const tcp_readers[TCP_RD_COUNT];

int tcp_peek_off_probe(int af);
void tcp_reader_select(bool force_fallback, enum tcp_reader_kind *v4,
		       enum tcp_reader_kind *v6);

#define IOV_MAX_DATA		64	/* payload iovecs per read */
#define TCP_DISCARD_IOV_MAX	(1024 - IOV_MAX_DATA) /* discard prefix iovecs */
#define TCP_DISCARD_BUF		65536	/* one buffer, repeated in the iovec */

#endif /* PASST_TCP_READER_H */
