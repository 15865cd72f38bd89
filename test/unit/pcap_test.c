// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/pcap_test.c - Tests for tap/pcap.c
 *
 * File and record layouts from the pcap format description
 * (draft-ietf-opsawg-pcap, sections 4 and 5; tcpdump.org "pcap-savefile"):
 * a 24-byte header (magic 0xa1b2c3d4 for microsecond timestamps, version
 * 2.4, reserved 0, 0, SnapLen, LinkType 1 for Ethernet) and 16-byte
 * record headers (seconds, microseconds, captured length, original
 * length), all in the writer's byte order.  The files are also read back
 * with tshark, an independent reader.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "../../tap/pcap.h"
#include "captured_frames.h"

static char path[64];

/**
 * setup() - Create a temporary file name for each test
 */
static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/pcap_test.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/**
 * teardown() - Close the capture and remove the file
 */
static void teardown(void)
{
	pcap_close();
	unlink(path);
}

/**
 * slurp() - Read the whole capture file
 * @buf:	Output
 * @cap:	Size of @buf
 *
 * Return: bytes read
 */
static size_t slurp(uint8_t *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n;

	ck_assert_ptr_nonnull(fp);
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

/**
 * u32() - A 32-bit field in the writer's (our) byte order
 * @p:		Bytes
 *
 * Return: value
 */
static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/**
 * u16() - A 16-bit field in the writer's byte order
 * @p:		Bytes
 *
 * Return: value
 */
static uint16_t u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* draft-ietf-opsawg-pcap section 4: the file header */
START_TEST(test_pcap_open_header_fields)
{
	uint8_t b[64];
	struct stat st;

	unlink(path);			/* so that pcap_open() creates it */
	ck_assert_int_eq(pcap_open(path), 0);
	ck_assert_uint_eq(slurp(b, sizeof(b)), 24);
	ck_assert_uint_eq(u32(b), 0xa1b2c3d4);
	ck_assert_uint_eq(u16(b + 4), 2);
	ck_assert_uint_eq(u16(b + 6), 4);
	ck_assert_uint_eq(u32(b + 8), 0);
	ck_assert_uint_eq(u32(b + 12), 0);
	ck_assert_uint_ge(u32(b + 16), 65535 + 14);
	ck_assert_uint_eq(u32(b + 20), 1);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
}
END_TEST

START_TEST(test_pcap_open_bad_path_errno)
{
	ck_assert_int_eq(pcap_open("/nonexistent-dir/x.pcap"), -ENOENT);
	/* Nothing open: writing is a no-op */
	pcap_frame(cap_arp_request, sizeof(cap_arp_request));
}
END_TEST

/* Section 5: record header, then the frame. The bounds come from
 * clock_gettime(CLOCK_REALTIME), not time(): time() reads the coarse clock,
 * which can still show the previous second for up to a tick.
 */
START_TEST(test_pcap_frame_record_fields)
{
	struct timespec before, after;
	uint8_t b[256];

	clock_gettime(CLOCK_REALTIME, &before);
	ck_assert_int_eq(pcap_open(path), 0);
	pcap_frame(cap_arp_request, sizeof(cap_arp_request));
	clock_gettime(CLOCK_REALTIME, &after);
	ck_assert_uint_eq(slurp(b, sizeof(b)), 24 + 16 + 42);
	ck_assert_uint_ge(u32(b + 24), (uint32_t)before.tv_sec);
	ck_assert_uint_le(u32(b + 24), (uint32_t)after.tv_sec);
	ck_assert_uint_lt(u32(b + 28), 1000000);
	ck_assert_uint_eq(u32(b + 32), 42);
	ck_assert_uint_eq(u32(b + 36), 42);
	ck_assert_mem_eq(b + 40, cap_arp_request, 42);
}
END_TEST

/* Four-byte length prefixes (as on the QEMU socket) left out; an entry
 * with nothing after its prefix is not written
 */
START_TEST(test_pcap_frames_skip_prefix)
{
	uint8_t f1[4 + sizeof(cap_arp_request)], f2[4 + sizeof(cap_udp4)];
	uint8_t empty[4] = { 0 }, b[512];
	struct iovec iov[3] = {
		{ f1, sizeof(f1) }, { empty, sizeof(empty) }, { f2, sizeof(f2) }
	};
	size_t off = 24;

	memset(f1, 0xee, 4);
	memcpy(f1 + 4, cap_arp_request, sizeof(cap_arp_request));
	memset(f2, 0xee, 4);
	memcpy(f2 + 4, cap_udp4, sizeof(cap_udp4));

	ck_assert_int_eq(pcap_open(path), 0);
	pcap_frames(iov, 3, 4);
	ck_assert_uint_eq(slurp(b, sizeof(b)),
			  24 + 16 + sizeof(cap_arp_request) +
			  16 + sizeof(cap_udp4));
	ck_assert_uint_eq(u32(b + off + 8), sizeof(cap_arp_request));
	ck_assert_mem_eq(b + off + 16, cap_arp_request,
			 sizeof(cap_arp_request));
	off += 16 + sizeof(cap_arp_request);
	ck_assert_uint_eq(u32(b + off + 8), sizeof(cap_udp4));
	ck_assert_uint_eq(u32(b + off + 12), sizeof(cap_udp4));
	ck_assert_mem_eq(b + off + 16, cap_udp4, sizeof(cap_udp4));
}
END_TEST

/* More frames than one writev() takes: all of them, in order */
START_TEST(test_pcap_frames_large_batch_in_order)
{
	enum { N = 1300 };
	static uint8_t frames[N][60];
	static struct iovec iov[N];
	static uint8_t b[24 + N * (16 + 60)];
	size_t i;

	for (i = 0; i < N; i++) {
		memcpy(frames[i], cap_arp_request, sizeof(cap_arp_request));
		memset(frames[i] + 42, 0, 18);
		frames[i][58] = (uint8_t)(i >> 8);
		frames[i][59] = (uint8_t)i;
		iov[i].iov_base = frames[i];
		iov[i].iov_len = 60;
	}
	ck_assert_int_eq(pcap_open(path), 0);
	pcap_frames(iov, N, 0);
	ck_assert_uint_eq(slurp(b, sizeof(b)), sizeof(b));
	for (i = 0; i < N; i++) {
		const uint8_t *r = b + 24 + i * (16 + 60);

		ck_assert_uint_eq(u32(r + 8), 60);
		ck_assert_uint_eq(r[16 + 58], (uint8_t)(i >> 8));
		ck_assert_uint_eq(r[16 + 59], (uint8_t)i);
	}
}
END_TEST

/* A second pcap_open() starts a new file; after pcap_close() writes are
 * no-ops
 */
START_TEST(test_pcap_reopen_and_close)
{
	uint8_t b[256];

	ck_assert_int_eq(pcap_open(path), 0);
	pcap_frame(cap_arp_request, sizeof(cap_arp_request));
	ck_assert_int_eq(pcap_open(path), 0);
	ck_assert_uint_eq(slurp(b, sizeof(b)), 24);
	pcap_close();
	pcap_frame(cap_arp_request, sizeof(cap_arp_request));
	pcap_frames(NULL, 0, 0);
	ck_assert_uint_eq(slurp(b, sizeof(b)), 24);
}
END_TEST

/* tshark reads the file: frame lengths and protocols as written */
START_TEST(test_pcap_tshark_reads_file)
{
	struct iovec iov[3] = {
		{ UNCONST(void *, cap_arp_request), sizeof(cap_arp_request) },
		{ UNCONST(void *, cap_dhcpv6_solicit), sizeof(cap_dhcpv6_solicit) },
		{ UNCONST(void *, cap_tcp4_syn), sizeof(cap_tcp4_syn) },
	};
	char cmd[256], line[256];
	static const char *const want[] = {
		"42\tarp", "118\tdhcpv6", "74\ttcp"
	};
	FILE *p;
	int i = 0;

	ck_assert_int_eq(pcap_open(path), 0);
	pcap_frames(iov, 3, 0);
	pcap_close();

	snprintf(cmd, sizeof(cmd), "tshark -r %s -T fields -e frame.len "
		 "-e _ws.col.Protocol 2>/dev/null", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		for (char *s = line; *s; s++)
			*s = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
		ck_assert_int_lt(i, 3);
		ck_assert_str_eq(line, want[i]);
		i++;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_int_eq(i, 3);
}
END_TEST

/**
 * pcap_suite() - All pcap tests
 *
 * Return: the suite
 */
static Suite *pcap_suite(void)
{
	Suite *s = suite_create("pcap");
	TCase *tc;

	tc = tcase_create("file");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pcap_open_header_fields);
	tcase_add_test(tc, test_pcap_open_bad_path_errno);
	tcase_add_test(tc, test_pcap_frame_record_fields);
	tcase_add_test(tc, test_pcap_frames_skip_prefix);
	tcase_add_test(tc, test_pcap_frames_large_batch_in_order);
	tcase_add_test(tc, test_pcap_reopen_and_close);
	suite_add_tcase(s, tc);

	tc = tcase_create("tshark");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pcap_tshark_reads_file);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pcap_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
