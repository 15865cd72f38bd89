#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/fuzz/run.sh - Build the libFuzzer harnesses and run each for a while
#
# Usage: FUZZ_SECONDS=N test/fuzz/run.sh [HARNESS...]   (make fuzz does this)
#        FUZZ_RUNS=N [FUZZ_SECONDS=M] test/fuzz/run.sh [HARNESS...]
#
# Builds the daemon's objects with clang, coverage instrumentation
# (-fsanitize=fuzzer-no-link), ASan and UBSan into $FUZZ_BUILD (default
# build-fuzz), links each test/fuzz/HARNESS.c against them, and runs it for
# FUZZ_SECONDS seconds (default 60), one after the other.  With FUZZ_RUNS=N
# each harness instead runs N inputs (libFuzzer's -runs=N, the committed
# seeds included), with no time limit unless FUZZ_SECONDS is also given:
# the budget is then in executions, the same on a loaded or an idle machine.  New inputs go to
# a scratch corpus in $FUZZ_BUILD/fuzz/corpus/HARNESS; the committed seeds
# in test/fuzz/corpus/HARNESS are only read.  A crash, leak, UBSan report
# or timeout stops that harness and leaves its input in
# $FUZZ_BUILD/fuzz/crashes/: copy it to test/fuzz/regress/HARNESS/ (a name
# saying what it was) so that make check replays it from then on
# (test/unit/fuzz_regress_test.c).
#
# Prints executions per second and in total per harness; exit status 1 if
# any harness found something.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
runs=${FUZZ_RUNS:-}
case $runs in
''|*[!0-9]*)
	[ -z "$runs" ] || { echo "fuzz: FUZZ_RUNS=$runs: not a number"; exit 1; }
	secs=${FUZZ_SECONDS:-60} ;;
*)	secs=${FUZZ_SECONDS:-0} ;;
esac
build=${FUZZ_BUILD:-build-fuzz}
cc=${FUZZ_CC:-clang}
all="frame stream seq arp dhcp dhcpv6 ndp tcp_opt ports wire ctl conf vhost vhost_fds restart"
harnesses=${*:-$all}
# PKG_LIBS of the Makefile
pkgs="libnl-3.0 libnl-route-3.0 libnl-genl-3.0 libnl-idiag-3.0 libseccomp libcap-ng"

command -v "$cc" >/dev/null ||
	{ echo "fuzz: $cc not found (make deps installs clang)"; exit 1; }

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$build/fuzz/crashes"
echo "fuzz: building the daemon's objects with $cc into $build"
make --no-print-directory BUILD="$build" CC="$cc" SAN=1 \
	CFLAGS="-fsanitize=fuzzer-no-link" "$build/libcore-test.a" "$build/pasta" \
	>"$build/fuzz-build.log" 2>&1 ||
	{ cat "$build/fuzz-build.log"; exit 1; }

cflags="-std=c11 -D_GNU_SOURCE -DUNIT_TEST -O1 -g -fno-omit-frame-pointer -DSANITIZER_BUILD
	-Wall -Wextra -Wno-missing-field-initializers -I$build/gen
	$(pkg-config --cflags $pkgs)"
for h in $harnesses; do
	[ -f "test/fuzz/$h.c" ] || { echo "fuzz: no harness '$h'"; exit 1; }
	# shellcheck disable=SC2086,SC2046 # flag lists: one word per flag
	"$cc" $cflags -fsanitize=fuzzer $san -o "$build/fuzz/$h" \
		"test/fuzz/$h.c" test/unit/fake_conf.c "$build/libcore-test.a" \
		$(pkg-config --libs $pkgs) ||
		{ echo "fuzz: building $h failed"; exit 1; }
done

# Dictionary for the command line: every option the binaries know
dict="$build/fuzz/conf.dict"
{
	for m in passt pasta; do
		"$build/$m" --help 2>/dev/null
	done | grep -o -e '--[a-z0-9-]*' -e ' -[a-zA-Z0-9]\b' | sort -u |
		sed 's/^ //; s/.*/"&"/'
	# shellcheck disable=SC2258 # "," is one of the words tried
	for w in none all auto '~' : / , - 127.0.0.1 ::1 2001:db8::1 lo \
		198.51.100.1 nobody 0 65535 65536; do
		echo "\"$w\""
	done
} >"$dict"

found=0
summary=""
for h in $harnesses; do
	work="$build/fuzz/corpus/$h"
	log="$build/fuzz/$h.log"
	mkdir -p "$work" "test/fuzz/corpus/$h"
	case $h in
	frame|stream|seq) maxlen=16384 ;;
	vhost)		maxlen=32768 ;;
	vhost_fds)	maxlen=4096 ;;
	conf)		maxlen=1024 ;;
	*)		maxlen=2048 ;;
	esac
	extra=""
	[ "$h" = conf ] && extra="-dict=$dict -close_fd_mask=3"
	if [ -n "$runs" ]; then
		extra="$extra -runs=$runs"
		echo "fuzz: $h for $runs runs${FUZZ_SECONDS:+ or ${secs}s}"
	else
		echo "fuzz: $h for ${secs}s"
	fi
	rc=0
	# shellcheck disable=SC2086
	"$build/fuzz/$h" -max_total_time="$secs" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
		-artifact_prefix="$build/fuzz/crashes/$h-" $extra \
		"$work" "test/fuzz/corpus/$h" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ "$rc" -ne 0 ]; then
		found=1
		art=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
		echo "fuzz: $h FAILED (exit $rc), input: ${art:-?}, log: $log"
		grep -m 5 -e 'ERROR:' -e 'runtime error' -e 'SUMMARY' "$log" |
			sed 's/^/    /'
		result="FAIL"
	else
		result="ok"
	fi
	summary="$summary
$(printf '%-8s %-5s %12s %10s %8s' "$h" "$result" "${execs:-?}" \
	"${rate:-?}" "${cov:-?}")"
done

echo
printf '%-8s %-5s %12s %10s %8s\n' harness result executions "exec/s" edges
echo "$summary" | sed '/^$/d'
if [ -n "$runs" ]; then
	echo "(FUZZ_RUNS=$runs each${FUZZ_SECONDS:+, at most ${secs}s}; logs and crashes in $build/fuzz)"
else
	echo "(FUZZ_SECONDS=$secs each; logs and crashes in $build/fuzz)"
fi
exit $found
