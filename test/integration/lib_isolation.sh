# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/lib_isolation.sh - Checks of a daemon's isolation
#
# Sourced after lib.sh by isolation_*.sh.  Expected values are those of
# proc(5) and capabilities(7): capability sets are 16 hex digits, bit N set
# for capability N (CAP_NET_BIND_SERVICE is 10: 0000000000000400);
# "Seccomp: 2" is SECCOMP_MODE_FILTER; NoNewPrivs 1 is prctl(PR_SET_NO_NEW_PRIVS).

CAP_NONE=0000000000000000
# shellcheck disable=SC2034 # for the scripts that source this
CAP_NET_BIND_SERVICE_ONLY=0000000000000400

# proc_field PID FIELD - value of a field of /proc/PID/status
proc_field() {
	awk -v f="$2:" '$1 == f { print $2; exit }' "/proc/$1/status"
}

# expect_field PID FIELD VALUE
expect_field() {
	v=$(proc_field "$1" "$2")
	[ "$v" = "$3" ] || { grep -E '^(Uid|Gid|Groups|Cap|NoNewPrivs|Seccomp)' "/proc/$1/status"; fail "$2 is '$v', expected '$3'"; }
}

# wait_isolated PID - wait until the seccomp filter is in place (the last stage)
wait_isolated() {
	wait_for sh -c "grep -q '^Seccomp:[[:space:]]*2' /proc/$1/status" ||
		{ cat "$WORK/pasta.log" 2>/dev/null; fail "no seccomp filter on PID $1"; }
}

# expect_isolated PID CAPEFF - capabilities, no_new_privs, seccomp, empty root
expect_isolated() {
	wait_isolated "$1"
	expect_field "$1" CapEff "$2"
	expect_field "$1" CapPrm "$2"
	expect_field "$1" CapInh $CAP_NONE
	expect_field "$1" CapBnd $CAP_NONE
	expect_field "$1" CapAmb $CAP_NONE
	expect_field "$1" NoNewPrivs 1
	expect_field "$1" Seccomp 2
	root=$(ls -A "/proc/$1/root/" 2>&1) || fail "can't list /proc/$1/root: $root"
	[ -z "$root" ] || fail "/proc/$1/root is not empty: $root"
	log "PID $1: CapEff $2, bounding and ambient sets empty, no_new_privs, seccomp filter, empty root"
}

# expect_ns_detached PID REFPID NS... - namespaces of PID differ from REFPID's
expect_ns_detached() {
	p=$1; ref=$2; shift 2
	for ns in "$@"; do
		a=$(readlink "/proc/$p/ns/$ns"); b=$(readlink "/proc/$ref/ns/$ns")
		[ -n "$a" ] && [ "$a" != "$b" ] || fail "$ns namespace not detached: $a (host: $b)"
	done
	log "PID $p: own $* namespaces"
}

# expect_ns_shared PID REFPID NS... - namespaces of PID equal REFPID's
expect_ns_shared() {
	p=$1; ref=$2; shift 2
	for ns in "$@"; do
		a=$(readlink "/proc/$p/ns/$ns"); b=$(readlink "/proc/$ref/ns/$ns")
		[ "$a" = "$b" ] || fail "$ns namespace: $a, expected $b"
	done
}
