#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_rootless.sh - the splice path when an unprivileged user runs
# "pasta -t PORT -T PORT -- COMMAND": pasta creates the user and network
# namespaces, its namespace socket helper enters them, and 20 MiB streams
# cross the splice both ways intact (sha256), none of them on the tap
#
# /dev/net/tun is 0600 on these machines: a 0666 node is bind-mounted over
# it in a private mount namespace (testing-recipes.md, "Rootless runs").
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || fail "setpriv missing (util-linux)"
T="python3 -u $(cd "$(dirname "$0")" && pwd)/tcptool.py"
SIZE=20971520
setup_topology
mkdir -p "$WORK/out"
chmod 1777 "$WORK/out"
bg in_host $T serve-pattern 7702 --bind 127.0.0.1
wait_for in_host sh -c "ss -Hltn | grep -q ':7702 '" || fail "server in H"

# In the namespace: a server for the host's client, a client for -T, then
# wait (at most 60 s) until the host's client is done
cat > "$WORK/cmd.sh" <<SH
#!/bin/sh
$T serve-pattern 5701 --bind :: > /dev/null 2>&1 &
srv=\$!
$T fetch 127.0.0.1 5702 rootless-ns $SIZE > $WORK/out/ns_fetch 2>&1 || echo fail >> $WORK/out/ns_fetch
touch $WORK/out/ready
i=0
while [ ! -e $WORK/out/done ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
kill \$srv
exit 7
SH
chmod 755 "$WORK/cmd.sh"

in_host unshare -m sh -c "mknod -m 666 $WORK/tun c 10 200 &&
	mount --bind $WORK/tun /dev/net/tun &&
	exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$PASTA_BIN --config-net -d --stats -t 5701 -T 5702:7702 \
		-l $WORK/out/pasta.log -- $WORK/cmd.sh" > "$WORK/run.log" 2>&1 &
pasta=$!
track $pasta
WAIT_S=60 wait_for test -e "$WORK/out/ready" ||
	{ cat "$WORK/run.log" "$WORK/out/pasta.log"; fail "command in the namespace did not start"; }
in_host $T fetch 127.0.0.1 5701 rootless-host $SIZE || { touch "$WORK/out/done"; fail "host->ns fetch"; }
touch "$WORK/out/done"
wait $pasta
rc=$?
cat "$WORK/out/ns_fetch"
[ "$rc" = 7 ] || { cat "$WORK/run.log" "$WORK/out/pasta.log"; fail "exit status $rc, expected 7"; }
grep -q "bytes intact" "$WORK/out/ns_fetch" || fail "ns->host fetch through -T"
grep -q "namespace sockets $((32)) (IPv4)" "$WORK/out/pasta.log" ||
	{ cat "$WORK/out/pasta.log"; fail "namespace socket helper did not fill its pool"; }
line=$(grep 'stats: spliced flows' "$WORK/out/pasta.log")
log "$line"
echo "$line" | grep -q "spliced flows 2 closed 2," || fail "expected 2 spliced connections"
grep -q 'stats: TCP flows opened 0 ' "$WORK/out/pasta.log" || fail "a connection took the tap path"
pass "rootless pasta splices both ways"
