#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/systemd/nspawn.sh - The shipped units under a real systemd, booted in
# a systemd-nspawn container (make check-nspawn; not part of make check)
#
# The container boots the host's own /usr (--volatile=yes: a tmpfs root,
# nothing written to the host), with a network namespace of its own
# (--private-network: lo only, plus the veth this script adds inside), the
# units from contrib/systemd pointing at /opt/passt (the build), and a
# target that runs inside.sh instead of the usual boot.  inside.sh shows:
#   systemctl start passt@vm1.socket; a guest (passt_client.py) connecting
#   starts passt@vm1.service; its lease and a TCP download; Type=notify
#   status; the unprivileged dynamic user, no capabilities, seccomp
#   passt-vm2.service (pattern 1 of passt.1: passt binds its own socket in
#   a RuntimeDirectory=): ready, a lease, everything removed at stop
#   systemctl start web.service (PrivateNetwork=yes, JoinsNamespaceOf=
#   pasta-netns@web.service) pulls in pasta@web.service, which is ready
#   (READY=1) before web.service starts; curl from the container's host
#   side through pasta's -t 8080:80; stopping pasta@ removes the name
# Output: "PASS ..." / "FAIL ..." lines, the full log in $WORK/run.log.
# Needs root and systemd-nspawn (Debian package systemd-container).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${PASST_BIN:?PASST_BIN must point to the passt binary}"
BIN=$(cd "$(dirname "$PASST_BIN")" && pwd)
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v systemd-nspawn >/dev/null ||
	{ echo "skip: systemd-nspawn missing (make deps-nspawn)"; exit 77; }

WORK=$(mktemp -d /tmp/passt-nspawn.XXXXXX)
mkdir -p "$WORK/units/pasta@web.service.d" "$WORK/test" "$WORK/out"
for f in "$top"/contrib/systemd/*; do
	sed 's|@BINDIR@|/opt/passt|g' "$f" > "$WORK/units/$(basename "$f" .in)"
done
printf '[Service]\nEnvironment=PASTA_OPTS="-t 8080:80"\n' \
	> "$WORK/units/pasta@web.service.d/opts.conf"

cat > "$WORK/units/web.service" <<'EOF'
[Unit]
Description=web server in a network namespace of its own
Requires=pasta@web.service
After=pasta@web.service
JoinsNamespaceOf=pasta-netns@web.service

[Service]
PrivateNetwork=yes
ExecStart=/usr/bin/python3 -m http.server 80 --directory /opt/test
DynamicUser=yes
AmbientCapabilities=CAP_NET_BIND_SERVICE
EOF
# Pattern 1 of passt.1: passt binds its own socket in a runtime directory
cat > "$WORK/units/passt-vm2.service" <<'EOF'
[Unit]
Description=passt for vm2
Wants=network-online.target
After=network-online.target

[Service]
Type=notify
ExecStart=/opt/passt/passt -f -t 2222:22 -s /run/passt-vm2/passt.socket
RuntimeDirectory=passt-vm2
DynamicUser=yes
NoNewPrivileges=yes
CapabilityBoundingSet=
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
SystemCallArchitectures=native
EOF
cat > "$WORK/units/sdtest.target" <<'EOF'
[Unit]
Description=passt unit test
Requires=sdtest.service
After=sdtest.service
EOF
cat > "$WORK/units/sdtest.service" <<'EOF'
[Service]
Type=oneshot
ExecStart=/bin/sh /opt/test/inside.sh
StandardOutput=append:/out/run.log
StandardError=append:/out/run.log
ExecStopPost=/bin/systemctl --no-block poweroff
EOF

cat > "$WORK/test/inside.sh" <<'EOF'
ok() { echo "PASS $*" | tee -a /out/result; }
no() { echo "FAIL $*" | tee -a /out/result; }
pid_of() { systemctl show -P MainPID "$1"; }
echo "== PID 1: $(cat /proc/1/comm), $(systemctl --version | head -n 1)"
# The container's "host" side: documentation addresses, a default route
ip link add h0 type veth peer name r0 && ip link set r0 up
ip addr add 198.51.100.1/24 dev h0 && ip link set h0 up
ip route add default via 198.51.100.2 dev h0
ip -6 addr add 2001:db8:1::1/64 dev h0 nodad
ip -6 route add default via 2001:db8:1::2 dev h0
python3 /opt/it/tcptool.py serve-pattern 8081 --bind 127.0.0.1 &
sleep 0.5

echo "== systemctl start passt@vm1.socket"
systemctl start passt@vm1.socket
systemctl --no-pager status passt@vm1.socket | head -n 7
[ "$(systemctl is-active passt@vm1.service)" = inactive ] &&
	ok "passt@vm1.service not started before a guest connects"
timeout 30 python3 /opt/it/passt_client.py tcp /run/passt/vm1.socket \
	198.51.100.2 8081 seed 200000 > /tmp/guest 2>&1
cat /tmp/guest
grep -q "sha256 ok" /tmp/guest && ok "guest: lease and 200000-byte download through the activated socket"
systemctl --no-pager status passt@vm1.service | head -n 9
case $(systemctl show -P StatusText passt@vm1.service) in
"listening on /run/passt/vm1.socket; TCP reader: "*) ok "Type=notify: STATUS= shown by systemctl" ;;
esac
st=/proc/$(pid_of passt@vm1.service)/status
grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' "$st"
grep -q '^Uid:[[:space:]]*0[[:space:]]' "$st" || ok "passt runs as the dynamic user"
grep -q '^CapBnd:[[:space:]]*0000000000000000' "$st" && ok "passt: empty bounding set"
timeout 30 python3 /opt/it/passt_client.py lease /run/passt/vm1.socket |
	grep -q "^address 198.51.100.1" && ok "second guest served"
journalctl --no-pager -o cat -u passt@vm1.service | tail -n 10
systemctl stop passt@vm1.service passt@vm1.socket

echo "== systemctl start passt-vm2.service (pattern 1)"
systemctl start passt-vm2.service
[ -S /run/passt-vm2/passt.socket ] && [ "$(systemctl is-active passt-vm2.service)" = active ] &&
	ok "passt-vm2.service ready with its own socket"
timeout 30 python3 /opt/it/passt_client.py lease /run/passt-vm2/passt.socket |
	grep -q "^address 198.51.100.1" && ok "passt-vm2: guest lease"
systemctl stop passt-vm2.service
[ ! -e /run/passt-vm2 ] && ok "passt-vm2: socket and runtime directory gone after stop"

echo "== systemctl start web.service"
systemctl start web.service
systemctl --no-pager status pasta@web.service | head -n 9
t_ready=$(systemctl show -P ExecMainStartTimestampMonotonic web.service)
t_pasta=$(systemctl show -P ActiveEnterTimestampMonotonic pasta@web.service)
[ "$t_pasta" -gt 0 ] && [ "$t_ready" -ge "$t_pasta" ] &&
	ok "web.service started after pasta@web.service was ready ($t_pasta <= $t_ready us)"
case $(systemctl show -P StatusText pasta@web.service) in
"namespace configured: /run/netns/web, interface "*) ok "pasta@: STATUS= says the namespace is configured" ;;
esac
[ "$(ip netns identify "$(pid_of web.service)")" = web ] &&
	ok "web.service (PrivateNetwork=yes, JoinsNamespaceOf=) is in pasta's namespace"
grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' "/proc/$(pid_of pasta@web.service)/status"
for i in 1 2 3 4 5 6 7 8 9 10; do
	curl -sS -o /tmp/got http://127.0.0.1:8080/inside.sh 2>/dev/null && break
	sleep 0.3
done
cmp -s /tmp/got /opt/test/inside.sh && ok "curl 127.0.0.1:8080 reaches web.service's port 80"
journalctl --no-pager -o cat -u pasta@web.service | tail -n 8
systemctl stop web.service pasta@web.service
sleep 1
[ "$(systemctl is-active pasta-netns@web.service)" = inactive ] &&
	[ -z "$(ip netns list)" ] && ok "pasta-netns@web stopped with pasta@web, namespace name removed"
echo "== done"
EOF

timeout 300 systemd-nspawn -D / --volatile=yes --private-network \
	--register=no --keep-unit --machine="passt-$(basename "$WORK" | cut -d. -f2)" \
	--bind-ro="$WORK/units:/etc/systemd/system" --bind-ro="$WORK/test:/opt/test" \
	--bind="$WORK/out:/out" --bind-ro="$BIN:/opt/passt" \
	--bind-ro="$top/test/integration:/opt/it" \
	--bind-ro=/etc/passwd --bind-ro=/etc/group --bind-ro=/etc/nsswitch.conf \
	-b -- systemd.unit=sdtest.target systemd.firstboot=off \
	> "$WORK/nspawn.log" 2>&1
cp "$WORK/out/run.log" "$WORK/run.log" 2>/dev/null
cat "$WORK/out/result" 2>/dev/null
n=$(grep -c '^PASS' "$WORK/out/result" 2>/dev/null)
echo "nspawn: ${n:-0} of 14 checks passed; logs in $WORK"
[ "${n:-0}" = 14 ]
