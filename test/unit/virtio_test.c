// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/virtio_test.c - Tests for tap/virtio.c: memory table, rings
 *
 * Guest memory is a static buffer posing as one region (or two adjacent
 * ones).  Descriptors, available entries and expected used entries are
 * laid out by hand from the virtio 1.x specification, section 2.7
 * ("Split Virtqueues"): a descriptor is le64 addr, le32 len, le16 flags,
 * le16 next, with VIRTQ_DESC_F_NEXT 1, VIRTQ_DESC_F_WRITE 2 and
 * VIRTQ_DESC_F_INDIRECT 4 (2.7.5); the available ring is le16 flags, le16
 * idx, le16 ring[] (2.7.6); the used ring le16 flags, le16 idx, then
 * {le32 id, le32 len} entries (2.7.8).  Every guest address and length
 * comes from the "guest", so the hostile cases are the point: addresses
 * outside memory or wrapping, loops, chains longer than their table,
 * bad indirect tables, writable before readable, runaway indices.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/iov.h"
#include "../../tap/virtio.h"

#define GPA	0x100000ULL		/* guest physical base of memory */
#define UVA	0x7f0000000000ULL	/* front-end address of the same */
#define MEMSZ	(64 * 1024)
#define QSZ	8
#define DESC	0x0			/* offsets of the rings in memory */
#define AVAIL	0x1000
#define USED	0x2000
#define DATA	0x4000			/* buffers from here */

#define F_NEXT		1
#define F_WRITE		2
#define F_INDIRECT	4

static uint8_t mem[MEMSZ] __attribute__((aligned(4096)));
static struct vu_mem m;
static struct vq q;
static struct vq_chain ch;

/**
 * put_desc() - Write descriptor @i of a table as the spec lays it out
 * @table:	Offset of the table in guest memory
 * @i:		Index
 * @addr:	Guest physical address
 * @len:	Length
 * @flags:	F_* flags
 * @next:	Next index
 */
static void put_desc(size_t table, unsigned i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	uint8_t *d = mem + table + 16 * i;
	uint64_t a = htole64(addr);
	uint32_t l = htole32(len);
	uint16_t f = htole16(flags), n = htole16(next);

	memcpy(d, &a, 8);
	memcpy(d + 8, &l, 4);
	memcpy(d + 12, &f, 2);
	memcpy(d + 14, &n, 2);
}

/**
 * avail_push() - Add a head to the available ring and bump idx
 * @head:	Descriptor index (possibly bogus)
 */
static void avail_push(uint16_t head)
{
	uint16_t idx, h = htole16(head);

	memcpy(&idx, mem + AVAIL + 2, 2);
	idx = le16toh(idx);
	memcpy(mem + AVAIL + 4 + 2 * (idx % QSZ), &h, 2);
	idx = htole16((uint16_t)(idx + 1));
	memcpy(mem + AVAIL + 2, &idx, 2);
}

/**
 * setup() - One region over mem[], a started queue of size QSZ
 */
static void setup(void)
{
	memset(mem, 0, sizeof(mem));
	memset(&m, 0, sizeof(m));
	m.n = 1;
	m.r[0].gpa = GPA;
	m.r[0].size = MEMSZ;
	m.r[0].uva = UVA;
	m.r[0].host = mem;
	vq_reset(&q);
	q.num = QSZ;
	q.desc_uva = UVA + DESC;
	q.avail_uva = UVA + AVAIL;
	q.used_uva = UVA + USED;
	ck_assert_int_eq(vq_map(&q, &m), 0);
}

START_TEST(test_vq_chain_get_single_readable)
{
	put_desc(DESC, 0, GPA + DATA, 100, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, 1);
	ck_assert_uint_eq(ch.n_in, 0);
	ck_assert_uint_eq(ch.len_out, 100);
	ck_assert_ptr_eq(ch.iov[0].iov_base, mem + DATA);
}
END_TEST

START_TEST(test_vq_chain_get_readable_then_writable)
{
	put_desc(DESC, 0, GPA + DATA, 10, F_NEXT, 3);
	put_desc(DESC, 3, GPA + DATA + 100, 20, F_WRITE, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, 1);
	ck_assert_uint_eq(ch.n_in, 1);
	ck_assert_uint_eq(ch.len_in, 20);
	ck_assert_ptr_eq(ch.iov[1].iov_base, mem + DATA + 100);
}
END_TEST

START_TEST(test_vq_chain_get_addr_below_memory)
{
	put_desc(DESC, 0, GPA - 1, 16, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_ADDR);
}
END_TEST

START_TEST(test_vq_chain_get_addr_past_end)
{
	put_desc(DESC, 0, GPA + MEMSZ, 1, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_ADDR);
}
END_TEST

START_TEST(test_vq_chain_get_len_crosses_end)
{
	put_desc(DESC, 0, GPA + MEMSZ - 10, 11, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_ADDR);
}
END_TEST

START_TEST(test_vq_chain_get_addr_wraps)
{
	put_desc(DESC, 0, 0xffffffffffffff00ULL, 0x200, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_ADDR);
}
END_TEST

START_TEST(test_vq_chain_get_max_len_in_memory)
{
	put_desc(DESC, 0, GPA, MEMSZ, 0, 0);	/* all of memory: fine */
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.len_out, MEMSZ);
}
END_TEST

START_TEST(test_vq_chain_get_loop_two)
{
	put_desc(DESC, 0, GPA + DATA, 8, F_NEXT, 1);
	put_desc(DESC, 1, GPA + DATA, 8, F_NEXT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_LOOP);
}
END_TEST

START_TEST(test_vq_chain_get_loop_self)
{
	put_desc(DESC, 5, GPA + DATA, 0, F_NEXT, 5);	/* zero-length too */
	ck_assert_int_eq(vq_chain_get(&q, &m, 5, false, &ch), -VQ_E_LOOP);
}
END_TEST

START_TEST(test_vq_chain_get_whole_table_ok)
{
	unsigned i;

	/* QSZ descriptors in one chain is the most a table can hold */
	for (i = 0; i < QSZ; i++)
		put_desc(DESC, i, GPA + DATA + 64 * i, 64,
			 i < QSZ - 1 ? F_NEXT : 0, (uint16_t)(i + 1));
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, QSZ);
	ck_assert_uint_eq(ch.len_out, 64 * QSZ);
}
END_TEST

START_TEST(test_vq_chain_get_next_beyond_table)
{
	put_desc(DESC, 0, GPA + DATA, 8, F_NEXT, QSZ);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_NEXT);
}
END_TEST

START_TEST(test_vq_chain_get_head_beyond_table)
{
	ck_assert_int_eq(vq_chain_get(&q, &m, QSZ, false, &ch), -VQ_E_HEAD);
}
END_TEST

START_TEST(test_vq_chain_get_zero_lengths_skipped)
{
	put_desc(DESC, 0, GPA + DATA, 10, F_NEXT, 1);
	put_desc(DESC, 1, GPA + MEMSZ * 4, 0, F_NEXT, 2);	/* no bytes */
	put_desc(DESC, 2, GPA + DATA + 10, 10, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, 2);
	ck_assert_uint_eq(ch.len_out, 20);
}
END_TEST

START_TEST(test_vq_chain_get_all_zero_lengths)
{
	put_desc(DESC, 0, 0, 0, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out + ch.n_in, 0);
}
END_TEST

START_TEST(test_vq_chain_get_readable_after_writable)
{
	/* 2.7.4.2: device-writable descriptors come after readable ones */
	put_desc(DESC, 0, GPA + DATA, 10, F_NEXT | F_WRITE, 1);
	put_desc(DESC, 1, GPA + DATA + 10, 10, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_ORDER);
}
END_TEST

START_TEST(test_vq_chain_get_spans_two_regions)
{
	/* Two regions adjacent in guest physical space, apart here */
	m.n = 2;
	m.r[0].size = MEMSZ / 2;
	m.r[1].gpa = GPA + MEMSZ / 2;
	m.r[1].size = MEMSZ / 2;
	m.r[1].uva = UVA + MEMSZ;
	m.r[1].host = mem + MEMSZ / 2;
	put_desc(DESC, 0, GPA + MEMSZ / 2 - 100, 300, 0, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, 2);
	ck_assert_uint_eq(ch.iov[0].iov_len, 100);
	ck_assert_uint_eq(ch.iov[1].iov_len, 200);
	ck_assert_ptr_eq(ch.iov[1].iov_base, mem + MEMSZ / 2);
}
END_TEST

START_TEST(test_vq_chain_get_indirect)
{
	size_t t = DATA + 0x1000;

	put_desc(t, 0, GPA + DATA, 12, F_NEXT, 1);
	put_desc(t, 1, GPA + DATA + 12, 1500, F_WRITE, 0);
	put_desc(DESC, 0, GPA + t, 32, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), VQ_OK);
	ck_assert_uint_eq(ch.n_out, 1);
	ck_assert_uint_eq(ch.n_in, 1);
	ck_assert_uint_eq(ch.len_in, 1500);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_not_negotiated)
{
	put_desc(DATA + 0x1000, 0, GPA + DATA, 12, 0, 0);
	put_desc(DESC, 0, GPA + DATA + 0x1000, 16, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, false, &ch), -VQ_E_INDIRECT);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_nested)
{
	/* 2.7.5.3.1: no VIRTQ_DESC_F_INDIRECT inside an indirect table */
	size_t t = DATA + 0x1000;

	put_desc(t, 0, GPA + t, 16, F_INDIRECT, 0);
	put_desc(DESC, 0, GPA + t, 16, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_INDIRECT);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_with_next)
{
	/* 2.7.5.3.1: not both VIRTQ_DESC_F_INDIRECT and VIRTQ_DESC_F_NEXT */
	put_desc(DATA + 0x1000, 0, GPA + DATA, 12, 0, 0);
	put_desc(DESC, 0, GPA + DATA + 0x1000, 16, F_INDIRECT | F_NEXT, 1);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_INDIRECT);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_partial_desc)
{
	put_desc(DESC, 0, GPA + DATA + 0x1000, 24, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_INDIRECT);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_outside)
{
	put_desc(DESC, 0, GPA + MEMSZ - 16, 32, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_ADDR);
}
END_TEST

START_TEST(test_vq_chain_get_indirect_loop)
{
	size_t t = DATA + 0x1000;

	put_desc(t, 0, GPA + DATA, 1, F_NEXT, 1);
	put_desc(t, 1, GPA + DATA, 1, F_NEXT, 0);
	put_desc(DESC, 0, GPA + t, 32, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_LOOP);
}
END_TEST

START_TEST(test_vq_chain_get_too_many_pieces)
{
	size_t t = DATA + 0x1000;
	unsigned i, n = VQ_CHAIN_IOV_MAX + 1;

	for (i = 0; i < n; i++)
		put_desc(t, i, GPA + DATA + i, 1, i < n - 1 ? F_NEXT : 0,
			 (uint16_t)(i + 1));
	put_desc(DESC, 0, GPA + t, 16 * n, F_INDIRECT, 0);
	ck_assert_int_eq(vq_chain_get(&q, &m, 0, true, &ch), -VQ_E_IOV);
}
END_TEST

START_TEST(test_vq_pop_takes_in_order)
{
	put_desc(DESC, 2, GPA + DATA, 10, 0, 0);
	put_desc(DESC, 6, GPA + DATA, 20, 0, 0);
	avail_push(2);
	avail_push(6);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 1);
	ck_assert_uint_eq(ch.head, 2);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 1);
	ck_assert_uint_eq(ch.head, 6);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 0);
}
END_TEST

START_TEST(test_vq_pop_bad_head_breaks)
{
	avail_push(QSZ + 1);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), -VQ_E_HEAD);
	ck_assert(!vq_ready(&q));
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 0);	/* stays so */
}
END_TEST

START_TEST(test_vq_pop_runaway_idx_breaks)
{
	uint16_t idx = htole16(QSZ + 1);	/* more new entries than slots */

	memcpy(mem + AVAIL + 2, &idx, 2);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), -VQ_E_HEAD);
	ck_assert(!vq_ready(&q));
}
END_TEST

START_TEST(test_vq_pop_idx_wraps)
{
	uint16_t idx = htole16(1);

	/* Free-running 16-bit indices: 65535 -> 0 -> 1 is two entries */
	q.last_avail = 65535;
	put_desc(DESC, 1, GPA + DATA, 10, 0, 0);
	memcpy(mem + AVAIL + 4 + 2 * (65535 % QSZ), &(uint16_t){ htole16(1) },
	       2);
	memcpy(mem + AVAIL + 4, &(uint16_t){ htole16(1) }, 2);
	memcpy(mem + AVAIL + 2, &idx, 2);
	ck_assert_int_eq(vq_avail_count(&q), 2);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 1);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 1);
	ck_assert_int_eq(vq_pop(&q, &m, false, &ch), 0);
}
END_TEST

START_TEST(test_vq_used_layout)
{
	uint32_t id, len;
	uint16_t idx;

	vq_used_add(&q, 5, 1514);
	memcpy(&idx, mem + USED + 2, 2);
	ck_assert_uint_eq(le16toh(idx), 0);	/* not yet published */
	vq_used_publish(&q);
	memcpy(&idx, mem + USED + 2, 2);
	memcpy(&id, mem + USED + 4, 4);
	memcpy(&len, mem + USED + 8, 4);
	ck_assert_uint_eq(le16toh(idx), 1);
	ck_assert_uint_eq(le32toh(id), 5);
	ck_assert_uint_eq(le32toh(len), 1514);
}
END_TEST

START_TEST(test_vq_want_interrupt_flag)
{
	uint16_t f = htole16(1);	/* VIRTQ_AVAIL_F_NO_INTERRUPT */

	ck_assert(vq_want_interrupt(&q));
	memcpy(mem + AVAIL, &f, 2);
	ck_assert(!vq_want_interrupt(&q));
}
END_TEST

START_TEST(test_vq_map_rings_outside)
{
	q.used_uva = UVA + MEMSZ - 8;	/* 6 + 8 * QSZ bytes don't fit */
	ck_assert_int_eq(vq_map(&q, &m), -EFAULT);
	ck_assert(!vq_ready(&q));
}
END_TEST

START_TEST(test_vq_map_misaligned)
{
	q.desc_uva = UVA + 8;		/* 2.7: descriptor table 16-aligned */
	ck_assert_int_eq(vq_map(&q, &m), -EFAULT);
	q.desc_uva = UVA;
	q.used_uva = UVA + USED + 2;	/* used ring 4-aligned */
	ck_assert_int_eq(vq_map(&q, &m), -EFAULT);
}
END_TEST

START_TEST(test_vu_mem_check_bad_regions)
{
	struct vu_mem t = { .n = 1 };

	t.r[0].size = 0;
	ck_assert_int_eq(vu_mem_check(&t), -EINVAL);
	t.r[0].size = 4096;
	t.r[0].gpa = UINT64_MAX - 100;
	ck_assert_int_eq(vu_mem_check(&t), -EINVAL);
	t.r[0].gpa = 0;
	t.r[0].uva = UINT64_MAX - 100;
	ck_assert_int_eq(vu_mem_check(&t), -EINVAL);
	t.r[0].uva = 0;
	ck_assert_int_eq(vu_mem_check(&t), 0);
	t.n = VU_REGIONS_MAX + 1;
	ck_assert_int_eq(vu_mem_check(&t), -EINVAL);
}
END_TEST

START_TEST(test_iov_copy_offsets)
{
	uint8_t a[3], b[5], out[8];
	struct iovec v[2] = { { a, 3 }, { b, 5 } };

	ck_assert_uint_eq(iov_copy_to(v, 2, 2, "abcdefgh", 8), 6);
	ck_assert_uint_eq(iov_copy_from(out, 8, v, 2, 2), 6);
	ck_assert_mem_eq(out, "abcdef", 6);
}
END_TEST

static Suite *virtio_suite(void)
{
	Suite *s = suite_create("virtio");
	TCase *tc;

	tc = tcase_create("chain");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vq_chain_get_single_readable);
	tcase_add_test(tc, test_vq_chain_get_readable_then_writable);
	tcase_add_test(tc, test_vq_chain_get_addr_below_memory);
	tcase_add_test(tc, test_vq_chain_get_addr_past_end);
	tcase_add_test(tc, test_vq_chain_get_len_crosses_end);
	tcase_add_test(tc, test_vq_chain_get_addr_wraps);
	tcase_add_test(tc, test_vq_chain_get_max_len_in_memory);
	tcase_add_test(tc, test_vq_chain_get_loop_two);
	tcase_add_test(tc, test_vq_chain_get_loop_self);
	tcase_add_test(tc, test_vq_chain_get_whole_table_ok);
	tcase_add_test(tc, test_vq_chain_get_next_beyond_table);
	tcase_add_test(tc, test_vq_chain_get_head_beyond_table);
	tcase_add_test(tc, test_vq_chain_get_zero_lengths_skipped);
	tcase_add_test(tc, test_vq_chain_get_all_zero_lengths);
	tcase_add_test(tc, test_vq_chain_get_readable_after_writable);
	tcase_add_test(tc, test_vq_chain_get_spans_two_regions);
	tcase_add_test(tc, test_vq_chain_get_too_many_pieces);
	suite_add_tcase(s, tc);

	tc = tcase_create("indirect");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vq_chain_get_indirect);
	tcase_add_test(tc, test_vq_chain_get_indirect_not_negotiated);
	tcase_add_test(tc, test_vq_chain_get_indirect_nested);
	tcase_add_test(tc, test_vq_chain_get_indirect_with_next);
	tcase_add_test(tc, test_vq_chain_get_indirect_partial_desc);
	tcase_add_test(tc, test_vq_chain_get_indirect_outside);
	tcase_add_test(tc, test_vq_chain_get_indirect_loop);
	suite_add_tcase(s, tc);

	tc = tcase_create("ring");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_vq_pop_takes_in_order);
	tcase_add_test(tc, test_vq_pop_bad_head_breaks);
	tcase_add_test(tc, test_vq_pop_runaway_idx_breaks);
	tcase_add_test(tc, test_vq_pop_idx_wraps);
	tcase_add_test(tc, test_vq_used_layout);
	tcase_add_test(tc, test_vq_want_interrupt_flag);
	tcase_add_test(tc, test_vq_map_rings_outside);
	tcase_add_test(tc, test_vq_map_misaligned);
	suite_add_tcase(s, tc);

	tc = tcase_create("mem");
	tcase_add_test(tc, test_vu_mem_check_bad_regions);
	tcase_add_test(tc, test_iov_copy_offsets);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(virtio_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
