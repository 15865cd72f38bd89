// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fuzz_regress_test.c - Replay fuzzing seeds and found crashes
 *
 * Every harness of test/fuzz/ is compiled in here with its entry point
 * renamed, and fed each file of test/fuzz/corpus/HARNESS/ (the seeds, real
 * frames) and test/fuzz/regress/HARNESS/ (inputs that once crashed or
 * tripped a sanitizer; run.sh says to copy them there).  So make check runs
 * them with the release build and with ASan/UBSan, without clang or
 * libFuzzer.  A harness that fails shows up as a crash of its test case
 * (Check runs each in its own process, which the frame, stream and conf
 * harnesses need: they move into a network namespace of their own and keep
 * global state).  The directory is test/fuzz relative to the working
 * directory (make check runs from the top), or $FUZZ_DIR.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define LLVMFuzzerTestOneInput fuzz_frame_one
#include "../fuzz/frame.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_stream_one
#include "../fuzz/stream.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_arp_one
#include "../fuzz/arp.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dhcp_one
#include "../fuzz/dhcp.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dhcpv6_one
#include "../fuzz/dhcpv6.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ndp_one
#include "../fuzz/ndp.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tcp_opt_one
#include "../fuzz/tcp_opt.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ports_one
#include "../fuzz/ports.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_conf_one
#include "../fuzz/conf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_seq_one
#include "../fuzz/seq.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_vhost_one
#include "../fuzz/vhost.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_vhost_fds_one
#include "../fuzz/vhost_fds.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_wire_one
#include "../fuzz/wire.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ctl_one
#include "../fuzz/ctl.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_restart_one
#include "../fuzz/restart.c"
#undef LLVMFuzzerTestOneInput

#define REPLAY_MAX	(1 << 20)	/* largest input replayed, bytes */

/**
 * replay_dir() - Feed every file of one directory to a harness
 * @harness:	Harness name (directory name under corpus/ and regress/)
 * @sub:	"corpus" or "regress"
 * @one:	Harness entry point
 *
 * Return: number of files replayed (a missing directory counts 0)
 */
static int replay_dir(const char *harness, const char *sub,
		      int (*one)(const uint8_t *, size_t))
{
	static uint8_t buf[REPLAY_MAX];
	const char *top = getenv("FUZZ_DIR");
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent *de;
	int count = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s/%s", top ? top : "test/fuzz", sub,
		 harness);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		uint8_t *exact;
		size_t n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		ck_assert_msg(f, "can't open %s", path);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);

		/* An exactly sized copy, as libFuzzer passes: ASan sees any
		 * read past the end of the input
		 */
		exact = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(exact);
		memcpy(exact, buf, n);
		one(exact, n);
		free(exact);
		count++;
	}
	closedir(d);
	return count;
}

/**
 * replay() - Replay seeds and regressions of a harness
 * @harness:	Harness name
 * @one:	Entry point
 */
static void replay(const char *harness, int (*one)(const uint8_t *, size_t))
{
	struct stat st;
	int n;

	ck_assert_msg(!stat(getenv("FUZZ_DIR") ? getenv("FUZZ_DIR") :
			    "test/fuzz", &st),
		      "test/fuzz not found: run from the top directory or "
		      "set FUZZ_DIR");
	n = replay_dir(harness, "corpus", one);
	ck_assert_msg(n > 0, "no seeds for %s", harness);
	replay_dir(harness, "regress", one);
}

START_TEST(test_fuzz_frame_replay)
{
	replay("frame", fuzz_frame_one);
}
END_TEST

START_TEST(test_fuzz_stream_replay)
{
	replay("stream", fuzz_stream_one);
}
END_TEST

START_TEST(test_fuzz_arp_replay)
{
	replay("arp", fuzz_arp_one);
}
END_TEST

START_TEST(test_fuzz_dhcp_replay)
{
	replay("dhcp", fuzz_dhcp_one);
}
END_TEST

START_TEST(test_fuzz_dhcpv6_replay)
{
	replay("dhcpv6", fuzz_dhcpv6_one);
}
END_TEST

START_TEST(test_fuzz_ndp_replay)
{
	replay("ndp", fuzz_ndp_one);
}
END_TEST

START_TEST(test_fuzz_tcp_opt_replay)
{
	replay("tcp_opt", fuzz_tcp_opt_one);
}
END_TEST

START_TEST(test_fuzz_wire_replay)
{
	replay("wire", fuzz_wire_one);
}
END_TEST

START_TEST(test_fuzz_ctl_replay)
{
	replay("ctl", fuzz_ctl_one);
}
END_TEST

START_TEST(test_fuzz_ports_replay)
{
	replay("ports", fuzz_ports_one);
}
END_TEST

START_TEST(test_fuzz_seq_replay)
{
	replay("seq", fuzz_seq_one);
}
END_TEST

START_TEST(test_fuzz_vhost_replay)
{
	replay("vhost", fuzz_vhost_one);
}
END_TEST

START_TEST(test_fuzz_vhost_fds_replay)
{
	replay("vhost_fds", fuzz_vhost_fds_one);
}
END_TEST

START_TEST(test_fuzz_restart_replay)
{
	replay("restart", fuzz_restart_one);
}
END_TEST

START_TEST(test_fuzz_conf_replay)
{
	int out = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);

	dup2(null, STDOUT_FILENO);	/* --help output */
	replay("conf", fuzz_conf_one);
	dup2(out, STDOUT_FILENO);
}
END_TEST

/**
 * fuzz_regress_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *fuzz_regress_suite(void)
{
	Suite *s = suite_create("fuzz_regress");
	TCase *tc = tcase_create("replay");

	tcase_add_test(tc, test_fuzz_frame_replay);
	tcase_add_test(tc, test_fuzz_stream_replay);
	tcase_add_test(tc, test_fuzz_seq_replay);
	tcase_add_test(tc, test_fuzz_vhost_replay);
	tcase_add_test(tc, test_fuzz_vhost_fds_replay);
	tcase_add_test(tc, test_fuzz_restart_replay);
	tcase_add_test(tc, test_fuzz_arp_replay);
	tcase_add_test(tc, test_fuzz_dhcp_replay);
	tcase_add_test(tc, test_fuzz_dhcpv6_replay);
	tcase_add_test(tc, test_fuzz_ndp_replay);
	tcase_add_test(tc, test_fuzz_tcp_opt_replay);
	tcase_add_test(tc, test_fuzz_ports_replay);
	tcase_add_test(tc, test_fuzz_wire_replay);
	tcase_add_test(tc, test_fuzz_ctl_replay);
	tcase_add_test(tc, test_fuzz_conf_replay);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(fuzz_regress_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
