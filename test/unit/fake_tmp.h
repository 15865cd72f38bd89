/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/fake_tmp.h - A scratch directory for files a test points our
 * code at (resolv.conf, ip_local_port_range, captured output)
 */
#ifndef TEST_UNIT_FAKE_TMP_H
#define TEST_UNIT_FAKE_TMP_H

#include <stddef.h>

void tmp_dir_make(char *dir, size_t len, const char *name);
void tmp_write(const char *path, const char *text);
void tmp_dir_remove(const char *dir);

#endif /* TEST_UNIT_FAKE_TMP_H */
