#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/conf_options.sh - Command line: help, bad options, effects
#
# Everything runs in the scratch host namespace H of lib.sh (h0 with
# 198.51.100.1/24 and 2001:db8:1::1/64, default routes via R); the
# machine's own network is never touched.
#
# 1. --help and --version of both binaries: exit 0, usage on stdout.
# 2. Bad options: exit 1, exactly one line on stderr, naming the option.
# 3. Effects of options on the namespace pasta configures (MTU, tap name
#    and MAC, addresses, gateway, -4).  This needs a pasta that actually
#    connects a namespace; until the daemon does, the script ends with 77
#    (skip) after parts 1 and 2 passed, saying so.
#
# asan: yes

. "$(dirname "$0")/lib.sh"

setup_topology

# expect_help BIN - --help exits 0 with a usage text on stdout, nothing on
# stderr; --version prints one line
expect_help() {
	bin=$1
	in_host "$bin" --help >"$WORK/out" 2>"$WORK/err"
	rc=$?
	[ $rc -eq 0 ] || fail "$(basename "$bin") --help: exit status $rc"
	head -n 1 "$WORK/out" | grep -q '^Usage: ' ||
		fail "$(basename "$bin") --help: no usage line"
	[ -s "$WORK/err" ] && fail "$(basename "$bin") --help wrote to stderr"
	in_host "$bin" --version >"$WORK/out" 2>"$WORK/err" ||
		fail "$(basename "$bin") --version: exit status $?"
	[ "$(wc -l <"$WORK/out")" -eq 1 ] ||
		fail "$(basename "$bin") --version: not one line"
}

# expect_bad BIN NAME ARGS... - exit status 1, one line on stderr that
# starts with the program name and contains NAME
expect_bad() {
	bin=$1
	name=$2
	shift 2
	prog=$(basename "$bin")
	in_host "$bin" "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$prog $*: exit status $rc, expected 1"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] ||
		fail "$prog $*: stderr is not one line: $(cat "$WORK/err")"
	grep -q "^$prog: " "$WORK/err" ||
		fail "$prog $*: no program name: $(cat "$WORK/err")"
	grep -qF -- "$name" "$WORK/err" ||
		fail "$prog $*: '$name' not named: $(cat "$WORK/err")"
	log "ok: $prog $* -> $(cat "$WORK/err")"
}

# 1. help and version
expect_help "$PASTA_BIN"
expect_help "$PASST_BIN"
in_host "$PASTA_BIN" --help | grep -q -- '--netns' ||
	fail "pasta --help doesn't list --netns"
in_host "$PASST_BIN" --help | grep -q -- '--socket' ||
	fail "passt --help doesn't list --socket"
# upstream warns that --stderr is deprecated, and goes on
in_host "$PASTA_BIN" --stderr --version >"$WORK/out" 2>"$WORK/err" ||
	fail "pasta --stderr --version: exit status $?"
grep -q -- "--stderr is deprecated" "$WORK/err" ||
	fail "--stderr: no deprecation warning: $(cat "$WORK/err")"

# 2. bad options, both binaries
for bin in "$PASTA_BIN" "$PASST_BIN"; do
	expect_bad "$bin" "-m/--mtu" -m 70000
	expect_bad "$bin" "-m/--mtu" -m 67
	expect_bad "$bin" "-m/--mtu" --mtu=abc
	expect_bad "$bin" "-m/--mtu" -m
	expect_bad "$bin" "-a/--address" -a 300.1.1.1
	expect_bad "$bin" "-a/--address" -a 127.0.0.1
	expect_bad "$bin" "-n/--netmask" -n 255.0.255.0
	expect_bad "$bin" "-M/--mac-addr" -M 01:00:5e:00:00:01
	expect_bad "$bin" "-g/--gateway" -g nowhere
	expect_bad "$bin" "-i/--interface" -i nosuchif0
	expect_bad "$bin" "-D/--dns" -D none -D 203.0.113.1
	expect_bad "$bin" "-S/--search" -S bad..example
	expect_bad "$bin" "-t/--tcp-ports" -t 0
	expect_bad "$bin" "-t/--tcp-ports" -t 80-22
	expect_bad "$bin" "-t/--tcp-ports" -t 22-80:32-89
	expect_bad "$bin" "-t/--tcp-ports" -t "[*]/80"
	expect_bad "$bin" "-t/--tcp-ports" -t none -t 22
	expect_bad "$bin" "-u/--udp-ports" -u 65536
	expect_bad "$bin" "-6/--ipv6-only" -4 -6
	expect_bad "$bin" "-q/--quiet" -q -d
	expect_bad "$bin" "--flow-max" --flow-max 0
	expect_bad "$bin" "--udp-timeout" --udp-timeout 86401
	expect_bad "$bin" "--runas" --runas no-such-user-conf-options
	expect_bad "$bin" "--devmem" --devmem eth0:64
	expect_bad "$bin" "--frobnicate" --frobnicate
	expect_bad "$bin" "-d/--debug" --debug=yes
	expect_bad "$bin" "-t/--tcp-ports" -6 -t 198.51.100.1/12345
	expect_bad "$bin" "-u/--udp-ports" -4 -u 2001:db8:1::1/12345
	expect_bad "$bin" "--map-guest-addr" --map-guest-addr $R4
	expect_bad "$bin" "--map-guest-addr" --map-guest-addr $H4
	expect_bad "$bin" "--runas" --runas 0:
done
expect_bad "$PASTA_BIN" "-T/--tcp-ns" -T 0
expect_bad "$PASTA_BIN" "-T/--tcp-ns" -6 -T 127.0.0.1/4322
expect_bad "$PASTA_BIN" "--netns" --netns x 1234
expect_bad "$PASTA_BIN" "-T/--tcp-ns" -T 22:192.0.2.1/22
expect_bad "$PASTA_BIN" "-t/--tcp-ports" -t "*/5000:192.0.2.5/6000"
expect_bad "$PASTA_BIN" "-t/--tcp-ports" -t 8000:9000,8001:9000,auto
expect_bad "$PASTA_BIN" "PID" 0
expect_bad "$PASTA_BIN" "passt" -s /tmp/x.socket
expect_bad "$PASST_BIN" "pasta" --netns x
expect_bad "$PASST_BIN" "pasta" -T 80
expect_bad "$PASST_BIN" "unexpected argument" 1234

# 2b. problems found in the namespace: the message names the option
make_target_ns
in_host "$PASTA_BIN" -f -I lo --netns "/run/netns/$N" >"$WORK/err" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$WORK/err"; fail "-I lo: exit status $rc, expected 1"; }
grep -q -- "-I/--ns-ifname: 'lo' is taken" "$WORK/err" ||
	fail "-I lo: message: $(cat "$WORK/err")"
log "ok: pasta -I lo -> $(tail -n 1 "$WORK/err")"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	in_host setpriv --reuid nobody --regid nogroup --clear-groups \
		"$PASTA_BIN" -f --netns "/run/netns/$N" >"$WORK/err" 2>&1
	rc=$?
	[ $rc -eq 1 ] || { cat "$WORK/err"; fail "rootless --netns: exit status $rc"; }
	grep -q -- "^--netns: .*(Operation not permitted): it belongs to a user namespace" \
		"$WORK/err" || fail "rootless --netns: message: $(cat "$WORK/err")"
	log "ok: rootless pasta --netns -> $(tail -n 1 "$WORK/err")"
fi

# 3. effects in the namespace
start_pasta -m 1400 -I tapx --ns-mac-addr 02:00:00:00:00:42 \
	-a 198.51.100.50 -g 198.51.100.2
wait_for grep -q 'template interface: h0' "$WORK/pasta.log" ||
	fail "no template interface line naming h0 in the log"
ip -n "$N" -o link show tapx >"$WORK/link" 2>&1 ||
	fail "-I tapx: no tapx in the namespace"
grep -q 'mtu 1400 ' "$WORK/link" || fail "-m 1400 not applied: $(cat "$WORK/link")"
grep -q 'link/ether 02:00:00:00:00:42 ' "$WORK/link" ||
	fail "--ns-mac-addr not applied: $(cat "$WORK/link")"
ip -n "$N" -4 -o addr show dev tapx | grep -q 'inet 198.51.100.50/24 ' ||
	fail "-a 198.51.100.50 not applied (prefix from h0: /24)"
ip -n "$N" -4 route show default | grep -q 'via 198.51.100.2 dev tapx' ||
	fail "-g 198.51.100.2 not applied"
ip -n "$N" -6 -o addr show dev tapx scope global | grep -q "inet6 $H6/64" ||
	fail "IPv6 address not copied from h0"
stop_pasta

start_pasta -4
ip -n "$N" -6 -o addr show scope global | grep -q inet6 &&
	fail "-4: the namespace has a global IPv6 address"
stop_pasta

pass "help, bad options and option effects"
