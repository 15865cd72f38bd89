// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fake_tmp.c - A scratch directory for files a test points our
 * code at
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tmp.h"

/**
 * tmp_dir_make() - Create a new, empty directory /tmp/NAME.XXXXXX
 * @dir:	Set to its path
 * @len:	Size of @dir
 * @name:	Name part, usually the test program's
 */
void tmp_dir_make(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/%s.XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/**
 * tmp_write() - Create or replace a file with some text
 * @path:	File
 * @text:	Contents
 */
void tmp_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/**
 * tmp_dir_remove() - Remove a directory made by tmp_dir_make(), with the
 *		      files in it
 * @dir:	Its path
 */
void tmp_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}
