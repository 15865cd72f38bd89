#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dhcp_lease.sh - a real DHCPv4 client (busybox udhcpc) in the namespace
# gets exactly the lease we configured: address and mask copied from H
# (198.51.100.1/24), router 198.51.100.2, the -D server, the -S domain, and
# the MTU (option 26, RFC 2132 5.1) given with -m
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
CONFIG_NET=0 start_pasta -m 9000 -D 198.51.100.53 -S test.example --dhcp-dns --dhcp-search
in_ns ip link set h0 up

cat > "$WORK/udhcpc.sh" <<'SH'
#!/bin/sh
[ "$1" = bound ] || exit 0
env | grep -E '^(ip|subnet|router|dns|mtu|domain|search|serverid|lease)=' | sort > "$LEASE_OUT"
SH
chmod +x "$WORK/udhcpc.sh"
LEASE_OUT=$WORK/lease in_ns timeout 20 busybox udhcpc -i h0 -f -q -n -t 5 \
	-s "$WORK/udhcpc.sh" -O mtu -O search >"$WORK/udhcpc.log" 2>&1 ||
	{ cat "$WORK/udhcpc.log" "$WORK/pasta.log"; fail "udhcpc got no lease"; }
cat "$WORK/lease"

check() { grep -qx "$1" "$WORK/lease" || fail "lease: expected $1"; }
check "ip=$H4"
check "subnet=255.255.255.0"
check "router=$R4"
check "dns=198.51.100.53"
check "mtu=9000"
check "serverid=$R4"
grep -q "test.example" "$WORK/lease" || fail "lease: no test.example domain"
stop_pasta
pass "DHCPv4 lease matches the configuration"
