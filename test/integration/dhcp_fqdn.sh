#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dhcp_fqdn.sh - --fqdn reaches a real DHCPv4 client (busybox udhcpc) as
# Client FQDN option 81 (RFC 4702): udhcpc -F sends option 81 with flags
# 0x01 (S set, E clear: the name in ASCII); the ACK must keep E clear and
# the ASCII form (section 4), carry flags N|O (0x0a, section 2.1: we do
# no update and override the client's S) and RCODE1 = RCODE2 = 255
# (section 2.2)
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v busybox >/dev/null || skip "busybox (udhcpc) not installed"

setup_topology
CONFIG_NET=0 start_pasta --fqdn guest.example.org
in_ns ip link set h0 up

cat > "$WORK/udhcpc.sh" <<'SH'
#!/bin/sh
[ "$1" = bound ] || exit 0
env | grep -E '^(ip|opt81|fqdn)=' | sort > "$LEASE_OUT"
SH
chmod +x "$WORK/udhcpc.sh"
LEASE_OUT=$WORK/lease in_ns timeout 20 busybox udhcpc -i h0 -f -q -n -t 5 \
	-s "$WORK/udhcpc.sh" -F vm -O 81 >"$WORK/udhcpc.log" 2>&1 ||
	{ cat "$WORK/udhcpc.log" "$WORK/pasta.log"; fail "udhcpc got no lease"; }
cat "$WORK/lease"

# flags 0a, RCODEs ff ff, "guest.example.org" in ASCII
want=0affff$(printf guest.example.org | od -An -tx1 | tr -d ' \n')
grep -qix "opt81=$want" "$WORK/lease" || grep -qix "fqdn=$want" "$WORK/lease" ||
	fail "option 81: expected $want"
grep -qx "ip=$H4" "$WORK/lease" || fail "lease: expected ip=$H4"
stop_pasta
pass "DHCPv4 ACK carries --fqdn as option 81"
