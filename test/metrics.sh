#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/metrics.sh - The figures of issue 28, measured the same way each time
#
# Usage: test/metrics.sh [BUILD]          (default: build, made by make)
#        UPSTREAM=DIR test/metrics.sh     also asserts and literal density of
#                                         a flat tree (upstream passt's *.c)
#        WARNINGS=0 test/metrics.sh       skip the warning count (a build)
#
# - asserts: run-time checks in the daemon's code (ASSERT() and assert()
#   calls; comments and strings removed by the preprocessor without
#   expanding macros, #define lines not counted), and compile-time ones
#   (_Static_assert, static_assert) apart;
# - literals: numeric literals other than 0 and 1 per 1000 code lines, in
#   all and for the files issue 28 named (test/hdr_metrics.sh counts);
# - deps: passt/'s largest circle of files and the two-way pairs
#   (test/deps_graph.py on BUILD/obj, as make check-deps);
# - warnings: the number of compiler warnings of a build from scratch with
#   the Makefile's warning set (without -Werror), release objects and unit
#   programs, in a temporary directory (two jobs, about a minute);
# - names: exports without their file's prefix (test/check_names.sh), and
#   exports no other object of the daemon uses (pesto's and main aside);
# - duplicates: pairs of places sharing six or more lines, if the
#   "duplicates" tool is installed (not part of the project).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
DIRS="lib conf tap passt splice entry"

# asserts FILE... - print "RUN STATIC" for the files
asserts() {
	for f in "$@"; do
		gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null
	done | sed -E 's/"([^"\\]|\\.)*"//g' | grep -v '^[[:space:]]*#' |
	awk '{
		s = $0
		while (match(s, /(^|[^A-Za-z0-9_])(ASSERT|assert)\(/)) {
			run++; s = substr(s, RSTART + RLENGTH)
		}
		s = $0
		while (match(s, /(_Static_assert|static_assert)\(/)) {
			st++; s = substr(s, RSTART + RLENGTH)
		}
	} END { printf "%d %d\n", run, st }'
}

# shellcheck disable=SC2046 # one word per file
set -- $(for d in $DIRS; do ls "$d"/*.c "$d"/*.h 2>/dev/null; done)
a=$(asserts "$@")
echo "asserts: ${a% *} run-time (ASSERT/assert calls), ${a#* } compile-time"
if [ -n "${UPSTREAM:-}" ]; then
	a=$(asserts "$UPSTREAM"/*.c "$UPSTREAM"/*.h)
	echo "asserts (upstream $UPSTREAM): ${a% *} run-time, ${a#* } compile-time"
fi

test/hdr_metrics.sh > "${TMPDIR:-/tmp}/metrics.$$"
echo "literals per 1000 code lines (numeric, other than 0 and 1):"
grep -E '^(total|tap/ndp.c|tap/dhcpv6.c|tap/frame.c) ' "${TMPDIR:-/tmp}/metrics.$$" |
	sed 's/^/  /'
rm -f "${TMPDIR:-/tmp}/metrics.$$"
if [ -n "${UPSTREAM:-}" ]; then
	test/hdr_metrics.sh "$UPSTREAM"/*.c | grep -E '^total ' |
		sed "s|^total|  upstream|"
fi

if [ -d "$BUILD/obj" ]; then
	python3 test/deps_graph.py "$BUILD/obj" --check --budget 999 \
		--pairs-budget 999 |
		sed -n 's/^\(passt\/ largest circle\|two-way pairs\): /deps: &/p'
	sh test/check_names.sh "$BUILD" obj | tail -1
	# Exports no other object of the daemon uses (pesto's and main
	# aside): each should be static, or VISIBLE_IF_UNIT for the tests
	# shellcheck disable=SC2046 # one word per object
	set -- $(find "$BUILD/obj" -name '*.o' | sort | while read -r o; do
		c=${o#"$BUILD/obj"/}; [ -f "${c%.o}.c" ] && echo "$o"; done)
	nm --defined-only -g "$@" | awk '$2 ~ /^[BCDGRSTV]$/ { print $3 }' |
		sort > "${TMPDIR:-/tmp}/metrics.def.$$"
	nm -u "$@" | awk 'NF { print $NF }' | sort -u > "${TMPDIR:-/tmp}/metrics.und.$$"
	own=$(comm -23 "${TMPDIR:-/tmp}/metrics.def.$$" "${TMPDIR:-/tmp}/metrics.und.$$" |
	      grep -vxE 'main|wire_rule_put|wire_table_rules' | tr '\n' ' ')
	rm -f "${TMPDIR:-/tmp}/metrics.def.$$" "${TMPDIR:-/tmp}/metrics.und.$$"
	echo "exports only their own file uses: $(echo "$own" | wc -w) $own"
else
	echo "deps, names: no $BUILD/obj (make first)"
fi

if [ "${WARNINGS:-1}" != 0 ]; then
	t=$(mktemp -d)
	make --no-print-directory -j2 BUILD="$t" WERROR=0 all unit > "$t.log" 2>&1
	rc=$?
	n=$(grep -c 'warning:' "$t.log")
	echo "warnings: $n (fresh build of all and unit, make exit $rc; flags:" \
	     "$(cat "$t/gen/warn" 2>/dev/null))"
	rm -rf "$t" "$t.log"
fi

if command -v duplicates >/dev/null; then
	echo "duplicates: $(duplicates --repo . --seconds 60 | head -1)"
fi
