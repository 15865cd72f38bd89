// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_reader.c - MSG_PEEK readers: at an offset, or with a discard prefix
 *
 * DOC: Theory of Operation
 *
 * Data sent to the guest stays in the host socket's receive queue until the
 * guest ACKs it: it is read with MSG_PEEK, and only ACKed bytes are removed,
 * with recv(MSG_TRUNC) which drops them without copying (tcp(7)).
 *
 * Peek at an offset (TCP_RD_PEEK_OFF).  Since Linux 6.9 for IPv4 (commit
 * 05ea491641d3) and 6.12 for IPv6 (commit be9a4fb831b8), SO_PEEK_OFF works
 * on TCP sockets: a peek starts SO_PEEK_OFF bytes past the first unread byte
 * and advances it by what it returns, and consuming K bytes lowers it by K.
 * We set it to 0 when the connection is established, so it always equals
 * the bytes in flight (SND.NXT - SND.UNA): new data is one recvmsg() with
 * MSG_PEEK, and a retransmission sets it back to 0.  Nothing is copied
 * twice in the common case.
 *
 * Peek with discard (TCP_RD_PEEK_DISCARD).  Older kernels answer
 * setsockopt(SO_PEEK_OFF) on TCP with EOPNOTSUPP (net/core/sock.c: no
 * set_peek_off in proto_ops).  There every peek starts at the head of the
 * queue, so the first iovecs cover the bytes already in flight and point
 * at one 64 KiB scratch buffer, repeated: the kernel copies them there and
 * we ignore them.  This costs a copy of the in-flight bytes per read, and
 * at most TCP_DISCARD_IOV_MAX * 64 KiB may be in flight.  A peek that only
 * returns already-sent bytes can't tell "no new data" from "end of stream",
 * so the caller passes @rdhup (EPOLLRDHUP seen).
 *
 * tcp_reader_select() probes SO_PEEK_OFF on a throw-away TCP socket of each
 * family at start-up and logs one line with the outcome.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "tcp_conn.h"
#include "tcp_devmem.h"
#include "tcp_reader.h"

#ifndef SO_PEEK_OFF
#define SO_PEEK_OFF	42	/* include/uapi/asm-generic/socket.h */
#endif

static uint8_t tcp_discard_buf[TCP_DISCARD_BUF];


/* Bytes in flight copied again by the discard reader (no SO_PEEK_OFF) */
static uint64_t tcp_reader_peeked;

/**
 * tcp_reader_peeked_again() - Bytes the discard reader copied again
 *
 * Without SO_PEEK_OFF, each read peeks from the first unacknowledged byte
 * and discards what the guest already has: the count of those bytes.
 *
 * Return: bytes peeked again since start, for tcp_stats_print()
 */
uint64_t tcp_reader_peeked_again(void)
{
	return tcp_reader_peeked;
}

/**
 * peek_set_off() - Set SO_PEEK_OFF
 * @s:		TCP socket
 * @off:	Offset, bytes past the first unread byte
 *
 * #syscalls setsockopt
 * Return: 0 or -errno
 */
static int peek_set_off(int s, int off)
{
	if (setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)))
		return -errno;
	return 0;
}

/**
 * tcp_peek_ack() - Drop ACKed bytes from the receive queue without copying
 * @conn:	Connection
 * @bytes:	Bytes the guest ACKed
 *
 * recv() with a NULL buffer and MSG_TRUNC discards on TCP (tcp(7)); with
 * SO_PEEK_OFF set, the kernel lowers the offset by the same amount.
 *
 * #syscalls recvfrom
 * Return: 0, or -errno
 */
static int tcp_peek_ack(struct tcp_conn *conn, size_t bytes)
{
	while (bytes) {
		ssize_t n = recv(conn->sock, NULL, bytes,
				 MSG_TRUNC | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;	/* queue shorter than what we sent */
		bytes -= (size_t)n;
	}
	return 0;
}

/**
 * tcp_peek_off_start() - Arm SO_PEEK_OFF at 0 for a new connection
 * @conn:	Connection
 *
 * Return: 0 or -errno
 */
static int tcp_peek_off_start(struct tcp_conn *conn)
{
	return peek_set_off(conn->sock, 0);
}

/**
 * tcp_peek_off_read() - Peek new bytes at the socket's peek offset
 * @conn:	Connection
 * @iov:	Payload buffers
 * @n:		Entries in @iov
 * @sent:	Bytes in flight (equal to the kernel's offset; unused)
 * @rdhup:	Unused: recv() itself returns 0 at the end of the stream
 * @ext:	Unused: the payload is always in @iov
 *
 * #syscalls recvmsg
 * Return: bytes, 0 at end of stream, -EAGAIN, or -errno
 */
static ssize_t tcp_peek_off_read(struct tcp_conn *conn, const struct iovec *iov,
				 unsigned n, size_t sent, bool rdhup,
				 struct tcp_rd_ext *ext)
{
	struct msghdr mh = { .msg_iov = UNCONST(struct iovec *, iov),
			     .msg_iovlen = n };
	ssize_t r;

	(void)sent;
	(void)rdhup;
	(void)ext;
	do
		r = recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/**
 * tcp_peek_off_rewind() - Move the peek offset back for retransmission
 * @conn:	Connection
 * @keep:	New offset: bytes after SND.UNA not to send again
 *
 * Return: 0 or -errno
 */
static int tcp_peek_off_rewind(struct tcp_conn *conn, size_t keep)
{
	return peek_set_off(conn->sock, (int)keep);
}

/**
 * tcp_discard_start() - Nothing to prepare for the discard reader
 * @conn:	Connection
 *
 * Return: 0
 */
static int tcp_discard_start(struct tcp_conn *conn)
{
	(void)conn;
	return 0;
}

/**
 * tcp_discard_read() - Peek from the head, sent bytes into the scratch buffer
 * @conn:	Connection
 * @iov:	Payload buffers for new bytes
 * @n:		Entries in @iov
 * @sent:	Bytes in flight, peeked again into the scratch buffer
 * @rdhup:	Peer's FIN seen: no new bytes means end of stream
 * @ext:	Unused: the payload is always in @iov
 *
 * #syscalls recvmsg
 * Return: new bytes, 0 at end of stream, -EAGAIN, -ENOBUFS if @sent needs
 *	   more than TCP_DISCARD_IOV_MAX scratch iovecs, or -errno
 */
static ssize_t tcp_discard_read(struct tcp_conn *conn, const struct iovec *iov,
				unsigned n, size_t sent, bool rdhup,
				struct tcp_rd_ext *ext)
{
	struct iovec v[TCP_DISCARD_IOV_MAX + IOV_MAX_DATA];
	unsigned nd = 0, i;
	struct msghdr mh = { 0 };
	size_t left = sent;
	ssize_t r;

	(void)ext;
	while (left) {
		if (nd == TCP_DISCARD_IOV_MAX)
			return -ENOBUFS;
		v[nd].iov_base = tcp_discard_buf;
		v[nd].iov_len = MIN(left, sizeof(tcp_discard_buf));
		left -= v[nd].iov_len;
		nd++;
	}
	n = MIN(n, (unsigned)IOV_MAX_DATA);
	for (i = 0; i < n; i++)
		v[nd + i] = iov[i];

	mh.msg_iov = v;
	mh.msg_iovlen = nd + n;
	do
		r = recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);

	if (r < 0)
		return -errno;
	tcp_reader_peeked += MIN((size_t)r, sent);
	if ((size_t)r <= sent)
		return rdhup ? 0 : -EAGAIN;
	return r - (ssize_t)sent;
}

/**
 * tcp_discard_rewind() - Nothing to do: every peek starts at the head
 * @conn:	Connection
 * @keep:	Unused
 *
 * Return: 0
 */
static int tcp_discard_rewind(struct tcp_conn *conn, size_t keep)
{
	(void)conn;
	(void)keep;
	return 0;
}

static const struct tcp_reader_ops tcp_reader_peek_off = {
	.name	= "SO_PEEK_OFF",
	.start	= tcp_peek_off_start,
	.read	= tcp_peek_off_read,
	.ack	= tcp_peek_ack,
	.rewind	= tcp_peek_off_rewind,
};

static const struct tcp_reader_ops tcp_reader_discard = {
	.name	= "peek with discard buffer",
	.start	= tcp_discard_start,
	.read	= tcp_discard_read,
	.ack	= tcp_peek_ack,
	.rewind	= tcp_discard_rewind,
};

const struct tcp_reader_ops *const tcp_readers[TCP_RD_COUNT] = {
	[TCP_RD_PEEK_OFF]	= &tcp_reader_peek_off,
	[TCP_RD_PEEK_DISCARD]	= &tcp_reader_discard,
	[TCP_RD_DEVMEM]		= &tcp_reader_devmem,
};

/**
 * tcp_peek_off_probe() - Does this kernel support SO_PEEK_OFF on TCP?
 * @af:		AF_INET or AF_INET6 (they differ on 6.9 - 6.11)
 *
 * Return: 0 if supported, -EOPNOTSUPP (kernel before 6.9, or 6.12 for
 *	   IPv6) or another -errno
 */
static int tcp_peek_off_probe(int af)
{
	int s = socket(af, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP), ret;

	if (s < 0)
		return -errno;
	ret = peek_set_off(s, 0);
	close(s);
	return ret;
}

/**
 * tcp_reader_select() - Choose the reader per family, log the outcome once
 * @force_fallback:	--no-peek-offset: use the discard reader
 * @devmem:	A dma-buf is bound (devmem.c): use the devmem reader, which
 *		peeks at SO_PEEK_OFF for data that doesn't arrive in it
 * @v4:		Reader for IPv4 host sockets
 * @v6:		Reader for IPv6 host sockets
 */
void tcp_reader_select(bool force_fallback, bool devmem,
		       enum tcp_reader_kind *v4, enum tcp_reader_kind *v6)
{
	int r4, r6;

	if (force_fallback) {
		*v4 = *v6 = TCP_RD_PEEK_DISCARD;
		info("TCP reader: peek with discard buffer (forced by --no-peek-offset)%s",
		     devmem ? "; devmem unused: it needs SO_PEEK_OFF" : "");
		return;
	}

	r4 = tcp_peek_off_probe(AF_INET);
	r6 = tcp_peek_off_probe(AF_INET6);
	*v4 = r4 ? TCP_RD_PEEK_DISCARD : TCP_RD_PEEK_OFF;
	*v6 = r6 ? TCP_RD_PEEK_DISCARD : TCP_RD_PEEK_OFF;

	if (devmem && !r4 && !r6) {
		/* Devmem RX (6.12) implies SO_PEEK_OFF for both families */
		*v4 = *v6 = TCP_RD_DEVMEM;
		info("TCP reader: devmem (dma-buf for payload steered to the bound queues, SO_PEEK_OFF for the rest)");
		return;
	}
	if (devmem)
		info("TCP reader: devmem unused: SO_PEEK_OFF missing on TCP/%s",
		     r4 ? "IPv4" : "IPv6");

	if (!r4 && !r6)
		info("TCP reader: SO_PEEK_OFF (IPv4 and IPv6)");
	else if (r4 && r6)
		info("TCP reader: peek with discard buffer (SO_PEEK_OFF on TCP: %s, needs Linux >= 6.9)",
		     strerror(-r4));
	else
		info("TCP reader: SO_PEEK_OFF for %s, peek with discard buffer for %s (SO_PEEK_OFF on TCP/%s: %s)",
		     r4 ? "IPv6" : "IPv4", r4 ? "IPv4" : "IPv6",
		     r4 ? "IPv4" : "IPv6", strerror(-(r4 ? r4 : r6)));
}
