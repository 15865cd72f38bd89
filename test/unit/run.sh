#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/unit/run.sh - Run every Check unit test program in a directory
#
# Usage: run.sh DIR.  Each program prints its own Check summary line; this
# script prints one total and exits 1 if any program failed.
set -u
dir=${1:?usage: run.sh DIR}
pass=0; fail=0; failed=""
for t in "$dir"/*_test; do
	[ -x "$t" ] || continue
	if CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-20} "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed="$failed $(basename "$t")"
	fi
done
echo "unit ($dir): $pass programs passed, $fail failed${failed:+:$failed}"
[ "$fail" -eq 0 ]
