// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_devmem_test.c - The devmem TCP reader (passt/tcp_devmem.c)
 *
 * No machine here has a devmem-capable NIC, so the reader's recvmsg() and
 * setsockopt() are replaced by a script: each test lists the replies the
 * kernel would give (Documentation/networking/devmem.rst; net/ipv4/tcp.c
 * tcp_recvmsg_locked() and tcp_recvmsg_dmabuf(); net/core/sock.c
 * sock_devmem_dontneed()), and a memfd filled with a known pattern stands
 * in for the dma-buf.
 *
 * Control messages are written here byte by byte from the uapi layouts,
 * not with the daemon's structs: struct dmabuf_cmsg (include/uapi/linux/
 * uio.h) is __u64 frag_offset at 0, __u32 frag_size at 8, __u32
 * frag_token at 12, __u32 dmabuf_id at 16, __u32 flags at 20, 24 bytes;
 * cmsg level SOL_SOCKET, type SCM_DEVMEM_LINEAR 78 or SCM_DEVMEM_DMABUF 79
 * (include/uapi/asm-generic/socket.h); MSG_SOCK_DEVMEM is 0x2000000.
 * SO_DEVMEM_DONTNEED (80) arguments are read back as struct dmabuf_token,
 * __u32 token_start at 0, __u32 token_count at 4, and must respect the
 * kernel's limits of 128 ranges and 1024 fragments per call.
 *
 * The "engine" case runs the same script through passt/tcp.c, with a real
 * loopback connection as the host socket and a QEMU-style stream as the
 * guest side, and checks the segments the guest gets.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>

#include "../../lib/log.h"
#include "../../passt/epoll_ref.h"
#include "../../passt/flow_table.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/tcp_devmem.h"
#include "../../passt/tcp_reader.h"
#include "../../tap/frame.h"
#include "../../tap/tap.h"
#include "fake_conf.h"
#include "fake_svc.h"

/* Kernel uapi values, written out here on purpose (see above) */
#define K_MSG_SOCK_DEVMEM	0x2000000
#define K_SCM_LINEAR		78
#define K_SCM_DMABUF		79
#define K_SO_DONTNEED		80
#define K_SO_PEEK_OFF		42
#define K_CMSG_PAYLOAD		24
#define K_MAX_TOKENS		128
#define K_MAX_FRAGS		1024

#define BUF_SIZE		(1 << 20)	/* the fake dma-buf */
#define BIND_ID			5
#define SOCK_FD			4242

/**
 * struct fake_cm - One control message the fake kernel returns
 * @type:	K_SCM_LINEAR or K_SCM_DMABUF
 * @off:	frag_offset
 * @size:	frag_size
 * @token:	frag_token
 * @id:		dmabuf_id
 */
struct fake_cm {
	int type;
	uint64_t off;
	uint32_t size, token, id;
};

#define FAKE_CM_MAX	4096

/**
 * struct fake_reply - What one recvmsg() call answers
 * @flags:	Flags the reader must pass, MSG_DONTWAIT aside
 * @ret:	Return value: bytes, or -errno
 * @copy:	Bytes copied into the iovecs first (linear or ordinary data)
 * @copy_len:	Length of @copy
 * @ncm:	Control messages
 * @cm:		Them
 * @fill:	Like the kernel with linear data filling the whole buffer:
 *		every byte of the iovecs written, one SCM_DEVMEM_LINEAR
 *		message covering them (@ret, @copy and @cm unused)
 */
struct fake_reply {
	int flags;
	bool fill;
	ssize_t ret;
	const uint8_t *copy;
	size_t copy_len;
	unsigned ncm;
	struct fake_cm cm[FAKE_CM_MAX];
};

static struct fake_reply script[8];
static unsigned script_n, script_pos;
static size_t last_iov_len, last_controllen;
static size_t trunc_bytes;		/* dropped with MSG_TRUNC */
static unsigned trunc_calls;

/* SO_DEVMEM_DONTNEED calls, decoded */
#define CALLS_MAX	64
static unsigned dn_calls;
static uint32_t dn_start[CALLS_MAX][K_MAX_TOKENS + 8];
static uint32_t dn_count[CALLS_MAX][K_MAX_TOKENS + 8];
static unsigned dn_nranges[CALLS_MAX];
static int peek_off = -1;

static const uint8_t *dmabuf;		/* mapping of the memfd */
static int fake_fd = SOCK_FD;		/* socket the calls must be on */
static bool lenient;			/* no script left: -EAGAIN */
static unsigned devmem_reads;		/* MSG_SOCK_DEVMEM calls */
static union flow *flow;
static struct tcp_conn *conn;
static struct tcp_rd_ext ext;
static const struct tcp_reader_ops *rd;

/**
 * pattern() - Byte of the fake dma-buf at an offset
 * @off:	Offset
 *
 * Return: byte value
 */
static uint8_t pattern(size_t off)
{
	return (uint8_t)((off * 131 + (off >> 8) * 7 + 1) & 0xff);
}

/**
 * fake_recvmsg() - Replay the next scripted reply
 * @s:		Socket (must be ours)
 * @mh:		Message header from the reader
 * @flags:	Flags from the reader
 *
 * Return: the scripted return value (errno set for errors)
 */
static ssize_t fake_recvmsg(int s, struct msghdr *mh, int flags)
{
	struct fake_reply *r;
	size_t off = 0, i, cl = 0;
	uint8_t *cbuf = mh->msg_control;

	ck_assert_int_eq(s, fake_fd);
	if (flags & MSG_TRUNC) {	/* drop: always succeeds here */
		ck_assert_int_eq(flags & (MSG_PEEK | K_MSG_SOCK_DEVMEM), 0);
		trunc_calls++;
		trunc_bytes += mh->msg_iov[0].iov_len;
		if (peek_off > 0)
			peek_off -= (int)MIN((size_t)peek_off,
					     mh->msg_iov[0].iov_len);
		return (ssize_t)mh->msg_iov[0].iov_len;
	}

	if (flags & K_MSG_SOCK_DEVMEM)
		devmem_reads++;
	if (lenient && script_pos == script_n) {
		errno = EAGAIN;
		return -1;
	}
	ck_assert_msg(script_pos < script_n, "unexpected recvmsg(), flags %x",
		      flags);
	r = &script[script_pos++];
	ck_assert_int_eq(flags & ~MSG_DONTWAIT, r->flags);

	last_iov_len = 0;
	for (i = 0; i < mh->msg_iovlen; i++)
		last_iov_len += mh->msg_iov[i].iov_len;
	last_controllen = mh->msg_controllen;

	if (r->ret < 0) {
		errno = (int)-r->ret;
		return -1;
	}

	if (r->fill) {
		struct cmsghdr h = {
			.cmsg_len = CMSG_LEN(K_CMSG_PAYLOAD),
			.cmsg_level = SOL_SOCKET,
			.cmsg_type = K_SCM_LINEAR,
		};
		uint32_t size = (uint32_t)last_iov_len;

		for (i = 0; i < mh->msg_iovlen; i++)
			memset(mh->msg_iov[i].iov_base, 0xc5,
			       mh->msg_iov[i].iov_len);
		ck_assert_uint_ge(mh->msg_controllen,
				  CMSG_SPACE(K_CMSG_PAYLOAD));
		memset(cbuf, 0, CMSG_SPACE(K_CMSG_PAYLOAD));
		memcpy(cbuf, &h, sizeof(h));
		memcpy(CMSG_DATA((struct cmsghdr *)cbuf) + 8, &size, 4);
		mh->msg_controllen = CMSG_SPACE(K_CMSG_PAYLOAD);
		mh->msg_flags = 0;
		return (ssize_t)size;
	}

	/* Linear/ordinary bytes go to the iovecs in order */
	for (i = 0; i < mh->msg_iovlen && off < r->copy_len; i++) {
		size_t l = MIN(mh->msg_iov[i].iov_len, r->copy_len - off);

		memcpy(mh->msg_iov[i].iov_base, r->copy + off, l);
		off += l;
	}
	ck_assert_uint_eq(off, r->copy_len);

	for (i = 0; i < r->ncm; i++) {
		struct cmsghdr h = {
			.cmsg_len = CMSG_LEN(K_CMSG_PAYLOAD),
			.cmsg_level = SOL_SOCKET,
			.cmsg_type = r->cm[i].type,
		};
		uint8_t *p = cbuf + cl;
		uint32_t zero = 0;

		/* put_cmsg_notrunc(): no room means failure, not truncation;
		 * the tests give the reader scripts that fit its buffer
		 */
		ck_assert_uint_le(cl + CMSG_SPACE(K_CMSG_PAYLOAD),
				  mh->msg_controllen);
		memset(p, 0, CMSG_SPACE(K_CMSG_PAYLOAD));
		memcpy(p, &h, sizeof(h));
		p = CMSG_DATA((struct cmsghdr *)p);
		memcpy(p + 0, &r->cm[i].off, 8);
		memcpy(p + 8, &r->cm[i].size, 4);
		memcpy(p + 12, &r->cm[i].token, 4);
		memcpy(p + 16, &r->cm[i].id, 4);
		memcpy(p + 20, &zero, 4);
		cl += CMSG_SPACE(K_CMSG_PAYLOAD);
	}
	mh->msg_controllen = cl;
	mh->msg_flags = 0;
	if (flags & MSG_PEEK && peek_off >= 0)
		peek_off += (int)r->ret;
	return r->ret;
}

/**
 * fake_setsockopt() - Record SO_DEVMEM_DONTNEED and SO_PEEK_OFF
 * @s:		Socket
 * @level:	Must be SOL_SOCKET
 * @name:	K_SO_DONTNEED or K_SO_PEEK_OFF
 * @val:	Value
 * @len:	Length
 *
 * Return: DONTNEED: fragments freed (the sum of the counts), else 0
 */
static int fake_setsockopt(int s, int level, int name, const void *val,
			   socklen_t len)
{
	const uint8_t *b = val;
	unsigned i, n, frags = 0;

	ck_assert_int_eq(s, fake_fd);
	ck_assert_int_eq(level, SOL_SOCKET);
	if (name == K_SO_PEEK_OFF) {
		ck_assert_uint_eq(len, sizeof(int));
		memcpy(&peek_off, val, sizeof(int));
		return 0;
	}
	ck_assert_int_eq(name, K_SO_DONTNEED);
	ck_assert_uint_eq(len % 8, 0);
	n = len / 8;
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, K_MAX_TOKENS);
	ck_assert_uint_lt(dn_calls, CALLS_MAX);
	for (i = 0; i < n; i++) {
		memcpy(&dn_start[dn_calls][i], b + 8 * i, 4);
		memcpy(&dn_count[dn_calls][i], b + 8 * i + 4, 4);
		frags += dn_count[dn_calls][i];
	}
	ck_assert_uint_le(frags, K_MAX_FRAGS);
	dn_nranges[dn_calls++] = n;
	return (int)frags;
}

static unsigned sync_start, sync_end;	/* DMA_BUF_IOCTL_SYNC calls */

/**
 * fake_sync() - DMA_BUF_IOCTL_SYNC: count, nothing to do on a memfd
 * @fd:		Unused
 * @flags:	Unused
 *
 * Return: 0
 */
static int fake_sync(int fd, uint64_t flags)
{
	(void)fd;
	if (flags & 4)		/* DMA_BUF_SYNC_END, include/uapi/linux/dma-buf.h */
		sync_end++;
	else
		sync_start++;
	return 0;
}

static const struct tcp_devmem_sys fake_sys = {
	.recvmsg = fake_recvmsg,
	.setsockopt = fake_setsockopt,
	.sync = fake_sync,
};

/**
 * fake_dmabuf() - memfd with the pattern, mapped read-only, and empty
 *		   script, counters and statistics
 */
static void fake_dmabuf(void)
{
	uint8_t *w;
	size_t i;
	int fd;

	log_level = LOG_ERR;
	fd = memfd_create("fake-dmabuf", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, BUF_SIZE), 0);
	w = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(w, MAP_FAILED);
	for (i = 0; i < BUF_SIZE; i++)
		w[i] = pattern(i);
	munmap(w, BUF_SIZE);
	dmabuf = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(dmabuf, MAP_FAILED);
	close(fd);

	memset(&tcp_devmem_stats, 0, sizeof(tcp_devmem_stats));
	memset(script, 0, sizeof(script));
	script_n = script_pos = 0;
	dn_calls = 0;
	trunc_bytes = 0;
	trunc_calls = 0;
	peek_off = -1;
	fake_fd = SOCK_FD;
	lenient = false;
	devmem_reads = 0;
	sync_start = sync_end = 0;
}

/**
 * setup() - Fake dma-buf, one connection, empty script
 */
static void setup(void)
{
	fake_dmabuf();
	ck_assert_int_eq(flow_init(16), 0);
	flow = flow_alloc(NULL);
	ck_assert_ptr_nonnull(flow);
	conn = &flow->tcp;
	flow_activate(flow, FLOW_TCP);
	conn->sock = SOCK_FD;

	tcp_devmem_attach(dmabuf, BUF_SIZE, BIND_ID, -1);
	tcp_devmem_sys_set(&fake_sys);
	rd = tcp_readers[TCP_RD_DEVMEM];
	ck_assert_int_eq(rd->start(conn), 0);
	ck_assert_int_eq(peek_off, 0);
}

/**
 * teardown() - Release the fake dma-buf, real system calls again
 */
static void teardown(void)
{
	tcp_devmem_sys_set(NULL);
	munmap(UNCONST(void *, dmabuf), BUF_SIZE);
}

/**
 * add_reply() - Append a scripted reply
 * @flags:	Flags the reader must pass
 * @ret:	Return value
 *
 * Return: the reply, to add control messages and copied bytes to
 */
static struct fake_reply *add_reply(int flags, ssize_t ret)
{
	struct fake_reply *r = &script[script_n++];

	ck_assert_uint_le(script_n, sizeof(script) / sizeof(script[0]));
	memset(r, 0, sizeof(*r));
	r->flags = flags;
	r->ret = ret;
	return r;
}

/**
 * add_cm() - Append a control message to a reply
 * @r:		Reply
 * @type:	K_SCM_LINEAR or K_SCM_DMABUF
 * @off:	frag_offset
 * @size:	frag_size
 * @token:	frag_token
 */
static void add_cm(struct fake_reply *r, int type, uint64_t off, uint32_t size,
		   uint32_t token)
{
	ck_assert_uint_lt(r->ncm, FAKE_CM_MAX);
	r->cm[r->ncm].type = type;
	r->cm[r->ncm].off = off;
	r->cm[r->ncm].size = size;
	r->cm[r->ncm].token = token;
	r->cm[r->ncm].id = BIND_ID;
	r->ncm++;
}

/* Buffers the engine would offer: 64 segments of 65480 bytes at most */
static uint8_t arena[64][65536];

/**
 * do_read() - Call the reader like tcp_data_from_sock() does
 * @sent:	Bytes in flight
 * @len:	Bytes offered (split in 64 KiB iovecs)
 *
 * Return: reader's return value
 */
static ssize_t do_read(size_t sent, size_t len)
{
	struct iovec iov[64];
	unsigned n = 0;

	while (len && n < 64) {
		iov[n].iov_base = arena[n];
		iov[n].iov_len = MIN(len, sizeof(arena[n]));
		len -= iov[n].iov_len;
		n++;
	}
	ext.n = 0;
	return rd->read(conn, iov, n, sent, false, &ext);
}

/**
 * ext_bytes() - Copy the pieces handed out into one buffer
 * @out:	Destination
 * @max:	Its size
 *
 * Return: bytes copied
 */
static size_t ext_bytes(uint8_t *out, size_t max)
{
	size_t off = 0;
	unsigned i;

	for (i = 0; i < ext.n; i++) {
		ck_assert_uint_le(off + ext.piece[i].iov_len, max);
		memcpy(out + off, ext.piece[i].iov_base, ext.piece[i].iov_len);
		off += ext.piece[i].iov_len;
	}
	return off;
}

/**
 * expect_dmabuf() - Check bytes against the dma-buf pattern
 * @p:		Bytes
 * @off:	Offset in the dma-buf they should come from
 * @len:	Length
 */
static void expect_dmabuf(const uint8_t *p, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		ck_assert_msg(p[i] == pattern(off + i),
			      "byte %zu: %02x, dma-buf offset %zu has %02x",
			      i, p[i], off + i, pattern(off + i));
}

/**
 * first_devmem_read() - Script the peek that hits devmem data (EFAULT)
 *			 and the devmem read after it
 * @ret:	Bytes of the devmem read
 *
 * Return: the devmem read's reply, to fill
 */
static struct fake_reply *first_devmem_read(ssize_t ret)
{
	add_reply(MSG_PEEK, -EFAULT);
	return add_reply(K_MSG_SOCK_DEVMEM, ret);
}

/* Three fragments: the pieces point into the mapping at their offsets */
START_TEST(test_devmem_frag_offsets_and_sizes)
{
	struct fake_reply *r = first_devmem_read(4096 + 4096 + 1000);
	ssize_t n;

	add_cm(r, K_SCM_DMABUF, 8192, 4096, 1);
	add_cm(r, K_SCM_DMABUF, 16384, 4096, 2);
	add_cm(r, K_SCM_DMABUF, 40960 + 24, 1000, 3);

	n = do_read(0, 65536);
	ck_assert_int_eq(n, 9192);
	ck_assert_uint_eq(script_pos, 2);
	ck_assert_uint_eq(ext.n, 3);
	ck_assert_ptr_eq(ext.piece[0].iov_base, dmabuf + 8192);
	ck_assert_uint_eq(ext.piece[0].iov_len, 4096);
	ck_assert_ptr_eq(ext.piece[1].iov_base, dmabuf + 16384);
	ck_assert_uint_eq(ext.piece[1].iov_len, 4096);
	ck_assert_ptr_eq(ext.piece[2].iov_base, dmabuf + 40984);
	ck_assert_uint_eq(ext.piece[2].iov_len, 1000);
	expect_dmabuf(ext.piece[2].iov_base, 40984, 1000);

	ck_assert_uint_eq(tcp_devmem_held(conn), 9192);
	ck_assert_uint_eq(tcp_devmem_stats.bytes, 9192);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_held, 3);
	ck_assert_uint_eq(dn_calls, 0);	/* nothing ACKed yet */

	/* Second read: straight to MSG_SOCK_DEVMEM, no peek */
	r = add_reply(K_MSG_SOCK_DEVMEM, 4096);
	add_cm(r, K_SCM_DMABUF, 0, 4096, 4);
	n = do_read(9192, 65536);
	ck_assert_int_eq(n, 4096);
	ck_assert_uint_eq(ext.n, 1);
	ck_assert_ptr_eq(ext.piece[0].iov_base, dmabuf);
}
END_TEST

/* SCM_DEVMEM_LINEAR bytes were copied into the iovecs, packed in order,
 * and come back (from the reader's store) in their place in the stream
 */
START_TEST(test_devmem_linear_and_dmabuf_mix)
{
	static uint8_t lin[150], got[16384], want[16384];
	struct fake_reply *r;
	size_t off = 0;
	ssize_t n;
	unsigned i;

	for (i = 0; i < sizeof(lin); i++)
		lin[i] = (uint8_t)(0xa0 + i);
	r = first_devmem_read(100 + 4096 + 50 + 2000);
	r->copy = lin;
	r->copy_len = sizeof(lin);
	add_cm(r, K_SCM_LINEAR, 0, 100, 0);
	add_cm(r, K_SCM_DMABUF, 4096, 4096, 7);
	add_cm(r, K_SCM_LINEAR, 0, 50, 0);
	add_cm(r, K_SCM_DMABUF, 65536, 2000, 8);

	/* Expected stream: lin[0..100), buf[4096..8192), lin[100..150),
	 * buf[65536..67536)
	 */
	memcpy(want, lin, 100);
	off = 100;
	for (i = 0; i < 4096; i++)
		want[off++] = pattern(4096 + i);
	memcpy(want + off, lin + 100, 50);
	off += 50;
	for (i = 0; i < 2000; i++)
		want[off++] = pattern(65536 + i);

	n = do_read(0, 65536);
	ck_assert_int_eq(n, (ssize_t)off);
	ck_assert_uint_eq(ext.n, 4);
	ck_assert_uint_eq(ext_bytes(got, sizeof(got)), off);
	ck_assert_mem_eq(got, want, off);
	ck_assert_ptr_eq(ext.piece[1].iov_base, dmabuf + 4096);
	ck_assert_ptr_eq(ext.piece[3].iov_base, dmabuf + 65536);

	ck_assert_uint_eq(tcp_devmem_stats.linear_bytes, 150);
	ck_assert_uint_eq(tcp_devmem_stats.bytes, 6096);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_held, 2);

	/* Retransmission returns the same bytes, from held pieces only */
	ck_assert_int_eq(rd->rewind(conn, 0), 0);
	n = do_read(0, 65536);
	ck_assert_int_eq(n, (ssize_t)off);
	ck_assert_uint_eq(ext_bytes(got, sizeof(got)), off);
	ck_assert_mem_eq(got, want, off);
	ck_assert_uint_eq(script_pos, 2);	/* no new recvmsg() */
}
END_TEST

/* Partial ACKs return exactly the tokens of whole fragments covered */
START_TEST(test_devmem_partial_ack_releases_covered_tokens)
{
	struct fake_reply *r = first_devmem_read(4 * 4096);
	unsigned i;

	for (i = 0; i < 4; i++)
		add_cm(r, K_SCM_DMABUF, 4096 * (10 + i), 4096, 1 + i);
	ck_assert_int_eq(do_read(0, 65536), 4 * 4096);

	/* First fragment and 100 bytes of the second: token 1 only */
	ck_assert_int_eq(rd->ack(conn, 4096 + 100), 0);
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(dn_nranges[0], 1);
	ck_assert_uint_eq(dn_start[0][0], 1);
	ck_assert_uint_eq(dn_count[0][0], 1);
	ck_assert_uint_eq(tcp_devmem_held(conn), 3 * 4096 - 100);

	/* The trimmed second fragment is resent from where the ACK ended */
	ck_assert_int_eq(rd->rewind(conn, 0), 0);
	ck_assert_int_eq(do_read(0, 65536), 3 * 4096 - 100);
	ck_assert_ptr_eq(ext.piece[0].iov_base, dmabuf + 4096 * 11 + 100);
	ck_assert_uint_eq(ext.piece[0].iov_len, 3996);

	/* 99 more bytes: still no whole fragment */
	ck_assert_int_eq(rd->ack(conn, 99), 0);
	ck_assert_uint_eq(dn_calls, 1);

	/* The rest of the second (8192 - 4295 bytes) and all of the
	 * third: one range {2, 2}
	 */
	ck_assert_int_eq(rd->ack(conn, 3897 + 4096), 0);
	ck_assert_uint_eq(dn_calls, 2);
	ck_assert_uint_eq(dn_nranges[1], 1);
	ck_assert_uint_eq(dn_start[1][0], 2);
	ck_assert_uint_eq(dn_count[1][0], 2);

	ck_assert_int_eq(rd->ack(conn, 4096), 0);
	ck_assert_uint_eq(dn_calls, 3);
	ck_assert_uint_eq(dn_start[2][0], 4);
	ck_assert_uint_eq(dn_count[2][0], 1);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_held, 0);
	ck_assert_uint_eq(tcp_devmem_pieces_free(), DM_PIECES);
	ck_assert_uint_eq(trunc_calls, 0);	/* nothing was in the socket */
}
END_TEST

/* Tokens out of order merge into ranges once sorted */
START_TEST(test_devmem_merge_unordered)
{
	static const uint32_t tok[] = { 5, 3, 4, 1, 2, 9, 11, 10 };
	struct fake_reply *r = first_devmem_read(8 * 1000);
	unsigned i;

	for (i = 0; i < 8; i++)
		add_cm(r, K_SCM_DMABUF, 4096 * i, 1000, tok[i]);
	ck_assert_int_eq(do_read(0, 65536), 8000);
	ck_assert_int_eq(rd->ack(conn, 8000), 0);
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(dn_nranges[0], 2);
	ck_assert_uint_eq(dn_start[0][0], 1);
	ck_assert_uint_eq(dn_count[0][0], 5);
	ck_assert_uint_eq(dn_start[0][1], 9);
	ck_assert_uint_eq(dn_count[0][1], 3);
	ck_assert_uint_eq(tcp_devmem_stats.dontneed_calls, 1);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_returned, 8);
}
END_TEST

/* 300 tokens that can't merge: 128 + 128 + 44 ranges in three calls */
START_TEST(test_devmem_range_limit)
{
	struct fake_reply *r = first_devmem_read(300 * 100);
	unsigned i;

	for (i = 0; i < 300; i++)
		add_cm(r, K_SCM_DMABUF, 4096 * (i % 200), 100, 1 + 2 * i);
	ck_assert_int_eq(do_read(0, 1 << 20), 30000);
	ck_assert_int_eq(rd->ack(conn, 30000), 0);
	ck_assert_uint_eq(dn_calls, 3);
	ck_assert_uint_eq(dn_nranges[0], 128);
	ck_assert_uint_eq(dn_nranges[1], 128);
	ck_assert_uint_eq(dn_nranges[2], 44);
	ck_assert_uint_eq(dn_start[0][0], 1);
	ck_assert_uint_eq(dn_start[1][0], 1 + 2 * 128);
	ck_assert_uint_eq(dn_start[2][43], 1 + 2 * 299);
	for (i = 0; i < 128; i++)
		ck_assert_uint_eq(dn_count[0][i], 1);
}
END_TEST

/* 2000 consecutive tokens: at most 1024 fragments per call */
START_TEST(test_devmem_frag_limit)
{
	struct fake_reply *r = first_devmem_read(2000 * 100);
	unsigned i, total = 0;

	for (i = 0; i < 2000; i++)
		add_cm(r, K_SCM_DMABUF, 4096 * (i % 200), 100, 1 + i);
	ck_assert_int_eq(do_read(0, 4 << 20), 200000);
	ck_assert_int_eq(rd->ack(conn, 200000), 0);
	ck_assert_uint_eq(dn_calls, 2);
	ck_assert_uint_eq(dn_nranges[0], 1);
	ck_assert_uint_eq(dn_start[0][0], 1);
	ck_assert_uint_eq(dn_count[0][0], 1024);
	ck_assert_uint_eq(dn_nranges[1], 1);
	ck_assert_uint_eq(dn_start[1][0], 1025);
	ck_assert_uint_eq(dn_count[1][0], 976);
	for (i = 0; i < dn_calls; i++)
		total += dn_count[i][0];
	ck_assert_uint_eq(total, 2000);
}
END_TEST

/* Retransmission from held fragments, from an offset inside one */
START_TEST(test_devmem_retransmit_from_held)
{
	struct fake_reply *r = first_devmem_read(3 * 4096);
	static uint8_t got[8192];
	ssize_t n;

	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	add_cm(r, K_SCM_DMABUF, 8192, 4096, 2);
	add_cm(r, K_SCM_DMABUF, 20480, 4096, 3);
	ck_assert_int_eq(do_read(0, 65536), 3 * 4096);

	/* The guest has 5000 bytes: rewind there, resend 3000 of them */
	ck_assert_int_eq(rd->rewind(conn, 5000), 0);
	ck_assert_int_eq(peek_off, 0);		/* nothing peeked */
	n = do_read(5000, 3000);
	ck_assert_int_eq(n, 3000);
	ck_assert_uint_eq(ext.n, 1);
	ck_assert_ptr_eq(ext.piece[0].iov_base, dmabuf + 8192 + 904);
	n = do_read(8000, 65536);
	ck_assert_int_eq(n, 3 * 4096 - 8000);
	ck_assert_uint_eq(ext.n, 2);
	ck_assert_ptr_eq(ext.piece[0].iov_base, dmabuf + 8192 + 3904);
	ck_assert_uint_eq(ext.piece[0].iov_len, 192);
	ck_assert_uint_eq(ext_bytes(got, sizeof(got)), 4288);
	expect_dmabuf(got + 192, 20480, 4096);
	ck_assert_uint_eq(script_pos, 2);	/* all from held pieces */
	ck_assert_uint_eq(dn_calls, 0);		/* and nothing returned */
}
END_TEST

/* A devmem read without devmem messages: ordinary data, kept, and the
 * connection peeks again
 */
START_TEST(test_devmem_read_without_devmem_messages)
{
	static uint8_t data[500], got[500];
	struct fake_reply *r;
	unsigned i;
	ssize_t n;

	r = first_devmem_read(4096);
	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), 4096);

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 3);
	r = add_reply(K_MSG_SOCK_DEVMEM, sizeof(data));
	r->copy = data;
	r->copy_len = sizeof(data);
	n = do_read(4096, 65536);
	ck_assert_int_eq(n, 500);
	ck_assert_uint_eq(ext.n, 0);		/* payload in the iovecs */
	ck_assert_mem_eq(arena[0], data, sizeof(data));
	ck_assert_uint_eq(tcp_devmem_held(conn), 4596);
	ck_assert_uint_eq(tcp_devmem_stats.copied_bytes, 500);

	/* Held, so retransmitted from the store */
	n = do_read(4096, 65536);
	ck_assert_int_eq(n, 500);
	ck_assert_uint_eq(ext_bytes(got, sizeof(got)), 500);
	ck_assert_mem_eq(got, data, sizeof(data));

	/* New data: peeked again (ordinary path) */
	add_reply(MSG_PEEK, -EAGAIN);
	ck_assert_int_eq(do_read(4596, 65536), -EAGAIN);

	/* ACK all: one token back, the copy's chunk free again */
	ck_assert_int_eq(rd->ack(conn, 4596), 0);
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(tcp_devmem_chunks_free(), DM_LIN_CHUNKS);
}
END_TEST

/* Never devmem: the peek path, ACKs drop bytes with MSG_TRUNC */
START_TEST(test_devmem_ordinary_socket_peeks)
{
	static uint8_t data[1000];
	struct fake_reply *r;

	memset(data, 0x5a, sizeof(data));
	r = add_reply(MSG_PEEK, sizeof(data));
	r->copy = data;
	r->copy_len = sizeof(data);
	ck_assert_int_eq(do_read(0, 65536), 1000);
	ck_assert_uint_eq(ext.n, 0);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
	ck_assert_int_eq(peek_off, 1000);

	/* Devmem data behind the 1000 peeked bytes: wait for their ACK */
	add_reply(MSG_PEEK, -EFAULT);
	ck_assert_int_eq(do_read(1000, 65536), -EAGAIN);
	ck_assert_uint_eq(tcp_devmem_stats.waits, 1);

	ck_assert_int_eq(rd->ack(conn, 1000), 0);
	ck_assert_uint_eq(trunc_bytes, 1000);
	ck_assert_int_eq(peek_off, 0);
	ck_assert_uint_eq(dn_calls, 0);

	/* Now at the head: consumed with MSG_SOCK_DEVMEM */
	r = first_devmem_read(4096);
	add_cm(r, K_SCM_DMABUF, 4096, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), 4096);
	ck_assert_uint_eq(ext.n, 1);
}
END_TEST

/* Held pieces first, peeked bytes after them: ACK and rewind split */
START_TEST(test_devmem_held_then_peeked)
{
	static uint8_t data[300];
	struct fake_reply *r = first_devmem_read(4096);

	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), 4096);

	/* Ordinary data after it: a devmem read without messages */
	r = add_reply(K_MSG_SOCK_DEVMEM, 300);
	r->copy = data;
	r->copy_len = 300;
	ck_assert_int_eq(do_read(4096, 65536), 300);

	/* More ordinary data: peeked, stays in the socket */
	r = add_reply(MSG_PEEK, 700);
	r->copy = data;
	r->copy_len = 300;
	ck_assert_int_eq(do_read(4396, 65536), 700);

	/* Rewind into the peeked part: SO_PEEK_OFF counts peeked bytes */
	ck_assert_int_eq(rd->rewind(conn, 4396 + 200), 0);
	ck_assert_int_eq(peek_off, 200);

	/* ACK all: one token, and 700 bytes dropped from the socket */
	ck_assert_int_eq(rd->ack(conn, 5096), 0);
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(trunc_bytes, 700);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
}
END_TEST

/* msg_control fits the fragments the offered length can produce: at
 * least one SCM_DEVMEM_* per 4 KiB niov plus two (kernel-interfaces notes
 * on the net-next patch "tcp: devmem: only pre-allocate tokens the
 * receiver can consume"), and the read asks for what's offered
 */
START_TEST(test_devmem_control_buffer_sizing)
{
	size_t len = 65536;
	struct fake_reply *r = first_devmem_read(4096);

	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	ck_assert_int_eq(do_read(0, len), 4096);
	ck_assert_uint_eq(last_iov_len, len);
	ck_assert_uint_ge(last_controllen,
			  CMSG_SPACE(K_CMSG_PAYLOAD) * (len / 4096 + 2));
	ck_assert_uint_eq(last_controllen % CMSG_SPACE(K_CMSG_PAYLOAD), 0);

	/* Smaller offer, smaller read, smaller control buffer */
	r = add_reply(K_MSG_SOCK_DEVMEM, 1000);
	add_cm(r, K_SCM_DMABUF, 8192, 1000, 2);
	ck_assert_int_eq(do_read(4096, 8192), 1000);
	ck_assert_uint_eq(last_iov_len, 8192);
	ck_assert_uint_ge(last_controllen,
			  CMSG_SPACE(K_CMSG_PAYLOAD) * (8192 / 4096 + 2));
	ck_assert_uint_lt(last_controllen,
			  CMSG_SPACE(K_CMSG_PAYLOAD) * (len / 4096 + 2));

	/* The reader asks its caller for a GRO-sized chunk */
	ck_assert_uint_ge(rd->min_read, 65536);
}
END_TEST

/* Messages that don't add up: the connection is reset (-EIO) */
START_TEST(test_devmem_bad_messages)
{
	struct fake_reply *r = first_devmem_read(4096);

	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	r->cm[0].id = BIND_ID + 1;		/* another binding */
	ck_assert_int_eq(do_read(0, 65536), -EIO);

	r = first_devmem_read(4096);		/* beyond the dma-buf */
	add_cm(r, K_SCM_DMABUF, BUF_SIZE - 100, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), -EIO);

	r = first_devmem_read(5000);		/* sizes != bytes read */
	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), -EIO);

	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
	ck_assert_uint_eq(tcp_devmem_pieces_free(), DM_PIECES);
}
END_TEST

/* Closing returns every token, the pools are whole again */
START_TEST(test_devmem_close_returns_all)
{
	static uint8_t lin[64];
	struct fake_reply *r = first_devmem_read(64 + 3 * 4096);

	r->copy = lin;
	r->copy_len = sizeof(lin);
	add_cm(r, K_SCM_LINEAR, 0, 64, 0);
	add_cm(r, K_SCM_DMABUF, 0, 4096, 3);
	add_cm(r, K_SCM_DMABUF, 4096, 4096, 4);
	add_cm(r, K_SCM_DMABUF, 8192, 4096, 7);
	ck_assert_int_eq(do_read(0, 65536), 64 + 3 * 4096);
	ck_assert_uint_lt(tcp_devmem_chunks_free(), DM_LIN_CHUNKS);

	rd->close(conn);
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(dn_nranges[0], 2);
	ck_assert_uint_eq(dn_start[0][0], 3);
	ck_assert_uint_eq(dn_count[0][0], 2);
	ck_assert_uint_eq(dn_start[0][1], 7);
	ck_assert_uint_eq(dn_count[0][1], 1);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
	ck_assert_uint_eq(tcp_devmem_pieces_free(), DM_PIECES);
	ck_assert_uint_eq(tcp_devmem_chunks_free(), DM_LIN_CHUNKS);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_held, 0);
}
END_TEST

/**
 * read_small() - Offer buffers of @size bytes in @n iovecs
 * @sent:	Bytes in flight
 * @n:		Iovecs, at most 64
 * @size:	Bytes each
 *
 * Return: reader's return value
 */
static ssize_t read_small(size_t sent, unsigned n, size_t size)
{
	struct iovec iov[64];
	unsigned i;

	for (i = 0; i < n; i++) {
		iov[i].iov_base = arena[i];
		iov[i].iov_len = size;
	}
	ext.n = 0;
	return rd->read(conn, iov, n, sent, false, &ext);
}

/* A piece pool nearly used up by 1-byte fragments, then linear bytes
 * spread over 64 one-byte iovecs: a piece per iovec.  Reads that could
 * make more pieces than are free are shortened or wait (-EAGAIN), never
 * take a piece that isn't there (issue 18: dm_append() wrote to
 * dm_pieces[UINT32_MAX]); ACKing everything makes the pools whole again.
 */
START_TEST(test_devmem_pool_exhausted)
{
	uint32_t token = 1;
	size_t sent = 0;
	unsigned i, k;
	ssize_t n;

	/* 1000 fragments of one byte per 4 MiB read (ample control room),
	 * while the pool can take a read of that size
	 */
	for (k = 0; tcp_devmem_pieces_free() >= 1000 + 64 * 17 + 1; k++) {
		struct fake_reply *r;

		script_n = script_pos = 0;
		r = k ? add_reply(K_MSG_SOCK_DEVMEM, 1000)
		      : first_devmem_read(1000);
		for (i = 0; i < 1000; i++, token++)
			add_cm(r, K_SCM_DMABUF, token, 1, token);
		n = do_read(sent, 64 * 65536);
		ck_assert_int_eq(n, 1000);
		sent += 1000;
	}
	/* Then 8 at a time, a 4096-byte offer (room for 8 messages) */
	while (tcp_devmem_pieces_free() >= 16) {
		struct fake_reply *r;

		script_n = script_pos = 0;
		r = add_reply(K_MSG_SOCK_DEVMEM, 8);
		for (i = 0; i < 8; i++, token++)
			add_cm(r, K_SCM_DMABUF, token, 1, token);
		ck_assert_int_eq(read_small(sent, 1, 4096), 8);
		sent += 8;
	}
	ck_assert_uint_lt(tcp_devmem_pieces_free(), 16);
	ck_assert_uint_eq(tcp_devmem_held(conn), sent);

	/* Linear bytes filling 64 one-byte iovecs, until the pool is dry */
	for (k = 0; k < 64; k++) {
		script_n = script_pos = 0;
		lenient = false;
		add_reply(K_MSG_SOCK_DEVMEM, 0)->fill = true;
		n = read_small(sent, 64, 1);
		if (n == -EAGAIN)
			break;
		ck_assert_int_gt(n, 0);
		ck_assert_int_le(n, 64);
		ck_assert_uint_eq(ext.n, (unsigned)n);
		for (i = 0; i < ext.n; i++) {
			ck_assert_uint_eq(ext.piece[i].iov_len, 1);
			ck_assert_uint_eq(*(uint8_t *)ext.piece[i].iov_base,
					  0xc5);
		}
		sent += (size_t)n;
		ck_assert_uint_le(tcp_devmem_pieces_free(), DM_PIECES);
	}
	ck_assert_int_eq(n, -EAGAIN);
	ck_assert_uint_gt(k, 0);		/* linear bytes were kept */
	ck_assert_uint_lt(tcp_devmem_pieces_free(), 16);
	ck_assert_uint_eq(tcp_devmem_held(conn), sent);

	/* Everything ACKed: every token back, the pools whole */
	ck_assert_int_eq(rd->ack(conn, sent), 0);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
	ck_assert_uint_eq(tcp_devmem_pieces_free(), DM_PIECES);
	ck_assert_uint_eq(tcp_devmem_chunks_free(), DM_LIN_CHUNKS);
	ck_assert_uint_eq(tcp_devmem_stats.tokens_returned, token - 1);
}
END_TEST

/* DMA_BUF_IOCTL_SYNC: START once per read that returned fragments, none
 * for linear or ordinary bytes or for retransmission from held pieces, END
 * once per batch of tokens returned
 */
START_TEST(test_devmem_sync_count)
{
	static uint8_t lin[64], data[100];
	struct fake_reply *r = first_devmem_read(64 + 3 * 4096);
	unsigned i;

	r->copy = lin;
	r->copy_len = sizeof(lin);
	add_cm(r, K_SCM_LINEAR, 0, 64, 0);
	for (i = 0; i < 3; i++)
		add_cm(r, K_SCM_DMABUF, 4096 * i, 4096, 1 + i);
	ck_assert_int_eq(do_read(0, 65536), 64 + 3 * 4096);
	ck_assert_uint_eq(sync_start, 1);
	ck_assert_uint_eq(sync_end, 0);

	ck_assert_int_eq(do_read(0, 65536), 64 + 3 * 4096);	/* held */
	r = add_reply(K_MSG_SOCK_DEVMEM, sizeof(data));		/* ordinary */
	r->copy = data;
	r->copy_len = sizeof(data);
	ck_assert_int_eq(do_read(64 + 3 * 4096, 65536), (ssize_t)sizeof(data));
	ck_assert_uint_eq(sync_start, 1);

	ck_assert_int_eq(rd->ack(conn, 64 + 3 * 4096 + sizeof(data)), 0);
	ck_assert_uint_eq(sync_end, 1);
	ck_assert_uint_eq(dn_calls, 1);
}
END_TEST

/* End of stream and nothing queued, on both paths */
START_TEST(test_devmem_eof_and_eagain)
{
	struct fake_reply *r;

	add_reply(MSG_PEEK, -EAGAIN);
	ck_assert_int_eq(do_read(0, 65536), -EAGAIN);
	add_reply(MSG_PEEK, 0);
	ck_assert_int_eq(do_read(0, 65536), 0);

	r = first_devmem_read(4096);
	add_cm(r, K_SCM_DMABUF, 0, 4096, 1);
	ck_assert_int_eq(do_read(0, 65536), 4096);
	add_reply(K_MSG_SOCK_DEVMEM, -EAGAIN);
	ck_assert_int_eq(do_read(4096, 65536), -EAGAIN);
	add_reply(K_MSG_SOCK_DEVMEM, 0);
	ck_assert_int_eq(do_read(4096, 65536), 0);
}
END_TEST


/* The TCP engine with the devmem reader: a real loopback connection as the
 * host socket, the scripted reader calls on it, a QEMU-style stream as the
 * guest side.  Frames are checked against RFC 9293 (sequence numbers,
 * flags) and RFC 1071/9293 checksums with the test's own ref_csum().
 */
static struct ctx ectx;
static int tap_sv[2] = { -1, -1 }, lsock = -1, peer = -1;
static uint16_t lport;
static uint32_t iss;

#define G_PORT		40000
#define G_SEQ		1000

/**
 * engine_setup() - Fake dma-buf, context, stream back-end, listener
 */
static void engine_setup(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t sl = sizeof(a);

	fake_dmabuf();
	ck_assert_int_eq(flow_init(16), 0);
	memset(&ectx, 0, sizeof(ectx));
	fake_conf_init(&ectx.c);
	inet_pton(AF_INET, "203.0.113.2", &ectx.c.ip4.map_host_loopback);
	ectx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ectx.epollfd, 0);
	ectx.now = 1000;
	ectx.timer_next = INT64_MAX;
	ectx.ns_fd = ectx.host_ns_fd = -1;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, tap_sv), 0);
	tap_init(TAP_STREAM, tap_sv[0], false);
	tcp_init(&ectx);

	lsock = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lsock, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(lsock, 1), 0);
	ck_assert_int_eq(getsockname(lsock, (struct sockaddr *)&a, &sl), 0);
	lport = ntohs(a.sin_port);

	tcp_devmem_attach(dmabuf, BUF_SIZE, BIND_ID, -1);
	tcp_devmem_sys_set(&fake_sys);
}

/**
 * engine_teardown() - Close everything
 */
static void engine_teardown(void)
{
	flow_abort_all(&ectx);
	tap_detach();
	tcp_devmem_sys_set(NULL);
	close(tap_sv[0]);
	close(tap_sv[1]);
	close(lsock);
	if (peer >= 0)
		close(peer);
	peer = -1;
	close(ectx.epollfd);
	munmap(UNCONST(void *, dmabuf), BUF_SIZE);
}

/**
 * guest_seg() - Feed one segment from the guest (203.0.113.15:G_PORT to
 *		 203.0.113.2:lport) to the engine
 * @seq:	Sequence number
 * @ack:	Acknowledgement number
 * @flags:	TCP flags
 * @mss:	MSS option to add (SYN), 0 for none
 */
static void guest_seg(uint32_t seq, uint32_t ack, uint8_t flags, uint16_t mss)
{
	static const uint8_t gmac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	static const uint8_t omac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
	uint8_t b[128] = { 0 }, *ip = b + 14, *th = ip + 20;
	size_t thl = mss ? 24 : 20, len = 14 + 20 + thl;
	uint32_t sum = 0;
	struct frame f;
	uint16_t c;
	size_t i;

	memcpy(b, omac, 6);
	memcpy(b + 6, gmac, 6);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + thl) >> 8);
	ip[3] = (uint8_t)(20 + thl);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	inet_pton(AF_INET, "203.0.113.15", ip + 12);
	inet_pton(AF_INET, "203.0.113.2", ip + 16);
	ref_ip4_csum_fix(ip);

	th[0] = G_PORT >> 8;
	th[1] = G_PORT & 0xff;
	th[2] = (uint8_t)(lport >> 8);
	th[3] = (uint8_t)lport;
	for (i = 0; i < 4; i++) {
		th[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
		th[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
	}
	th[12] = (uint8_t)((thl / 4) << 4);
	th[13] = flags;
	th[14] = 0xff;			/* window 65535, no scaling */
	th[15] = 0xff;
	if (mss) {
		th[20] = 2;
		th[21] = 4;
		th[22] = (uint8_t)(mss >> 8);
		th[23] = (uint8_t)mss;
	}
	for (i = 12; i < 20; i += 2)	/* pseudo-header, RFC 9293 3.1 */
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	sum += 6 + (uint32_t)thl;
	c = ref_csum(th, thl, sum);
	th[16] = (uint8_t)(c >> 8);
	th[17] = (uint8_t)c;

	ck_assert_int_eq(frame_parse(b, len, &f), 0);
	ck_assert_uint_eq(tcp_tap_handler(&ectx, &f, 1), 1);
	tap_flush();
}

/**
 * struct seg - A segment the engine sent to the guest
 * @seq:	Sequence number
 * @flags:	TCP flags
 * @len:	Payload bytes
 * @data:	Payload
 */
struct seg {
	uint32_t seq;
	uint8_t flags;
	size_t len;
	uint8_t data[1500];
};

/**
 * guest_read() - Read frames sent to the guest, check their checksums
 * @out:	Segments
 * @max:	Size of @out
 *
 * Return: segments read
 */
static unsigned guest_read(struct seg *out, unsigned max)
{
	static uint8_t buf[1 << 16];
	size_t len = 0, off = 0;
	unsigned n = 0;
	ssize_t r;

	while ((r = recv(tap_sv[1], buf + len, sizeof(buf) - len,
			 MSG_DONTWAIT)) > 0)
		len += (size_t)r;

	while (off + 4 <= len) {
		size_t fl = (size_t)buf[off] << 24 | (size_t)buf[off + 1] << 16 |
			    (size_t)buf[off + 2] << 8 | buf[off + 3];
		uint8_t *fr = buf + off + 4, *ip = fr + 14, *th = ip + 20;
		size_t l4 = fl - 34, i, thl = (size_t)(th[12] >> 4) * 4;
		uint32_t sum = 0;

		ck_assert_uint_le(off + 4 + fl, len);
		ck_assert_uint_eq(fr[12], 0x08);	/* IPv4 */
		ck_assert_uint_eq(ip[9], 6);
		ck_assert_uint_eq(ref_csum(ip, 20, 0), 0);
		for (i = 12; i < 20; i += 2)
			sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		sum += 6 + (uint32_t)l4;
		ck_assert_msg(ref_csum(th, l4, sum) == 0,
			      "bad TCP checksum, segment of %zu bytes", l4);
		ck_assert_uint_lt(n, max);
		out[n].seq = (uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 |
			     (uint32_t)th[6] << 8 | th[7];
		out[n].flags = th[13];
		out[n].len = l4 - thl;
		ck_assert_uint_le(out[n].len, sizeof(out[n].data));
		memcpy(out[n].data, th + thl, out[n].len);
		n++;
		off += 4 + fl;
	}
	ck_assert_uint_eq(off, len);
	return n;
}

/**
 * engine_connect_syn() - Guest SYN, host accept, SYN-ACK to the guest; the
 *			  caller scripts the reads its ACK will trigger,
 *			  then sends it
 */
static void engine_connect_syn(void)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP };
	struct pollfd pfd;
	struct seg sa[4];

	guest_seg(G_SEQ, 0, 0x02, 1460);
	flow = flow_at(0);
	ck_assert_uint_eq(flow->f.type, FLOW_TCP);
	conn = &flow->tcp;
	conn->reader = TCP_RD_DEVMEM;	/* as tcp_reader_select() with --devmem */
	fake_fd = conn->sock;

	peer = accept(lsock, NULL, NULL);
	ck_assert_int_ge(peer, 0);
	pfd.fd = conn->sock;
	pfd.events = POLLOUT;
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	ref.fd = (uint32_t)conn->sock & EPOLL_REF_FD_MAX;
	ref.flow = 0;
	tcp_sock_handler(&ectx, ref, EPOLLOUT);
	tap_flush();
	ck_assert_uint_eq(guest_read(sa, 4), 1);
	ck_assert_uint_eq(sa[0].flags, 0x12);	/* SYN | ACK */
	iss = sa[0].seq;
}

/* Devmem payload reaches the guest as MSS segments with right checksums;
 * fast retransmission resends held bytes; ACKs return the tokens
 */
START_TEST(test_devmem_engine_segments)
{
	static uint8_t lin[100], want[5000], got[5000];
	struct seg sg[16];
	struct fake_reply *r;
	size_t off = 0, i;
	unsigned n, k;

	engine_connect_syn();

	for (i = 0; i < sizeof(lin); i++)
		lin[i] = (uint8_t)(0x30 + i);
	memcpy(want, lin, 100);
	for (i = 0; i < 4096; i++)
		want[100 + i] = pattern(8192 + i);
	for (i = 0; i < 804; i++)
		want[4196 + i] = pattern(20001 + i);

	r = first_devmem_read(5000);
	r->copy = lin;
	r->copy_len = sizeof(lin);
	add_cm(r, K_SCM_LINEAR, 0, 100, 0);
	add_cm(r, K_SCM_DMABUF, 8192, 4096, 1);
	add_cm(r, K_SCM_DMABUF, 20001, 804, 2);	/* odd offset */
	lenient = true;

	guest_seg(G_SEQ + 1, iss + 1, 0x10, 0);	/* handshake ACK */
	n = guest_read(sg, 16);
	ck_assert_uint_eq(n, 4);
	for (k = 0; k < n; k++) {
		ck_assert_uint_eq(sg[k].seq, iss + 1 + off);
		ck_assert_uint_eq(sg[k].len, k < 3 ? 1460 : 620);
		ck_assert_uint_eq(sg[k].flags, k < 3 ? 0x10 : 0x18);
		memcpy(got + off, sg[k].data, sg[k].len);
		off += sg[k].len;
	}
	ck_assert_mem_eq(got, want, 5000);
	ck_assert_uint_eq(tcp_devmem_stats.bytes, 4900);
	ck_assert_uint_eq(tcp_devmem_stats.linear_bytes, 100);

	/* The guest has 2920 bytes: three duplicate ACKs, fast retransmit of
	 * everything from SND.UNA (RFC 5681 3.2 step 4; without SACK the
	 * whole hole at once) from the held pieces, no new devmem read; the
	 * partial ACK that follows needs nothing more (RFC 6582 3.2 step 3:
	 * the next segment went out already)
	 */
	guest_seg(G_SEQ + 1, iss + 1 + 2920, 0x10, 0);
	ck_assert_uint_eq(dn_calls, 0);		/* fragment 1 is still in use */
	ck_assert_uint_eq(guest_read(sg, 16), 0);
	k = devmem_reads;
	for (i = 0; i < 3; i++)
		guest_seg(G_SEQ + 1, iss + 1 + 2920, 0x10, 0);
	n = guest_read(sg, 16);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(sg[0].seq, iss + 1 + 2920);
	ck_assert_uint_eq(sg[0].len, 1460);
	ck_assert_mem_eq(sg[0].data, want + 2920, 1460);
	ck_assert_uint_eq(sg[1].seq, iss + 1 + 4380);
	ck_assert_uint_eq(sg[1].len, 620);
	ck_assert_mem_eq(sg[1].data, want + 4380, 620);
	guest_seg(G_SEQ + 1, iss + 1 + 4380, 0x10, 0);	/* partial ACK */
	ck_assert_uint_eq(guest_read(sg, 16), 0);
	ck_assert_uint_eq(tcp_stats.fast_retrans, 1);
	/* The script is used up: reads since could only answer -EAGAIN, so
	 * the resent bytes came from the held pieces
	 */
	ck_assert_uint_eq(script_pos, script_n);
	ck_assert_uint_ge(devmem_reads, k);

	/* The partial ACK covered fragment 1 (bytes 100 to 4195): its token
	 * went back then; everything ACKed returns token 2
	 */
	ck_assert_uint_eq(dn_calls, 1);
	ck_assert_uint_eq(dn_nranges[0], 1);
	ck_assert_uint_eq(dn_start[0][0], 1);
	ck_assert_uint_eq(dn_count[0][0], 1);
	guest_seg(G_SEQ + 1, iss + 1 + 5000, 0x10, 0);
	ck_assert_uint_eq(dn_calls, 2);
	ck_assert_uint_eq(dn_nranges[1], 1);
	ck_assert_uint_eq(dn_start[1][0], 2);
	ck_assert_uint_eq(dn_count[1][0], 1);
	ck_assert_uint_eq(tcp_devmem_held(conn), 0);
}
END_TEST

/**
 * tcp_devmem_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *tcp_devmem_suite(void)
{
	Suite *s = suite_create("tcp_devmem");
	TCase *tc = tcase_create("reader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_devmem_frag_offsets_and_sizes);
	tcase_add_test(tc, test_devmem_linear_and_dmabuf_mix);
	tcase_add_test(tc, test_devmem_partial_ack_releases_covered_tokens);
	tcase_add_test(tc, test_devmem_merge_unordered);
	tcase_add_test(tc, test_devmem_range_limit);
	tcase_add_test(tc, test_devmem_frag_limit);
	tcase_add_test(tc, test_devmem_retransmit_from_held);
	tcase_add_test(tc, test_devmem_read_without_devmem_messages);
	tcase_add_test(tc, test_devmem_ordinary_socket_peeks);
	tcase_add_test(tc, test_devmem_held_then_peeked);
	tcase_add_test(tc, test_devmem_control_buffer_sizing);
	tcase_add_test(tc, test_devmem_bad_messages);
	tcase_add_test(tc, test_devmem_close_returns_all);
	tcase_add_test(tc, test_devmem_eof_and_eagain);
	tcase_add_test(tc, test_devmem_pool_exhausted);
	tcase_add_test(tc, test_devmem_sync_count);
	suite_add_tcase(s, tc);

	tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, engine_setup, engine_teardown);
	tcase_add_test(tc, test_devmem_engine_segments);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: 0 if all tests pass
 */
int main(void)
{
	SRunner *sr = srunner_create(tcp_devmem_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
