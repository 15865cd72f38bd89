#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# family_only.sh - -4 and -6 keep pasta to one address family:
#  - -6 -T 4322 -U 4323 listens on the namespace's ::1 only, -4 on
#    127.0.0.0/8 only (0.0.0.0 on lo; no socket of a disabled family);
#  - podman's fixed IPv4 arguments ("--dns-forward 169.254.1.1
#    --map-guest-addr 169.254.1.2") with -6 are ignored (a debug line),
#    pasta runs;
#  - an IPv4 -t address with -6 is refused, naming the option.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology

# listening ADDRS... - exactly these local addresses listen on 4322 (TCP)
# and 4323 (UDP) in N
listening() {
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	for p in "-Hltn 4322" "-Hlun 4323"; do
		set -- $p
		got=$(in_ns ss $1 | awk '{ print $4 }' | grep ":$2\$" |
		      sed "s/:$2\$//" | sort | tr '\n' ' ')
		[ "$got" = "$want" ] ||
			fail "ss $1 port $2: listening on '$got', expected '$want'"
	done
}

WAIT_S=3 start_pasta -6 -T 4322 -U 4323 --dns-forward 169.254.1.1 \
	--map-guest-addr 169.254.1.2
listening '[::1]'
grep -q -- "--dns-forward: IPv4 setting ignored with -6/--ipv6-only" \
	"$WORK/pasta.log" || { cat "$WORK/pasta.log"; fail "no debug line"; }
pasta_alive
stop_pasta

start_pasta -4 -T 4322 -U 4323
listening 0.0.0.0%lo	# all of 127.0.0.0/8
pasta_alive
stop_pasta

in_host "$PASTA_BIN" -6 -t 198.51.100.1/12345 --netns "/run/netns/$N" \
	>"$WORK/out" 2>&1 && fail "-t with an IPv4 address and -6 accepted"
grep -q -- "-t/--tcp-ports" "$WORK/out" || fail "not named: $(cat "$WORK/out")"
pass "one family with -4/-6; podman's IPv4 settings ignored with -6"
