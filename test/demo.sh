#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/demo.sh - What `make demo` shows: pasta connecting a namespace
#
# Everything happens in scratch namespaces with no route out of this
# machine (test/integration/lib.sh): a "host" namespace H (198.51.100.1,
# 2001:db8:1::1, default route via a "remote" namespace R at .2/::2), and the
# namespace N that pasta, started in H, connects.  Shown: N's configuration
# as pasta set it up, ping through it, a file moved both ways with md5
# sums, and iperf3 throughput both ways.
. "$(dirname "$0")/integration/lib.sh"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "scratch topology: H (where pasta runs) <-veth-> R (a remote peer); no route out"
setup_topology
ip -n "$H" -br addr show h0
ip -n "$H" route show default

say "pasta -f --config-net -t 5201,8080 --netns N   (started in H)"
PASTA_DEBUG=" " start_pasta -t 5201,8080
sed 's/^/  pasta: /' "$WORK/pasta.log"

say "N as pasta configured it: addresses, routes, MTU copied from H"
ip -n "$N" -br addr show
echo "h0 $(ip -n "$N" -o link show h0 | grep -o 'mtu [0-9]*')"
ip -n "$N" route show
ip -n "$N" -6 route show default

say "ping from N to the gateway address (pasta answers it from H's loopback)"
in_ns ping -c3 -i0.2 $R4
in_ns ping -6 -c3 -i0.2 $R6

say "64 MiB from N to an HTTP server on H's loopback, through the gateway address"
mkdir -p "$WORK/www"
make_file "$WORK/www/file" 64
( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8000 --bind 127.0.0.1 ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8000 '"
in_ns curl -s -o "$WORK/got" -w "  curl: %{size_download} bytes in %{time_total} s\n" \
	"http://$R4:8000/file"
echo "  md5 on H: $(md5sum < "$WORK/www/file" | cut -d' ' -f1)"
echo "  md5 in N: $(md5sum < "$WORK/got" | cut -d' ' -f1)"

say "64 MiB from R to N through the forwarded port -t 8080"
in_ns timeout 30 socat -u TCP-LISTEN:8080,reuseaddr OPEN:"$WORK/got2",creat,trunc &
srv=$!; track $srv
sleep 0.3
in_remote socat -u OPEN:"$WORK/www/file" TCP:$H4:8080
wait $srv
echo "  md5 on R: $(md5sum < "$WORK/www/file" | cut -d' ' -f1)"
echo "  md5 in N: $(md5sum < "$WORK/got2" | cut -d' ' -f1)"

say "iperf3, 3 s each way (numbers depend on this machine and its load)"
in_host iperf3 -s -B 127.0.0.1 -p 5202 -1 -D >/dev/null 2>&1
sleep 0.3
printf "  N -> H (tap, to the gateway):  "
in_ns iperf3 -c $R4 -p 5202 -t 3 -f g | awk '/receiver/ { print $7, $8 }'
in_ns iperf3 -s -p 5201 -1 -D >/dev/null 2>&1
sleep 0.3
printf "  R -> N (tap, forwarded -t):    "
in_remote iperf3 -c $H4 -p 5201 -t 3 -f g | awk '/receiver/ { print $7, $8 }'

say "pasta's counters (SIGUSR1)"
kill -USR1 "$PASTA_PID"
sleep 0.3
grep "stats:" "$WORK/pasta.log" | sed 's/^/  /'
stop_pasta
say "done: namespaces removed"
