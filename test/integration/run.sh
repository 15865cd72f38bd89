#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/run.sh - Run the integration tests, print a summary
#
# Environment: PASST_BIN (release build), PASST_ASAN_BIN (optional: tests
# listed in ASAN_TESTS, or all with ASAN_ALL=1, run again with it).
# TESTS="a.sh b.sh" restricts the set.  Exit 0 pass, 1 on any failure.
# A test exits 0 (pass), 1 (fail) or 77 (skip, with its reason printed).
# IT_LANES=2 (the default) runs the sanitizer pass at the same time as the
# release pass, one test at a time in each: every test has its own
# namespaces, work directory and daemon, and the tests are written for a
# loaded machine.  IT_LANES=1 runs them one after the other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${PASST_BIN:?PASST_BIN must point to the passt binary}"
# Scripts with an "# opt-in:" line (long ones, with their own make target)
# run only when TESTS names them; the summary lists those left out
# shellcheck disable=SC2010 # our own script names, no odd characters
tests=${TESTS:-$(cd "$here" && ls [a-z]*.sh | grep -v -e '^lib' -e '^run.sh$' |
	while read -r t; do grep -q '^# opt-in:' "$t" || echo "$t"; done)}
# The release lane is the one where the seccomp filter kills (sanitizer
# builds only log what it would refuse: passt/isolation.c): say so if it
# was given a sanitizer build
grep -q __asan_init "$PASST_BIN" 2>/dev/null &&
	echo "WARNING: PASST_BIN is a sanitizer build: its seccomp filter only logs, no test here sees a system call it would refuse"
logdir=${TEST_LOGDIR:-$(mktemp -d /tmp/passt-it.XXXXXX)}
results=$logdir/results
: >"$results"

run_one() { # $1: script, $2: binary, $3: label
	t=$1; bin=$2; label=$3
	log="$logdir/${t%.sh}$label.log"
	start=$(date +%s)
	PASST_BIN=$bin timeout -k 10 ${TEST_TIMEOUT:-300} sh "$here/$t" >"$log" 2>&1
	rc=$?
	dur=$(( $(date +%s) - start ))
	# One line per result, and the report in one write: lanes share stdout
	case $rc in
	0)  echo "PASS $t$label" >>"$results"
	    echo "PASS $t$label (${dur}s)" ;;
	77) echo "SKIP $t$label" >>"$results"
	    echo "SKIP $t$label: $(tail -n 1 "$log")" ;;
	*)  echo "FAIL $t$label" >>"$results"
	    { echo "FAIL $t$label (rc $rc, ${dur}s), last lines of $log:"
	      tail -n 25 "$log" | sed 's/^/    /'; } >"$log.fail"
	    cat "$log.fail" ;;
	esac
}

lane_release() {
	for t in $tests; do
		run_one "$t" "$PASST_BIN" ""
	done
}

lane_asan() {
	[ -n "${PASST_ASAN_BIN:-}" ] || return 0
	if [ "${ASAN_ALL:-0}" = 1 ]; then asan_tests=$tests
	else asan_tests=$(cd "$here" && grep -l '^# asan: yes' $tests 2>/dev/null)
	fi
	for t in $asan_tests; do
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
			run_one "$t" "$PASST_ASAN_BIN" "[asan]"
	done
}

if [ "${IT_LANES:-2}" -ge 2 ] && [ -n "${PASST_ASAN_BIN:-}" ]; then
	lane_asan &
	asan_pid=$!
	lane_release
	wait $asan_pid
else
	lane_release
	lane_asan
fi

pass=$(grep -c '^PASS' "$results")
fail=$(grep -c '^FAIL' "$results")
skip=$(grep -c '^SKIP' "$results")
failed=$(sed -n 's/^FAIL / /p' "$results" | tr -d '\n')
skipped=$(sed -n 's/^SKIP / /p' "$results" | tr -d '\n')
# Opt-in scripts this run left out, with what their "# opt-in:" line says
# (the make target that runs them)
# shellcheck disable=SC2013,SC2116 # file names without blanks; echo
# joins the list of tests on one line
optin=$(cd "$here" && for t in $(grep -l '^# opt-in:' [a-z]*.sh 2>/dev/null); do
	case " $(echo $tests) " in *" $t "*) continue ;; esac
	printf ' %s (%s)' "$t" "$(sed -n 's/^# opt-in: *//p' "$t" | head -n 1)"
done)
echo "integration: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}${skipped:+ (skipped:$skipped)}${optin:+ (opt-in, not run:$optin)}; logs in $logdir"
[ "$fail" -eq 0 ]
