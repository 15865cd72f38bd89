// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/sdnotify_test.c - Tests for passt/sdnotify.c
 *
 * NOTIFY_SOCKET as sd_notify(3) NOTES documents it ("/path", or "@name" for
 * the Linux abstract namespace; one datagram of newline-separated
 * VARIABLE=VALUE lines per notification); address lengths from unix(7)
 * (sun_path is 108 bytes; an abstract address is as long as the length
 * passed says).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../passt/sdnotify.h"

/* unix(7): offsetof(struct sockaddr_un, sun_path) is 2 on Linux */
#define SUN_OFF	2

START_TEST(test_sdnotify_addr_path_includes_nul)
{
	struct sockaddr_un sa;
	socklen_t len;

	ck_assert_int_eq(sdnotify_addr("/run/systemd/notify", &sa, &len), 0);
	ck_assert_int_eq(sa.sun_family, AF_UNIX);
	ck_assert_str_eq(sa.sun_path, "/run/systemd/notify");
	/* 19 characters and the NUL */
	ck_assert_uint_eq(len, SUN_OFF + 19 + 1);
}
END_TEST

START_TEST(test_sdnotify_addr_abstract_leading_nul)
{
	struct sockaddr_un sa;
	socklen_t len;

	ck_assert_int_eq(sdnotify_addr("@sd-notify", &sa, &len), 0);
	ck_assert_int_eq(sa.sun_path[0], '\0');
	ck_assert_int_eq(memcmp(sa.sun_path + 1, "sd-notify", 9), 0);
	/* the NUL standing for '@', then 9 bytes, no terminator */
	ck_assert_uint_eq(len, SUN_OFF + 1 + 9);
}
END_TEST

START_TEST(test_sdnotify_addr_path_107_fits_108_not)
{
	char p[110];
	struct sockaddr_un sa;
	socklen_t len;

	memset(p, 'a', sizeof(p));
	p[0] = '/';
	p[107] = '\0';		/* 107 characters + NUL = sizeof(sun_path) */
	ck_assert_int_eq(sdnotify_addr(p, &sa, &len), 0);
	ck_assert_uint_eq(len, SUN_OFF + 108);
	p[107] = 'a';
	p[108] = '\0';
	ck_assert_int_eq(sdnotify_addr(p, &sa, &len), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_sdnotify_addr_abstract_108_fits_109_not)
{
	char p[110];
	struct sockaddr_un sa;
	socklen_t len;

	memset(p, 'b', sizeof(p));
	p[0] = '@';
	p[108] = '\0';		/* NUL + 107 bytes fill sun_path */
	ck_assert_int_eq(sdnotify_addr(p, &sa, &len), 0);
	ck_assert_uint_eq(len, SUN_OFF + 108);
	p[108] = 'b';
	p[109] = '\0';
	ck_assert_int_eq(sdnotify_addr(p, &sa, &len), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_sdnotify_addr_rejects_empty_relative_bare_at)
{
	struct sockaddr_un sa;
	socklen_t len;

	ck_assert_int_eq(sdnotify_addr("", &sa, &len), -EINVAL);
	ck_assert_int_eq(sdnotify_addr("run/notify", &sa, &len), -EINVAL);
	ck_assert_int_eq(sdnotify_addr("@", &sa, &len), -EINVAL);
}
END_TEST

/* systemd.exec(7), $NOTIFY_SOCKET: "vsock:CID:PORT" since systemd 254 */
START_TEST(test_sdnotify_addr_vsock_unsupported)
{
	struct sockaddr_un sa;
	socklen_t len;

	ck_assert_int_eq(sdnotify_addr("vsock:2:1234", &sa, &len),
			 -EAFNOSUPPORT);
}
END_TEST

/* A datagram socket bound where NOTIFY_SOCKET points receives one datagram
 * per notification, newline-separated VARIABLE=VALUE lines (sd_notify(3))
 */
START_TEST(test_sdnotify_ready_and_stopping_datagrams)
{
	char path[] = "/tmp/sdnotify_test.XXXXXX", sock[64], buf[600], want[96];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int r, n;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(sock, sizeof(sock), "%s/n", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	r = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(r, 0);
	ck_assert_int_eq(bind(r, (struct sockaddr *)&sa, sizeof(sa)), 0);

	setenv("NOTIFY_SOCKET", sock, 1);
	sdnotify_init();
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
	ck_assert_int_ge(sdnotify_fd(), 0);

	sdnotify_ready("listening on %s", "/x\ny");
	n = (int)recv(r, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	snprintf(want, sizeof(want),
		 "READY=1\nMAINPID=%d\nSTATUS=listening on /x y\n",
		 (int)getpid());
	ck_assert_str_eq(buf, want);

	sdnotify_stopping();
	sdnotify_stopping();	/* once only */
	n = (int)recv(r, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "STOPPING=1\nSTATUS=exiting\n");
	ck_assert_int_lt(recv(r, buf, sizeof(buf), MSG_DONTWAIT), 0);

	close(r);
	unlink(sock);
	rmdir(path);
}
END_TEST

START_TEST(test_sdnotify_init_missing_path_no_socket)
{
	setenv("NOTIFY_SOCKET", "/nonexistent-sdnotify-test/notify", 1);
	sdnotify_init();
	ck_assert_int_eq(sdnotify_fd(), -1);
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
	sdnotify_ready("nothing");	/* no socket: no-op, no crash */
}
END_TEST

static Suite *sdnotify_suite(void)
{
	Suite *s = suite_create("sdnotify");
	TCase *tc;

	tc = tcase_create("sdnotify_addr");
	tcase_add_test(tc, test_sdnotify_addr_path_includes_nul);
	tcase_add_test(tc, test_sdnotify_addr_abstract_leading_nul);
	tcase_add_test(tc, test_sdnotify_addr_path_107_fits_108_not);
	tcase_add_test(tc, test_sdnotify_addr_abstract_108_fits_109_not);
	tcase_add_test(tc, test_sdnotify_addr_rejects_empty_relative_bare_at);
	tcase_add_test(tc, test_sdnotify_addr_vsock_unsupported);
	suite_add_tcase(s, tc);

	tc = tcase_create("sdnotify_send");
	tcase_add_test(tc, test_sdnotify_ready_and_stopping_datagrams);
	tcase_add_test(tc, test_sdnotify_init_missing_path_no_socket);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sdnotify_suite());
	int failed;

	log_stderr_off();
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
