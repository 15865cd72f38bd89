#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_bulk.sh - 100 MiB each way through the tap path, IPv4 and IPv6, with
# SO_PEEK_OFF and with the forced fallback (--no-peek-offset), at the
# default MTU and at 1500
#
# namespace -> host: socat in N sends to the gateway address, which pasta
# maps to H's loopback.  host -> namespace: socat in R (a non-loopback
# source, so no splice) sends to H's address on a -t forwarded port.
# md5 of what arrived must equal md5 of what was sent.
# asan: no (bulk data: tcp_concurrent, splice_concurrent and tcp_uploads_backlog run these paths under ASan, CI time)
. "$(dirname "$0")/lib.sh"

SIZE=${SIZE:-100}
setup_topology
make_file "$WORK/src" "$SIZE"
want=$(md5sum < "$WORK/src")

# Both readers with 64 KiB frames (the default MTU), and both with
# 1500-byte frames (many more segments per batch)
for mode in "" "--no-peek-offset" "-m 1500" "-m 1500 --no-peek-offset"; do
	start_pasta -t 5001 $mode
	case "$mode" in
	*--no-peek-offset*) line="peek with discard buffer" ;;
	*) line="SO_PEEK_OFF" ;;
	esac
	wait_for grep -q "TCP reader: $line" "$WORK/pasta.log" ||
		{ cat "$WORK/pasta.log"; fail "reader line"; }

	for fam in 4 6; do
		if [ $fam = 4 ]; then gw=$R4; hs=$H4; lo=127.0.0.1; else gw="[$R6]"; hs="[$H6]"; lo="[::1]"; fi

		# namespace -> host loopback, through the gateway address
		rm -f "$WORK/dst"
		in_host timeout 60 socat -u TCP$fam-LISTEN:5002,bind=$lo,reuseaddr \
			OPEN:"$WORK/dst",creat,trunc &
		srv=$!; track $srv
		wait_for in_host sh -c "ss -ltn | grep -q ':5002 '"
		in_ns timeout 60 socat -u OPEN:"$WORK/src" TCP$fam:$gw:5002 ||
			fail "IPv$fam ns->host: socat client ($mode)"
		wait $srv
		got=$(md5sum < "$WORK/dst")
		[ "$got" = "$want" ] || fail "IPv$fam ns->host: md5 differs ($mode)"
		log "IPv$fam ns->host ${SIZE} MiB intact ${mode:-(SO_PEEK_OFF)}"

		# remote -> namespace through -t 5001
		rm -f "$WORK/dst"
		in_ns timeout 60 socat -u TCP$fam-LISTEN:5001,reuseaddr \
			OPEN:"$WORK/dst",creat,trunc &
		srv=$!; track $srv
		wait_for in_ns sh -c "ss -ltn | grep -q ':5001 '"
		in_remote timeout 60 socat -u OPEN:"$WORK/src" TCP$fam:$hs:5001 ||
			fail "IPv$fam host->ns: socat client ($mode)"
		wait $srv
		got=$(md5sum < "$WORK/dst")
		[ "$got" = "$want" ] || fail "IPv$fam host->ns: md5 differs ($mode)"
		log "IPv$fam host->ns ${SIZE} MiB intact ${mode:-(SO_PEEK_OFF)}"
	done
	pasta_alive
	stop_pasta
done
pass "bulk transfers intact both ways, both families, both readers"
