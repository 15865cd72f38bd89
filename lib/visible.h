/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/visible.h - VISIBLE_IF_UNIT: exports that only the unit tests use
 *
 * As the kernel's VISIBLE_IF_KUNIT (include/kunit/visibility.h): a function
 * or object that nothing outside its file uses, but a unit test calls or
 * reads, is defined "VISIBLE_IF_UNIT int foo(...)" and declared in its
 * header between "#ifdef UNIT_TEST" and "#endif".  The daemon's objects are
 * built without UNIT_TEST, where it is static (and may be unused: an
 * accessor only the tests call); the unit tests and the fuzzing harnesses
 * link objects built with -DUNIT_TEST ($(BUILD)/libcore-test.a), where it
 * is exported.
 */
#ifndef LIB_VISIBLE_H
#define LIB_VISIBLE_H

#ifdef UNIT_TEST
#define VISIBLE_IF_UNIT
#else
#define VISIBLE_IF_UNIT		static __attribute__((unused))
#endif

#endif /* LIB_VISIBLE_H */
