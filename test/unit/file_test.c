// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/file_test.c - Files created at set-up never follow a planted
 *			   symbolic link (lib/file.c, and its users:
 *			   tap/pcap.c, lib/log.c)
 *
 * Expected behaviour from open(2) and path_resolution(7): O_NOFOLLOW makes
 * open() fail with ELOOP when the last component is a symbolic link;
 * O_CREAT | O_EXCL never follows one; a FIFO opened for writing with
 * O_NONBLOCK and no reader fails with ENXIO instead of blocking (fifo(7)).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/file.h"
#include "../../lib/log.h"
#include "../../tap/pcap.h"

static char dir[64];
static char victim[128], link_path[128], path[128];

static const char secret[] = "precious content\n";

/**
 * setup() - Temporary directory with a victim file and a link to it
 */
static void setup(void)
{
	FILE *f;

	strcpy(dir, "/tmp/file_test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link_path, sizeof(link_path), "%s/planted", dir);
	snprintf(path, sizeof(path), "%s/new", dir);
	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs(secret, f);
	fclose(f);
	ck_assert_int_eq(symlink(victim, link_path), 0);
}

/**
 * teardown() - Remove everything in the directory, then the directory
 */
static void teardown(void)
{
	struct dirent *de;
	char p[400];
	DIR *d;

	pcap_close();
	log_close_file();
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/**
 * victim_intact() - The link's target still holds its content
 */
static void victim_intact(void)
{
	char buf[64] = { 0 };
	FILE *f = fopen(victim, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(buf, 1, sizeof(buf) - 1, f), strlen(secret));
	fclose(f);
	ck_assert_str_eq(buf, secret);
}

/**
 * dir_entries() - Count the entries of the test directory
 *
 * Return: entries, "." and ".." aside
 */
static unsigned dir_entries(void)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A link as the last component: ELOOP, nothing written where it points */
START_TEST(test_file_symlink_refused)
{
	ck_assert_int_eq(file_open_safe(link_path, O_WRONLY | O_TRUNC, 0600),
			 -ELOOP);
	ck_assert_int_eq(file_open_safe(link_path, O_RDWR | O_APPEND, 0600),
			 -ELOOP);
	victim_intact();
	ck_assert_ptr_nonnull(strstr(file_strerror(-ELOOP), "symbolic link"));
}
END_TEST

/* A dangling link: refused too, its target is not created */
START_TEST(test_file_dangling_symlink_refused)
{
	char target[160];
	struct stat st;

	snprintf(target, sizeof(target), "%s/target", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(file_open_safe(path, O_WRONLY | O_TRUNC, 0644),
			 -ELOOP);
	ck_assert_int_eq(lstat(target, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* A new file: created with the mode asked, no temporary name left over */
START_TEST(test_file_new)
{
	struct stat st;
	mode_t old = umask(0);
	int fd = file_open_safe(path, O_WRONLY | O_TRUNC, 0640);

	umask(old);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(st.st_size, 1);
	ck_assert_uint_eq(dir_entries(), 3);	/* victim, planted, new */
}
END_TEST

/* An existing file: the same inode, truncated or appended to */
START_TEST(test_file_existing)
{
	struct stat before, after;
	int fd;

	ck_assert_int_eq(stat(victim, &before), 0);
	fd = file_open_safe(victim, O_RDWR | O_APPEND, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(fd, F_GETFL) & O_APPEND);
	ck_assert(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	ck_assert_int_eq(write(fd, "y", 1), 1);
	close(fd);
	ck_assert_int_eq(stat(victim, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_int_eq(after.st_size, (off_t)strlen(secret) + 1);

	fd = file_open_safe(victim, O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(stat(victim, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_int_eq(after.st_size, 0);
}
END_TEST

/* A character device such as /dev/null is taken (--pcap /dev/null), and
 * not truncated
 */
START_TEST(test_file_chardev)
{
	int fd = file_open_safe("/dev/null", O_WRONLY | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
}
END_TEST

/* A FIFO planted at the path: refused at once, no blocking open */
START_TEST(test_file_fifo_refused)
{
	int ret;

	ck_assert_int_eq(mkfifo(path, 0666), 0);
	ret = file_open_safe(path, O_WRONLY | O_TRUNC, 0600);
	ck_assert_msg(ret == -ENXIO || ret == -EFTYPE_, "got %d", ret);
	ck_assert_int_eq(file_open_safe(path, O_RDWR | O_APPEND, 0600),
			 -EFTYPE_);
	ck_assert_ptr_nonnull(strstr(file_strerror(EFTYPE_), "regular"));
}
END_TEST

/* Another user's file in a sticky directory others write to (like /tmp):
 * refused, as fs.protected_regular refuses O_CREAT on it; our own is fine
 */
START_TEST(test_file_foreign_in_sticky)
{
	struct stat st;
	int fd;

	if (geteuid())
		return;		/* needs chown() */
	ck_assert_int_eq(chmod(dir, 01777), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(file_open_safe(path, O_WRONLY | O_TRUNC, 0644),
			 -EACCES);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 1);		/* not truncated */

	ck_assert_int_eq(chown(path, 0, 0), 0);
	fd = file_open_safe(path, O_WRONLY | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

/* A hard link to a file we could otherwise write (as where
 * fs.protected_hardlinks is off): refused for truncation and appending
 * alike, the shared file intact
 */
START_TEST(test_file_hardlink_refused)
{
	ck_assert_int_eq(link(victim, path), 0);
	ck_assert_int_eq(file_open_safe(path, O_WRONLY | O_TRUNC, 0600),
			 -EMLINK);
	ck_assert_int_eq(file_open_safe(path, O_RDWR | O_APPEND, 0600),
			 -EMLINK);
	ck_assert_int_eq(pcap_open(path), -EMLINK);
	ck_assert_int_eq(log_open_file(path, 65536), -EMLINK);
	ck_assert_ptr_nonnull(strstr(file_strerror(-EMLINK), "hard link"));
	victim_intact();
}
END_TEST

/* A name too long for the temporary suffix: created directly, O_EXCL */
START_TEST(test_file_long_name)
{
	char name[400];
	struct stat st;
	int fd, n;

	n = snprintf(name, sizeof(name), "%s/", dir);
	memset(name + n, 'n', 250);
	name[n + 250] = '\0';
	fd = file_open_safe(name, O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(lstat(name, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(dir_entries(), 3);
}
END_TEST

/* --pcap and --log-file on a planted link: refused, target intact */
START_TEST(test_file_pcap_and_log_refuse_symlink)
{
	ck_assert_int_eq(pcap_open(link_path), -ELOOP);
	ck_assert_int_eq(log_open_file(link_path, 65536), -ELOOP);
	victim_intact();
}
END_TEST

/**
 * file_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("open");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_file_symlink_refused);
	tcase_add_test(tc, test_file_dangling_symlink_refused);
	tcase_add_test(tc, test_file_new);
	tcase_add_test(tc, test_file_existing);
	tcase_add_test(tc, test_file_fifo_refused);
	tcase_add_test(tc, test_file_chardev);
	tcase_add_test(tc, test_file_pcap_and_log_refuse_symlink);
	tcase_add_test(tc, test_file_foreign_in_sticky);
	tcase_add_test(tc, test_file_long_name);
	tcase_add_test(tc, test_file_hardlink_refused);
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
	SRunner *sr = srunner_create(file_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
