// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/vhost_user_test.c - Tests for tap/vhost_user.c
 *
 * The test plays the front-end (QEMU) on a socketpair: messages are laid
 * out by hand from QEMU's docs/interop/vhost-user.rst (header: u32
 * request, u32 flags with version 1 in bits 0-1, reply bit 2, need-reply
 * bit 3, u32 payload size; payloads: u64, vring state {u32 index, u32
 * num}, vring address {u32 index, u32 flags, u64 descriptor, u64 used,
 * u64 available, u64 log}, memory table {u32 nregions, u32 padding, then
 * {u64 guest address, u64 size, u64 user address, u64 mmap offset}}),
 * guest memory is a memfd mapped on both sides, and the guest driver's
 * side of the rings is written by hand from the virtio 1.x specification
 * (2.7, and 5.1.6 for the 12-byte virtio-net header with num_buffers).
 * Feature bits: VIRTIO_NET_F_MRG_RXBUF 15, VIRTIO_F_VERSION_1 32,
 * VIRTIO_NET_F_MQ 22 (virtio 1.x 5.1.3, 6).
 */
#include <arpa/inet.h>
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../../tap/vhost_user.h"
#include "../../tap/virtio.h"

#define GPA	0x40000000ULL
#define UVA	0x7f1200000000ULL
#define MEMSZ	(512 * 1024)
#define QSZ	64
/* Per queue q: descriptors at RING(q), available +0x1000, used +0x2000 */
#define RING(q)	((size_t)(q) * 0x4000)
#define BUF	0x10000			/* data buffers from here */

static int sp[2];			/* [0]: back-end, [1]: "QEMU" */
static int memfd = -1;
static uint8_t *gmem;			/* the "guest's" view */
static int kick[2], call[2];
static const uint16_t gso0[2];		/* no super-frames */

/**
 * le32_at() - Read a little-endian u32
 * @p:		Bytes
 *
 * Return: value
 */
static uint32_t le32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/**
 * send_msg() - Send one message as the front-end would
 * @req:	Request
 * @flags:	Flags (version 1 is added)
 * @pl:		Payload
 * @size:	Payload bytes
 * @fd:		fd to pass, -1 for none
 */
static void send_msg(uint32_t req, uint32_t flags, const void *pl,
		     uint32_t size, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	uint8_t b[12 + 512];
	uint32_t h[3] = { htole32(req), htole32(flags | 1), htole32(size) };
	struct iovec iov = { b, 12 + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(b, h, 12);
	memcpy(b + 12, pl, size);
	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	ck_assert_int_eq(sendmsg(sp[1], &mh, 0), (ssize_t)(12 + size));
}

/**
 * u64_msg() - Send a message with a u64 payload
 * @req:	Request
 * @v:		Value
 * @fd:		fd to pass, or -1
 */
static void u64_msg(uint32_t req, uint64_t v, int fd)
{
	v = htole64(v);
	send_msg(req, 0, &v, 8, fd);
}

/**
 * state_msg() - Send a vring state message {index, num}
 * @req:	Request
 * @idx:	Queue index
 * @num:	Value
 */
static void state_msg(uint32_t req, uint32_t idx, uint32_t num)
{
	uint32_t s[2] = { htole32(idx), htole32(num) };

	send_msg(req, 0, s, 8, -1);
}

/**
 * read_reply() - Read one reply from the back-end
 * @req:	Expected request
 * @pl:		Filled with the payload (at most 64 bytes)
 *
 * Return: payload size
 */
static uint32_t read_reply(uint32_t req, uint8_t *pl)
{
	uint8_t b[12 + 64];
	ssize_t n = recv(sp[1], b, sizeof(b), MSG_DONTWAIT);

	ck_assert_int_ge(n, 12);
	ck_assert_uint_eq(le32_at(b), req);
	ck_assert_uint_eq(le32_at(b + 4), 0x5);	/* version 1, reply */
	ck_assert_uint_eq(le32_at(b + 8), (uint32_t)n - 12);
	memcpy(pl, b + 12, (size_t)n - 12);
	return (uint32_t)n - 12;
}

/**
 * no_reply() - Check that the back-end sent nothing
 */
static void no_reply(void)
{
	uint8_t b[16];

	ck_assert_int_lt(recv(sp[1], b, sizeof(b), MSG_DONTWAIT), 0);
}

/**
 * setup() - A front-end connected on a socketpair, guest memory in a memfd
 */
static void setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sp), 0);
	memfd = memfd_create("guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, MEMSZ), 0);
	gmem = mmap(NULL, MEMSZ, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ck_assert_ptr_ne(gmem, MAP_FAILED);
	vu_attach(sp[0]);
}

/**
 * mem_table() - Send SET_MEM_TABLE: one region of @size bytes of the memfd
 * @size:	Region size
 */
static void mem_table(uint64_t size)
{
	uint64_t p[5] = { htole64(1), htole64(GPA), htole64(size),
			  htole64(UVA), 0 };

	send_msg(VU_SET_MEM_TABLE, 0, p, sizeof(p), memfd);
}

/**
 * start_queues_f() - Features, memory table, both queues with eventfds
 * @features:	Feature bits for SET_FEATURES
 */
static void start_queues_f(uint64_t features)
{
	unsigned q;

	u64_msg(VU_SET_FEATURES, features, -1);
	mem_table(MEMSZ);
	for (q = 0; q < 2; q++) {
		uint64_t a[5] = { htole64(q), htole64(UVA + RING(q)),
				  htole64(UVA + RING(q) + 0x2000),
				  htole64(UVA + RING(q) + 0x1000), 0 };

		kick[q] = eventfd(0, EFD_NONBLOCK);
		call[q] = eventfd(0, EFD_NONBLOCK);
		state_msg(VU_SET_VRING_NUM, q, QSZ);
		state_msg(VU_SET_VRING_BASE, q, 0);
		send_msg(VU_SET_VRING_ADDR, 0, a, 40, -1);
		u64_msg(VU_SET_VRING_KICK, q, kick[q]);
		u64_msg(VU_SET_VRING_CALL, q, call[q]);
	}
	ck_assert_int_eq(vu_cmd_handler(), 0);
	no_reply();
	ck_assert(vu_ready());
}

/**
 * start_queues() - start_queues_f() with VERSION_1 and MRG_RXBUF
 */
static void start_queues(void)
{
	start_queues_f(BIT(32) | BIT(15));
}

/**
 * post() - Driver side: put a buffer on queue @q's available ring
 * @q:		Queue
 * @d:		Descriptor index (also its buffer: BUF + d * 0x1000)
 * @len:	Buffer length
 * @write:	Device-writable (receive buffers)
 */
static void post(unsigned q, unsigned d, uint32_t len, bool write)
{
	uint8_t *desc = gmem + RING(q) + 16 * d, *av = gmem + RING(q) + 0x1000;
	uint64_t a = htole64(GPA + BUF + d * 0x1000);
	uint32_t l = htole32(len);
	uint16_t f = htole16(write ? 2 : 0), idx;

	memcpy(desc, &a, 8);
	memcpy(desc + 8, &l, 4);
	memcpy(desc + 12, &f, 2);
	memcpy(&idx, av + 2, 2);
	idx = le16toh(idx);
	memcpy(av + 4 + 2 * (idx % QSZ), &(uint16_t){ htole16((uint16_t)d) },
	       2);
	idx = htole16((uint16_t)(idx + 1));
	memcpy(av + 2, &idx, 2);
}

/**
 * used_at() - Driver side: used ring entry @i of queue @q
 * @q:		Queue
 * @i:		Entry
 * @len:	Set to its len
 *
 * Return: its id
 */
static uint32_t used_at(unsigned q, unsigned i, uint32_t *len)
{
	uint8_t *e = gmem + RING(q) + 0x2000 + 4 + 8 * i;

	*len = le32_at(e + 4);
	return le32_at(e);
}

/**
 * used_idx() - Driver side: used->idx of queue @q
 * @q:		Queue
 *
 * Return: index
 */
static uint16_t used_idx(unsigned q)
{
	uint16_t v;

	memcpy(&v, gmem + RING(q) + 0x2000 + 2, 2);
	return le16toh(v);
}

START_TEST(test_vu_msg_need_short_header)
{
	uint8_t b[12] = { 0 };
	size_t need;

	ck_assert_int_eq(vu_msg_need(b, 5, &need), 0);
	ck_assert_uint_eq(need, 7);
}
END_TEST

START_TEST(test_vu_msg_need_payload)
{
	uint8_t b[12] = { 9, 0, 0, 0, 1, 0, 0, 0, 40, 0, 0, 0 };
	size_t need;

	ck_assert_int_eq(vu_msg_need(b, 12, &need), 0);
	ck_assert_uint_eq(need, 40);
	ck_assert_int_eq(vu_msg_need(b, 52, &need), 0);
	ck_assert_uint_eq(need, 0);
}
END_TEST

START_TEST(test_vu_msg_need_oversized)
{
	uint8_t b[12] = { 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0 };	/* 64 KiB */
	size_t need;

	ck_assert_int_eq(vu_msg_need(b, 12, &need), -EMSGSIZE);
}
END_TEST

START_TEST(test_vu_msg_check_sizes)
{
	struct vu_msg m = { .flags = 1 };

	m.req = VU_SET_FEATURES;
	m.size = 4;				/* u64 cut short */
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.size = 8;
	ck_assert_int_eq(vu_msg_check(&m), 0);
	m.size = 16;
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.req = VU_SET_VRING_ADDR;
	m.size = 32;				/* 40 bytes needed */
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.req = VU_SET_VRING_NUM;
	m.size = 8;
	m.payload[0] = 2;			/* queue 2 of 2 */
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.payload[0] = 1;
	ck_assert_int_eq(vu_msg_check(&m), 0);
}
END_TEST

START_TEST(test_vu_msg_check_mem_table)
{
	struct vu_msg m = { .flags = 1, .req = VU_SET_MEM_TABLE };

	m.size = 8 + 32;
	m.payload[0] = 1;
	m.nfds = 1;
	ck_assert_int_eq(vu_msg_check(&m), 0);
	m.payload[0] = 2;			/* two regions, one described */
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.payload[0] = 9;			/* more than 8 regions */
	m.size = 8 + 9 * 32;
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
	m.payload[0] = 0;
	m.size = 8;
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
}
END_TEST

START_TEST(test_vu_msg_check_version_and_fds)
{
	struct vu_msg m = { .flags = 0, .req = VU_GET_FEATURES };

	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);	/* version 0 */
	m.flags = 1;
	ck_assert_int_eq(vu_msg_check(&m), 0);
	m.nfds = 1;					/* no fd expected */
	ck_assert_int_eq(vu_msg_check(&m), -EBADMSG);
}
END_TEST

START_TEST(test_vu_get_features_offers_v1_mrg)
{
	uint8_t pl[64];
	uint64_t f;

	u64_msg(VU_GET_FEATURES, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_FEATURES, pl), 8);
	memcpy(&f, pl, 8);
	f = le64toh(f);
	ck_assert(f & BIT(32));			/* VIRTIO_F_VERSION_1 */
	ck_assert(f & BIT(15));			/* VIRTIO_NET_F_MRG_RXBUF */
	ck_assert(f & BIT(30));			/* PROTOCOL_FEATURES */
	ck_assert(!(f & BIT(22)));		/* no VIRTIO_NET_F_MQ */
}
END_TEST

START_TEST(test_vu_message_in_pieces)
{
	uint32_t h[3] = { htole32(VU_GET_QUEUE_NUM), htole32(1), 0 };
	uint8_t pl[64];
	uint64_t n;

	ck_assert_int_eq(send(sp[1], h, 5, 0), 5);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	no_reply();
	ck_assert_int_eq(send(sp[1], (uint8_t *)h + 5, 7, 0), 7);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_QUEUE_NUM, pl), 8);
	memcpy(&n, pl, 8);
	ck_assert_uint_eq(le64toh(n), 1);
}
END_TEST

START_TEST(test_vu_oversized_message_drops)
{
	uint32_t h[3] = { htole32(VU_SET_MEM_TABLE), htole32(1),
			  htole32(1 << 20) };

	ck_assert_int_eq(send(sp[1], h, 12, 0), 12);
	ck_assert_int_eq(vu_cmd_handler(), -EMSGSIZE);
}
END_TEST

START_TEST(test_vu_short_payload_drops)
{
	uint32_t v = 0;

	send_msg(VU_SET_FEATURES, 0, &v, 4, -1);
	ck_assert_int_eq(vu_cmd_handler(), -EBADMSG);
}
END_TEST

START_TEST(test_vu_set_features_unoffered_drops)
{
	u64_msg(VU_SET_FEATURES, BIT(32) | BIT(22), -1);
	ck_assert_int_lt(vu_cmd_handler(), 0);
}
END_TEST

START_TEST(test_vu_vring_num_not_power_of_two_drops)
{
	state_msg(VU_SET_VRING_NUM, 0, 3);
	ck_assert_int_lt(vu_cmd_handler(), 0);
}
END_TEST

START_TEST(test_vu_vring_num_too_big_drops)
{
	state_msg(VU_SET_VRING_NUM, 0, 65536);
	ck_assert_int_lt(vu_cmd_handler(), 0);
}
END_TEST

START_TEST(test_vu_mem_table_without_fd_drops)
{
	uint64_t p[5] = { htole64(1), htole64(GPA), htole64(MEMSZ),
			  htole64(UVA), 0 };

	send_msg(VU_SET_MEM_TABLE, 0, p, sizeof(p), -1);
	ck_assert_int_lt(vu_cmd_handler(), 0);
}
END_TEST

START_TEST(test_vu_mem_table_beyond_file_drops)
{
	mem_table(MEMSZ * 2);		/* the memfd has MEMSZ bytes */
	ck_assert_int_eq(vu_cmd_handler(), -EINVAL);
}
END_TEST

START_TEST(test_vu_bad_mem_table_after_start_stops_rings)
{
	static uint8_t frame[60];
	struct iovec v = { frame, sizeof(frame) };
	uint16_t first = 0;
	uint8_t niov = 1;
	uint32_t cs = 0;
	bool dropped;

	start_queues();
	post(0, 0, 2048, true);
	mem_table(MEMSZ * 2);		/* refused: the old table is gone */
	ck_assert_int_eq(vu_cmd_handler(), -EINVAL);
	ck_assert(!vu_ready());
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(dropped);		/* and nothing touched guest memory */
	ck_assert_uint_eq(used_idx(0), 0);
}
END_TEST

/* Protocol features (vhost-user.rst, "Protocol features"): LOG_SHMFD 1,
 * REPLY_ACK 3, DEVICE_STATE 19; device feature VHOST_F_LOG_ALL 26;
 * SET_VRING_ADDR flags bit 0: VHOST_VRING_F_LOG
 */
#define P_LOG_SHMFD	BIT(1)
#define P_REPLY_ACK	BIT(3)
#define P_DEVICE_STATE	BIT(19)
#define F_LOG_ALL	BIT(26)

/**
 * log_base() - Send SET_LOG_BASE {size, offset} with @fd (-1: none)
 * @size:	Log size, bytes
 * @off:	Log offset in the file
 * @fd:		Log file
 */
static void log_base(uint64_t size, uint64_t off, int fd)
{
	uint64_t p[2] = { htole64(size), htole64(off) };

	send_msg(VU_SET_LOG_BASE, 0, p, sizeof(p), fd);
}

START_TEST(test_vu_log_base_without_fd_drops)
{
	u64_msg(VU_SET_PROTOCOL_FEATURES, P_LOG_SHMFD | P_REPLY_ACK, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	no_reply();
	log_base(4096, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), -EBADMSG);
}
END_TEST

START_TEST(test_vu_log_base_without_shmfd_drops)
{
	int fd = memfd_create("log", MFD_CLOEXEC);

	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	log_base(4096, 0, fd);
	ck_assert_int_eq(vu_cmd_handler(), -EPROTO);
	close(fd);
}
END_TEST

/**
 * log_base_drops() - SET_LOG_BASE {@size, @off} of a 8 KiB memfd drops
 * @size:	Log size
 * @off:	Log offset
 */
static void log_base_drops(uint64_t size, uint64_t off)
{
	int fd = memfd_create("log", MFD_CLOEXEC);

	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	u64_msg(VU_SET_PROTOCOL_FEATURES, P_LOG_SHMFD, -1);
	log_base(size, off, fd);
	ck_assert_int_lt(vu_cmd_handler(), 0);
	close(fd);
}

START_TEST(test_vu_log_base_size_zero_drops)
{
	log_base_drops(0, 0);
}
END_TEST

START_TEST(test_vu_log_base_beyond_file_drops)
{
	log_base_drops(8192, 1);
}
END_TEST

START_TEST(test_vu_log_base_wraps_drops)
{
	log_base_drops(4096, UINT64_MAX - 100);
}
END_TEST

START_TEST(test_vu_log_base_huge_drops)
{
	log_base_drops(1ULL << 40, 0);
}
END_TEST

START_TEST(test_vu_log_base_not_mappable_drops)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	u64_msg(VU_SET_PROTOCOL_FEATURES, P_LOG_SHMFD, -1);
	log_base(4096, 0, p[0]);
	ck_assert_int_lt(vu_cmd_handler(), 0);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_vu_ring_outside_memory_drops)
{
	uint64_t a[5] = { 0, htole64(UVA + MEMSZ), htole64(UVA + 0x2000),
			  htole64(UVA + 0x1000), 0 };

	u64_msg(VU_SET_FEATURES, BIT(32), -1);
	mem_table(MEMSZ);
	state_msg(VU_SET_VRING_NUM, 0, QSZ);
	send_msg(VU_SET_VRING_ADDR, 0, a, 40, -1);
	u64_msg(VU_SET_VRING_KICK, 0, eventfd(0, 0));
	ck_assert_int_eq(vu_cmd_handler(), -EFAULT);
}
END_TEST

START_TEST(test_vu_get_vring_base_stops)
{
	uint8_t pl[64];

	start_queues();
	state_msg(VU_GET_VRING_BASE, 1, 0);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_VRING_BASE, pl), 8);
	ck_assert_uint_eq(le32_at(pl), 1);
	ck_assert_uint_eq(le32_at(pl + 4), 0);
	ck_assert(!vu_ready());
}
END_TEST

START_TEST(test_vu_to_guest_one_buffer)
{
	static const uint8_t frame[100] = { [0] = 0xaa, [99] = 0x55 };
	struct iovec v = { UNCONST(void *, frame), sizeof(frame) };
	uint16_t first = 0, nb;
	uint8_t niov = 1;
	uint32_t cs = 0, len;
	bool dropped;
	uint64_t ev;

	start_queues();
	post(0, 3, 2048, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	ck_assert_uint_eq(used_idx(0), 1);
	ck_assert_uint_eq(used_at(0, 0, &len), 3);
	ck_assert_uint_eq(len, 12 + 100);	/* 5.1.6: 12-byte header */
	memcpy(&nb, gmem + BUF + 3 * 0x1000 + 10, 2);
	ck_assert_uint_eq(le16toh(nb), 1);	/* num_buffers */
	ck_assert_mem_eq(gmem + BUF + 3 * 0x1000 + 12, frame, 100);
	ck_assert_int_eq(read(call[0], &ev, 8), 8);	/* interrupt */
}
END_TEST

START_TEST(test_vu_to_guest_merged_buffers)
{
	static uint8_t frame[100];
	struct iovec v = { frame, sizeof(frame) };
	uint16_t first = 0, nb;
	uint32_t cs = 0, len;
	uint8_t niov = 1;
	bool dropped;

	memset(frame, 0x42, sizeof(frame));
	start_queues();
	post(0, 1, 64, true);
	post(0, 2, 64, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	ck_assert_uint_eq(used_idx(0), 2);
	ck_assert_uint_eq(used_at(0, 0, &len), 1);
	ck_assert_uint_eq(len, 64);
	ck_assert_uint_eq(used_at(0, 1, &len), 2);
	ck_assert_uint_eq(len, 112 - 64);
	memcpy(&nb, gmem + BUF + 0x1000 + 10, 2);
	ck_assert_uint_eq(le16toh(nb), 2);
	ck_assert_mem_eq(gmem + BUF + 2 * 0x1000, frame + 52, 48);
}
END_TEST

START_TEST(test_vu_to_guest_full_blocks_until_kick)
{
	static uint8_t frame[60];
	struct iovec v[2] = { { frame, 60 }, { frame, 60 } };
	uint16_t first[2] = { 0, 1 };
	uint8_t niov[2] = { 1, 1 };
	uint32_t cs[2] = { 0, 0 };
	bool dropped[2];
	uint64_t one = 1;

	start_queues();
	post(0, 0, 2048, true);
	vu_frames_to_guest(v, first, niov, cs, gso0, 2, dropped);
	ck_assert(!dropped[0]);
	ck_assert(dropped[1]);			/* no second buffer */
	ck_assert(vu_rx_full());
	post(0, 1, 2048, true);
	ck_assert_int_eq(write(kick[0], &one, 8), 8);
	ck_assert_int_eq(vu_kick_handler(0), 0);
	ck_assert(!vu_rx_full());
	vu_frames_to_guest(v, first, niov, cs, gso0, 1, dropped);
	ck_assert(!dropped[0]);
	ck_assert_uint_eq(used_idx(0), 2);
}
END_TEST

START_TEST(test_vu_from_guest_frame)
{
	const uint8_t *f[4];
	size_t l[4];
	uint32_t len;

	start_queues();
	memset(gmem + BUF, 0, 12);			/* virtio-net header */
	memset(gmem + BUF + 12, 0x77, 60);
	post(1, 0, 12 + 60, false);
	ck_assert_int_eq(vu_frames_from_guest(f, l, 4), 1);
	ck_assert_uint_eq(l[0], 60);
	ck_assert_mem_eq(f[0], gmem + BUF + 12, 60);
	ck_assert_uint_eq(used_idx(1), 1);
	ck_assert_uint_eq(used_at(1, 0, &len), 0);
	ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(test_vu_from_guest_runt_dropped)
{
	const uint8_t *f[4];
	size_t l[4];

	start_queues();
	post(1, 0, 12 + 13, false);	/* less than an Ethernet header */
	ck_assert_int_eq(vu_frames_from_guest(f, l, 4), 0);
	ck_assert_uint_eq(used_idx(1), 1);	/* buffer still returned */
	ck_assert(vu_ready());
}
END_TEST

START_TEST(test_vu_from_guest_bad_descriptor_breaks)
{
	uint8_t *desc = gmem + RING(1);
	const uint8_t *f[4];
	uint64_t a = htole64(GPA + MEMSZ);	/* just past guest memory */
	size_t l[4];

	start_queues();
	post(1, 0, 100, false);
	memcpy(desc, &a, 8);
	ck_assert_int_eq(vu_frames_from_guest(f, l, 4), -EBADMSG);
	ck_assert(vu_broken());
	ck_assert(!vu_ready());
	vu_detach();
	ck_assert(!vu_broken());
}
END_TEST

/* Feature bits, virtio 1.x 5.1.3: CSUM 0, GUEST_CSUM 1, GUEST_TSO4 7,
 * GUEST_TSO6 8, HOST_TSO4 11, HOST_TSO6 12
 */
#define F_BASE	(BIT(32) | BIT(15))
#define F_TSO	(F_BASE | BIT(0) | BIT(1) | BIT(7) | BIT(8) | BIT(11) | BIT(12))

/**
 * tcp_frame() - Lay out an Ethernet + IPv4/IPv6 + TCP frame
 * @f:		Buffer
 * @v6:		IPv6 (else IPv4)
 * @optlen:	TCP option bytes (multiple of 4)
 * @plen:	Payload bytes (filled with a counting pattern)
 *
 * Return: frame length
 */
static size_t tcp_frame(uint8_t *f, bool v6, size_t optlen, size_t plen)
{
	size_t l3 = v6 ? 40 : 20, th = 14 + l3, i, iplen;

	memset(f, 0, th + 20 + optlen);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	iplen = (v6 ? 0 : l3) + 20 + optlen + plen;
	if (v6) {
		f[14] = 0x60;
		f[14 + 4] = (uint8_t)(iplen >> 8);
		f[14 + 5] = (uint8_t)iplen;
		f[14 + 6] = 6;			/* next header: TCP */
	} else {
		f[14] = 0x45;
		f[14 + 2] = (uint8_t)(iplen >> 8);
		f[14 + 3] = (uint8_t)iplen;
		f[14 + 9] = 6;			/* protocol: TCP */
	}
	f[th + 12] = (uint8_t)((5 + optlen / 4) << 4);
	for (i = 0; i < plen; i++)
		f[th + 20 + optlen + i] = (uint8_t)(i * 7 + 1);
	return th + 20 + optlen + plen;
}

/**
 * post_chain() - Driver side: one chain of @n descriptors on queue @q
 * @q:		Queue
 * @d0:		First descriptor (then d0 + 1...): buffers BUF + d * 0x1000
 * @n:		Descriptors
 * @len:	Bytes of the chain: 0x1000 per descriptor, the last one less
 * @write:	Device-writable
 *
 * The buffers are contiguous, so the chain's bytes are at BUF + d0 * 0x1000.
 */
static void post_chain(unsigned q, unsigned d0, unsigned n, size_t len,
		       bool write)
{
	uint8_t *av = gmem + RING(q) + 0x1000;
	uint16_t idx;
	unsigned k;

	for (k = 0; k < n; k++) {
		uint8_t *desc = gmem + RING(q) + 16 * (d0 + k);
		uint64_t a = htole64(GPA + BUF + (d0 + k) * 0x1000);
		uint32_t l = htole32(k + 1 < n ? 0x1000 :
				     (uint32_t)(len - k * 0x1000));
		uint16_t f = htole16((uint16_t)((write ? 2 : 0) |
						(k + 1 < n ? 1 : 0)));
		uint16_t next = htole16((uint16_t)(d0 + k + 1));

		memcpy(desc, &a, 8);
		memcpy(desc + 8, &l, 4);
		memcpy(desc + 12, &f, 2);
		memcpy(desc + 14, &next, 2);
	}
	memcpy(&idx, av + 2, 2);
	idx = le16toh(idx);
	memcpy(av + 4 + 2 * (idx % QSZ), &(uint16_t){ htole16((uint16_t)d0) },
	       2);
	idx = htole16((uint16_t)(idx + 1));
	memcpy(av + 2, &idx, 2);
}

/**
 * le16_at() - Read a little-endian u16
 * @p:		Bytes
 *
 * Return: value
 */
static uint16_t le16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

START_TEST(test_vu_get_features_offers_tso)
{
	uint8_t pl[64];
	uint64_t f;

	u64_msg(VU_GET_FEATURES, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_FEATURES, pl), 8);
	memcpy(&f, pl, 8);
	f = le64toh(f);
	ck_assert((f & F_TSO) == F_TSO);
	ck_assert(!(f & BIT(9)));	/* no GUEST_ECN */
	ck_assert(!(f & BIT(13)));	/* no HOST_ECN */
	ck_assert(!(f & BIT(10)));	/* no GUEST_UFO */
	ck_assert(!(f & BIT(14)));	/* no HOST_UFO */
}
END_TEST

/* 5.1.3.1: GUEST_TSO4 needs GUEST_CSUM, HOST_TSO4 needs CSUM */
START_TEST(test_vu_tso_without_csum_drops)
{
	u64_msg(VU_SET_FEATURES, F_BASE | BIT(7) | BIT(8), -1);
	ck_assert_int_eq(vu_cmd_handler(), -EINVAL);
	vu_detach();
	vu_attach(sp[0]);
	u64_msg(VU_SET_FEATURES, F_BASE | BIT(11), -1);
	ck_assert_int_eq(vu_cmd_handler(), -EINVAL);
}
END_TEST

/**
 * to_guest_gso() - A TCP super-frame through vu_frames_to_guest()
 * @features:	Negotiated features
 * @v6:		IPv6 (else IPv4)
 * @optlen:	TCP option bytes
 * @mss:	Segment size: 44 segments of payload
 * @bufs:	Receive buffers posted, of 1600 bytes each
 * @h:		Filled with the 12-byte virtio-net header written
 *
 * Also checks the frame's bytes in the buffers, the used lengths and
 * num_buffers (5.1.6.4: all buffers but the last used up completely).
 */
static void to_guest_gso(uint64_t features, bool v6, size_t optlen,
			 size_t mss, unsigned bufs, uint8_t *h)
{
	static uint8_t frame[65600], got[65600];
	struct iovec v = { frame, 0 };
	size_t th = v6 ? 54 : 34, flen, off = 0, want;
	uint32_t cs = (uint32_t)(th << 16 | 16), len;
	uint16_t first = 0, gso = (uint16_t)mss;
	uint8_t niov = 1;
	bool dropped;
	unsigned d;

	flen = tcp_frame(frame, v6, optlen, 44 * mss);
	ck_assert_uint_le(flen, 65535 + 14);
	v.iov_len = flen;
	start_queues_f(features);
	for (d = 0; d < bufs; d++)
		post(0, d, 1600, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, &gso, 1, &dropped);
	ck_assert(!dropped);
	want = DIV_ROUND_UP(12 + flen, 1600);
	ck_assert_uint_eq(used_idx(0), want);
	for (d = 0; d < want; d++) {
		ck_assert_uint_eq(used_at(0, d, &len), d);
		ck_assert_uint_eq(len, d + 1 < want ? 1600 :
				  12 + flen - (want - 1) * 1600);
		memcpy(got + off, gmem + BUF + d * 0x1000, len);
		off += len;
	}
	ck_assert_uint_eq(off, 12 + flen);
	ck_assert_uint_eq(le16_at(got + 10), want);	/* num_buffers */
	ck_assert_mem_eq(got + 12, frame, flen);
	memcpy(h, got, 12);
}

/* 5.1.6.4.1 and include/uapi/linux/virtio_net.h: NEEDS_CSUM (1) with a
 * GSO type, VIRTIO_NET_HDR_GSO_TCPV4 = 1, gso_size = MSS, hdr_len =
 * Ethernet + IPv4 + TCP = 14 + 20 + 20, csum_start = 34, csum_offset = 16
 * (TCP checksum field, RFC 9293 3.1), all little-endian (virtio 1.x)
 */
START_TEST(test_vu_to_guest_gso_v4)
{
	uint8_t h[12];

	to_guest_gso(F_TSO, false, 0, 1460, 41, h);
	ck_assert_uint_eq(h[0], 1);			/* NEEDS_CSUM */
	ck_assert_uint_eq(h[1], 1);			/* GSO_TCPV4 */
	ck_assert_uint_eq(le16_at(h + 2), 54);		/* hdr_len */
	ck_assert_uint_eq(le16_at(h + 4), 1460);	/* gso_size */
	ck_assert_uint_eq(le16_at(h + 6), 34);		/* csum_start */
	ck_assert_uint_eq(le16_at(h + 8), 16);		/* csum_offset */
}
END_TEST

/* IPv6 with 12 bytes of TCP options: VIRTIO_NET_HDR_GSO_TCPV6 = 4,
 * hdr_len = 14 + 40 + 32 = 86, csum_start = 54
 */
START_TEST(test_vu_to_guest_gso_v6)
{
	uint8_t h[12];

	to_guest_gso(F_TSO, true, 12, 1428, 41, h);
	ck_assert_uint_eq(h[0], 1);
	ck_assert_uint_eq(h[1], 4);			/* GSO_TCPV6 */
	ck_assert_uint_eq(le16_at(h + 2), 86);
	ck_assert_uint_eq(le16_at(h + 4), 1428);
	ck_assert_uint_eq(le16_at(h + 6), 54);
	ck_assert_uint_eq(le16_at(h + 8), 16);
}
END_TEST

/* Without GUEST_TSO4/6 the device MUST NOT set a GSO type (5.1.6.4.1);
 * with GUEST_CSUM only, the partial checksum stays
 */
START_TEST(test_vu_to_guest_gso_not_negotiated)
{
	uint8_t h[12];

	to_guest_gso(F_BASE | BIT(1), false, 0, 1460, 41, h);
	ck_assert(!vu_guest_tso());
	ck_assert_uint_eq(h[0], 1);
	ck_assert_uint_eq(h[1], 0);			/* GSO_NONE */
	ck_assert_uint_eq(le16_at(h + 2), 0);
	ck_assert_uint_eq(le16_at(h + 4), 0);
}
END_TEST

/* Not enough buffers for a 64 KiB frame: nothing taken, it's dropped and
 * the queue counts as full
 */
START_TEST(test_vu_to_guest_gso_short_of_buffers)
{
	static uint8_t frame[65600];
	struct iovec v = { frame, 0 };
	uint32_t cs = 34 << 16 | 16;
	uint16_t first = 0, gso = 1460;
	uint8_t niov = 1;
	bool dropped;
	unsigned d;

	v.iov_len = tcp_frame(frame, false, 0, 44 * 1460);
	start_queues_f(F_TSO);
	for (d = 0; d < 20; d++)
		post(0, d, 1600, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, &gso, 1, &dropped);
	ck_assert(dropped);
	ck_assert(vu_rx_full());
	ck_assert_uint_eq(used_idx(0), 0);
	ck_assert(vu_ready());
}
END_TEST

/* Without MRG_RXBUF a super-frame must fit one chain (5.1.6.3.1 asks
 * the driver for 65601 bytes with GUEST_TSO): one of 4 KiB can't hold it,
 * it's dropped alone, and TSO stops, so that the retransmission comes in
 * frames of one segment; a small frame after it goes through
 */
START_TEST(test_vu_to_guest_gso_one_small_chain_stops_tso)
{
	static uint8_t frame[65600], small[60];
	struct iovec v[2] = { { frame, 0 }, { small, sizeof(small) } };
	uint32_t cs[2] = { 34 << 16 | 16, 0 };
	uint16_t first[2] = { 0, 1 }, gso[2] = { 1460, 0 };
	uint8_t niov[2] = { 1, 1 };
	bool dropped[2];

	v[0].iov_len = tcp_frame(frame, false, 0, 44 * 1460);
	start_queues_f((F_TSO & ~BIT(15)));		/* no MRG_RXBUF */
	ck_assert(vu_guest_tso());
	post(0, 0, 4096, true);
	vu_frames_to_guest(v, first, niov, cs, gso, 2, dropped);
	ck_assert(dropped[0]);
	ck_assert(!dropped[1]);
	ck_assert(!vu_rx_full());
	ck_assert(!vu_guest_tso());
	ck_assert_uint_eq(used_idx(0), 1);
}
END_TEST

/* Every buffer of the ring together can't hold the super-frame (64 of
 * 512 bytes): waiting for more would wait forever (the guest has nothing
 * left to post), so it's dropped and TSO stops
 */
START_TEST(test_vu_to_guest_gso_whole_ring_too_small)
{
	static uint8_t frame[65600];
	struct iovec v = { frame, 0 };
	uint32_t cs = 34 << 16 | 16;
	uint16_t first = 0, gso = 1460;
	uint8_t niov = 1;
	bool dropped;
	unsigned d;

	v.iov_len = tcp_frame(frame, false, 0, 44 * 1460);
	start_queues_f(F_TSO);
	for (d = 0; d < QSZ; d++)
		post(0, d, 512, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, &gso, 1, &dropped);
	ck_assert(dropped);
	ck_assert(!vu_rx_full());
	ck_assert(!vu_guest_tso());
	ck_assert_uint_eq(vu_rx_bufs(), QSZ);		/* nothing taken */
}
END_TEST

/**
 * from_guest() - The guest sends one frame in a chain of 4 KiB descriptors
 * @features:	Negotiated features
 * @hdr:	Its 12-byte virtio-net header (little-endian fields)
 * @frame:	Frame
 * @flen:	Frame length
 * @l:		Filled with the length vu_frames_from_guest() returned
 *
 * Return: frames vu_frames_from_guest() returned (0 or 1)
 */
static int from_guest(uint64_t features, const uint8_t *hdr,
		      const uint8_t *frame, size_t flen, size_t *l)
{
	const uint8_t *f[4];
	size_t ls[4], total = 12 + flen;
	int n;

	memset(gmem, 0, RING(2));	/* rings of an earlier round */
	start_queues_f(features);
	memcpy(gmem + BUF, hdr, 12);
	memcpy(gmem + BUF + 12, frame, flen);
	post_chain(1, 0, (unsigned)DIV_ROUND_UP(total, 0x1000), total, false);
	n = vu_frames_from_guest(f, ls, 4);
	ck_assert_uint_eq(used_idx(1), 1);	/* chain returned either way */
	ck_assert(vu_ready());
	if (n == 1) {
		ck_assert_mem_eq(f[0], frame, flen);
		*l = ls[0];
	}
	return n;
}

/**
 * gso_hdr() - A 12-byte virtio-net header, little-endian
 * @h:		Filled
 * @flags:	flags
 * @type:	gso_type
 * @gso_size:	gso_size
 * @cstart:	csum_start
 * @coff:	csum_offset
 */
static void gso_hdr(uint8_t *h, uint8_t flags, uint8_t type,
		    uint16_t gso_size, uint16_t cstart, uint16_t coff)
{
	uint16_t v;

	memset(h, 0, 12);
	h[0] = flags;
	h[1] = type;
	v = htole16(54);
	memcpy(h + 2, &v, 2);
	v = htole16(gso_size);
	memcpy(h + 4, &v, 2);
	v = htole16(cstart);
	memcpy(h + 6, &v, 2);
	v = htole16(coff);
	memcpy(h + 8, &v, 2);
}

/* HOST_TSO4: a 64 KiB IPv4 TCP segment (IP total length 64280, beyond any
 * MTU) with GSO_TCPV4 comes through whole, across 16 descriptors
 */
START_TEST(test_vu_from_guest_gso_accepted)
{
	static uint8_t frame[65600];
	uint8_t h[12];
	size_t flen = tcp_frame(frame, false, 0, 44 * 1460), l = 0;

	gso_hdr(h, 1, 1, 1460, 34, 16);
	ck_assert_int_eq(from_guest(F_TSO, h, frame, flen, &l), 1);
	ck_assert_uint_eq(l, flen);
	ck_assert_uint_eq(vu_stats.rx_bad_gso, 0);
}
END_TEST

START_TEST(test_vu_from_guest_gso_v6_accepted)
{
	static uint8_t frame[65600];
	uint8_t h[12];
	size_t flen = tcp_frame(frame, true, 0, 45 * 1440), l = 0;

	gso_hdr(h, 1, 4, 1440, 54, 16);
	ck_assert_int_eq(from_guest(F_TSO, h, frame, flen, &l), 1);
	ck_assert_uint_eq(l, flen);
}
END_TEST

/* Headers that break 5.1.6.2.1 (driver requirements) or use what we never
 * offered: the frame is dropped and counted, the ring goes on
 */
START_TEST(test_vu_from_guest_bad_gso_dropped)
{
	static uint8_t v4[65600], v6[2000];
	struct {
		uint64_t features;
		const uint8_t *frame;
		uint8_t flags, type;
		uint16_t gso_size, cstart, coff;
	} t[] = {
		{ F_BASE | BIT(0), v4, 1, 1, 1460, 34, 16 },	/* no HOST_TSO4 */
		{ F_TSO & ~BIT(12), v6, 1, 4, 1440, 54, 16 },	/* no HOST_TSO6 */
		{ F_TSO, v4, 1, 4, 1460, 34, 16 },	/* TCPV6 on IPv4 */
		{ F_TSO, v6, 1, 1, 1440, 54, 16 },	/* TCPV4 on IPv6 */
		{ F_TSO, v4, 1, 3, 1460, 34, 6 },	/* UDP (UFO) */
		{ F_TSO, v4, 1, 5, 1460, 34, 6 },	/* UDP_L4 (USO) */
		{ F_TSO, v4, 1, 0x81, 1460, 34, 16 },	/* ECN: not offered */
		{ F_TSO, v4, 0, 1, 1460, 34, 16 },	/* GSO w/o NEEDS_CSUM */
		{ F_TSO, v4, 1, 1, 0, 34, 16 },		/* gso_size 0 */
		{ F_TSO, v4, 1, 0, 0, 65000, 16 },	/* csum beyond frame */
	};
	size_t l4 = tcp_frame(v4, false, 0, 44 * 1460);
	size_t l6 = tcp_frame(v6, true, 0, 1440);
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		uint8_t h[12];
		size_t l;

		vu_stats.rx_bad_gso = 0;
		gso_hdr(h, t[i].flags, t[i].type, t[i].gso_size, t[i].cstart,
			t[i].coff);
		ck_assert_msg(from_guest(t[i].features, h, t[i].frame,
					 t[i].frame == v4 ? l4 : l6, &l) == 0,
			      "case %u accepted", i);
		ck_assert_uint_eq(vu_stats.rx_bad_gso, 1);
		vu_detach();
		vu_attach(sp[0]);
	}
}
END_TEST

/* vu_rx_bufs(): the available ring entries of the receive queue that we
 * haven't taken, what senders may queue frames for
 */
START_TEST(test_vu_rx_bufs_counts)
{
	static uint8_t frame[60];
	struct iovec v = { frame, sizeof(frame) };
	uint16_t first = 0;
	uint8_t niov = 1;
	uint32_t cs = 0;
	bool dropped;

	ck_assert_uint_eq(vu_rx_bufs(), 0);		/* not running */
	start_queues();
	ck_assert_uint_eq(vu_rx_bufs(), 0);
	post(0, 0, 2048, true);
	post(0, 1, 2048, true);
	post(0, 2, 2048, true);
	ck_assert_uint_eq(vu_rx_bufs(), 3);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	ck_assert_uint_eq(vu_rx_bufs(), 2);
}
END_TEST

/* A front-end that ftruncate()s its unsealed memory file after
 * SET_MEM_TABLE: our next access faults (SIGBUS, mmap(2)); the guard maps
 * zeroes there, and vu_broken() drops the front-end
 */
START_TEST(test_vu_shrunk_memory_drops)
{
	const uint8_t *f[4];
	size_t l[4];

	start_queues();
	memset(gmem + BUF, 0, 12 + 60);
	post(1, 0, 12 + 60, false);
	ck_assert_int_eq(ftruncate(memfd, 0), 0);	/* gmem is gone too */
	ck_assert_int_le(vu_frames_from_guest(f, l, 4), 0);
	ck_assert(vu_broken());
	ck_assert_uint_eq(vu_stats.shrunk, 1);
	vu_detach();
	ck_assert(!vu_broken());
}
END_TEST

/* A sealed file (F_SEAL_SHRINK) can't shrink: ftruncate() fails */
START_TEST(test_vu_sealed_memory_kept)
{
	const uint8_t *f[4];
	size_t l[4];

	ck_assert_int_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	start_queues();
	memset(gmem + BUF, 0, 12 + 60);
	post(1, 0, 12 + 60, false);
	ck_assert_int_lt(ftruncate(memfd, 0), 0);
	ck_assert_int_eq(vu_frames_from_guest(f, l, 4), 1);
	ck_assert(!vu_broken());
}
END_TEST

/* A SIGBUS that isn't in guest memory is not ours: default action */
START_TEST(test_vu_sigbus_elsewhere_kills)
{
	int fd = memfd_create("other", MFD_CLOEXEC);
	volatile uint8_t *p;

	start_queues();			/* unsealed: the guard is installed */
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	(void)p[0];			/* SIGBUS, not in a guest region */
}
END_TEST

/**
 * clear_nonblock() - Clear O_NONBLOCK on a file, as a front-end may do on
 *		      its copy of a descriptor it passed us (fcntl(2): file
 *		      status flags belong to the open file, shared with us)
 * @fd:		Our copy
 */
static void clear_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	ck_assert_int_ge(fl, 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fl & ~O_NONBLOCK), 0);
}

/* Issue 26 item 4: the front-end clears O_NONBLOCK on its kick eventfd
 * after passing it: one kick must not leave us blocked in a second read
 */
START_TEST(test_vu_kick_blocking_eventfd_returns)
{
	uint64_t one = 1;

	start_queues();
	clear_nonblock(kick[0]);
	ck_assert_int_eq(write(kick[0], &one, 8), 8);
	ck_assert_int_eq(vu_kick_handler(0), 0);
	ck_assert_int_eq(vu_kick_handler(0), 0);	/* nothing pending */
}
END_TEST

/* An EFD_SEMAPHORE kick eventfd: each read takes 1 (eventfd(2)); we read
 * once per wake-up, not until the counter is empty (2^62 reads)
 */
START_TEST(test_vu_kick_semaphore_one_read)
{
	int sem = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK);
	uint64_t v = 3;

	start_queues();
	u64_msg(VU_SET_VRING_KICK, 0, sem);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert(vu_ready());
	ck_assert_int_eq(write(sem, &v, 8), 8);
	ck_assert_int_eq(vu_kick_handler(0), 0);
	ck_assert_int_eq(vu_kick_handler(0), 0);
	ck_assert_int_eq(read(sem, &v, 8), 8);		/* 3 - 2 reads */
	ck_assert_uint_eq(v, 1);
	ck_assert_int_lt(read(sem, &v, 8), 0);
	ck_assert_int_eq(errno, EAGAIN);
}
END_TEST

/* Issue 26 item 5: a call eventfd at 0xfffffffffffffffe, the largest
 * value it holds (eventfd(2)), without O_NONBLOCK: the frame goes to the
 * guest, the interrupt is skipped (one is pending), and once the guest
 * has taken its interrupts the next one is written
 */
START_TEST(test_vu_call_full_skipped)
{
	static const uint8_t frame[60];
	struct iovec v = { UNCONST(void *, frame), sizeof(frame) };
	uint64_t full = 0xfffffffffffffffeULL, ev;
	uint16_t first = 0;
	uint8_t niov = 1;
	uint32_t cs = 0;
	bool dropped;
	uint64_t calls;

	start_queues();
	ck_assert_int_eq(write(call[0], &full, 8), 8);
	clear_nonblock(call[0]);
	calls = vu_stats.calls;
	post(0, 0, 2048, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	ck_assert_uint_eq(used_idx(0), 1);
	ck_assert_uint_eq(vu_stats.calls, calls);	/* skipped */
	post(0, 1, 2048, true);				/* still full: no wait */
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert_uint_eq(used_idx(0), 2);
	ck_assert_int_eq(read(call[0], &ev, 8), 8);	/* the guest takes it */
	ck_assert_uint_eq(ev, full);
	post(0, 2, 2048, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert_uint_eq(used_idx(0), 3);
	ck_assert_uint_eq(vu_stats.calls, calls + 1);
	ck_assert_int_eq(read(call[0], &ev, 8), 8);
	ck_assert_uint_eq(ev, 1);
}
END_TEST

/**
 * vring_fd_refused() - SET_VRING_@req with @fd must drop the front-end
 * @req:	VU_SET_VRING_KICK, _CALL or _ERR
 * @fd:		Descriptor that isn't an eventfd (closed here)
 */
static void vring_fd_refused(uint32_t req, int fd)
{
	ck_assert_int_ge(fd, 0);
	u64_msg(req, 0, fd);
	close(fd);
	ck_assert_int_eq(vu_cmd_handler(), -EINVAL);
}

/* Kick, call and error descriptors must be eventfds (vhost-user.rst) */
START_TEST(test_vu_vring_fd_not_eventfd_drops)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	close(p[1]);
	vring_fd_refused(VU_SET_VRING_KICK, p[0]);
}
END_TEST

START_TEST(test_vu_vring_fd_pipe_call_drops)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	vring_fd_refused(VU_SET_VRING_CALL, p[1]);
}
END_TEST

START_TEST(test_vu_vring_fd_memfd_drops)
{
	vring_fd_refused(VU_SET_VRING_ERR, memfd_create("x", MFD_CLOEXEC));
}
END_TEST

/* An anonymous inode that isn't an eventfd: a timerfd takes no write */
START_TEST(test_vu_vring_fd_timerfd_drops)
{
	vring_fd_refused(VU_SET_VRING_KICK,
			 timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
}
END_TEST

START_TEST(test_vu_vring_fd_socket_drops)
{
	vring_fd_refused(VU_SET_VRING_CALL, socket(AF_UNIX, SOCK_DGRAM, 0));
}
END_TEST

/* An eventfd with EFD_SEMAPHORE, or without O_NONBLOCK, is an eventfd */
START_TEST(test_vu_vring_fd_eventfd_kinds_taken)
{
	u64_msg(VU_SET_VRING_CALL, 0, eventfd(0, EFD_SEMAPHORE));
	u64_msg(VU_SET_VRING_ERR, 0, eventfd(0, 0));
	u64_msg(VU_SET_VRING_KICK, 1, eventfd(0, EFD_NONBLOCK));
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert(vu_attached());
}
END_TEST

/* Issue 26 item 9: an available index more than the queue size ahead,
 * found by the check a kick makes, drops the front-end (virtio 1.x
 * 2.7.6: the driver never has more than the queue size outstanding)
 */
START_TEST(test_vu_kick_broken_avail_drops)
{
	uint16_t idx = htole16(QSZ + 3);
	uint64_t one = 1;

	start_queues();
	memcpy(gmem + RING(0) + 0x1000 + 2, &idx, 2);
	ck_assert_int_eq(write(kick[0], &one, 8), 8);
	ck_assert_int_eq(vu_kick_handler(0), -EBADMSG);
	ck_assert(vu_broken());
	vu_detach();
	ck_assert(!vu_broken());
}
END_TEST

/**
 * vring_addr_log() - SET_VRING_ADDR for queue @q with VHOST_VRING_F_LOG
 * @q:		Queue
 * @log:	Guest address its used ring is logged at
 */
static void vring_addr_log(unsigned q, uint64_t log)
{
	uint32_t a[10];
	uint64_t v;

	a[0] = htole32(q);
	a[1] = htole32(1);			/* flags: VHOST_VRING_F_LOG */
	v = htole64(UVA + RING(q));
	memcpy(&a[2], &v, 8);
	v = htole64(UVA + RING(q) + 0x2000);
	memcpy(&a[4], &v, 8);
	v = htole64(UVA + RING(q) + 0x1000);
	memcpy(&a[6], &v, 8);
	v = htole64(log);
	memcpy(&a[8], &v, 8);
	send_msg(VU_SET_VRING_ADDR, 0, a, 40, -1);
}

#define LOG_FILE	0x9000
#define LOG_OFF		0x100		/* not page-aligned: mmap() can't */
#define LOG_SIZE	0x8010		/* pages up to 0x4007f: all of MEMSZ */
#define LOG_Q0		(GPA + 0x70000)	/* queue 0 used ring, logged here */

/**
 * log_start() - Queues running with logging, as QEMU starts a migration
 * @features:	SET_FEATURES bits (F_LOG_ALL or not)
 *
 * Return: the log as the front-end sees it (bit 0 of byte 0: page 0)
 */
static uint8_t *log_start(uint64_t features)
{
	int fd = memfd_create("log", MFD_CLOEXEC);
	uint8_t pl[64], *m;
	uint64_t r;

	ck_assert_int_eq(ftruncate(fd, LOG_FILE), 0);
	m = mmap(NULL, LOG_FILE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	u64_msg(VU_SET_PROTOCOL_FEATURES, P_LOG_SHMFD | P_REPLY_ACK, -1);
	start_queues_f(BIT(32) | BIT(15) | features);
	vring_addr_log(0, LOG_Q0);
	vring_addr_log(1, GPA + RING(1) + 0x2000);
	log_base(LOG_SIZE, LOG_OFF, fd);
	close(fd);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_SET_LOG_BASE, pl), 8);
	memcpy(&r, pl, 8);
	ck_assert_uint_eq(r, 0);
	ck_assert(vu_ready());
	return m + LOG_OFF;
}

/**
 * log_bits() - Bits set in the log
 * @l:		Log
 *
 * Return: count
 */
static unsigned log_bits(const uint8_t *l)
{
	unsigned i, n = 0;

	for (i = 0; i < LOG_SIZE; i++)
		n += (unsigned)__builtin_popcount(l[i]);
	return n;
}

/* Page p of guest memory is bit (p % 8) of byte (p / 8) */
#define LOG_BIT(l, gpa)	((l)[((gpa) >> 12) / 8] & (1 << (((gpa) >> 12) % 8)))

START_TEST(test_vu_log_rx_frame_and_used_ring)
{
	static uint8_t frame[5000];
	struct iovec v = { frame, sizeof(frame) };
	uint16_t first = 0;
	uint8_t niov = 1, *l;
	uint32_t cs = 0;
	bool dropped;

	l = log_start(F_LOG_ALL);
	post(0, 3, 8192, true);		/* guest 0x40013000, 2 pages */
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	/* 12 + 5000 bytes from 0x40013000: pages 0x40013 and 0x40014,
	 * bits 3 and 4 of byte 0x8002
	 */
	ck_assert_uint_eq(l[0x8002], 0x18);
	/* Used entry and idx: logged at the ring's log address (page
	 * 0x40070: byte 0x800e, bit 0), not where the ring is (0x40002)
	 */
	ck_assert_uint_eq(l[0x800e], 0x01);
	ck_assert(!LOG_BIT(l, GPA + RING(0) + 0x2000));
	ck_assert_uint_eq(log_bits(l), 3);
}
END_TEST

START_TEST(test_vu_log_tx_used_ring_only)
{
	const uint8_t *f[4];
	size_t len[4];
	uint8_t *l;

	l = log_start(F_LOG_ALL);
	memset(gmem + BUF, 0, 12);
	memset(gmem + BUF + 12, 0x77, 60);
	post(1, 0, 12 + 60, false);
	ck_assert_int_eq(vu_frames_from_guest(f, len, 4), 1);
	/* Queue 1's used ring is at 0x40006000: byte 0x8000, bit 6; the
	 * frame was only read: page 0x40010 stays clean
	 */
	ck_assert_uint_eq(l[0x8000], 0x40);
	ck_assert(!LOG_BIT(l, GPA + BUF));
	ck_assert_uint_eq(log_bits(l), 1);
}
END_TEST

START_TEST(test_vu_log_off_without_log_all)
{
	static uint8_t frame[100];
	struct iovec v = { frame, sizeof(frame) };
	uint16_t first = 0;
	uint8_t niov = 1, *l;
	uint32_t cs = 0;
	bool dropped;

	l = log_start(0);
	post(0, 3, 2048, true);
	vu_frames_to_guest(&v, &first, &niov, &cs, gso0, 1, &dropped);
	ck_assert(!dropped);
	ck_assert_uint_eq(log_bits(l), 0);
}
END_TEST

/* A version 2 stream: 2001:db8::2, fe80::1, 198.51.100.2,
 * 52:54:00:12:34:56, no flows (upstream's layout, tap/devstate.h)
 */
static const uint8_t state_v2[62] = {
	0xb1, 0xbb, 0x1d, 0x1b, 0x0b, 0xb1, 0xd1, 0xb0, 0, 0, 0, 2, 0, 0, 0, 2,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	198, 51, 100, 2, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0, 0, 0, 0,
};

static int save_rc;			/* what test_save() returns */
static struct devstate loaded;		/* what test_load() got */
static int loads;

/**
 * test_save() - Daemon side of a save: the state of @state_v2
 * @s:		Filled
 * @flows:	Where a flow section would go (none here)
 * @room:	Bytes there
 *
 * Return: save_rc
 */
static int test_save(struct devstate *s, uint8_t *flows, size_t room)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	(void)flows;
	(void)room;
	if (save_rc)
		return save_rc;
	memset(s, 0, sizeof(*s));
	memcpy(&s->addr6, state_v2 + 16, 16);
	memcpy(&s->addr6_ll, state_v2 + 32, 16);
	memcpy(&s->addr4, state_v2 + 48, 4);
	memcpy(s->mac, mac, 6);
	return 0;
}

/**
 * test_load() - Daemon side of a load: keep what came
 * @s:		State
 *
 * Return: 0
 */
static int test_load(const struct devstate *s)
{
	loaded = *s;
	loads++;
	return 0;
}

static const struct vu_state_ops test_ops = { test_save, test_load };

/**
 * state_fd() - Send SET_DEVICE_STATE_FD {@dir, @phase} with @fd, answer
 * @dir:	0 save, 1 load
 * @phase:	0 stopped
 * @fd:		Channel end for the back-end (closed here after sending)
 *
 * Return: the u64 reply
 */
static uint64_t state_fd(uint32_t dir, uint32_t phase, int fd)
{
	uint32_t p[2] = { htole32(dir), htole32(phase) };
	uint8_t pl[64];
	uint64_t r;

	send_msg(VU_SET_DEVICE_STATE_FD, 0, p, 8, fd);
	close(fd);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_SET_DEVICE_STATE_FD, pl), 8);
	memcpy(&r, pl, 8);
	return le64toh(r);
}

/**
 * check_state() - Send CHECK_DEVICE_STATE and read the answer
 *
 * Return: the u64 reply
 */
static uint64_t check_state(void)
{
	uint8_t pl[64];
	uint64_t r;

	send_msg(VU_CHECK_DEVICE_STATE, 0, "", 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_CHECK_DEVICE_STATE, pl), 8);
	memcpy(&r, pl, 8);
	return le64toh(r);
}

/**
 * state_setup() - setup(), DEVICE_STATE negotiated, our callbacks
 */
static void state_setup(void)
{
	setup();
	vu_set_state_ops(NULL, &test_ops);
	save_rc = 0;
	loads = 0;
	u64_msg(VU_SET_PROTOCOL_FEATURES, P_DEVICE_STATE, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
}

START_TEST(test_vu_state_save_stream)
{
	uint8_t buf[128];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	/* Bit 8: no back-end fd; bits 0-7: 0, accepted */
	ck_assert_uint_eq(state_fd(0, 0, p[1]), 0x100);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 62);
	ck_assert_mem_eq(buf, state_v2, 62);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 0);	/* closed */
	ck_assert_uint_eq(check_state(), 0);
	close(p[0]);
}
END_TEST

START_TEST(test_vu_state_save_refused_with_flows)
{
	uint8_t buf[8];
	int p[2];

	save_rc = -EBUSY;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(0, 0, p[1]), 0x101);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 0);	/* nothing */
	ck_assert_uint_ne(check_state(), 0);
	ck_assert(vu_attached());
	close(p[0]);
}
END_TEST

START_TEST(test_vu_state_load)
{
	uint8_t b[16];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	ck_assert_int_eq(write(p[1], state_v2, 62), 62);
	close(p[1]);
	ck_assert_uint_eq(check_state(), 0);
	ck_assert_int_eq(loads, 1);
	inet_pton(AF_INET6, "2001:db8::2", b);
	ck_assert_mem_eq(&loaded.addr6, b, 16);
	inet_pton(AF_INET, "198.51.100.2", b);
	ck_assert_mem_eq(&loaded.addr4, b, 4);
	ck_assert_uint_eq(loaded.mac[5], 0x56);
}
END_TEST

START_TEST(test_vu_state_load_check_waits)
{
	uint8_t pl[64];
	uint64_t r;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	send_msg(VU_CHECK_DEVICE_STATE, 0, "", 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	no_reply();				/* not at end of file yet */
	ck_assert_int_eq(write(p[1], state_v2, 30), 30);
	ck_assert_int_eq(vu_state_handler(), 0);
	no_reply();
	ck_assert_int_eq(write(p[1], state_v2 + 30, 32), 32);
	close(p[1]);
	ck_assert_int_eq(vu_state_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_CHECK_DEVICE_STATE, pl), 8);
	memcpy(&r, pl, 8);
	ck_assert_uint_eq(r, 0);
	ck_assert_int_eq(loads, 1);
}
END_TEST

/* The device state channel is the front-end's pipe, shared with us: it
 * may clear O_NONBLOCK after SET_DEVICE_STATE_FD (fcntl(2): the flag
 * belongs to the open file).  A load whose writer pauses mid-stream must
 * not leave us blocked in read(): the rest comes later and is taken.
 */
START_TEST(test_vu_state_load_blocking_pipe_returns)
{
	uint8_t pl[64];
	uint64_t r;
	int p[2], mine;

	ck_assert_int_eq(pipe(p), 0);
	mine = dup(p[0]);			/* the front-end's copy */
	ck_assert_int_ge(mine, 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	clear_nonblock(mine);
	ck_assert_int_eq(write(p[1], state_v2, 30), 30);
	ck_assert_int_eq(vu_state_handler(), 0);	/* 30 bytes, then none */
	ck_assert_int_eq(write(p[1], state_v2 + 30, 32), 32);
	close(p[1]);
	ck_assert_int_eq(vu_state_handler(), 0);
	send_msg(VU_CHECK_DEVICE_STATE, 0, "", 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_CHECK_DEVICE_STATE, pl), 8);
	memcpy(&r, pl, 8);
	ck_assert_uint_eq(r, 0);
	ck_assert_int_eq(loads, 1);
	close(mine);
}
END_TEST

/* The same for a save into a pipe that is full (pipe(7): 65536 bytes by
 * default): write() must not block once the front-end cleared O_NONBLOCK;
 * the stream goes out once the front-end reads
 */
START_TEST(test_vu_state_save_blocking_pipe_returns)
{
	static uint8_t fill[65536];
	uint8_t buf[128];
	int p[2], mine, fl;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	fl = fcntl(p[1], F_GETFL);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, fl | O_NONBLOCK), 0);
	do {
		n = write(p[1], fill, sizeof(fill));
	} while (n > 0);
	ck_assert_int_eq(errno, EAGAIN);	/* full */
	mine = dup(p[1]);			/* the front-end's copy */
	ck_assert_int_ge(mine, 0);
	ck_assert_uint_eq(state_fd(0, 0, p[1]), 0x100);
	clear_nonblock(mine);
	ck_assert_int_eq(vu_state_handler(), 0);	/* still full */
	fl = fcntl(p[0], F_GETFL);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, fl | O_NONBLOCK), 0);
	while (read(p[0], fill, sizeof(fill)) > 0)
		;				/* drain what we wrote */
	ck_assert_int_eq(vu_state_handler(), 0);	/* now it goes */
	close(mine);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 62);
	ck_assert_mem_eq(buf, state_v2, 62);
	ck_assert_uint_eq(check_state(), 0);
	close(p[0]);
}
END_TEST

START_TEST(test_vu_state_load_unknown_version)
{
	uint8_t s[62];
	int p[2];

	memcpy(s, state_v2, sizeof(s));
	s[11] = 3;
	s[15] = 3;				/* version 3, compat 3 */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	ck_assert_int_eq(write(p[1], s, sizeof(s)), (ssize_t)sizeof(s));
	close(p[1]);
	ck_assert_uint_ne(check_state(), 0);
	ck_assert_int_eq(loads, 0);
	ck_assert(vu_attached());
}
END_TEST

START_TEST(test_vu_state_load_garbage_refused_early)
{
	static const uint8_t junk[16] = "GET / HTTP/1.0\r\n";
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	ck_assert_int_eq(write(p[1], junk, sizeof(junk)), 16);
	ck_assert_int_eq(vu_state_handler(), 0);
	/* Refused without waiting for the writer to close */
	ck_assert_uint_ne(check_state(), 0);
	ck_assert_int_eq(loads, 0);
	close(p[1]);
}
END_TEST

START_TEST(test_vu_state_load_truncated)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(1, 0, p[0]), 0x100);
	ck_assert_int_eq(write(p[1], state_v2, 61), 61);
	close(p[1]);
	ck_assert_uint_ne(check_state(), 0);
	ck_assert_int_eq(loads, 0);
}
END_TEST

START_TEST(test_vu_state_bad_phase_refused)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(state_fd(0, 1, p[1]), 0x101);
	ck_assert_uint_eq(state_fd(2, 0, p[0]), 0x101);	/* direction 2 */
	ck_assert_uint_ne(check_state(), 0);
	ck_assert(vu_attached());
}
END_TEST

START_TEST(test_vu_state_check_without_transfer)
{
	ck_assert_uint_ne(check_state(), 0);
}
END_TEST

START_TEST(test_vu_state_fd_missing_drops)
{
	uint32_t p[2] = { 0, 0 };

	send_msg(VU_SET_DEVICE_STATE_FD, 0, p, 8, -1);
	ck_assert_int_eq(vu_cmd_handler(), -EBADMSG);
}
END_TEST

START_TEST(test_vu_state_not_negotiated_drops)
{
	uint32_t p[2] = { 0, 0 };
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	send_msg(VU_SET_DEVICE_STATE_FD, 0, p, 8, fds[1]);
	ck_assert_int_eq(vu_cmd_handler(), -EPROTO);
}
END_TEST

START_TEST(test_vu_get_protocol_features_migration)
{
	uint8_t pl[64];
	uint64_t f;

	u64_msg(VU_GET_PROTOCOL_FEATURES, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_PROTOCOL_FEATURES, pl), 8);
	memcpy(&f, pl, 8);
	f = le64toh(f);
	ck_assert(f & P_LOG_SHMFD);
	ck_assert(f & P_DEVICE_STATE);
	ck_assert(f & P_REPLY_ACK);
	u64_msg(VU_GET_FEATURES, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_FEATURES, pl), 8);
	memcpy(&f, pl, 8);
	ck_assert(le64toh(f) & F_LOG_ALL);
}
END_TEST

/* Upstream passt's vu_get_features_exec() offers VIRTIO_F_VERSION_1 (32),
 * VIRTIO_NET_F_GUEST_CSUM (1), VIRTIO_NET_F_MRG_RXBUF (15),
 * VHOST_F_LOG_ALL (26), VHOST_USER_F_PROTOCOL_FEATURES (30)
 */
START_TEST(test_vu_upstream_features_only)
{
	uint8_t pl[64];
	uint64_t f;

	vu_offer_upstream_only(true);
	u64_msg(VU_GET_FEATURES, 0, -1);
	ck_assert_int_eq(vu_cmd_handler(), 0);
	ck_assert_uint_eq(read_reply(VU_GET_FEATURES, pl), 8);
	memcpy(&f, pl, 8);
	ck_assert_uint_eq(le64toh(f), 0x144008002ULL);
	u64_msg(VU_SET_FEATURES, BIT(32) | BIT(1) | BIT(7), -1); /* TSO4 */
	ck_assert_int_lt(vu_cmd_handler(), 0);
	vu_offer_upstream_only(false);
}
END_TEST

static Suite *vhost_user_suite(void)
{
	Suite *s = suite_create("vhost_user");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_vu_msg_need_short_header);
	tcase_add_test(tc, test_vu_msg_need_payload);
	tcase_add_test(tc, test_vu_msg_need_oversized);
	tcase_add_test(tc, test_vu_msg_check_sizes);
	tcase_add_test(tc, test_vu_msg_check_mem_table);
	tcase_add_test(tc, test_vu_msg_check_version_and_fds);
	suite_add_tcase(s, tc);

	tc = tcase_create("messages");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vu_get_features_offers_v1_mrg);
	tcase_add_test(tc, test_vu_message_in_pieces);
	tcase_add_test(tc, test_vu_oversized_message_drops);
	tcase_add_test(tc, test_vu_short_payload_drops);
	tcase_add_test(tc, test_vu_set_features_unoffered_drops);
	tcase_add_test(tc, test_vu_vring_num_not_power_of_two_drops);
	tcase_add_test(tc, test_vu_vring_num_too_big_drops);
	tcase_add_test(tc, test_vu_mem_table_without_fd_drops);
	tcase_add_test(tc, test_vu_mem_table_beyond_file_drops);
	tcase_add_test(tc, test_vu_bad_mem_table_after_start_stops_rings);
	tcase_add_test(tc, test_vu_log_base_without_fd_drops);
	tcase_add_test(tc, test_vu_log_base_without_shmfd_drops);
	tcase_add_test(tc, test_vu_log_base_size_zero_drops);
	tcase_add_test(tc, test_vu_log_base_beyond_file_drops);
	tcase_add_test(tc, test_vu_log_base_wraps_drops);
	tcase_add_test(tc, test_vu_log_base_huge_drops);
	tcase_add_test(tc, test_vu_log_base_not_mappable_drops);
	tcase_add_test(tc, test_vu_ring_outside_memory_drops);
	tcase_add_test(tc, test_vu_get_vring_base_stops);
	tcase_add_test(tc, test_vu_vring_fd_not_eventfd_drops);
	tcase_add_test(tc, test_vu_vring_fd_pipe_call_drops);
	tcase_add_test(tc, test_vu_vring_fd_memfd_drops);
	tcase_add_test(tc, test_vu_vring_fd_timerfd_drops);
	tcase_add_test(tc, test_vu_vring_fd_socket_drops);
	tcase_add_test(tc, test_vu_vring_fd_eventfd_kinds_taken);
	suite_add_tcase(s, tc);

	tc = tcase_create("rings");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vu_to_guest_one_buffer);
	tcase_add_test(tc, test_vu_to_guest_merged_buffers);
	tcase_add_test(tc, test_vu_to_guest_full_blocks_until_kick);
	tcase_add_test(tc, test_vu_from_guest_frame);
	tcase_add_test(tc, test_vu_from_guest_runt_dropped);
	tcase_add_test(tc, test_vu_from_guest_bad_descriptor_breaks);
	tcase_add_test(tc, test_vu_get_features_offers_tso);
	tcase_add_test(tc, test_vu_tso_without_csum_drops);
	tcase_add_test(tc, test_vu_to_guest_gso_v4);
	tcase_add_test(tc, test_vu_to_guest_gso_v6);
	tcase_add_test(tc, test_vu_to_guest_gso_not_negotiated);
	tcase_add_test(tc, test_vu_to_guest_gso_short_of_buffers);
	tcase_add_test(tc, test_vu_to_guest_gso_one_small_chain_stops_tso);
	tcase_add_test(tc, test_vu_to_guest_gso_whole_ring_too_small);
	tcase_add_test(tc, test_vu_from_guest_gso_accepted);
	tcase_add_test(tc, test_vu_from_guest_gso_v6_accepted);
	tcase_add_test(tc, test_vu_from_guest_bad_gso_dropped);
	tcase_add_test(tc, test_vu_rx_bufs_counts);
	tcase_add_test(tc, test_vu_shrunk_memory_drops);
	tcase_add_test(tc, test_vu_sealed_memory_kept);
	tcase_add_test_raise_signal(tc, test_vu_sigbus_elsewhere_kills, SIGBUS);
	tcase_add_test(tc, test_vu_kick_blocking_eventfd_returns);
	tcase_add_test(tc, test_vu_kick_semaphore_one_read);
	tcase_add_test(tc, test_vu_call_full_skipped);
	tcase_add_test(tc, test_vu_kick_broken_avail_drops);
	tcase_add_test(tc, test_vu_log_rx_frame_and_used_ring);
	tcase_add_test(tc, test_vu_log_tx_used_ring_only);
	tcase_add_test(tc, test_vu_log_off_without_log_all);
	tcase_add_test(tc, test_vu_get_protocol_features_migration);
	tcase_add_test(tc, test_vu_upstream_features_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("device_state");
	tcase_add_checked_fixture(tc, state_setup, NULL);
	tcase_add_test(tc, test_vu_state_save_stream);
	tcase_add_test(tc, test_vu_state_save_refused_with_flows);
	tcase_add_test(tc, test_vu_state_load);
	tcase_add_test(tc, test_vu_state_load_check_waits);
	tcase_add_test(tc, test_vu_state_load_unknown_version);
	tcase_add_test(tc, test_vu_state_load_blocking_pipe_returns);
	tcase_add_test(tc, test_vu_state_save_blocking_pipe_returns);
	tcase_add_test(tc, test_vu_state_load_garbage_refused_early);
	tcase_add_test(tc, test_vu_state_load_truncated);
	tcase_add_test(tc, test_vu_state_bad_phase_refused);
	tcase_add_test(tc, test_vu_state_check_without_transfer);
	tcase_add_test(tc, test_vu_state_fd_missing_drops);
	suite_add_tcase(s, tc);

	tc = tcase_create("device_state_off");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vu_state_not_negotiated_drops);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vhost_user_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
