#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_rootless.sh - the main use: an unprivileged user runs
# "pasta --config-net -- COMMAND"; pasta creates the user and network
# namespaces itself, the command sees the copied address, reaches the
# host's loopback HTTP server through the gateway address (curl, sha256
# equal) and pings it, and pasta exits with the command's exit status
#
# /dev/net/tun is 0600 on these machines (distributions ship 0666): a 0666
# node is bind-mounted over it in a private mount namespace, changing
# nothing on the machine (testing-recipes.md, "Rootless runs").
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || fail "setpriv missing (util-linux)"
setup_topology
mkdir -p "$WORK/www" "$WORK/out"
chmod 1777 "$WORK/out"
make_file "$WORK/www/file" 16
chmod 644 "$WORK/www/file"
want=$(sum "$WORK/www/file")
( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8081 --bind :: ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8081 '" || fail "http server"

cat > "$WORK/cmd.sh" <<SH
#!/bin/sh
id -u > $WORK/out/uid
ip -o addr show > $WORK/out/addr
curl -sf -o $WORK/out/file http://$R4:8081/file || exit 3
curl -sf -g -o $WORK/out/file6 "http://[$R6]:8081/file" || exit 4
ping -c2 -i0.2 -W2 $R4 > $WORK/out/ping || exit 5
exit 7
SH
chmod 755 "$WORK/cmd.sh"

in_host unshare -m sh -c "mknod -m 666 $WORK/tun c 10 200 &&
	mount --bind $WORK/tun /dev/net/tun &&
	exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$PASTA_BIN --config-net -d -l $WORK/out/pasta.log -- $WORK/cmd.sh" \
	> "$WORK/run.log" 2>&1
rc=$?
cat "$WORK/run.log"; cat "$WORK/out/addr" 2>/dev/null
[ "$rc" = 7 ] || { cat "$WORK/out/pasta.log" 2>/dev/null; fail "exit status $rc, expected the command's 7"; }
[ "$(cat "$WORK/out/uid")" = 0 ] || fail "command is not root in its user namespace"
grep -q "inet $H4/24" "$WORK/out/addr" || fail "address not copied"
[ "$(sum "$WORK/out/file")" = "$want" ] || fail "IPv4 download differs"
[ "$(sum "$WORK/out/file6")" = "$want" ] || fail "IPv6 download differs"
grep -q "2 received" "$WORK/out/ping" || fail "ping"
pass "rootless pasta: namespace, TCP both families, ping, exit status"
