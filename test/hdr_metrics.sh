#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/hdr_metrics.sh - Literal density and header-struct uses (issue 28)
#
# Usage: test/hdr_metrics.sh [FILE.c...]   (default: the daemon's sources)
#
# Per file: code lines, numeric literals other than 0 and 1, and literals
# per 1000 code lines.  Comments are removed by the preprocessor without
# expanding macros (gcc -fpreprocessed), string and character literals are
# dropped, and preprocessor lines (#define, #include) are not code lines:
# a value given a name in a #define counts as named.  Then the total, and
# the number of uses of the system's header structs (struct iphdr,
# ip6_hdr, tcphdr, ...) in code, headers included.
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- lib/*.c conf/*.c tap/*.c passt/*.c splice/*.c entry/*.c
for f in "$@"; do
	gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null |
	sed -E 's/"([^"\\]|\\.)*"//g; s/'"'"'([^'"'"'\\]|\\.)*'"'"'//g' |
	awk -v f="$f" '
	NF && !/^#/ {
		lines++
		s = $0
		while (match(s, /(^|[^A-Za-z0-9_.])(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*/)) {
			t = substr(s, RSTART, RLENGTH)
			sub(/^[^0-9]/, "", t); sub(/[uUlL]+$/, "", t)
			if (t != "0" && t != "1") n++
			s = substr(s, RSTART + RLENGTH)
		}
	}
	END { printf "%-26s %6d lines %5d literals %7.1f /1000\n", f, lines,
		     n, lines ? 1000 * n / lines : 0 }'
done | awk '{ print; l += $2; n += $4 }
	END { printf "%-26s %6d lines %5d literals %7.1f /1000\n", "total", l,
		     n, l ? 1000 * n / l : 0 }'
hdrs=$(for f in lib/*.[ch] conf/*.[ch] tap/*.[ch] passt/*.[ch] splice/*.[ch] entry/*.[ch]; do
	gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null; done |
	grep -Eo 'struct (ethhdr|iphdr|ip6_hdr|ip6_ext|ipv6hdr|tcphdr|udphdr|icmphdr|icmp6_hdr|arphdr|ether_arp|nd_[a-z_]+|virtio_net_hdr[a-z_0-9]*|vring_[a-z]+|vhost_vring_[a-z]+)\b' |
	wc -l)
echo "system header struct uses: $hdrs"
