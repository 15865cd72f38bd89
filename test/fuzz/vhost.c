// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/vhost.c - Harness: vhost-user messages and the chain walker
 *
 * Input, first byte even: bytes a front-end writes on the vhost-user
 * socket (no fds), fed through a socket pair to vu_cmd_handler() in
 * pieces whose sizes come from the input too; replies are drained.  A
 * message that drops the front-end ends the input.
 *
 * First byte odd: the rest is guest memory (up to 64 KiB, zero-filled)
 * holding a split virtqueue at fixed offsets, whose size is taken from
 * the second byte (a power of 2 from 1 to 256); every available chain is
 * walked (with indirect descriptors allowed) and its pieces copied out and
 * written to, so that ASan sees any piece that strays outside the buffer.
 * What a chain holds is also taken as a guest frame behind its 10-byte
 * virtio-net header: checked (vnet_hdr_in_check(), with HOST_TSO4/6 and
 * HOST_USO) and,
 * if accepted, given a header of ours (vnet_hdr_out()) from its fields.
 */
#include <endian.h>

#include "fuzz.h"
#include "../../tap/vhost_user.h"
#include "../../lib/iov.h"
#include "../../tap/virtio.h"
#include "../../tap/vnet.h"

#define VHOST_FUZZ_MEM		65536
#define VHOST_FUZZ_GPA		0x1000000ULL
#define VHOST_FUZZ_UVA		0x7f0000000000ULL

static int vhost_fuzz_sp[2] = { -1, -1 };
static uint8_t vhost_fuzz_mem[VHOST_FUZZ_MEM] __attribute__((aligned(64)));
static uint8_t vhost_fuzz_scratch[VHOST_FUZZ_MEM];
static struct vq_chain vhost_fuzz_ch;

/**
 * vhost_fuzz_messages() - Feed bytes as front-end messages
 * @data:	Bytes
 * @size:	Length
 */
static void vhost_fuzz_messages(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (vhost_fuzz_sp[0] < 0 &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       vhost_fuzz_sp))
		abort();
	vu_attach(vhost_fuzz_sp[0]);
	while (off < size) {
		size_t piece = MIN(size - off, (size_t)(data[off] % 64) + 1);
		ssize_t n;

		off++;
		piece = MIN(piece, size - off);
		if (!piece)
			break;
		n = send(vhost_fuzz_sp[1], data + off, piece, MSG_DONTWAIT);
		if (n <= 0)
			break;
		off += (size_t)n;
		if (vu_cmd_handler() < 0)
			break;
		while (recv(vhost_fuzz_sp[1], vhost_fuzz_scratch,
			    sizeof(vhost_fuzz_scratch), MSG_DONTWAIT) > 0)
			;
	}
	vu_detach();
	while (recv(vhost_fuzz_sp[0], vhost_fuzz_scratch,
		    sizeof(vhost_fuzz_scratch), MSG_DONTWAIT) > 0)
		;
	while (recv(vhost_fuzz_sp[1], vhost_fuzz_scratch,
		    sizeof(vhost_fuzz_scratch), MSG_DONTWAIT) > 0)
		;
}

/**
 * vhost_fuzz_rings() - Walk every chain of a queue laid out by the input
 * @data:	Guest memory contents, from its first byte
 * @size:	Length
 * @qsz_sel:	Selects the queue size
 */
static void vhost_fuzz_rings(const uint8_t *data, size_t size,
			     uint8_t qsz_sel)
{
	struct vu_mem m = { .n = 1 };
	struct vq q;
	unsigned i;

	memset(vhost_fuzz_mem, 0, sizeof(vhost_fuzz_mem));
	memcpy(vhost_fuzz_mem, data, MIN(size, sizeof(vhost_fuzz_mem)));
	m.r[0].gpa = VHOST_FUZZ_GPA;
	m.r[0].size = VHOST_FUZZ_MEM;
	m.r[0].uva = VHOST_FUZZ_UVA;
	m.r[0].host = vhost_fuzz_mem;

	vq_reset(&q);
	q.num = 1U << (qsz_sel % 9);
	q.desc_uva = VHOST_FUZZ_UVA;			/* 16 * 256 bytes */
	q.avail_uva = VHOST_FUZZ_UVA + 0x1000;
	q.used_uva = VHOST_FUZZ_UVA + 0x2000;
	if (vq_map(&q, &m))
		abort();

	for (i = 0; i < 2 * VQ_SIZE_MAX; i++) {
		int rc = vq_pop(&q, &m, true, &vhost_fuzz_ch);
		struct vq_chain *c = &vhost_fuzz_ch;
		size_t got;

		if (rc <= 0)
			break;
		got = iov_copy_from(vhost_fuzz_scratch,
				    sizeof(vhost_fuzz_scratch), c->iov,
				    c->n_out, 0);
		if (got >= sizeof(struct virtio_net_hdr)) {
			const uint8_t *l2 = vhost_fuzz_scratch + 10;
			struct virtio_net_hdr h, o;

			memcpy(&h, vhost_fuzz_scratch, sizeof(h));
			if (!vnet_hdr_in_check(&h, l2, got - 10, true, true, true))
				vnet_hdr_out(&o, l2, got - 10, got - 10,
					     (uint32_t)h.csum_start << 16 |
					     h.csum_offset, h.gso_size);
		}
		iov_copy_to(c->iov + c->n_out, c->n_in, 0, vhost_fuzz_scratch,
			    MIN(c->len_in, sizeof(vhost_fuzz_scratch)));
		vq_used_add(&q, c->head, (uint32_t)c->len_in);
	}
	vq_used_publish(&q);
	vq_want_interrupt(&q);
}

/**
 * LLVMFuzzerTestOneInput() - One input: messages or a ring
 * @data:	Bytes
 * @size:	Length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	if (data[0] & 1)
		vhost_fuzz_rings(data + 2, size - 2, data[1]);
	else
		vhost_fuzz_messages(data + 1, size - 1);
	return 0;
}
