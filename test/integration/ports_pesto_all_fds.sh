#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_pesto_all_fds.sh - "all" added at run time (pesto -A -t all) takes
# the listening share of RLIMIT_NOFILE that "-t all" gets at start, not
# every descriptor (a tester saw pasta go from 47 to 19999 descriptors of
# 20000: outbound TCP from the namespace failed, and the -c socket could no
# longer accept a client).
#
# pasta runs with RLIMIT_NOFILE 4096 (soft and hard, CAP_SYS_RESOURCE
# dropped from the bounding set so that root can't raise it) and
# "-c CTL -t none -u none".  passt(1) keeps, out of the limit, 64
# descriptors for set-up and a reserve of six for each of 64 flows:
#  - pesto -A -t all: accepted, some 3400 ports listen, one line (pesto's
#    output or pasta's log) names -t and RLIMIT_NOFILE 4096; pasta then
#    holds at most 4096 - 64 - 6 * 64 descriptors;
#  - a TCP connection from the namespace to R carries 64 KiB intact
#    (sha256); pesto still gets the tables (show);
#  - replacing "all" by "127.0.0.1/all" (old and new sockets would be open
#    at once during the change) stays within the same bound, and port 2000
#    on 127.0.0.1 still reaches the namespace (64 KiB, sha256);
#  - ports given one by one that don't fit (-A -t 40000-44999, 5000
#    sockets) are refused, naming RLIMIT_NOFILE, and nothing changes (the
#    rules, and the number of descriptors);
#  - replacing "127.0.0.1/all" by 3000-4999 (given one by one, 2000
#    sockets: room is made by closing the "all" sockets first): with port
#    3500 in use on H, refused naming it, and the "all" ports are back
#    (as many listen, 127.0.0.1:2000 reaches the namespace); once 3500 is
#    free, accepted: 2000 ports listen, within the same bound, and
#    $H4:4000 reaches the namespace (64 KiB, sha256);
#  - pesto -C host then clears the host side: nothing listens on H, and
#    pasta holds no more than 64 + 224 descriptors (set-up, and the socket
#    and pipe pools of pasta, passt(1)).
# asan: yes
. "$(dirname "$0")/lib.sh"

PESTO="$(dirname "$PASST_BIN")/pesto"
REAL_PASTA=$PASTA_BIN
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
LIMIT=4096
MAXFD=$((LIMIT - 64 - 6 * 64))
RA=198.51.100.3

cat >"$WORK/lim-pasta" <<EOF
#!/bin/sh
ulimit -n $LIMIT || exit 99
exec setpriv --bounding-set -sys_resource "$REAL_PASTA" "\$@"
EOF
chmod 755 "$WORK/lim-pasta"
PASTA_BIN=$WORK/lim-pasta

setup_topology
ip -n "$R" addr add $RA/24 dev r0
make_file "$WORK/data" 1
head -c 65536 "$WORK/data" >"$WORK/small"
want=$(sum "$WORK/small")
CTL="$WORK/ctl"

nfds() { ls "/proc/$PASTA_PID/fd" | wc -l; }
# shellcheck disable=SC2317 # called through wait_for
listening() {
	$1 ss -Hltn | awk '{ print $4 }' | grep -q ":$2\$"
}

# within WHAT - pasta holds at most MAXFD descriptors
within() {
	_n=$(nfds)
	[ "$_n" -le $MAXFD ] || { tail -5 "$WORK/pasta.log";
		fail "$1: pasta holds $_n descriptors, more than $MAXFD (RLIMIT_NOFILE $LIMIT less the reserve)"; }
	log "$1: pasta holds $_n descriptors (at most $MAXFD)"
}

# outbound WHAT - 64 KiB from the namespace to R (RA, not the gateway,
# which stands for H's loopback) over TCP, intact
outbound() {
	rm -f "$WORK/got"
	bg in_remote timeout 30 socat -u TCP4-LISTEN:5555,bind=$RA,reuseaddr \
		OPEN:"$WORK/got",creat,trunc
	_s=$BG_PID
	wait_for listening in_remote 5555 || fail "$1: server in R"
	in_ns timeout 20 socat -u OPEN:"$WORK/small" TCP4:$RA:5555 ||
		{ tail -5 "$WORK/pasta.log"; fail "$1: outbound TCP connection failed"; }
	wait $_s
	_got=$(sum "$WORK/got")
	[ "$_got" = "$want" ] || fail "$1: outbound TCP: sha256 $_got, sent $want"
	log "$1: outbound TCP from the namespace: 64 KiB intact"
}

# inbound WHAT ADDR [PORT] - 64 KiB from H's ADDR:PORT (default 2000) to
# the namespace, intact
inbound() {
	_p=${3:-2000}
	rm -f "$WORK/got"
	bg in_ns timeout 30 socat -u TCP4-LISTEN:$_p,reuseaddr \
		OPEN:"$WORK/got",creat,trunc
	_s=$BG_PID
	wait_for listening in_ns $_p || fail "$1: server in the namespace"
	in_host timeout 20 socat -u OPEN:"$WORK/small" TCP4:$2:$_p ||
		{ tail -5 "$WORK/pasta.log"; fail "$1: $2:$_p not forwarded"; }
	wait $_s
	_got=$(sum "$WORK/got")
	[ "$_got" = "$want" ] || fail "$1: $2:$_p: sha256 $_got, sent $want"
	log "$1: $2:$_p -> namespace: 64 KiB intact"
}

start_pasta -c "$CTL" -t none -u none
lim=$(awk '/^Max open files/ { print $4 }' "/proc/$PASTA_PID/limits")
[ "$lim" = $LIMIT ] || fail "RLIMIT_NOFILE of pasta: $lim, not $LIMIT"
start=$(nfds)
log "start: pasta holds $start descriptors, RLIMIT_NOFILE $lim"

# 1. -A -t all
timeout 60 "$PESTO" -A -t all "$CTL" >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out"; tail -5 "$WORK/pasta.log"; fail "pesto -A -t all"; }
cat "$WORK/out"
n=$(in_host ss -Hltn | wc -l)
[ "$n" -ge 1000 ] || fail "-A -t all: only $n ports listen"
log "-A -t all: $n TCP ports listen on H"
within "-A -t all"
outbound "-A -t all"
timeout 20 "$PESTO" "$CTL" >"$WORK/show" 2>&1 ||
	{ cat "$WORK/show"; fail "-A -t all: pesto show failed"; }
grep -q -- '^-t ' "$WORK/show" || { cat "$WORK/show"; fail "show: no -t rule"; }
log "-A -t all: pesto show works"
grep -q -- "-t: .*RLIMIT_NOFILE $LIMIT" "$WORK/out" "$WORK/pasta.log" ||
	fail "-A -t all: no line naming -t and RLIMIT_NOFILE $LIMIT"

# 2. all -> 127.0.0.1/all: old and new sockets at once while it changes
timeout 60 "$PESTO" -t 127.0.0.1/all "$CTL" >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out"; tail -5 "$WORK/pasta.log"; fail "pesto -t 127.0.0.1/all"; }
within "-t 127.0.0.1/all"
inbound "-t 127.0.0.1/all" 127.0.0.1
outbound "-t 127.0.0.1/all"

# 3. Ports given explicitly beyond the limit: refused, nothing changed
timeout 20 "$PESTO" "$CTL" >"$WORK/rules" || fail "pesto show"
before=$(nfds)
timeout 60 "$PESTO" -A -t 40000-44999 "$CTL" >"$WORK/out" 2>&1 &&
	{ cat "$WORK/out"; fail "-A -t 40000-44999: accepted"; }
grep -q "RLIMIT_NOFILE" "$WORK/out" ||
	{ cat "$WORK/out"; fail "-A -t 40000-44999: message doesn't name RLIMIT_NOFILE"; }
log "-A -t 40000-44999: refused: $(tail -1 "$WORK/out")"
timeout 20 "$PESTO" "$CTL" >"$WORK/rules.now" || fail "pesto show after refusal"
cmp -s "$WORK/rules" "$WORK/rules.now" ||
	{ diff "$WORK/rules" "$WORK/rules.now"; fail "refused change changed the rules"; }
after=$(nfds)
[ "$after" -le $((before + 64)) ] ||
	fail "refused change: descriptors $before before, $after after"
within "refused -A -t 40000-44999"

# 4. 127.0.0.1/all -> 3000-4999: 2000 sockets for ports given, more than
# the room left while the "all" sockets are open: those are closed first.
# With port 3500 in use on H, the change is refused, and the "all" ports
# are back (127.0.0.1:2000 forwarded, as many ports listen)
n0=$(in_host ss -Hltn | wc -l)
bg in_host timeout 60 socat TCP4-LISTEN:3500,bind=$H4 /dev/null
busy=$BG_PID
wait_for listening in_host 3500 || fail "busy listener on $H4:3500"
timeout 60 "$PESTO" -t 3000-4999 "$CTL" >"$WORK/out" 2>&1 &&
	{ cat "$WORK/out"; fail "-t 3000-4999 with 3500 in use: accepted"; }
grep -q "3500" "$WORK/out" || { cat "$WORK/out"; fail "-t 3000-4999: message doesn't name port 3500"; }
log "-t 3000-4999, 3500 in use: refused: $(tail -1 "$WORK/out")"
kill $busy 2>/dev/null; wait $busy 2>/dev/null
timeout 20 "$PESTO" "$CTL" >"$WORK/rules.now" || fail "pesto show after refusal"
cmp -s "$WORK/rules" "$WORK/rules.now" ||
	{ diff "$WORK/rules" "$WORK/rules.now"; fail "refused change changed the rules"; }
n=$(in_host ss -Hltn | wc -l)
[ "$n" -ge $((n0 - 2)) ] || fail "refused change: $n0 ports listened before, $n after"
within "refused -t 3000-4999"
inbound "refused -t 3000-4999" 127.0.0.1
timeout 60 "$PESTO" -t 3000-4999 "$CTL" >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out"; tail -5 "$WORK/pasta.log"; fail "pesto -t 3000-4999"; }
n=$(in_host ss -Hltn | wc -l)
[ "$n" -eq 2000 ] || fail "-t 3000-4999: $n ports listen on H"
within "-t 3000-4999"
inbound "-t 3000-4999" $H4 4000
outbound "-t 3000-4999"

# 5. -C host: everything on H closed
timeout 20 "$PESTO" -C host "$CTL" >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out"; fail "pesto -C host"; }
n=$(in_host ss -Hltn | wc -l)
[ "$n" -eq 0 ] || fail "-C host: $n TCP ports still listen on H"
n=$(nfds)
[ "$n" -le $((64 + 224)) ] ||
	fail "-C host: $n descriptors, more than set-up and pools (64 + 224)"
log "-C host: nothing listens on H, pasta holds $n descriptors"
outbound "-C host"
pasta_alive

pass "pesto -A -t all keeps pasta's descriptor reserve for flows and -c"
