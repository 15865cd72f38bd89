// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_devmem.c - Devmem TCP reader: payload from the bound dma-buf,
 *			tokens as the retransmission store
 *
 * DOC: Theory of Operation
 *
 * With a dma-buf bound to NIC receive queues (devmem.c), payload of flows
 * that the NIC steers there never reaches kernel pages: recvmsg() with
 * MSG_SOCK_DEVMEM returns, for each fragment, a SCM_DEVMEM_DMABUF control
 * message (offset and size in the dma-buf, a token), and copies into the
 * iovec only what the NIC left in the linear part of the skb, announced by
 * SCM_DEVMEM_LINEAR (Documentation/networking/devmem.rst; net/ipv4/tcp.c
 * tcp_recvmsg_dmabuf()).  Fragments go to the guest as iovecs into our
 * mapping of the dma-buf: no userspace copy.
 *
 * Consume, don't peek.  Every devmem recvmsg(), MSG_PEEK included, hands
 * out fresh tokens, so peeking again to retransmit would pile up
 * references.  Devmem reads consume the bytes instead, and what they
 * returned is kept until the guest ACKs it, as a per-connection list of
 * "pieces": fragments (dma-buf offset, length, token) and linear bytes,
 * which are copied into a small store of our own (the arena they were
 * copied into is reused after each flush).  That list is the
 * retransmission store: a read at an offset inside it (after a rewind)
 * hands out the held pieces again.  ACKed fragments go back to the kernel
 * at once with SO_DEVMEM_DONTNEED (the binding's pool is finite: returning
 * late means drops), their tokens sorted and merged into ranges, at most
 * DEVMEM_DONTNEED_TOKENS ranges and DEVMEM_DONTNEED_FRAGS fragments per
 * call (net/core/sock.c sock_devmem_dontneed()).  A fragment ACKed in part
 * is trimmed and its token kept.
 *
 * Ordinary data.  Most sockets never see devmem data (other NICs, flows
 * not steered to the bound queues, loopback), and one socket may see both
 * kinds; a recvmsg() never mixes them.  Consuming ordinary data would mean
 * copying it aside for retransmission, so a connection starts on the
 * SO_PEEK_OFF path, exactly as the TCP_RD_PEEK_OFF reader: a peek without
 * MSG_SOCK_DEVMEM returns ordinary bytes and stops in front of devmem
 * ones, failing with EFAULT if they come first (tcp_recvmsg_locked()).
 * That EFAULT switches the connection to devmem reads; a devmem read that
 * returns no devmem control message at all was ordinary data after all: it
 * is kept in the store like linear bytes, and the connection goes back to
 * peeking.  Bytes in flight are thus always the held pieces first (SND.UNA
 * onwards), then peeked bytes still in the socket, and SO_PEEK_OFF is the
 * number of the latter.  Devmem data can only be consumed when no peeked
 * byte is in flight ahead of it: otherwise the read waits for the guest's
 * ACK (-EAGAIN; the ACK runs tcp_data_from_sock() again).
 *
 * Sizing.  A read asks for what the guest can take now (the caller's
 * iovecs: window, free tap slots), and the caller offers at least
 * DM_GRO_CHUNK when the window allows (min_read): without the net-next
 * patch "tcp: devmem: only pre-allocate tokens the receiver can consume"
 * (netdev mailing list; not in 6.18), a read ending inside a GRO skb
 * wastes token allocations for the rest of it.  msg_control holds a message per DM_FRAG_EST bytes plus a few (one
 * fragment per 1500-byte-MTU packet, one linear part per skb); a short
 * control buffer makes the kernel stop early (put_cmsg_notrunc()), never
 * lose data.
 *
 * Memory (static, nothing allocated per packet): DM_PIECES pieces, a
 * DM_LIN_CHUNKS x DM_LIN_CHUNK linear store (pieces of one read share
 * chunks, a chunk is reused when all its pieces are ACKed), one entry per
 * flow.  A read is shortened so that whatever it returns fits; when the
 * store is full reads wait for ACKs.
 */
#include <errno.h>
#include <linux/dma-buf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "../tap/tap.h"
#include "devmem.h"
#include "flow.h"
#include "ctx.h"
#include "tcp_conn.h"
#include "tcp_devmem.h"
#include "tcp_reader.h"

#ifndef SO_PEEK_OFF
#define SO_PEEK_OFF	42	/* include/uapi/asm-generic/socket.h */
#endif

#define DM_NIL		UINT32_MAX
#define DM_CMSG_SPACE	CMSG_SPACE(sizeof(struct devmem_cmsg))

/**
 * struct dm_piece - Bytes in flight, held until the guest ACKs them
 * @next:	Next piece of the same connection, DM_NIL at the end (also
 *		links the free list)
 * @len:	Bytes
 * @off:	Fragment: offset in the dma-buf; linear: offset in dm_lin
 * @token:	Fragment: token for SO_DEVMEM_DONTNEED
 * @linear:	Bytes in the linear store, not in the dma-buf
 */
struct dm_piece {
	uint32_t next;
	uint32_t len;
	uint32_t off;
	uint32_t token;
	bool linear;
};

/**
 * struct dm_conn - Devmem state of one connection, indexed by flow
 * @head:	First held piece (valid if @n)
 * @tail:	Last held piece (valid if @n)
 * @n:		Held pieces
 * @held:	Bytes in them: SND.UNA to SND.UNA + @held are held here
 * @cur:	Piece where the last read ended, DM_NIL if unknown
 * @cur_off:	Its start, bytes after SND.UNA
 * @dm:		Devmem data seen last: read with MSG_SOCK_DEVMEM first
 */
struct dm_conn {
	uint32_t head, tail, n;
	uint32_t held;
	uint32_t cur, cur_off;
	bool dm;
};

VISIBLE_IF_UNIT
struct tcp_devmem_stats tcp_devmem_stats;

static struct dm_piece dm_pieces[DM_PIECES];
static uint32_t dm_piece_free = DM_NIL;
static unsigned dm_pieces_free_n;

static uint8_t dm_lin[DM_LIN_CHUNKS * DM_LIN_CHUNK]
	__attribute__((aligned(64)));
static uint16_t dm_lin_ref[DM_LIN_CHUNKS];	/* pieces using each chunk */
static uint16_t dm_lin_free[DM_LIN_CHUNKS];	/* stack of free chunks */
static unsigned dm_lin_free_n;

static struct dm_conn dm_conns[CONF_FLOW_MAX_LIMIT];

static uint8_t dm_cbuf[DM_CMSG_MAX * DM_CMSG_SPACE] __attribute__((aligned(8)));
static uint32_t dm_tok[DEVMEM_DONTNEED_FRAGS];	/* tokens to return */
static unsigned dm_tok_n;

/**
 * struct dm_buf - The bound dma-buf
 * @base:	Our read-only mapping of it
 * @size:	Bytes
 * @id:		Binding id, as in every SCM_DEVMEM_DMABUF message
 * @fd:		dma-buf fd, for DMA_BUF_IOCTL_SYNC
 */
static struct {
	const uint8_t *base;
	size_t size;
	uint32_t id;
	int fd;
} dm_buf = { .fd = -1 };

/**
 * dm_recvmsg() - recvmsg(2)
 * @s:		Socket
 * @mh:		Message header
 * @flags:	Flags
 *
 * #syscalls recvmsg
 * Return: as recvmsg()
 */
static ssize_t dm_recvmsg(int s, struct msghdr *mh, int flags)
{
	return recvmsg(s, mh, flags);
}

/**
 * dm_setsockopt() - setsockopt(2)
 * @s:		Socket
 * @level:	Level
 * @name:	Option
 * @val:	Value
 * @len:	Its length
 *
 * #syscalls setsockopt
 * Return: as setsockopt(); SO_DEVMEM_DONTNEED returns the fragments freed
 */
static int dm_setsockopt(int s, int level, int name, const void *val,
			 socklen_t len)
{
	return setsockopt(s, level, name, val, len);
}

/**
 * dm_sync() - DMA_BUF_IOCTL_SYNC (include/uapi/linux/dma-buf.h)
 * @fd:		dma-buf fd
 * @flags:	DMA_BUF_SYNC_* flags
 *
 * Brackets CPU access to the dma-buf for architectures without coherent
 * DMA, as ncdevmem does around its reads (a no-op on x86).  The ioctl
 * always covers the whole buffer: struct dma_buf_sync has flags and no
 * range (include/uapi/linux/dma-buf.h; ranged syncs exist only in vendor
 * kernels), so a sync can't be limited to the fragments handed out.  What
 * we can limit is how often: one DMA_BUF_SYNC_START per read that returned
 * fragments (never for reads of held pieces, linear or ordinary data),
 * one DMA_BUF_SYNC_END per SO_DEVMEM_DONTNEED batch.  The seccomp
 * filter allows ioctl() for this request on this fd only, and only with a
 * bound dma-buf (passt/isolation.c seccomp_special[]).
 *
 * #syscalls ioctl
 * Return: 0 or -1 with errno
 */
static int dm_sync(int fd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	if (fd < 0)
		return 0;
	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
}

static const struct tcp_devmem_sys dm_sys_default = {
	.recvmsg	= dm_recvmsg,
	.setsockopt	= dm_setsockopt,
	.sync		= dm_sync,
};

static const struct tcp_devmem_sys *dm_sys = &dm_sys_default;

/**
 * tcp_devmem_sys_set() - Replace the system calls (unit tests)
 * @sys:	Calls to use, NULL for the real ones
 */
VISIBLE_IF_UNIT
void tcp_devmem_sys_set(const struct tcp_devmem_sys *sys)
{
	dm_sys = sys ? sys : &dm_sys_default;
}

/**
 * tcp_devmem_attach() - Start using a bound dma-buf, reset all state
 * @base:	Read-only mapping of the dma-buf
 * @size:	Its size, bytes (offsets must fit in 32 bits)
 * @id:		Binding id
 * @fd:		dma-buf fd, -1 if none (tests)
 *
 * Context: set-up (devmem_setup()), or a unit test
 */
void tcp_devmem_attach(const uint8_t *base, size_t size, uint32_t id, int fd)
{
	unsigned i;

	dm_buf.base = base;
	dm_buf.size = MIN(size, (size_t)UINT32_MAX);
	dm_buf.id = id;
	dm_buf.fd = fd;

	for (i = 0; i < DM_PIECES; i++)
		dm_pieces[i].next = i + 1 < DM_PIECES ? i + 1 : DM_NIL;
	dm_piece_free = 0;
	dm_pieces_free_n = DM_PIECES;
	for (i = 0; i < DM_LIN_CHUNKS; i++) {
		dm_lin_free[i] = (uint16_t)(DM_LIN_CHUNKS - 1 - i);
		dm_lin_ref[i] = 0;
	}
	dm_lin_free_n = DM_LIN_CHUNKS;
	memset(dm_conns, 0, sizeof(dm_conns));
	dm_tok_n = 0;
}

/**
 * dm_conn() - Devmem state of a connection
 * @conn:	Connection
 *
 * Return: its entry
 */
static struct dm_conn *dm_conn(const struct tcp_conn *conn)
{
	return &dm_conns[flow_idx((const union flow *)conn)];
}

/**
 * tcp_devmem_held() - Bytes a connection holds (unit tests)
 * @conn:	Connection
 *
 * Return: bytes after SND.UNA held as pieces
 */
VISIBLE_IF_UNIT
size_t tcp_devmem_held(const struct tcp_conn *conn)
{
	return dm_conn(conn)->held;
}

/**
 * tcp_devmem_pieces_free() - Free entries of the piece pool (unit tests)
 *
 * Return: count
 */
VISIBLE_IF_UNIT
unsigned tcp_devmem_pieces_free(void)
{
	return dm_pieces_free_n;
}

/**
 * tcp_devmem_chunks_free() - Free chunks of the linear store (unit tests)
 *
 * Return: count
 */
VISIBLE_IF_UNIT
unsigned tcp_devmem_chunks_free(void)
{
	return dm_lin_free_n;
}

/**
 * dm_piece_ptr() - Where a piece's bytes are
 * @p:		Piece
 *
 * Return: pointer into the dma-buf mapping or the linear store
 */
static const uint8_t *dm_piece_ptr(const struct dm_piece *p)
{
	return (p->linear ? dm_lin : dm_buf.base) + p->off;
}

/**
 * dm_append() - Take a piece from the pool and append it to a connection
 * @d:		Connection's entry
 * @len:	Bytes
 * @off:	Offset in the dma-buf or in the linear store
 * @token:	Fragment token (0 for linear bytes)
 * @linear:	Bytes in the linear store
 *
 * dm_consume() reserves a piece for everything a read can make; an empty
 * pool here means that reservation is wrong, and the read is refused
 * rather than writing past the pool.  @d->held counts the bytes of every
 * piece appended, so that whatever was appended is released on close.
 *
 * Return: true, false if the pool is empty
 */
static bool dm_append(struct dm_conn *d, uint32_t len, uint32_t off,
		      uint32_t token, bool linear)
{
	uint32_t i = dm_piece_free;
	struct dm_piece *p;

	if (i == DM_NIL || !dm_pieces_free_n)
		return false;
	p = &dm_pieces[i];
	dm_piece_free = p->next;
	dm_pieces_free_n--;
	p->next = DM_NIL;
	p->len = len;
	p->off = off;
	p->token = token;
	p->linear = linear;
	if (d->n)
		dm_pieces[d->tail].next = i;
	else
		d->head = i;
	d->tail = i;
	d->n++;
	d->held += len;
	return true;
}

/**
 * dm_tok_flush() - Return collected tokens with SO_DEVMEM_DONTNEED
 * @s:		Socket they belong to
 *
 * Tokens are sorted and consecutive ones merged into one range; a call
 * carries at most DEVMEM_DONTNEED_TOKENS ranges (and never more than
 * DEVMEM_DONTNEED_FRAGS fragments: that's all we collect).
 */
static void dm_tok_flush(int s)
{
	struct devmem_token r[DEVMEM_DONTNEED_TOKENS];
	unsigned i, j, nr = 0;
	int ret;

	if (!dm_tok_n)
		return;

	/* Insertion sort: tokens come mostly in order */
	for (i = 1; i < dm_tok_n; i++) {
		uint32_t t = dm_tok[i];

		for (j = i; j && dm_tok[j - 1] > t; j--)
			dm_tok[j] = dm_tok[j - 1];
		dm_tok[j] = t;
	}

	dm_sys->sync(dm_buf.fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	for (i = 0; i <= dm_tok_n; i++) {
		struct devmem_token *last = nr ? &r[nr - 1] : NULL;

		if (i < dm_tok_n && last &&
		    last->token_start + last->token_count == dm_tok[i] &&
		    last->token_count < UINT32_MAX) {
			last->token_count++;
			continue;
		}
		if (nr == DEVMEM_DONTNEED_TOKENS || (i == dm_tok_n && nr)) {
			ret = dm_sys->setsockopt(s, SOL_SOCKET,
						 DEVMEM_SO_DONTNEED, r,
						 (socklen_t)(nr * sizeof(*r)));
			tcp_devmem_stats.dontneed_calls++;
			if (ret < 0)
				debug("devmem: SO_DEVMEM_DONTNEED: %s",
				      strerror(errno));
			nr = 0;
		}
		if (i < dm_tok_n) {
			r[nr].token_start = dm_tok[i];
			r[nr].token_count = 1;
			nr++;
		}
	}
	tcp_devmem_stats.tokens_returned += dm_tok_n;
	tcp_devmem_stats.tokens_held -= MIN(tcp_devmem_stats.tokens_held,
					(uint64_t)dm_tok_n);
	dm_tok_n = 0;
}

/**
 * dm_release() - Drop the first bytes held by a connection
 * @s:		Socket, for SO_DEVMEM_DONTNEED
 * @d:		Connection's entry
 * @bytes:	Bytes to drop, at most @d->held
 *
 * Whole fragments return their token, a fragment cut by @bytes is trimmed
 * and keeps it; linear chunks go back to the store when unused.
 */
static void dm_release(int s, struct dm_conn *d, size_t bytes)
{
	size_t left = bytes;

	while (left && d->n) {
		uint32_t i = d->head;
		struct dm_piece *p = &dm_pieces[i];

		if (p->len > left) {
			p->off += (uint32_t)left;
			p->len -= (uint32_t)left;
			break;
		}
		left -= p->len;
		if (p->linear) {
			unsigned c = p->off / DM_LIN_CHUNK;

			if (!--dm_lin_ref[c])
				dm_lin_free[dm_lin_free_n++] = (uint16_t)c;
		} else {
			dm_tok[dm_tok_n++] = p->token;
			if (dm_tok_n == DEVMEM_DONTNEED_FRAGS)
				dm_tok_flush(s);
		}
		if (d->cur == i)
			d->cur = DM_NIL;
		d->head = p->next;
		d->n--;
		p->next = dm_piece_free;
		dm_piece_free = i;
		dm_pieces_free_n++;
	}
	dm_tok_flush(s);

	d->held -= (uint32_t)bytes;
	if (d->cur == d->head)
		d->cur_off = 0;
	else if (d->cur != DM_NIL)
		d->cur_off -= (uint32_t)bytes;
}

/**
 * dm_emit() - Hand out held bytes as pieces (also retransmission)
 * @d:		Connection's entry
 * @sent:	Start, bytes after SND.UNA, below @d->held
 * @max:	Bytes wanted
 * @ext:	Pieces, filled from the start
 *
 * Return: bytes handed out (> 0)
 */
static size_t dm_emit(struct dm_conn *d, size_t sent, size_t max,
		      struct tcp_rd_ext *ext)
{
	size_t off = 0, got = 0;
	uint32_t i = d->head;

	if (d->cur != DM_NIL && d->cur_off <= sent) {
		i = d->cur;
		off = d->cur_off;
	}
	while (i != DM_NIL && off + dm_pieces[i].len <= sent) {
		off += dm_pieces[i].len;
		i = dm_pieces[i].next;
	}

	ext->n = 0;
	while (i != DM_NIL && got < max && ext->n < TCP_RD_EXT_MAX) {
		const struct dm_piece *p = &dm_pieces[i];
		size_t skip = sent + got - off, take;

		take = MIN(p->len - skip, max - got);
		ext->piece[ext->n].iov_base = UNCONST(uint8_t *, dm_piece_ptr(p)) +
					     skip;
		ext->piece[ext->n].iov_len = take;
		ext->n++;
		got += take;
		d->cur = i;
		d->cur_off = (uint32_t)off;
		if (skip + take < p->len)
			break;
		off += p->len;
		i = p->next;
	}
	return got;
}

/**
 * dm_store_linear() - Copy bytes read into the caller's iovecs to the store
 * @d:		Connection's entry
 * @iov:	Buffers the kernel copied into
 * @n:		Entries in @iov
 * @pos:	Offset of the bytes in @iov, as one stream
 * @len:	Bytes
 * @chunk:	Chunk being filled by this read, DM_NIL for none
 * @fill:	Bytes used in *@chunk
 *
 * A piece ends at every chunk boundary and at every iovec boundary.  The
 * caller reserved enough chunks and pieces (dm_consume()).
 *
 * Return: true, false if the chunks or the pieces ran out
 */
static bool dm_store_linear(struct dm_conn *d, const struct iovec *iov,
			    unsigned n, size_t pos, size_t len,
			    uint32_t *chunk, size_t *fill)
{
	unsigned k = 0;

	while (k < n && pos >= iov[k].iov_len) {
		pos -= iov[k].iov_len;
		k++;
	}
	while (len && k < n) {
		size_t take;
		uint32_t off;

		if (*chunk == DM_NIL || *fill == DM_LIN_CHUNK) {
			if (!dm_lin_free_n)
				return false;
			*chunk = dm_lin_free[--dm_lin_free_n];
			*fill = 0;
		}
		take = MIN(MIN(len, DM_LIN_CHUNK - *fill),
			   iov[k].iov_len - pos);
		off = *chunk * DM_LIN_CHUNK + (uint32_t)*fill;
		if (!dm_append(d, (uint32_t)take, off, 0, true))
			return false;
		memcpy(dm_lin + off, (const uint8_t *)iov[k].iov_base + pos,
		       take);
		dm_lin_ref[*chunk]++;
		*fill += take;
		len -= take;
		pos += take;
		if (pos == iov[k].iov_len) {
			pos = 0;
			k++;
		}
	}
	return !len;
}

/**
 * dm_peek() - Peek ordinary bytes at SO_PEEK_OFF
 * @conn:	Connection
 * @iov:	Buffers
 * @n:		Entries in @iov
 *
 * Return: bytes, 0 at end of stream, -EFAULT if devmem data is next,
 *	   -EAGAIN, or -errno
 */
static ssize_t dm_peek(const struct tcp_conn *conn, const struct iovec *iov,
		       unsigned n)
{
	struct msghdr mh = { .msg_iov = UNCONST(struct iovec *, iov),
			     .msg_iovlen = n };
	ssize_t r;

	do
		r = dm_sys->recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/**
 * dm_cmsg_get() - Devmem payload of a control message
 * @cm:		Control message
 * @dc:		Payload, copied
 *
 * Return: DEVMEM_SO_LINEAR or DEVMEM_SO_DMABUF, 0 for other messages,
 *	   -EIO for a devmem message too short
 */
static int dm_cmsg_get(const struct cmsghdr *cm, struct devmem_cmsg *dc)
{
	if (cm->cmsg_level != SOL_SOCKET ||
	    (cm->cmsg_type != DEVMEM_SO_LINEAR &&
	     cm->cmsg_type != DEVMEM_SO_DMABUF))
		return 0;
	if (cm->cmsg_len < CMSG_LEN(sizeof(*dc)))
		return -EIO;
	memcpy(dc, CMSG_DATA(cm), sizeof(*dc));
	return cm->cmsg_type;
}

/**
 * dm_consume() - Read with MSG_SOCK_DEVMEM, keep what comes back
 * @conn:	Connection; nothing peeked is in flight
 * @d:		Its entry
 * @iov:	Buffers: linear bytes (or ordinary data) land here
 * @n:		Entries in @iov
 * @sent:	Bytes in flight, equal to @d->held
 * @len:	Bytes wanted, at most the size of @iov
 * @ext:	Pieces handed out for devmem data
 *
 * Return: bytes (> 0) with the payload in @ext (devmem) or in @iov
 *	   (ordinary data), 0 at end of stream, -EAGAIN (nothing queued, or
 *	   the store is full), -EIO for control messages that don't add up,
 *	   other -errno
 */
static ssize_t dm_consume(struct tcp_conn *conn, struct dm_conn *d,
			  const struct iovec *iov, unsigned n, size_t sent,
			  size_t len, struct tcp_rd_ext *ext)
{
	size_t chunks, ncmsg, sum = 0, lin_pos = 0, fill = 0, left;
	struct iovec v[IOV_MAX_DATA];
	uint32_t chunk = DM_NIL;
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	unsigned nv, ndm = 0;
	bool any = false;
	ssize_t r;

	/* Whatever comes back must fit: linear bytes in free chunks (packed,
	 * a new chunk per read), and pieces.  Linear bytes are cut into
	 * pieces at the start of each SCM_DEVMEM_LINEAR message, at chunk
	 * boundaries and at iovec boundaries, each fragment is a piece: at
	 * most ncmsg + chunks + nv pieces in all.  Fewer free pieces than
	 * that for the whole offer: offer fewer iovecs.
	 */
	len = MIN(len, (size_t)dm_lin_free_n * DM_LIN_CHUNK);
	for (nv = 0, left = len; nv < n && nv < IOV_MAX_DATA && left; nv++) {
		v[nv].iov_base = iov[nv].iov_base;
		v[nv].iov_len = MIN(iov[nv].iov_len, left);
		left -= v[nv].iov_len;
	}
	len -= left;
	chunks = DIV_ROUND_UP(len, DM_LIN_CHUNK);
	while (nv && dm_pieces_free_n < chunks + nv + 1) {
		len -= v[--nv].iov_len;
		chunks = DIV_ROUND_UP(len, DM_LIN_CHUNK);
	}
	if (!nv || !len) {
		tcp_devmem_stats.store_full++;
		return -EAGAIN;
	}
	ncmsg = MIN((size_t)DM_CMSG_MAX, len / DM_FRAG_EST + 4);
	ncmsg = MIN(ncmsg, dm_pieces_free_n - chunks - nv);
	ncmsg = MIN(ncmsg, (size_t)TCP_RD_EXT_MAX - MIN(chunks,
					(size_t)TCP_RD_EXT_MAX - 1));

	mh.msg_iov = v;
	mh.msg_iovlen = nv;
	mh.msg_control = dm_cbuf;
	mh.msg_controllen = ncmsg * DM_CMSG_SPACE;

	do
		r = dm_sys->recvmsg(conn->sock, &mh,
				    DEVMEM_MSG_SOCK_DEVMEM | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -errno : 0;

	/* Check everything before keeping anything */
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		struct devmem_cmsg dc;
		int t = dm_cmsg_get(cm, &dc);

		if (t < 0)
			goto bad;
		if (!t)
			continue;
		any = true;
		if (t == DEVMEM_SO_DMABUF &&
		    (dc.dmabuf_id != dm_buf.id || !dc.frag_size ||
		     dc.frag_offset > dm_buf.size ||
		     dm_buf.size - dc.frag_offset < dc.frag_size))
			goto bad;
		sum += dc.frag_size;
	}

	if (!any) {
		/* Not steered to our queues: ordinary bytes, now consumed */
		if (!dm_store_linear(d, v, nv, 0, (size_t)r, &chunk, &fill))
			goto full;
		d->dm = false;
		tcp_devmem_stats.copied_bytes += (uint64_t)r;
		return r;
	}
	if (sum != (size_t)r || (mh.msg_flags & MSG_CTRUNC))
		goto bad;

	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		struct devmem_cmsg dc;
		int t = dm_cmsg_get(cm, &dc);

		if (t == DEVMEM_SO_LINEAR) {
			if (!dm_store_linear(d, v, nv, lin_pos, dc.frag_size,
					     &chunk, &fill))
				goto full;
			lin_pos += dc.frag_size;
			tcp_devmem_stats.linear_bytes += dc.frag_size;
		} else if (t == DEVMEM_SO_DMABUF) {
			if (!dm_append(d, dc.frag_size,
				       (uint32_t)dc.frag_offset,
				       dc.frag_token, false))
				goto full;
			tcp_devmem_stats.bytes += dc.frag_size;
			tcp_devmem_stats.tokens_held++;
			ndm++;
		}
	}
	if (ndm)
		dm_sys->sync(dm_buf.fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	d->dm = true;
	return (ssize_t)dm_emit(d, sent, len, ext);

full:
	/* Bytes consumed that the store can't keep (linear bytes beyond the
	 * iovecs, or a reservation that didn't hold): what was kept is
	 * released on close, the connection is reset
	 */
	if (chunk != DM_NIL && !dm_lin_ref[chunk])
		dm_lin_free[dm_lin_free_n++] = (uint16_t)chunk;
	warn_ratelimit(now_ms(), "devmem: %zd bytes read don't fit the store, resetting the connection",
		       r);
	return -EIO;

bad:
	warn_ratelimit(now_ms(), "devmem: control messages don't match the %zd bytes read, resetting the connection",
		       r);
	return -EIO;
}

/**
 * tcp_devmem_start() - New connection: peek offset 0, nothing held
 * @conn:	Connection
 *
 * Return: 0 or -errno from setsockopt(SO_PEEK_OFF)
 */
static int tcp_devmem_start(struct tcp_conn *conn)
{
	struct dm_conn *d = dm_conn(conn);
	int off = 0;

	memset(d, 0, sizeof(*d));
	d->cur = DM_NIL;
	if (dm_sys->setsockopt(conn->sock, SOL_SOCKET, SO_PEEK_OFF, &off,
			       sizeof(off)) < 0)
		return -errno;
	return 0;
}

/**
 * tcp_devmem_read() - Bytes after the @sent in flight: held, peeked, or
 *		       read from the dma-buf
 * @conn:	Connection
 * @iov:	Payload buffers (ordinary data, linear bytes land here)
 * @n:		Entries in @iov
 * @sent:	Bytes in flight
 * @rdhup:	Unused: recvmsg() returns 0 at the end of the stream
 * @ext:	Pieces, for held and devmem data
 *
 * Return: bytes, 0 at end of stream, -EAGAIN, or -errno (see the DOC)
 */
static ssize_t tcp_devmem_read(struct tcp_conn *conn, const struct iovec *iov,
			       unsigned n, size_t sent, bool rdhup,
			       struct tcp_rd_ext *ext)
{
	struct dm_conn *d = dm_conn(conn);
	size_t len = 0;
	unsigned i;
	ssize_t r;

	(void)rdhup;
	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (!len)
		return -EAGAIN;

	if (sent < d->held)	/* after a rewind: resend held pieces */
		return (ssize_t)dm_emit(d, sent, len, ext);

	if (!d->dm || sent > d->held) {
		r = dm_peek(conn, iov, n);
		if (r != -EFAULT)
			return r;
		if (sent > d->held) {
			/* Peeked bytes in flight precede devmem data: it can
			 * be consumed only once they are ACKed and dropped
			 */
			tcp_devmem_stats.waits++;
			return -EAGAIN;
		}
	}
	return dm_consume(conn, d, iov, n, sent, len, ext);
}

/**
 * tcp_devmem_drop() - Drop ACKed peeked bytes from the socket
 * @conn:	Connection
 * @bytes:	Bytes
 *
 * recvmsg() with MSG_TRUNC discards without copying (tcp(7)), devmem or
 * not, and lowers SO_PEEK_OFF by as much.
 *
 * Return: 0, -EPIPE if the queue is shorter, or -errno
 */
static int tcp_devmem_drop(const struct tcp_conn *conn, size_t bytes)
{
	while (bytes) {
		struct iovec v = { .iov_base = NULL, .iov_len = bytes };
		struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1 };
		ssize_t r = dm_sys->recvmsg(conn->sock, &mh,
					    MSG_TRUNC | MSG_DONTWAIT);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EPIPE;
		bytes -= MIN((size_t)r, bytes);
	}
	return 0;
}

/**
 * tcp_devmem_ack() - The guest ACKed @bytes: release held pieces first,
 *		      then drop peeked bytes from the socket
 * @conn:	Connection
 * @bytes:	Bytes ACKed
 *
 * #syscalls setsockopt recvmsg
 * Return: 0, or -errno from dropping peeked bytes
 */
static int tcp_devmem_ack(struct tcp_conn *conn, size_t bytes)
{
	struct dm_conn *d = dm_conn(conn);
	size_t rel = MIN(bytes, (size_t)d->held);

	if (rel)
		dm_release(conn->sock, d, rel);
	if (bytes > rel)
		return tcp_devmem_drop(conn, bytes - rel);
	return 0;
}

/**
 * tcp_devmem_rewind() - Next read starts @keep bytes after SND.UNA
 * @conn:	Connection
 * @keep:	Bytes not to send again
 *
 * Held bytes need nothing (reads at an offset inside them are served from
 * the pieces); SO_PEEK_OFF covers the peeked bytes after them.
 *
 * Return: 0 or -errno
 */
static int tcp_devmem_rewind(struct tcp_conn *conn, size_t keep)
{
	const struct dm_conn *d = dm_conn(conn);
	int off = keep > d->held ? (int)(keep - d->held) : 0;

	if (dm_sys->setsockopt(conn->sock, SOL_SOCKET, SO_PEEK_OFF, &off,
			       sizeof(off)) < 0)
		return -errno;
	return 0;
}

/**
 * tcp_devmem_close() - Connection freed: return everything it holds
 * @conn:	Connection, socket still open
 *
 * Frames queued for the guest may still point into the held pieces: they
 * are flushed first, before the kernel may reuse the fragments.
 */
static void tcp_devmem_close(struct tcp_conn *conn)
{
	struct dm_conn *d = dm_conn(conn);

	if (d->n) {
		tap_flush();
		dm_release(conn->sock, d, d->held);
	}
	memset(d, 0, sizeof(*d));
	d->cur = DM_NIL;
}

const struct tcp_reader_ops tcp_reader_devmem = {
	.name		= "devmem",
	.min_read	= DM_GRO_CHUNK,
	.start		= tcp_devmem_start,
	.read		= tcp_devmem_read,
	.ack		= tcp_devmem_ack,
	.rewind		= tcp_devmem_rewind,
	.close		= tcp_devmem_close,
};

/**
 * tcp_devmem_stats_print() - Print the counters of devmem TCP (--stats,
 *			      SIGUSR1), if a device memory buffer is bound
 */
void tcp_devmem_stats_print(void)
{
	const struct tcp_devmem_stats *s = &tcp_devmem_stats;

	if (devmem_bound())
		info_always("stats: devmem bytes %lu, linear %lu, copied %lu; tokens held %lu, returned %lu in %lu SO_DEVMEM_DONTNEED calls; waits %lu, store full %lu",
			    s->bytes, s->linear_bytes, s->copied_bytes,
			    s->tokens_held, s->tokens_returned, s->dontneed_calls,
			    s->waits, s->store_full);
}
