// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/virtio.c - Guest memory translation and split virtqueue walking
 *
 * DOC: Theory of Operation
 *
 * A split virtqueue (virtio 1.x section 2.7) is three areas in guest
 * memory: the descriptor table (16 bytes per entry: le64 address, le32
 * length, le16 flags, le16 next), the available ring the driver fills
 * (le16 flags, le16 idx, le16 ring[size]) and the used ring we fill (le16
 * flags, le16 idx, then {le32 id, le32 len} per entry).  Indices are free
 * running 16-bit counters; an entry is found at index modulo the size,
 * which is a power of 2.
 *
 * The guest can write any of it at any time.  So:
 * - the ring areas are translated (front-end addresses, SET_VRING_ADDR)
 *   once, when the queue starts, and must lie whole inside one region;
 * - avail->idx is read once per pass; more than the queue size of new
 *   entries is a broken ring;
 * - each descriptor is copied to the stack before it is looked at; its
 *   index must be below the table size, and a chain may hold at most as
 *   many descriptors as its table (a longer one loops); its buffer must be
 *   inside the memory table (it may span adjacent regions: one iovec per
 *   piece), device-writable ones come after device-readable ones (2.7.4.2),
 *   and an indirect table (VIRTQ_DESC_F_INDIRECT, 2.7.5.3) must be a whole
 *   number of descriptors, inside guest memory, not nested, and only if
 *   VIRTIO_F_INDIRECT_DESC was negotiated;
 * - zero-length descriptors are legal and add no iovec.
 * Any violation marks the queue broken; tap/vhost_user.c then drops the
 * front-end.  The data itself is copied out of (or into) guest memory,
 * never parsed in place, so the guest can't change a frame we validated.
 *
 * Ordering: an acquire fence after reading avail->idx (entries are read
 * after the index that announced them), a release fence before writing
 * used->idx (buffers and used entries are visible before the index), and
 * a full fence before reading avail->flags to decide on an interrupt
 * (2.7.7, 2.7.10).  We don't negotiate VIRTIO_F_EVENT_IDX.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "../lib/util.h"
#include "../lib/visible.h"
#include "virtio.h"

#define VQ_DESC_SIZE		16
#define VQ_DESC_F_NEXT		1
#define VQ_DESC_F_WRITE		2
#define VQ_DESC_F_INDIRECT	4
#define VQ_AVAIL_F_NO_INTERRUPT	1

const char *const vq_err_str[VQ_E_COUNT] = {
	[VQ_OK]		= "ok",
	[VQ_E_HEAD]	= "available entry beyond the queue size",
	[VQ_E_NEXT]	= "next descriptor beyond the table",
	[VQ_E_LOOP]	= "descriptor chain loops (longer than its table)",
	[VQ_E_ADDR]	= "buffer outside guest memory",
	[VQ_E_ORDER]	= "device-readable descriptor after a writable one",
	[VQ_E_INDIRECT]	= "bad indirect descriptor table",
	[VQ_E_IOV]	= "chain has too many pieces",
};

/**
 * vu_gpa_piece() - Translate the start of a guest-physical range
 * @m:		Memory table
 * @gpa:	Guest physical address
 * @len:	Bytes wanted from @gpa
 * @got:	Set to the bytes that are contiguous here from the returned
 *		pointer (at most @len; the rest is in another region)
 *
 * Return: pointer, NULL if @gpa is in no region
 */
static uint8_t *vu_gpa_piece(const struct vu_mem *m, uint64_t gpa,
			     uint64_t len, uint64_t *got)
{
	unsigned i;

	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off;

		if (gpa < r->gpa || gpa - r->gpa >= r->size)
			continue;
		off = gpa - r->gpa;
		*got = MIN(len, r->size - off);
		return r->host + off;
	}
	return NULL;
}

/**
 * vu_gpa_to_host() - Translate a guest-physical range inside one region
 * @m:		Memory table
 * @gpa:	Guest physical address
 * @len:	Bytes, all of which must be in the same region
 *
 * Return: pointer to @gpa here, NULL if the range isn't in one region
 */
static void *vu_gpa_to_host(const struct vu_mem *m, uint64_t gpa, uint64_t len)
{
	uint64_t got;
	uint8_t *p = vu_gpa_piece(m, gpa, len, &got);

	return p && got == len ? p : NULL;
}

/**
 * vu_uva_to_host() - Translate a front-end virtual range inside one region
 * @m:		Memory table
 * @uva:	Address in the front-end's (QEMU's) address space
 * @len:	Bytes, all in the same region
 *
 * Return: pointer here, NULL if the range isn't in one region
 */
static void *vu_uva_to_host(const struct vu_mem *m, uint64_t uva, uint64_t len)
{
	unsigned i;

	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off;

		if (uva < r->uva || uva - r->uva >= r->size)
			continue;
		off = uva - r->uva;
		if (len > r->size - off)
			return NULL;
		return r->host + off;
	}
	return NULL;
}

/**
 * vu_mem_check() - Is a memory table as received plausible?
 * @m:		Table, @host pointers not needed yet
 *
 * Return: 0, or -EINVAL for too many regions, an empty region, or a range
 *	   that wraps around the 64-bit address space
 */
int vu_mem_check(const struct vu_mem *m)
{
	unsigned i;

	if (m->n > VU_REGIONS_MAX)
		return -EINVAL;
	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];

		if (!r->size || r->gpa + r->size < r->gpa ||
		    r->uva + r->size < r->uva)
			return -EINVAL;
	}
	return 0;
}

/**
 * vq_reset() - Forget everything about a queue
 * @q:		Queue
 */
void vq_reset(struct vq *q)
{
	memset(q, 0, sizeof(*q));
}

/**
 * vq_map() - Translate and check the three ring areas of a queue
 * @q:		Queue, with @num and the three front-end addresses set
 * @m:		Memory table
 *
 * Sizes and alignments from virtio 1.x 2.7 (descriptor table 16 * size,
 * 16-aligned; available ring 6 + 2 * size, 2-aligned; used ring 6 + 8 *
 * size, 4-aligned).
 *
 * Return: 0, -EINVAL if the size isn't set, -EFAULT if an area is not
 *	   inside one region or misaligned (pointers are then NULL)
 */
int vq_map(struct vq *q, const struct vu_mem *m)
{
	uint64_t n = q->num;

	q->desc = q->avail = q->used = NULL;
	if (!n)
		return -EINVAL;
	if ((q->desc_uva & 15) || (q->avail_uva & 1) || (q->used_uva & 3))
		return -EFAULT;
	q->desc = vu_uva_to_host(m, q->desc_uva, VQ_DESC_SIZE * n);
	q->avail = vu_uva_to_host(m, q->avail_uva, 6 + 2 * n);
	q->used = vu_uva_to_host(m, q->used_uva, 6 + 8 * n);
	if (!q->desc || !q->avail || !q->used) {
		q->desc = q->avail = q->used = NULL;
		return -EFAULT;
	}
	return 0;
}

/**
 * vq_ready() - Are the ring areas mapped?
 * @q:		Queue
 *
 * Return: true after a successful vq_map(), unless the ring broke
 */
bool vq_ready(const struct vq *q)
{
	return q->desc && !q->broken;
}

/**
 * vq_le16_load() - Read a 16-bit little-endian field of a ring, once
 * @p:		Field, 2-aligned
 *
 * Return: value in host order
 */
static uint16_t vq_le16_load(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)(const void *)p,
				       __ATOMIC_RELAXED));
}

/**
 * vq_avail_count() - New entries in the available ring
 * @q:		Queue, ready
 *
 * Return: entries not yet taken, or -1 (and the queue is broken) if the
 *	   driver claims more than the queue holds
 */
int vq_avail_count(struct vq *q)
{
	uint16_t idx = vq_le16_load(q->avail + 2), n;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	n = (uint16_t)(idx - q->last_avail);
	if (n > q->num) {
		q->broken = true;
		return -1;
	}
	return n;
}

/**
 * vq_add_buf() - Append the pieces of one buffer to a chain
 * @m:		Memory table
 * @ch:		Chain being built
 * @addr:	Guest physical address of the buffer
 * @len:	Its length, bytes (non-zero)
 * @write:	Device-writable
 *
 * Return: VQ_OK, or -VQ_E_ADDR, -VQ_E_ORDER, -VQ_E_IOV
 */
static int vq_add_buf(const struct vu_mem *m, struct vq_chain *ch,
		      uint64_t addr, uint64_t len, bool write)
{
	if (!write && ch->n_in)
		return -VQ_E_ORDER;
	if (addr + len < addr)
		return -VQ_E_ADDR;

	while (len) {
		unsigned i = ch->n_out + ch->n_in;
		uint64_t got;
		uint8_t *p = vu_gpa_piece(m, addr, len, &got);

		if (!p)
			return -VQ_E_ADDR;
		if (i >= VQ_CHAIN_IOV_MAX)
			return -VQ_E_IOV;
		ch->iov[i].iov_base = p;
		ch->iov[i].iov_len = got;
		if (write) {
			ch->n_in++;
			ch->len_in += got;
		} else {
			ch->n_out++;
			ch->len_out += got;
		}
		addr += got;
		len -= got;
	}
	return VQ_OK;
}

/**
 * vq_chain_get() - Walk and translate the descriptor chain at a head
 * @q:		Queue, ready
 * @m:		Memory table
 * @head:	Index of the first descriptor (from the available ring)
 * @indirect_ok: VIRTIO_F_INDIRECT_DESC was negotiated
 * @ch:		Filled with the chain's pieces
 *
 * Return: VQ_OK, or a negative enum vq_err (see the DOC comment)
 */
VISIBLE_IF_UNIT
int vq_chain_get(const struct vq *q, const struct vu_mem *m, uint16_t head,
		 bool indirect_ok, struct vq_chain *ch)
{
	const uint8_t *table = q->desc;
	unsigned tnum = q->num, idx = head, count = 0;
	bool indirect = false;

	ch->head = head;
	ch->n_out = ch->n_in = 0;
	ch->len_out = ch->len_in = 0;
	if (head >= q->num)
		return -VQ_E_HEAD;

	for (;;) {
		uint8_t d[VQ_DESC_SIZE];
		uint16_t flags, next;
		uint64_t addr;
		uint32_t len;
		int rc;

		if (idx >= tnum)
			return -VQ_E_NEXT;
		if (++count > tnum)
			return -VQ_E_LOOP;

		memcpy(d, table + (size_t)idx * VQ_DESC_SIZE, sizeof(d));
		memcpy(&addr, d, 8);
		memcpy(&len, d + 8, 4);
		memcpy(&flags, d + 12, 2);
		memcpy(&next, d + 14, 2);
		addr = le64toh(addr);
		len = le32toh(len);
		flags = le16toh(flags);
		next = le16toh(next);

		if (flags & VQ_DESC_F_INDIRECT) {
			if (!indirect_ok || indirect ||
			    (flags & VQ_DESC_F_NEXT) || !len ||
			    len % VQ_DESC_SIZE ||
			    len / VQ_DESC_SIZE > VQ_SIZE_MAX)
				return -VQ_E_INDIRECT;
			table = vu_gpa_to_host(m, addr, len);
			if (!table)
				return -VQ_E_ADDR;
			tnum = len / VQ_DESC_SIZE;
			idx = 0;
			count = 0;
			indirect = true;
			continue;
		}

		if (len) {
			rc = vq_add_buf(m, ch, addr, len,
					flags & VQ_DESC_F_WRITE);
			if (rc)
				return rc;
		}
		if (!(flags & VQ_DESC_F_NEXT))
			return VQ_OK;
		idx = next;
	}
}

/**
 * vq_pop() - Take the next available chain
 * @q:		Queue, ready
 * @m:		Memory table
 * @indirect_ok: VIRTIO_F_INDIRECT_DESC was negotiated
 * @ch:		Filled with the chain
 *
 * Return: 1 if a chain was taken, 0 if none is available, or a negative
 *	   enum vq_err (-VQ_E_HEAD for a bad available index): the queue is
 *	   then broken
 */
int vq_pop(struct vq *q, const struct vu_mem *m, bool indirect_ok,
	   struct vq_chain *ch)
{
	uint16_t head;
	int n, rc;

	if (!vq_ready(q))
		return 0;
	n = vq_avail_count(q);
	if (n < 0)
		return -VQ_E_HEAD;
	if (!n)
		return 0;

	head = vq_le16_load(q->avail + 4 + 2 * (q->last_avail & (q->num - 1)));
	rc = vq_chain_get(q, m, head, indirect_ok, ch);
	if (rc) {
		q->broken = true;
		return rc;
	}
	q->last_avail++;
	return 1;
}

/**
 * vq_unpop() - Give back chains taken but not used (in reverse order)
 * @q:		Queue
 * @n:		How many of the last vq_pop() chains
 */
void vq_unpop(struct vq *q, unsigned n)
{
	q->last_avail = (uint16_t)(q->last_avail - n);
}

/**
 * vq_used_add() - Write a used ring entry (not yet visible to the guest)
 * @q:		Queue, ready
 * @head:	Head index of the chain
 * @len:	Bytes we wrote into its device-writable buffers
 */
void vq_used_add(struct vq *q, uint16_t head, uint32_t len)
{
	uint8_t *e = q->used + 4 + 8 * (size_t)(q->used_idx & (q->num - 1));
	uint32_t id = htole32(head), l = htole32(len);

	memcpy(e, &id, 4);
	memcpy(e + 4, &l, 4);
	q->used_idx++;
	q->used_pend++;
}

/**
 * vq_used_publish() - Make the used entries written so far visible
 * @q:		Queue, ready
 */
void vq_used_publish(struct vq *q)
{
	if (!q->used_pend)
		return;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n((uint16_t *)(void *)(q->used + 2),
			 htole16(q->used_idx), __ATOMIC_RELAXED);
	q->used_pend = 0;
}

/**
 * vq_want_interrupt() - Does the driver want to hear of used entries?
 * @q:		Queue, ready, after vq_used_publish()
 *
 * Return: false if it set VIRTQ_AVAIL_F_NO_INTERRUPT (2.7.10)
 */
bool vq_want_interrupt(const struct vq *q)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(vq_le16_load(q->avail) & VQ_AVAIL_F_NO_INTERRUPT);
}
