#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/run.sh - Run the integration tests, print a summary
#
# Environment: PASST_BIN (release build), PASST_ASAN_BIN (optional: tests
# listed in ASAN_TESTS, or all with ASAN_ALL=1, run again with it).
# TESTS="a.sh b.sh" restricts the set.  Exit 0 pass, 1 on any failure.
# A test exits 0 (pass), 1 (fail) or 77 (skip, with its reason printed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${PASST_BIN:?PASST_BIN must point to the passt binary}"
# Scripts with an "# opt-in:" line (long ones, with their own make target)
# run only when TESTS names them
tests=${TESTS:-$(cd "$here" && ls [a-z]*.sh | grep -v -e '^lib' -e '^run.sh$' |
	while read -r t; do grep -q '^# opt-in:' "$t" || echo "$t"; done)}
pass=0; fail=0; skip=0; failed=""; skipped=""
logdir=${TEST_LOGDIR:-$(mktemp -d /tmp/passt-it.XXXXXX)}

run_one() { # $1: script, $2: binary, $3: label
	t=$1; bin=$2; label=$3
	log="$logdir/${t%.sh}$label.log"
	start=$(date +%s)
	PASST_BIN=$bin timeout -k 10 ${TEST_TIMEOUT:-300} sh "$here/$t" >"$log" 2>&1
	rc=$?
	dur=$(( $(date +%s) - start ))
	case $rc in
	0)  pass=$((pass + 1)); echo "PASS $t$label (${dur}s)" ;;
	77) skip=$((skip + 1)); skipped="$skipped $t$label"
	    echo "SKIP $t$label: $(tail -n 1 "$log")" ;;
	*)  fail=$((fail + 1)); failed="$failed $t$label"
	    echo "FAIL $t$label (rc $rc, ${dur}s), last lines of $log:"
	    tail -n 25 "$log" | sed 's/^/    /' ;;
	esac
}

for t in $tests; do
	run_one "$t" "$PASST_BIN" ""
done
if [ -n "${PASST_ASAN_BIN:-}" ]; then
	if [ "${ASAN_ALL:-0}" = 1 ]; then asan_tests=$tests
	else asan_tests=$(cd "$here" && grep -l '^# asan: yes' $tests 2>/dev/null)
	fi
	for t in $asan_tests; do
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
			run_one "$t" "$PASST_ASAN_BIN" "[asan]"
	done
fi
echo "integration: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}${skipped:+ (skipped:$skipped)}; logs in $logdir"
[ "$fail" -eq 0 ]
