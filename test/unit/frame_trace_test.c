// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/frame_trace_test.c - Tests for tap/frame_trace.c (--trace lines)
 *
 * Frames come from test/unit/captured_frames.h; the expected fields are
 * those of the tshark decodes pasted above each frame there.  Lines are
 * read back from a log file in /tmp.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../tap/frame.h"
#include "captured_frames.h"

static char path[64];

/**
 * setup() - Log to an empty temporary file, at trace level
 */
static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/frame_trace_test.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	log_stderr_off();
	log_level = LOG_INFO;	/* no time stamp prefix */
	log_trace_on = true;
	ck_assert_int_eq(log_open_file(path, 65536), 0);
}

/**
 * teardown() - Close and remove the log file
 */
static void teardown(void)
{
	log_close_file();
	unlink(path);
}

/**
 * last_line() - The log file's content (one line expected)
 * @buf:	Output, NUL-terminated, without the final newline
 * @cap:	Size of @buf
 */
static void last_line(char *buf, size_t cap)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(fp);
	n = fread(buf, 1, cap - 1, fp);
	fclose(fp);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\n');
	buf[n - 1] = '\0';
}

/* tshark: 203.0.113.15:41730 -> 203.0.113.2:80, SYN, raw seq 2302114590,
 * ack 0, window 64240, 74 bytes
 */
START_TEST(test_frame_trace_tcp_syn)
{
	char buf[256];

	frame_trace("from tap", cap_tcp4_syn, sizeof(cap_tcp4_syn),
		    sizeof(cap_tcp4_syn));
	last_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "from tap: TCP 203.0.113.15:41730 > "
			 "203.0.113.2:80 len 74 flags S seq 2302114590 ack 0 "
			 "win 64240");
}
END_TEST

/* Only the headers readable (payload in other iovecs): same line, with
 * the length of the whole frame as given
 */
START_TEST(test_frame_trace_headers_only)
{
	char buf[256];

	frame_trace("to tap", cap_tcp4_syn, 14 + 20 + 20, 1514);
	last_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "to tap: TCP 203.0.113.15:41730 > "
			 "203.0.113.2:80 len 1514 flags S seq 2302114590 ack 0 "
			 "win 64240");
}
END_TEST

/* tshark: echo request, identifier 11377 (BE), sequence 1, 98 bytes */
START_TEST(test_frame_trace_icmp_echo)
{
	char buf[256];

	frame_trace("from tap", cap_icmp4_echo, sizeof(cap_icmp4_echo),
		    sizeof(cap_icmp4_echo));
	last_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "from tap: ICMP 203.0.113.15 > 203.0.113.2 "
			 "len 98 type 8 code 0 id 11377 seq 1");
}
END_TEST

/* tshark: ARP request, sender 0.0.0.0, target 203.0.113.15 (a probe) */
START_TEST(test_frame_trace_arp)
{
	char buf[256];

	frame_trace("from tap", cap_arp_probe, sizeof(cap_arp_probe),
		    sizeof(cap_arp_probe));
	last_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "from tap: ARP request 0.0.0.0 > 203.0.113.15 "
			 "len 42");
}
END_TEST

/* Fewer bytes than an Ethernet header: no decode, no overread */
START_TEST(test_frame_trace_short)
{
	char buf[256];

	frame_trace("from tap", cap_udp4, 10, 10);
	last_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "from tap: short frame, 10 bytes");
}
END_TEST

/**
 * frame_trace_suite() - Suite for tap/frame_trace.c
 *
 * Return: the suite
 */
static Suite *frame_trace_suite(void)
{
	Suite *s = suite_create("frame_trace");
	TCase *tc = tcase_create("frame_trace");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_frame_trace_tcp_syn);
	tcase_add_test(tc, test_frame_trace_headers_only);
	tcase_add_test(tc, test_frame_trace_icmp_echo);
	tcase_add_test(tc, test_frame_trace_arp);
	tcase_add_test(tc, test_frame_trace_short);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: EXIT_SUCCESS if all tests passed
 */
int main(void)
{
	SRunner *sr = srunner_create(frame_trace_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
