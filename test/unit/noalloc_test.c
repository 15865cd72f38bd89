// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/noalloc_test.c - No memory allocation per frame
 *
 * The daemon allocates its tables at start-up and nothing per packet
 * (STYLE.md 2.7): this program replaces malloc() and friends with counting
 * wrappers around glibc's own allocator (glibc routes its internal
 * allocations through a replaced malloc() too: "Replacing malloc" in the
 * glibc manual), warms the frame input path up with the frame seeds of the
 * fuzzing corpus (test/fuzz/frame.c: first use of each code path), then
 * replays them ten more times and expects no allocation at all.  Not in
 * sanitizer builds, whose run-time owns malloc().
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../lib/eth.h"
#include "../fuzz/frame.c"

#ifndef SANITIZER_BUILD
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

static volatile bool counting;
static volatile unsigned long allocs;

/**
 * malloc() - Counting wrapper
 * @size:	Bytes
 *
 * Return: memory from glibc
 */
void *malloc(size_t size)
{
	if (counting)
		allocs++;
	return __libc_malloc(size);
}

/**
 * calloc() - Counting wrapper
 * @n:		Elements
 * @size:	Bytes each
 *
 * Return: zeroed memory from glibc
 */
void *calloc(size_t n, size_t size)
{
	if (counting)
		allocs++;
	return __libc_calloc(n, size);
}

/**
 * realloc() - Counting wrapper
 * @p:		Old block, or NULL
 * @size:	Bytes
 *
 * Return: memory from glibc
 */
void *realloc(void *p, size_t size)
{
	if (counting)
		allocs++;
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size);	/* <malloc.h>, obsolete */

/**
 * memalign() - Counting wrapper
 * @align:	Alignment
 * @size:	Bytes
 *
 * Return: memory from glibc
 */
void *memalign(size_t align, size_t size)
{
	if (counting)
		allocs++;
	return __libc_memalign(align, size);
}

/**
 * aligned_alloc() - Counting wrapper
 * @align:	Alignment
 * @size:	Bytes
 *
 * Return: memory from glibc
 */
void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

/**
 * posix_memalign() - Counting wrapper
 * @p:		Result
 * @align:	Alignment
 * @size:	Bytes
 *
 * Return: 0 or ENOMEM
 */
int posix_memalign(void **p, size_t align, size_t size)
{
	*p = memalign(align, size);
	return *p ? 0 : ENOMEM;
}

/**
 * free() - Pass-through
 * @p:		Block
 */
void free(void *p)
{
	__libc_free(p);
}
#endif /* !SANITIZER_BUILD */

#define SEEDS_MAX	128

static uint8_t seed[SEEDS_MAX][FRAME_MAX];
static size_t seed_len[SEEDS_MAX];
static unsigned seeds;

/**
 * load_seeds() - Read test/fuzz/corpus/frame and test/fuzz/regress/frame
 */
static void load_seeds(void)
{
	static const char *const dirs[] = { "corpus/frame", "regress/frame" };
	const char *top = getenv("FUZZ_DIR") ? getenv("FUZZ_DIR") : "test/fuzz";
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent *de;
	size_t i;
	DIR *d;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", top, dirs[i]);
		if (!(d = opendir(dir)))
			continue;
		while ((de = readdir(d)) && seeds < SEEDS_MAX) {
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (!(f = fopen(path, "rb")))
				continue;
			seed_len[seeds] = fread(seed[seeds], 1, FRAME_MAX, f);
			fclose(f);
			seeds++;
		}
		closedir(d);
	}
}

START_TEST(test_frame_input_allocates_nothing)
{
	unsigned i, round;

	load_seeds();
	ck_assert_msg(seeds >= 10, "frame seeds not found (run from the top "
		      "directory or set FUZZ_DIR)");

	for (round = 0; round < 3; round++)		/* warm-up */
		for (i = 0; i < seeds; i++)
			LLVMFuzzerTestOneInput(seed[i], seed_len[i]);

#ifndef SANITIZER_BUILD
	counting = true;
	for (round = 0; round < 10; round++)
		for (i = 0; i < seeds; i++)
			LLVMFuzzerTestOneInput(seed[i], seed_len[i]);
	counting = false;

	ck_assert_msg(!allocs, "%lu allocations for %u frames", allocs,
		      seeds * 10);
#endif
}
END_TEST

/**
 * noalloc_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *noalloc_suite(void)
{
	Suite *s = suite_create("noalloc");
	TCase *tc = tcase_create("frame_input");

	tcase_add_test(tc, test_frame_input_allocates_nothing);
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
	SRunner *sr = srunner_create(noalloc_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
