// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/sdlisten_test.c - Tests for passt/sdlisten.c
 *
 * LISTEN_FDS and LISTEN_PID as sd_listen_fds(3) documents them (descriptors
 * from SD_LISTEN_FDS_START = 3; not for us when LISTEN_PID isn't our PID);
 * socket properties from socket(7) (SO_DOMAIN, SO_TYPE, SO_ACCEPTCONN) and
 * unix(7) (abstract names), on real sockets made here.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../passt/sdlisten.h"

/* unix(7): offsetof(struct sockaddr_un, sun_path) is 2 on Linux */
#define SUN_OFF	2

START_TEST(test_sdlisten_parse_ours)
{
	ck_assert_int_eq(sdlisten_parse("1", "4242", 4242), 1);
	ck_assert_int_eq(sdlisten_parse("0", "4242", 4242), 0);
	ck_assert_int_eq(sdlisten_parse("3", "4242", 4242), 3);
}
END_TEST

START_TEST(test_sdlisten_parse_not_ours)
{
	ck_assert_int_eq(sdlisten_parse(NULL, "4242", 4242), -ENOENT);
	ck_assert_int_eq(sdlisten_parse(NULL, NULL, 4242), -ENOENT);
	ck_assert_int_eq(sdlisten_parse("1", NULL, 4242), -ESRCH);
	ck_assert_int_eq(sdlisten_parse("1", "4243", 4242), -ESRCH);
}
END_TEST

START_TEST(test_sdlisten_parse_malformed)
{
	ck_assert_int_eq(sdlisten_parse("1x", "4242", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse("", "4242", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse("-1", "4242", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse(" 1", "4242", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse("1", "42x", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse("1", "0", 4242), -EINVAL);
	ck_assert_int_eq(sdlisten_parse("99999999999", "4242", 4242), -EINVAL);
	/* 3 + n descriptors must stay below INT_MAX */
	ck_assert_int_eq(sdlisten_parse("2147483647", "4242", 4242), -EINVAL);
}
END_TEST

START_TEST(test_sdlisten_check_listening_unix)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char name[120];
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(sdlisten_check(s), -EINVAL);	/* not listening */
	/* abstract name, unix(7): "@" in our text form */
	memcpy(sa.sun_path + 1, "sdlisten-test", 13);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, SUN_OFF + 14), 0);
	ck_assert_int_eq(listen(s, 1), 0);
	ck_assert_int_eq(sdlisten_check(s), 0);
	ck_assert_int_eq(sdlisten_name(s, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "@sdlisten-test");
	close(s);
}
END_TEST

START_TEST(test_sdlisten_check_refuses_others)
{
	int p[2], t = socket(AF_INET, SOCK_STREAM, 0), d, f;

	ck_assert_int_ge(t, 0);
	ck_assert_int_eq(listen(t, 1), 0);	/* TCP, listening: wrong domain */
	ck_assert_int_eq(sdlisten_check(t), -EAFNOSUPPORT);
	close(t);

	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_eq(sdlisten_check(d), -ESOCKTNOSUPPORT);
	close(d);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
	ck_assert_int_eq(sdlisten_check(p[0]), -EINVAL);	/* connected */
	close(p[0]);
	close(p[1]);

	f = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(sdlisten_check(f), -ENOTSOCK);
	close(f);
	ck_assert_int_eq(sdlisten_check(f), -EBADF);
}
END_TEST

static Suite *sdlisten_suite(void)
{
	Suite *s = suite_create("sdlisten");
	TCase *tc;

	tc = tcase_create("sdlisten_parse");
	tcase_add_test(tc, test_sdlisten_parse_ours);
	tcase_add_test(tc, test_sdlisten_parse_not_ours);
	tcase_add_test(tc, test_sdlisten_parse_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("sdlisten_check");
	tcase_add_test(tc, test_sdlisten_check_listening_unix);
	tcase_add_test(tc, test_sdlisten_check_refuses_others);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sdlisten_suite());
	int failed;

	log_stderr_off();
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
