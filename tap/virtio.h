/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/virtio.h - Guest memory table and virtio 1.x split virtqueues
 *
 * The vhost-user front-end (QEMU) shares the guest's RAM with us as a few
 * regions of memory it maps too, and tells us where the rings of each
 * virtqueue are in it.  Everything in that memory is written by the guest
 * at any time: every address, length and index read from it is checked
 * against the memory table before use, and read once into a local copy
 * (virtio 1.x section 2.7, "Split Virtqueues").  None of these functions
 * makes a system call: tap/vhost_user.c maps the regions and signals the
 * eventfds, and test/unit/virtio_test.c drives these on plain buffers.
 */
#ifndef TAP_VIRTIO_H
#define TAP_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VU_REGIONS_MAX		8	/* VHOST_MEMORY_BASELINE_NREGIONS */
#define VQ_SIZE_MAX		32768	/* split ring, virtio 1.x 2.7 */
#define VQ_CHAIN_IOV_MAX	64	/* guest-memory pieces of one chain */

/**
 * struct vu_region - One region of guest memory, as mapped here
 * @gpa:	Guest physical address of its first byte
 * @size:	Bytes
 * @uva:	Front-end's (QEMU's) virtual address of its first byte
 * @host:	Where that first byte is in our address space
 */
struct vu_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *host;
};

/**
 * struct vu_mem - Memory table (VHOST_USER_SET_MEM_TABLE)
 * @n:		Regions in use
 * @r:		Regions, in the front-end's order
 */
struct vu_mem {
	unsigned n;
	struct vu_region r[VU_REGIONS_MAX];
};

/**
 * struct vq - One split virtqueue, as the device (we) sees it
 * @num:	Queue size, a power of 2 up to VQ_SIZE_MAX; 0: not set
 * @desc_uva:	Front-end address of the descriptor table
 * @avail_uva:	Front-end address of the available (driver) ring
 * @used_uva:	Front-end address of the used (device) ring
 * @desc:	Descriptor table here, NULL until vq_map() checked it
 * @avail:	Available ring here (flags, idx, ring[@num])
 * @used:	Used ring here (flags, idx, ring[@num] of {id, len})
 * @last_avail:	Next available ring index (free running) we will take
 * @used_idx:	Our copy of used->idx (free running)
 * @used_pend:	Used entries written since the last vq_used_publish()
 * @broken:	The guest broke the ring: nothing more is taken from it
 */
struct vq {
	unsigned num;
	uint64_t desc_uva, avail_uva, used_uva;
	uint8_t *desc, *avail, *used;
	uint16_t last_avail;
	uint16_t used_idx;
	unsigned used_pend;
	bool broken;
};

/**
 * struct vq_chain - Buffers of one descriptor chain, translated
 * @head:	Index of the chain's first descriptor (for the used ring)
 * @iov:	Pieces in our address space: first the device-readable
 *		ones (@n_out), then the device-writable ones (@n_in)
 * @n_out:	Device-readable pieces
 * @n_in:	Device-writable pieces
 * @len_out:	Bytes of the readable pieces
 * @len_in:	Bytes of the writable pieces
 */
struct vq_chain {
	uint16_t head;
	struct iovec iov[VQ_CHAIN_IOV_MAX];
	unsigned n_out, n_in;
	size_t len_out, len_in;
};

/* Errors of vq_chain_get(), negative */
enum vq_err {
	VQ_OK = 0,
	VQ_E_HEAD,	/* available ring entry >= queue size */
	VQ_E_NEXT,	/* next index >= table size */
	VQ_E_LOOP,	/* more descriptors than the table holds */
	VQ_E_ADDR,	/* buffer outside the memory table */
	VQ_E_ORDER,	/* device-readable after device-writable */
	VQ_E_INDIRECT,	/* bad indirect table (size, nesting, feature) */
	VQ_E_IOV,	/* more than VQ_CHAIN_IOV_MAX pieces */
	VQ_E_COUNT
};

extern const char *const vq_err_str[VQ_E_COUNT];

int vu_mem_check(const struct vu_mem *m);

void vq_reset(struct vq *q);
int vq_map(struct vq *q, const struct vu_mem *m);
bool vq_ready(const struct vq *q);
int vq_avail_count(struct vq *q);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int vq_chain_get(const struct vq *q, const struct vu_mem *m, uint16_t head,
		 bool indirect_ok, struct vq_chain *ch);
#endif
int vq_pop(struct vq *q, const struct vu_mem *m, bool indirect_ok,
	   struct vq_chain *ch);
void vq_unpop(struct vq *q, unsigned n);
void vq_used_add(struct vq *q, uint16_t head, uint32_t len);
void vq_used_publish(struct vq *q);
bool vq_want_interrupt(const struct vq *q);

#endif /* TAP_VIRTIO_H */
