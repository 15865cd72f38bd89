#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_all_nofile.sh - "-t all" with an ordinary descriptor limit
#
# With RLIMIT_NOFILE 4096 (soft and hard, CAP_SYS_RESOURCE dropped from
# the bounding set so that root can't raise it), "-t all" asks for some
# 37000 listening sockets.  pasta and passt must bind what the limit leaves
# after their own reserve, say so in one line naming -t and RLIMIT_NOFILE,
# start, and forward a port of the spec (2000) that fits.  Ports given
# explicitly that don't fit (-t 1-1010 with a limit of 1024) are an error
# at start: exit status 1, a message naming -t and RLIMIT_NOFILE.
# asan: yes
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
TT="python3 $here/tcptool.py"
REAL_PASST=$PASST_BIN
REAL_PASTA=$PASTA_BIN
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"

# limited NOFILE BIN - a wrapper in $WORK that runs BIN (keeping its name,
# for the mode) with RLIMIT_NOFILE NOFILE and no way to raise it
limited() {
	cat >"$WORK/lim-$1-$(basename "$2")" <<EOF
#!/bin/sh
ulimit -n $1 || exit 99
exec setpriv --bounding-set -sys_resource "$2" "\$@"
EOF
	chmod 755 "$WORK/lim-$1-$(basename "$2")"
	echo "$WORK/lim-$1-$(basename "$2")"
}

setup_topology

# 1. pasta -t all: starts, says what it skipped, forwards port 2000
PASTA_BIN=$(limited 4096 "$REAL_PASTA")
start_pasta -t all
wait_for grep -q -- "-t: [0-9]* ports skipped, RLIMIT_NOFILE 4096" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "pasta: no line about skipped -t ports"; }
[ "$(grep -c "ports skipped" "$WORK/pasta.log")" -eq 1 ] ||
	fail "pasta: more than one line about skipped ports"
wait_for grep -q "running as UID" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "pasta: set-up did not finish"; }
grep -q -e "Too many open files" -e "can't start the namespace socket helper" \
	"$WORK/pasta.log" &&
	{ cat "$WORK/pasta.log"; fail "pasta ran out of descriptors at start"; }
bg in_ns $TT serve-echo 2000
wait_for in_ns sh -c "ss -ltn | grep -q ':2000 '" || fail "echo server"
in_remote timeout 10 $TT hold $H4 2000 1 1 >"$WORK/hold" 2>&1 ||
	{ cat "$WORK/hold" "$WORK/pasta.log"; fail "pasta: -t all port 2000"; }
pasta_alive
stop_pasta
log "pasta -t all with RLIMIT_NOFILE 4096: started, port 2000 forwarded"

# 2. passt -t all: same, a SYN to the guest for port 2000
PASST_BIN=$(limited 4096 "$REAL_PASST")
S=$WORK/p.sock
start_passt "$S" -t all
wait_for grep -q -- "-t: [0-9]* ports skipped, RLIMIT_NOFILE 4096" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "passt: no line about skipped -t ports"; }
passt_expect_syn "$S" 2000 "$WORK/passt.log"
stop_passt
log "passt -t all with RLIMIT_NOFILE 4096: started, port 2000 forwarded"

# 3. Ports given explicitly that don't fit: refused at start
# refused NAME CMD... - exit status 1, a line naming -t and the limit
refused() {
	_n=$1; shift
	in_host timeout 10 "$@" >"$WORK/out" 2>&1 </dev/null
	rc=$?
	[ $rc -eq 1 ] || { cat "$WORK/out"; fail "$_n -t 1-1010: exit status $rc"; }
	grep -q -- "-t: .*RLIMIT_NOFILE 1024" "$WORK/out" ||
		{ cat "$WORK/out"; fail "$_n: message names neither -t nor the limit"; }
}
refused pasta "$(limited 1024 "$REAL_PASTA")" -t 1-1010 true
refused passt "$(limited 1024 "$REAL_PASST")" -f -t 1-1010 -s "$WORK/x.sock"
log "-t 1-1010 with RLIMIT_NOFILE 1024: refused, naming -t and the limit"

pass "-t all binds what the descriptor limit allows"
