// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/log_test.c - Tests for lib/log.c: the --log-size limit
 *
 * What passt.1 promises for -l/--log-file with --log-size SIZE: the file
 * never grows beyond SIZE bytes; when it's full, the oldest messages go.
 * The tests write to real files in /tmp and read them back with stdio, and
 * the expected offsets are worked out by hand from the line layout.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/log.h"

static char path[64];

/**
 * setup() - Create an empty temporary file, logging to nothing else
 */
static void setup(void)
{
	int fd;

	strcpy(path, "/tmp/log_test.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	log_stderr_off();
	log_level = LOG_INFO;
}

/**
 * teardown() - Close the log file and remove it
 */
static void teardown(void)
{
	log_close_file();
	unlink(path);
}

/**
 * file_size() - Size of the test file
 *
 * Return: bytes
 */
static size_t file_size(void)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/**
 * slurp() - Read the whole test file, NUL-terminated
 * @buf:	Output
 * @cap:	Size of @buf
 *
 * Return: bytes read
 */
static size_t slurp(char *buf, size_t cap)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(fp);
	n = fread(buf, 1, cap - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return n;
}

/**
 * write_lines() - Fill the test file with "line NNNNN\n" (11 bytes each)
 * @count:	Number of lines, numbered from 0
 */
static void write_lines(unsigned count)
{
	FILE *fp = fopen(path, "w");
	unsigned i;

	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < count; i++)
		fprintf(fp, "line %05u\n", i);
	fclose(fp);
}

/* The limit is checked when the file is opened: below 4096 a trim to half
 * the size could not hold a 1024-byte message and the notice
 */
START_TEST(test_log_open_file_rejects_size_below_minimum)
{
	ck_assert_int_eq(log_open_file(path, 4095), -EINVAL);
	ck_assert_int_eq(log_open_file(path, 4096), 0);
}
END_TEST

/* 1000 lines of 11 bytes = 11000 bytes; limit 4096 keeps at most 2048:
 * the cut would be at 11000 - 2048 = 8952, inside line 813 (8943-8953),
 * so the first kept line is 814, at 8954, and 11000 - 8954 = 2046 remain
 */
START_TEST(test_log_file_trim_keeps_newest_half_from_line_start)
{
	static char buf[16384];
	int fd;

	write_lines(1000);
	fd = open(path, O_RDWR | O_APPEND);
	ck_assert_int_ge(fd, 0);

	ck_assert_int_eq(log_file_trim(fd, 4096, 100), 2046);
	close(fd);

	ck_assert_uint_eq(file_size(), 2046);
	ck_assert_uint_eq(slurp(buf, sizeof(buf)), 2046);
	ck_assert(!strncmp(buf, "line 00814\n", 11));
	ck_assert_str_eq(buf + 2046 - 11, "line 00999\n");
}
END_TEST

/* Room for the next message comes first: with 3000 bytes needed of 4096,
 * only 1096 may stay: cut at 11000 - 1096 = 9904 = 900 * 11 + 4, so line
 * 901 (at 9911) is the first kept, 1089 bytes
 */
START_TEST(test_log_file_trim_leaves_room_for_need)
{
	static char buf[16384];
	int fd;

	write_lines(1000);
	fd = open(path, O_RDWR | O_APPEND);
	ck_assert_int_ge(fd, 0);

	ck_assert_int_eq(log_file_trim(fd, 4096, 3000), 1089);
	close(fd);
	slurp(buf, sizeof(buf));
	ck_assert(!strncmp(buf, "line 00901\n", 11));
}
END_TEST

/* No line boundary in the part that could stay: nothing stays */
START_TEST(test_log_file_trim_without_newline_empties_file)
{
	FILE *fp = fopen(path, "w");
	int i, fd;

	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < 10000; i++)
		fputc('x', fp);
	fclose(fp);

	fd = open(path, O_RDWR | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(log_file_trim(fd, 4096, 100), 0);
	close(fd);
	ck_assert_uint_eq(file_size(), 0);
}
END_TEST

/* A file under the limit is left alone */
START_TEST(test_log_file_trim_small_file_untouched)
{
	int fd;

	write_lines(10);
	fd = open(path, O_RDWR | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(log_file_trim(fd, 4096, 100), 110);
	close(fd);
	ck_assert_uint_eq(file_size(), 110);
}
END_TEST

/* Through the logging interface: 3000 messages of 13-17 bytes (about 46 KB)
 * into a 4096-byte limit: the file never exceeds it, the newest message is
 * last, every line is complete, and a notice says older ones were dropped
 */
START_TEST(test_log_msg_file_stays_within_limit)
{
	static char buf[8192];
	char *line, *save = NULL;
	unsigned i, notices = 0;
	size_t n;

	ck_assert_int_eq(log_open_file(path, 4096), 0);
	for (i = 0; i < 3000; i++) {
		info("message %u", i);
		ck_assert_uint_le(file_size(), 4096);
	}

	n = slurp(buf, sizeof(buf));
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_str_eq(buf + n - strlen("message 2999\n"), "message 2999\n");

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "dropped") && strstr(line, "--log-size 4096"))
			notices++;
		else
			ck_assert_msg(!strncmp(line, "message ", 8),
				      "unexpected line '%s'", line);
	}
	ck_assert_uint_eq(notices, 1);
}
END_TEST

/* An old file larger than the limit is cut at the first new message */
START_TEST(test_log_open_file_trims_existing_large_file)
{
	static char buf[8192];
	size_t n;

	write_lines(1000);
	ck_assert_int_eq(log_open_file(path, 4096), 0);
	info("after restart");
	ck_assert_uint_le(file_size(), 4096);
	n = slurp(buf, sizeof(buf));
	ck_assert_str_eq(buf + n - strlen("after restart\n"), "after restart\n");
	ck_assert_ptr_nonnull(strstr(buf, "line 00999\n"));
}
END_TEST

/* info_always() (--stats output) gets through -q, info() doesn't */
START_TEST(test_log_info_always_ignores_quiet)
{
	static char buf[1024];

	ck_assert_int_eq(log_open_file(path, 4096), 0);
	log_level = LOG_WARNING;	/* -q */
	info("hidden");
	info_always("shown %d", 1);
	slurp(buf, sizeof(buf));
	ck_assert_str_eq(buf, "shown 1\n");
}
END_TEST

/* ASSERT() of a false condition logs it with file:line and dies of
 * SIGABRT (abort(3)); a true one does nothing
 */
START_TEST(test_assert_logs_and_aborts)
{
	static char buf[1024], want[256];
	int status, line;
	pid_t pid;

	ck_assert_int_eq(log_open_file(path, 4096), 0);
	ASSERT(1 + 1 == 2);
	signal(SIGABRT, SIG_DFL);
	line = __LINE__ + 2;
	if (!(pid = fork())) {
		ASSERT(1 + 1 == 3);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGABRT);
	slurp(buf, sizeof(buf));
	snprintf(want, sizeof(want), "assertion failed: 1 + 1 == 3 at "
		 "test/unit/log_test.c:%d (%s())\n", line, __func__);
	ck_assert_str_eq(buf, want);
}
END_TEST

/* log_bits_fmt(): set bits get "+", cleared "-", unchanged are left out, in
 * bit order; a short buffer is truncated, still NUL-terminated
 */
START_TEST(test_log_bits_fmt_set_and_cleared)
{
	static const char *const names[] = { "A", "B", "C", "D" };
	char buf[32], small[4];

	ck_assert_str_eq(log_bits_fmt(0x1, 0x6, names, 4, buf, sizeof(buf)),
			 "-A +B +C");
	ck_assert_str_eq(log_bits_fmt(0x5, 0x5, names, 4, buf, sizeof(buf)), "");
	ck_assert_str_eq(log_bits_fmt(0x0, 0xf, names, 4, small, sizeof(small)),
			 "+A ");
}
END_TEST

/**
 * log_suite() - Suite for lib/log.c
 *
 * Return: the suite
 */
static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc;

	tc = tcase_create("log_file_trim");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_log_file_trim_keeps_newest_half_from_line_start);
	tcase_add_test(tc, test_log_file_trim_leaves_room_for_need);
	tcase_add_test(tc, test_log_file_trim_without_newline_empties_file);
	tcase_add_test(tc, test_log_file_trim_small_file_untouched);
	suite_add_tcase(s, tc);

	tc = tcase_create("log_file");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_log_open_file_rejects_size_below_minimum);
	tcase_add_test(tc, test_log_msg_file_stays_within_limit);
	tcase_add_test(tc, test_log_open_file_trims_existing_large_file);
	tcase_add_test(tc, test_log_info_always_ignores_quiet);
	tcase_add_test(tc, test_assert_logs_and_aborts);
	tcase_add_test(tc, test_log_bits_fmt_set_and_cleared);
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
	SRunner *sr = srunner_create(log_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
